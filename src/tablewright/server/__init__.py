"""The engine over DynamoDB's HTTP JSON protocol (``tablewright serve``).

``ServerThread(handler)`` serves any ``handler(operation, request) -> response`` (normally
``Engine.handle``) on a background thread; ``run(handler, ...)`` serves in the foreground until
SIGINT/SIGTERM. See docs/server.md.
"""

from tablewright.server.credentials import AuthFileError, load_credentials
from tablewright.server.http import MAX_BODY, HttpServer
from tablewright.server.protocol import DynamoDBProtocol, Handler, Response
from tablewright.server.runner import ServerThread, check_port, run, url_for
from tablewright.server.sigv4 import Verifier

__all__ = [
    "MAX_BODY",
    "AuthFileError",
    "DynamoDBProtocol",
    "Handler",
    "HttpServer",
    "Response",
    "ServerThread",
    "Verifier",
    "check_port",
    "load_credentials",
    "run",
    "url_for",
]
