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
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import orjson
from botocore.loaders import Loader

from tablewright.engine import encoded
from tablewright.engine.errors import (
    DynamoDBError,
    InternalServerError,
    StorageFailure,
    ThrottlingException,
    WouldBlock,
)
from tablewright.server.content import decode_body
from tablewright.server.errors import (
    MethodNotAllowed,
    NotFound,
    SerializationException,
    UnknownOperationException,
)
from tablewright.server.sigv4 import SignedHeaders, Verifier

Handler = Callable[[str, dict], dict]

log = logging.getLogger("tablewright.server")

CONTENT_TYPE = "application/x-amz-json-1.0"
# What SDKs send (1.0) plus what people type by hand with curl; anything else is refused.
ACCEPTED_CONTENT_TYPES = frozenset({CONTENT_TYPE, "application/json", "application/x-amz-json-1.1"})
SERVICES = ("dynamodb", "dynamodbstreams")  # botocore service names served on the same endpoint
# DynamoDB's largest requests (BatchWriteItem, BatchGetItem) are 16 MB; leave room for JSON framing.
# A compressed body is held to this once decompressed.
MAX_BODY = 16 * 1024 * 1024 + 256 * 1024
# Request ids: a random per-process prefix plus a counter, unique like DynamoDB's and far cheaper
# than uuid4 per request (which cost half of this module's time per request).
_ID_PREFIX = os.urandom(10).hex().upper()
_ids = itertools.count()
_JSON_KINDS = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}
_JSON_KINDS[type(None)] = "null"
_KNOWN = 256  # bound of the caches of header values (a client sending ever-new values cannot grow them)
# Operations that never write items or definitions: served by reader threads, never queued behind a
# write that is waiting for another process's lock on the file.
READ_OPERATIONS = frozenset(
    {"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems", "DescribeTable", "ListTables"}
    | {"DescribeTimeToLive", "DescribeLimits", "DescribeEndpoints", "ListTagsOfResource"}
    | {"DescribeContinuousBackups", "DescribeStream", "ListStreams", "GetRecords"}
)
# Operations that are one SQLite transaction each: tried at once on the event loop (never waiting
# for a lock) and, only if that would block, run again on a worker thread. Anything else (control
# plane, PartiQL, which may commit several transactions) goes straight to a worker thread.
TRY_NOW_OPERATIONS = READ_OPERATIONS | {
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
}


@cache
def targets() -> dict[str, frozenset[str]]:
    """``{target prefix: operation names}`` for every service served, from botocore's models."""
    loader = Loader()
    table = {}
    for service in SERVICES:
        model = loader.load_service_model(service, "service-2")
        table[model["metadata"]["targetPrefix"]] = frozenset(model["operations"])
    return table


@cache
def bodiless_operations() -> frozenset[str]:
    """Operations whose model has no output shape (TagResource, UntagResource): DynamoDB answers
    them with an empty body, not ``{}``."""
    loader = Loader()
    return frozenset(
        name
        for service in SERVICES
        for name, operation in loader.load_service_model(service, "service-2")["operations"].items()
        if "output" not in operation
    )


class Response:
    """An HTTP response ready to write: status, header lines and body bytes.

    The headers are kept as the bytes of their lines (``Name: value`` and CRLF each), the form they are
    written in: built once, never re-encoded per response on the hot path. ``headers`` reads them back
    as pairs.
    """

    __slots__ = ("status", "fields", "body")

    def __init__(self, status: int, headers: Sequence[tuple[str, str]] | bytes, body: bytes) -> None:
        self.status = status
        self.fields = (
            headers
            if type(headers) is bytes
            else "".join([f"{name}: {value}\r\n" for name, value in headers]).encode("latin-1")
        )
        self.body = body

    @property
    def headers(self) -> list[tuple[str, str]]:
        """The header (name, value) pairs, in order."""
        lines = self.fields.decode("latin-1").split("\r\n")
        return [tuple(line.split(": ", 1)) for line in lines if line]  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"Response({self.status}, {self.headers!r}, {self.body[:80]!r})"


# The headers of a JSON answer up to its request id's counter, and the rest: one bytes formatting per
# answer (``_respond`` is on every request's path).
_JSON_FIELDS = b"Content-Type: %s\r\nx-amzn-RequestId: %s" % (CONTENT_TYPE.encode(), _ID_PREFIX.encode())
_TYPED_FIELDS = b"Content-Type: %s\r\nx-amzn-RequestId: %s\r\nx-amz-crc32: %d\r\n"


def _respond(
    status: int, body: bytes, content_type: str = CONTENT_TYPE, request_id: str | None = None
) -> Response:
    # boto3 checks x-amz-crc32 against the body and retries on a mismatch.
    if content_type is CONTENT_TYPE and request_id is None:
        fields = b"%s%012X\r\nx-amz-crc32: %d\r\n" % (_JSON_FIELDS, next(_ids), zlib.crc32(body))
    else:
        request_id = (request_id or new_request_id()).encode("latin-1")
        fields = _TYPED_FIELDS % (content_type.encode("latin-1"), request_id, zlib.crc32(body))
    return Response(status, fields, body)


def new_request_id() -> str:
    """A request id as DynamoDB's are shaped: unique, upper-case hex."""
    return f"{_ID_PREFIX}{next(_ids):012X}"


def error_response(error: DynamoDBError) -> Response:
    """The response DynamoDB sends for ``error``: its status and ``__type``/``message`` body."""
    return _respond(error.status, orjson.dumps(error.to_wire()))


def internal_error_response(operation: str | None, error: BaseException) -> Response:
    """A 500 whose body carries a request id and never Python's error text; the traceback is logged
    under that id, so an operator can find what the client saw. A :class:`StorageFailure` (a damaged
    file, a full disk) keeps its message, which names the file and how to check it."""
    request_id = new_request_id()
    if isinstance(error, StorageFailure):  # the engine's own account (a damaged file): no traceback
        log.error("request %s: %s failed: %s", request_id, operation or "a request", error.message)
        message = f"{error.message} (request id {request_id})"
        return _respond(500, orjson.dumps(InternalServerError(message).to_wire()), request_id=request_id)
    cause = error.__cause__ if isinstance(error, DynamoDBError) and error.__cause__ else error
    log.error("request %s: internal error serving %s", request_id, operation or "a request", exc_info=cause)
    message = f"Internal server error (request id {request_id}); the server's log has the details"
    body = orjson.dumps(InternalServerError(message).to_wire())
    return _respond(500, body, request_id=request_id)


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs a microsecond per request
class Head:
    """What a request's line and headers decided: the operation, and the signature left to compare."""

    operation: str
    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    signed: SignedHeaders | None


class DynamoDBProtocol:
    """Turns an HTTP request into a call of ``handler(operation, request)`` and back.

    In three steps, so that the transport refuses what it can before reading a body and runs the
    handler off its event loop: :meth:`head` (line and headers, authentication included),
    :meth:`decode` (signature over the body, JSON) and :meth:`call` (the handler, on a worker thread).
    """

    def __init__(
        self, handler: Handler, verifier: Verifier | None = None, try_now: Handler | None = None
    ) -> None:
        """``try_now``: the handler without waiting for locks (``Engine.try_handle``), which raises
        WouldBlock instead; with it, one-transaction operations skip the hand-off to a thread."""
        self.handler = handler
        self.verifier = verifier
        self.try_now = try_now
        self.targets = targets()
        self.bodiless = bodiless_operations()
        # Header values seen on every request, with what they decided (only ones that were accepted).
        self._operations: dict[str | None, str] = {}
        self._content_types: dict[str, str] = {}

    def __call__(
        self, method: str, path: str, query: str, headers: Mapping[str, str], body: bytes
    ) -> Response:
        """Answer one request in full, on the calling thread. ``headers`` has lower-case names. Never raises."""
        try:
            head = self.head(method, path, query, headers)
            if isinstance(head, Response):
                return head
            operation, request = self.decode(head, body, MAX_BODY)
        except DynamoDBError as error:
            return error_response(error)
        return self.call(operation, request)

    def head(self, method: str, path: str, query: str, headers: Mapping[str, str]) -> Head | Response:
        """Decide what the line and headers can: a Response (health check) or the Head to go on with.

        Raises DynamoDB's error for a wrong path or method, failed authentication, an unknown
        target or content type; no body has been read then.
        """
        if path != "/":
            raise NotFound(
                f"No resource at path '{path}': DynamoDB's API is POST / with an X-Amz-Target header"
            )
        if method == "GET":  # the real endpoint answers GET / with a health line naming the host used
            host = headers.get("host") or "tablewright"
            return _respond(200, f"healthy: {host}".encode("latin-1"), "text/plain")
        if method == "OPTIONS":  # a browser's CORS pre-flight; the transport adds the CORS headers
            return _respond(200, b"")
        if method != "POST":
            raise MethodNotAllowed(f"Method {method} is not allowed on '/': DynamoDB's API takes POST")
        signed = self.verifier.check_headers(headers) if self.verifier is not None else None
        target = headers.get("x-amz-target")
        operation = self._operations.get(target) or self._operation(target)
        declared = headers.get("content-type", "")
        content_type = self._content_types.get(declared)
        if content_type is None:
            content_type = declared.split(";", 1)[0].strip().lower()
            if content_type in ACCEPTED_CONTENT_TYPES and len(self._content_types) < _KNOWN:
                self._content_types[declared] = content_type
        if content_type not in ACCEPTED_CONTENT_TYPES:
            raise SerializationException(
                f"Unsupported Content-Type '{content_type}': DynamoDB's JSON protocol takes '{CONTENT_TYPE}'"
            )
        return Head(operation, method, path, query, headers, signed)

    def decode(self, head: Head, body: bytes, limit: int = MAX_BODY) -> tuple[str, dict]:
        """The operation and its request, once the signature is checked over the body received."""
        return self.parse(head, self.unwrap(head, body, limit))

    def decode_plain(self, head: Head, body: bytes) -> tuple[str, dict]:
        """:meth:`decode` of a body sent without ``Content-Encoding`` (the caller checked): nothing
        to undo, so no limit to hold it to beyond the one it arrived under."""
        if head.signed is not None and self.verifier is not None:
            self.verifier.check_body(head.signed, head.method, head.path, head.query, head.headers, body)
        return head.operation, self._decode(body)

    def unwrap(self, head: Head, body: bytes, limit: int = MAX_BODY) -> bytes:
        """The body as the client meant it: the signature checked over the bytes received (which
        SDKs sign compressed), then its ``Content-Encoding`` undone, held to ``limit`` bytes."""
        if self.verifier is not None and head.signed is not None:
            self.verifier.check_body(head.signed, head.method, head.path, head.query, head.headers, body)
        return decode_body(head.headers.get("content-encoding"), body, limit)

    def parse(self, head: Head, body: bytes) -> tuple[str, dict]:
        """The operation and its request from an unwrapped body."""
        return head.operation, self._decode(body)

    def call(self, operation: str, request: dict, deadline: float | None = None) -> Response:
        """Run the handler and render its answer or error. Never raises.

        ``deadline`` (``time.monotonic()``): a write still waiting for its turn then is refused with
        a retryable ThrottlingException instead of being run late.
        """
        try:
            if deadline is not None and time.monotonic() > deadline:
                raise ThrottlingException(
                    "Writes are queued behind one waiting for the database file's write lock; "
                    "nothing of this request was applied. Retry it."
                )
            return self._success(operation, self.handler(operation, request))
        except DynamoDBError as error:
            if error.status >= 500:
                return internal_error_response(operation, error)
            return error_response(error)
        except Exception as error:  # noqa: BLE001 - a bug in the engine must cost one request, not the server
            return internal_error_response(operation, error)

    def call_now(self, operation: str, request: dict) -> Response | None:
        """:meth:`call` through ``try_now`` on the calling thread; None if it would have to wait for a
        lock (nothing was applied: run it with :meth:`call` on a thread that may wait)."""
        if self.try_now is None or operation not in TRY_NOW_OPERATIONS:
            return None
        try:
            return self._success(operation, self.try_now(operation, request))
        except WouldBlock:
            return None
        except DynamoDBError as error:
            if error.status >= 500:
                return internal_error_response(operation, error)
            return error_response(error)
        except Exception as error:  # noqa: BLE001 - a bug in the engine must cost one request, not the server
            return internal_error_response(operation, error)

    def _success(self, operation: str, answer: dict) -> Response:
        # A handler called with encoded=True may answer items as stored JSON: written as they are.
        if type(answer) is dict and not answer:  # most writes: nothing to return
            return _respond(200, b"" if operation in self.bodiless else b"{}")
        return _respond(200, b"" if operation in self.bodiless else encoded.dumps(answer))

    @staticmethod
    def is_read(operation: str) -> bool:
        """Whether ``operation`` only reads, so it may run while a write waits for the file's lock."""
        return operation in READ_OPERATIONS

    def _operation(self, target: str | None) -> str:
        operation = self._operations.get(target)
        if operation is not None:
            return operation
        operation = self._target_operation(target)
        if len(self._operations) < _KNOWN:
            self._operations[target] = operation
        return operation

    def _target_operation(self, target: str | None) -> str:
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
            # DynamoDB's wording ends with the position of the error, "at <offset>".
            raise SerializationException(f"Request body is not valid JSON: {exc.msg} at {exc.pos}") from None
        if not isinstance(request, dict):
            kind = _JSON_KINDS.get(type(request), type(request).__name__)
            raise SerializationException(f"Request body must be a JSON object, not {kind}")
        return request
