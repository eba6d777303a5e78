"""DynamoDB's JSON protocol, without any I/O: one HTTP request in, one HTTP response out.

The steps follow the real service's front end: method and path, authentication, the
``X-Amz-Target`` header, the content type, the JSON body, then the operation. Which targets
exist is read from botocore's service models (data, not code), so a new DynamoDB operation is
served as soon as botocore and the engine know it.
"""

from __future__ import annotations

import itertools
import logging
import os
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache

import orjson
from botocore.loaders import Loader

from tablewright.engine.errors import DynamoDBError, InternalServerError
from tablewright.server.errors import (
    MethodNotAllowed,
    NotFound,
    SerializationException,
    UnknownOperationException,
)
from tablewright.server.sigv4 import Verifier

Handler = Callable[[str, dict], dict]

log = logging.getLogger("tablewright.server")

CONTENT_TYPE = "application/x-amz-json-1.0"
# What SDKs send (1.0) plus what people type by hand with curl; anything else is refused.
ACCEPTED_CONTENT_TYPES = frozenset({CONTENT_TYPE, "application/json", "application/x-amz-json-1.1"})
SERVICES = ("dynamodb", "dynamodbstreams")  # botocore service names served on the same endpoint
HEALTH_BODY = b"healthy: tablewright"
# Request ids: a random per-process prefix plus a counter, unique like DynamoDB's and far cheaper
# than uuid4 per request (which cost half of this module's time per request).
_ID_PREFIX = os.urandom(10).hex().upper()
_ids = itertools.count()
_JSON_KINDS = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}
_JSON_KINDS[type(None)] = "null"


@cache
def targets() -> dict[str, frozenset[str]]:
    """``{target prefix: operation names}`` for every service served, from botocore's models."""
    loader = Loader()
    table = {}
    for service in SERVICES:
        model = loader.load_service_model(service, "service-2")
        table[model["metadata"]["targetPrefix"]] = frozenset(model["operations"])
    return table


@dataclass(slots=True)
class Response:
    """An HTTP response ready to write: status, header pairs and body bytes."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes


def _respond(status: int, body: bytes, content_type: str = CONTENT_TYPE) -> Response:
    # boto3 checks x-amz-crc32 against the body and retries on a mismatch.
    return Response(
        status,
        [
            ("Content-Type", content_type),
            ("x-amzn-RequestId", f"{_ID_PREFIX}{next(_ids):012X}"),
            ("x-amz-crc32", str(zlib.crc32(body))),
        ],
        body,
    )


def error_response(error: DynamoDBError) -> Response:
    """The response DynamoDB sends for ``error``: its status and ``__type``/``message`` body."""
    return _respond(error.status, orjson.dumps(error.to_wire()))


class DynamoDBProtocol:
    """Turns an HTTP request into a call of ``handler(operation, request)`` and back."""

    def __init__(self, handler: Handler, verifier: Verifier | None = None) -> None:
        self.handler = handler
        self.verifier = verifier
        self.targets = targets()

    def __call__(
        self, method: str, path: str, query: str, headers: Mapping[str, str], body: bytes
    ) -> Response:
        """Answer one request. ``headers`` has lower-case names. Never raises."""
        try:
            return self._serve(method, path, query, headers, body)
        except DynamoDBError as error:
            return error_response(error)
        except Exception:
            # A bug in the engine must cost one request, not the server.
            log.exception("unexpected error serving %s", headers.get("x-amz-target"))
            return error_response(InternalServerError("Internal server error"))

    def _serve(self, method: str, path: str, query: str, headers: Mapping[str, str], body: bytes) -> Response:
        if path != "/":
            raise NotFound(
                f"No resource at path '{path}': DynamoDB's API is POST / with an X-Amz-Target header"
            )
        if method == "GET":  # the real endpoint answers GET / with a health line too
            return _respond(200, HEALTH_BODY, "text/plain")
        if method != "POST":
            raise MethodNotAllowed(f"Method {method} is not allowed on '/': DynamoDB's API takes POST")
        if self.verifier is not None:
            self.verifier.verify(method, path, query, headers, body)
        operation = self._operation(headers.get("x-amz-target"))
        content_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if content_type not in ACCEPTED_CONTENT_TYPES:
            raise SerializationException(
                f"Unsupported Content-Type '{content_type}': DynamoDB's JSON protocol takes '{CONTENT_TYPE}'"
            )
        request = self._decode(body)
        return _respond(200, orjson.dumps(self.handler(operation, request)))

    def _operation(self, target: str | None) -> str:
        if not target:
            raise UnknownOperationException(
                "Missing X-Amz-Target header: expected 'DynamoDB_20120810.<Operation>'"
            )
        prefix, _, operation = target.partition(".")
        if operation not in self.targets.get(prefix, ()):
            raise UnknownOperationException(f"Unknown operation in X-Amz-Target '{target}'")
        return operation

    @staticmethod
    def _decode(body: bytes) -> dict:
        if not body.strip():
            return {}  # DynamoDB treats an empty body as an empty request
        try:
            request = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            raise SerializationException(f"Request body is not valid JSON: {exc}") from None
        if not isinstance(request, dict):
            kind = _JSON_KINDS.get(type(request), type(request).__name__)
            raise SerializationException(f"Request body must be a JSON object, not {kind}")
        return request
