"""Errors the HTTP front end raises before a request reaches the engine.

DynamoDB answers protocol and authentication failures from its front end (the ``coral``
service framework), not from the table service, so their ``__type`` carries the
``com.amazon.coral.service#`` prefix. botocore keys on the part after ``#`` either way; the
prefix is kept for fidelity with what the real service sends.
"""

from __future__ import annotations

from tablewright.engine.errors import DynamoDBError

_CORAL = "com.amazon.coral.service#"


class FrontEndError(DynamoDBError):
    """A DynamoDB error raised by the HTTP layer (protocol, size or authentication)."""

    namespace = _CORAL


def _front(code: str, status: int = 400) -> type[FrontEndError]:
    return type(code, (FrontEndError,), {"code": code, "status": status, "__module__": __name__})


SerializationException = _front("SerializationException")
UnknownOperationException = _front("UnknownOperationException")
MissingAuthenticationTokenException = _front("MissingAuthenticationTokenException")
UnrecognizedClientException = _front("UnrecognizedClientException")
InvalidSignatureException = _front("InvalidSignatureException")
IncompleteSignatureException = _front("IncompleteSignatureException")
RequestEntityTooLarge = _front("RequestEntityTooLarge", 413)
NotFound = _front("NotFoundException", 404)
MethodNotAllowed = _front("MethodNotAllowedException", 405)
RequestTimeout = _front("RequestTimeoutException", 408)
BadRequest = _front("BadRequestException")
# What the front end answers for a body it cannot decode (an unknown or lying Content-Encoding).
InternalFailure = _front("InternalFailure", 500)
# The server is at its connection or buffer limit: 503, which every SDK retries with backoff.
ServiceUnavailable = _front("ServiceUnavailable", 503)
