"""The HTTP/1.1 transport: asyncio connections parsed by httptools (llhttp, Node's C parser).

Requests are answered on the event loop thread, one at a time, in arrival order. That is the
throughput choice for a GIL-bound engine over one SQLite file (threads would only add hand-offs
and lock contention) and it makes every operation atomic with respect to every other, so
DynamoDB's per-item atomicity holds however many clients connect. See docs/server.md.

Hostile input costs one connection, never the server: bodies over ``max_body`` get 413 without
being read, malformed HTTP gets 400, a request not complete within ``request_timeout`` (a
slowloris) gets 408, and an idle keep-alive connection is closed after ``idle_timeout``.
"""

from __future__ import annotations

import asyncio
import contextlib
from http import HTTPStatus

import httptools

from tablewright.engine.errors import DynamoDBError
from tablewright.server.errors import (
    BadRequest,
    RequestEntityTooLarge,
    RequestHeaderFieldsTooLarge,
    RequestTimeout,
)
from tablewright.server.protocol import DynamoDBProtocol, Response, error_response

# DynamoDB's largest requests (BatchWriteItem, BatchGetItem) are 16 MB; leave room for JSON framing.
MAX_BODY = 16 * 1024 * 1024 + 256 * 1024
# httptools sets no limit on the request line and headers; SDK requests use about 1 KB.
MAX_HEAD = 64 * 1024
# After an error answer the rest of the request is read and dropped for this long before closing:
# closing a socket with unread input sends a TCP reset, which can destroy the answer in flight.
LINGER = 1.0
_REASONS = {status.value: status.phrase.encode("ascii") for status in HTTPStatus}


def _encode(response: Response, keep_alive: bool) -> bytes:
    head = [b"HTTP/1.1 %d %s\r\n" % (response.status, _REASONS.get(response.status, b"Unknown"))]
    head += [f"{name}: {value}\r\n".encode("latin-1") for name, value in response.headers]
    head.append(b"Content-Length: %d\r\n" % len(response.body))
    head.append(b"Connection: keep-alive\r\n\r\n" if keep_alive else b"Connection: close\r\n\r\n")
    head.append(response.body)
    return b"".join(head)


class _Connection(asyncio.Protocol):
    """One client connection: feeds bytes to the parser and answers each complete request."""

    def __init__(self, server: HttpServer) -> None:
        self.server = server
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.in_message = False  # a request has started arriving and is not answered yet
        self.closing = False
        self.url = b""
        self.headers: dict[str, str] = {}
        self.body: list[bytes] = []
        self.size = 0
        self.head_size = 0

    # -- asyncio callbacks --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.server.connections.add(self)
        self._arm(self.server.idle_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        if self.timer is not None:
            self.timer.cancel()
        self.server.connections.discard(self)
        self.server.connection_closed()

    def data_received(self, data: bytes) -> None:
        if self.closing:
            return
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self.fail(BadRequest("Protocol upgrade is not supported: DynamoDB's API is plain HTTP/1.1"))
        except httptools.HttpParserError as exc:
            # Also raised when a callback failed after fail() had answered; then nothing is left to say.
            if not self.closing:
                self.fail(BadRequest(f"Malformed HTTP request: {exc}"))

    def pause_writing(self) -> None:
        # A client that sends but does not read must not make us buffer without bound.
        self.transport.pause_reading()

    def resume_writing(self) -> None:
        self.transport.resume_reading()

    # -- httptools callbacks ------------------------------------------------------------------

    def on_message_begin(self) -> None:
        self.in_message = True
        self.url, self.headers, self.body, self.size, self.head_size = b"", {}, [], 0, 0
        self._arm(self.server.request_timeout)

    def on_url(self, url: bytes) -> None:
        self.url += url
        self._count_head(len(url))

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_head(len(name) + len(value) + 4)
        if self.closing:
            return
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        # Repeated headers are joined with "," as HTTP and SigV4 canonicalisation both define.
        self.headers[key] = f"{self.headers[key]},{text}" if key in self.headers else text

    def on_headers_complete(self) -> None:
        if self.closing:
            return
        if self.parser.should_upgrade():
            self.fail(BadRequest("Protocol upgrade is not supported: DynamoDB's API is plain HTTP/1.1"))
            return
        declared = self.headers.get("content-length", "0")
        if declared.isdigit() and int(declared) > self.server.max_body:
            self._too_large(int(declared))

    def on_body(self, chunk: bytes) -> None:
        if self.closing:
            return
        self.size += len(chunk)
        if self.size > self.server.max_body:  # chunked bodies declare no length up front
            self._too_large(self.size)
            return
        self.body.append(chunk)

    def on_message_complete(self) -> None:
        if self.closing:
            return
        self.in_message = False
        path, _, query = self.url.decode("latin-1").partition("?")
        method = self.parser.get_method().decode("ascii")
        response = self.server.app(method, path, query, self.headers, b"".join(self.body))
        keep_alive = self.parser.should_keep_alive() and not self.server.shutting_down
        self.transport.write(_encode(response, keep_alive))
        self.body = []
        if keep_alive:
            self._arm(self.server.idle_timeout)
        else:
            self.close()

    # -- helpers ------------------------------------------------------------------------------

    def _count_head(self, size: int) -> None:
        self.head_size += size
        if self.head_size > MAX_HEAD and not self.closing:
            self.fail(RequestHeaderFieldsTooLarge(f"Request line and headers exceed {MAX_HEAD} bytes"))

    def _too_large(self, size: int) -> None:
        self.fail(
            RequestEntityTooLarge(
                f"Request body of {size} bytes exceeds the limit of {self.server.max_body} bytes"
            )
        )

    def fail(self, error: DynamoDBError) -> None:
        """Answer with ``error`` and close: after bad framing the byte stream cannot be trusted."""
        if self.closing:
            return
        self.closing = True
        if self.timer is not None:
            self.timer.cancel()
        self.transport.write(_encode(error_response(error), keep_alive=False))
        if self.transport.can_write_eof():
            self.transport.write_eof()  # the client sees the answer and end of stream at once
        # data_received drops everything from here on, so the socket never holds unread input.
        self.server.loop.call_later(LINGER, self.transport.close)

    def close(self) -> None:
        """Close after flushing what was written (asyncio flushes before closing)."""
        self.closing = True
        if self.timer is not None:
            self.timer.cancel()
        self.transport.close()

    def _arm(self, seconds: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer = self.server.loop.call_later(seconds, self._timed_out)

    def _timed_out(self) -> None:
        if self.in_message:
            self.fail(RequestTimeout("Request not received in full within the request timeout"))
        else:
            self.close()


class HttpServer:
    """Listens on one address and serves a :class:`DynamoDBProtocol` over HTTP/1.1."""

    def __init__(
        self,
        app: DynamoDBProtocol,
        *,
        max_body: int = MAX_BODY,
        request_timeout: float = 30.0,
        idle_timeout: float = 120.0,
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.request_timeout = request_timeout
        self.idle_timeout = idle_timeout
        self.connections: set[_Connection] = set()
        self.shutting_down = False
        self.loop: asyncio.AbstractEventLoop | None = None
        self._listener: asyncio.Server | None = None
        self._drained: asyncio.Event | None = None

    async def start(self, host: str, port: int) -> tuple[str, int]:
        """Bind and start accepting; return the bound (host, port), so port 0 reveals its pick."""
        self.loop = asyncio.get_running_loop()
        self._drained = asyncio.Event()
        self._listener = await self.loop.create_server(lambda: _Connection(self), host, port, backlog=1024)
        return self._listener.sockets[0].getsockname()[:2]

    def connection_closed(self) -> None:
        """Called by each connection as it goes; wakes :meth:`shutdown` when the last one has."""
        if self.shutting_down and not self.connections and self._drained is not None:
            self._drained.set()

    async def shutdown(self, grace: float = 10.0) -> None:
        """Stop accepting, let requests already arriving finish (up to ``grace`` s), close the rest."""
        self.shutting_down = True
        if self._listener is not None:
            self._listener.close()
        for connection in list(self.connections):
            if not connection.in_message:
                connection.close()
        if self.connections:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._drained.wait(), grace)
        for connection in list(self.connections):
            connection.transport.abort()
        if self._listener is not None:
            await self._listener.wait_closed()
