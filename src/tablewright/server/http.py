"""The HTTP/1.1 transport: asyncio connections parsed by httptools (llhttp, Node's C parser).

The event loop parses, checks and answers; it never waits on SQLite. A one-transaction request is
tried on the loop without waiting for any lock (``DynamoDBProtocol.call_now``); one that would wait,
and every other request, runs on a worker thread: writes on one writer thread (SQLite admits one
writer at a time anyway, so more would only contend), reads on a few reader threads, so reads keep
being served while a write waits for another process's lock on the file. Each connection's requests
are answered one at a time, in arrival order (pipelining keeps its order). Answers are written once
per turn of the event loop, every connection's together (``_Connection._send`` says why).

Hostile input costs one connection, never the server, and is refused before work: the headers decide
authentication, size and target before any body is read; bodies over ``max_body`` get 413 unread;
bytes buffered across all connections and the number of open connections are capped (503, which
SDKs retry); malformed HTTP gets 400; a request not complete within ``request_timeout`` (a slowloris)
gets 408; an idle keep-alive connection is closed after ``idle_timeout``, or at once when the
connection cap is reached and a new client needs its place.

Around each answer the transport adds what DynamoDB's front end adds: ``Date``, CORS headers for a
request with ``Origin`` (``cors``), and compression negotiated from the first ``Accept-Encoding``
line (``content``); compressed request bodies are undone, within the body limit, before parsing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import zlib
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from email.utils import formatdate
from http import HTTPStatus
from urllib.parse import urlsplit

import httptools

from tablewright.engine.errors import DynamoDBError
from tablewright.server.content import compress, negotiate
from tablewright.server.cors import cors_headers
from tablewright.server.errors import (
    BadRequest,
    RequestEntityTooLarge,
    RequestTimeout,
    ServiceUnavailable,
)
from tablewright.server.poll import IdlePoller
from tablewright.server.protocol import (
    MAX_BODY,
    DynamoDBProtocol,
    Head,
    Response,
    error_response,
    internal_error_response,
)

# Bodies held in memory across all connections at once (received, not yet decoded).
MAX_BUFFERED = 128 * 1024 * 1024
MAX_CONNECTIONS = 512
# httptools sets no limit on the request line and headers; DynamoDB refuses more than 16 KB of
# either with 400 (SDK requests use about 1 KB of headers and a one-character path).
MAX_REQUEST_LINE = 16 * 1024
MAX_HEADERS = 16 * 1024
# After an error answer the rest of the request is read and dropped for this long before closing:
# closing a socket with unread input sends a TCP reset, which can destroy the answer in flight.
LINGER = 1.0
READER_THREADS = 4
# Complete requests a connection may have waiting (pipelined) before the server stops reading it.
MAX_PIPELINED = 16
# Bytes of one connection's answers gathered for the end of the loop's turn (see _Connection._send)
# before they go to the transport at once, which tells whether the client is taking them.
MAX_GATHERED = 256 * 1024
# At the connection cap with nothing idle, a request still arriving after this long (SDK requests
# arrive within milliseconds) is cut off to make room: stalled clients cannot lock new ones out.
STALLED = 1.0
_STATUS_LINES = {
    status.value: b"HTTP/1.1 %d %s\r\n" % (status.value, status.phrase.encode()) for status in HTTPStatus
}
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
_KEEP_ALIVE = b"Connection: keep-alive\r\n\r\n"
_CLOSE = b"Connection: close\r\n\r\n"
_NO_CORS: list[tuple[str, str]] = []  # never changed: the CORS headers of a request without Origin

log = logging.getLogger("tablewright.server")


# Decoded, lower-cased header names and decoded methods by their bytes: the same few on every
# request. Bounded, so that a client sending ever-new names cannot grow them.
_HEADER_NAMES: dict[bytes, str] = {}
_METHODS: dict[bytes, str] = {}
_KNOWN_NAMES = 256

_date = (0, b"")


def _date_header() -> bytes:
    """``Date: <IMF-fixdate>``, which DynamoDB sends with every response; formatted once a second."""
    global _date
    now = int(time.time())
    if _date[0] != now:
        _date = (now, b"Date: %s\r\n" % formatdate(now, usegmt=True).encode("ascii"))
    return _date[1]


def _encode(response: Response, keep_alive: bool, extra: Sequence[tuple[str, str]] = ()) -> bytes:
    status = _STATUS_LINES.get(response.status) or b"HTTP/1.1 %d Unknown\r\n" % response.status
    fields = response.fields
    if extra:
        fields += "".join([f"{name}: {value}\r\n" for name, value in extra]).encode("latin-1")
    body = response.body
    return b"%s%s%sContent-Length: %d\r\n%s%s" % (
        status,
        _date_header(),
        fields,
        len(body),
        _KEEP_ALIVE if keep_alive else _CLOSE,
        body,
    )


def _compressed(response: Response, coding: str | None) -> Response:
    """``response`` with its body compressed as negotiated, if large enough. The x-amz-crc32 header
    covers the bytes sent (compressed), as DynamoDB computes it and SDKs that ask for gzip check it."""
    body = compress(coding, response.body)
    if body is None:
        return response
    headers = [(n, v) for n, v in response.headers if n != "x-amz-crc32"]
    headers += [("Content-Encoding", coding), ("x-amz-crc32", str(zlib.crc32(body)))]
    return Response(response.status, headers, body)


def origin_form(target: str) -> tuple[str, str]:
    """The path and query of a request target. The absolute form (``http://host:port/``), which a
    client sends through a forward proxy, is its path: a server must accept it (RFC 9112, 3.2.2)."""
    if not target.startswith("/"):
        parts = urlsplit(target)
        if parts.scheme.lower() in ("http", "https") and parts.netloc:
            return parts.path or "/", parts.query
    path, _, query = target.partition("?")
    return path, query


@dataclass(frozen=True, slots=True)
class Prepared:
    """A request checked and decoded on the event loop that must be answered on a worker thread."""

    operation: str
    request: dict


class _Connection(asyncio.Protocol):
    """One client connection: feeds bytes to the parser and answers each complete request in order."""

    def __init__(self, server: HttpServer) -> None:
        self.server = server
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.fd = -1  # the socket's number, watched by the server's poller while open
        self.timer: asyncio.TimerHandle | None = None
        self.timer_at = 0.0  # loop time the timer fires at
        self.deadline: float | None = None  # loop time the connection times out at (see _arm)
        self.in_message = False  # a request has started arriving and is not complete yet
        self.closing = False
        self.url = b""
        self.method = ""  # the request's, once its headers are complete
        self.headers: dict[str, str] = {}
        self.accept_encoding: str | None = None  # its first header line only, as DynamoDB reads it
        self.header_size = 0
        self.head_pending = False  # the request arriving has not finished its headers yet
        self.head_received = 0  # bytes received while its head was unfinished, after its first read
        self.messages_begun = 0  # tells data_received whether a chunk ended inside the head it began in
        self.body: list[bytes] = []
        self.size = 0
        self.head: Head | Response | None = None
        self.reserved = 0  # bytes of the global buffer budget this connection holds (queued bodies too)
        self.message_reserved = 0  # of which for the request arriving now
        # (what the head decided, body, keep-alive, response coding, CORS headers) per request
        self.queue: deque[tuple[Head | Response | Prepared, bytes, bool, str | None, list]] = deque()
        self.busy = False  # a request of this connection is being answered
        self.continue_pending = False
        self.out: list[bytes] = []  # answered, not yet handed to the transport (see _send)
        self.out_size = 0
        self.write_blocked = False
        self.writable: asyncio.Future[None] | None = None  # awaited while write_blocked (_answer_queue)
        self.reading = True
        self.eof = False  # the client half-closed: close once its requests are answered
        self.idle_since = time.monotonic()
        self.message_started = 0.0

    # -- asyncio callbacks --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        server = self.server
        if len(server.connections) >= server.max_connections and not server.evict_idle():
            server.connections.add(self)
            self.fail(
                ServiceUnavailable(
                    f"The server has {server.max_connections} connections open, its limit; retry shortly"
                )
            )
            return
        server.connections.add(self)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            self.fd = sock.fileno()
            server.poller.watch(self.fd, self)
        self._arm(server.idle_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        self.out.clear()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.queue.clear()
        self._writable_again()
        self._release(self.reserved)
        self.server.connections.discard(self)
        self.server.connection_closed(self)

    def data_received(self, data: bytes) -> None:
        if self.closing:
            return
        # httptools hands over a header only once it is complete, so a header that never ends is
        # caught by counting what arrives while a request's head is still unfinished.
        in_head = self.in_message and self.head_pending
        begun = self.messages_begun
        try:
            self.parser.feed_data(data)
            # Only a chunk that began and ended inside one head counts whole: a pipelined chunk that
            # finished earlier requests holds their bodies too, which are not head bytes.
            if in_head and self.head_pending and not self.closing and self.messages_begun == begun:
                self.head_received += len(data)
                if self.head_received > MAX_REQUEST_LINE + MAX_HEADERS:
                    self.fail(BadRequest(f"Request headers exceed the limit of {MAX_HEADERS} bytes"))
        except httptools.HttpParserUpgrade:
            self.fail(BadRequest("Protocol upgrade is not supported: DynamoDB's API is plain HTTP/1.1"))
        except httptools.HttpParserError as exc:
            # Also raised when a callback failed after fail() had answered; then nothing is left to say.
            if not self.closing:
                self.fail(BadRequest(f"Malformed HTTP request: {exc}"))

    def eof_received(self) -> bool:
        # A client that half-closes after sending still gets the answers to what it sent.
        self.eof = True
        if not self.busy and not self.closing:
            self.close()
        return True  # keep the transport open for writing

    def pause_writing(self) -> None:
        # A client that sends but does not read must not make us buffer without bound: no more of
        # its requests are read, and none already read is answered, until it takes what was written.
        self.write_blocked = True
        self._update_reading()

    def resume_writing(self) -> None:
        self.write_blocked = False
        self._writable_again()
        self._update_reading()

    def _writable_again(self) -> None:
        writable = self.writable
        if writable is not None:
            self.writable = None
            if not writable.done():
                writable.set_result(None)

    # -- httptools callbacks ------------------------------------------------------------------

    def on_message_begin(self) -> None:
        self.in_message = self.head_pending = True
        self.url, self.headers, self.body = b"", {}, []
        self.size = self.header_size = self.head_received = self.message_reserved = 0
        self.accept_encoding = self.head = None
        self.messages_begun += 1
        self.message_started = time.monotonic()
        self._arm(self.server.request_timeout)

    def on_url(self, url: bytes) -> None:
        self.url += url
        if len(self.url) > MAX_REQUEST_LINE and not self.closing:
            self.fail(BadRequest(f"Request URL exceeds the limit of {MAX_REQUEST_LINE} bytes"))

    def on_header(self, name: bytes, value: bytes) -> None:
        # Runs for every header of every request: written for speed, checks unchanged.
        size = self.header_size = self.header_size + len(name) + len(value) + 4  # with ": " and CRLF
        if size > MAX_HEADERS or self.closing:
            if not self.closing:
                self.fail(BadRequest(f"Request headers exceed the limit of {MAX_HEADERS} bytes"))
            return
        key = _HEADER_NAMES.get(name)
        if key is None:
            key = name.decode("latin-1").lower()
            if len(_HEADER_NAMES) < _KNOWN_NAMES:
                _HEADER_NAMES[name] = key
        text = value.decode("latin-1")
        headers = self.headers
        if key in headers:  # repeated headers are joined with "," as HTTP and SigV4 both define
            headers[key] = f"{headers[key]},{text}"
        else:
            headers[key] = text
            if key == "accept-encoding":  # its first line only, as DynamoDB reads it
                self.accept_encoding = text

    def on_headers_complete(self) -> None:
        self.head_pending = False
        if self.closing:
            return
        if self.parser.should_upgrade():
            self.fail(BadRequest("Protocol upgrade is not supported: DynamoDB's API is plain HTTP/1.1"))
            return
        declared = self.headers.get("content-length", "0")
        length = int(declared) if declared.isdigit() else 0
        if length > self.server.max_body:
            self._too_large(length)
            return
        url = self.url
        path, query = ("/", "") if url == b"/" else origin_form(url.decode("latin-1"))
        method = self.method = self._method()
        try:
            # Authentication, target and content type from the headers alone: a refused client never
            # gets a body buffered.
            self.head = self.server.app.head(method, path, query, self.headers)
        except DynamoDBError as error:
            self.fail(error)
            return
        if not self._reserve(length):
            return
        expect = self.headers.get("expect")
        if expect is not None and expect.lower() == "100-continue":
            if self.busy or self.queue:
                self.continue_pending = True  # after the answers ahead of it, to keep their order
            else:
                self._send(_CONTINUE)

    def on_body(self, chunk: bytes) -> None:
        if self.closing:
            return
        self.size += len(chunk)
        if self.size > self.server.max_body:  # chunked bodies declare no length up front
            self._too_large(self.size)
            return
        if self.size > self.message_reserved and not self._reserve(self.size - self.message_reserved):
            return
        self.body.append(chunk)

    def on_message_complete(self) -> None:
        if self.closing:
            return
        self.in_message = False
        self.deadline = None  # no timeout while the request is answered (_disarm)
        body = b"".join(self.body)
        self.body = []
        keep_alive = self.parser.should_keep_alive()
        accept_encoding = self.accept_encoding
        coding = negotiate(accept_encoding) if accept_encoding else None
        headers = self.headers
        cors = cors_headers(self.method, headers) if "origin" in headers else _NO_CORS
        what: Head | Response | Prepared | None = self.head
        if not self.busy and not self.queue and not self.write_blocked:
            # Nothing ahead of it: answered here and now when no worker thread is needed (most
            # requests), which spares the task and its scheduling; otherwise queued as it was prepared.
            what = self.server.respond_now(what, body)
            if type(what) is Response:
                if body:
                    self._release(len(body))
                if self._deliver(what, keep_alive, coding, cors):
                    self._answered()
                return
        self.queue.append((what or self.head, body, keep_alive, coding, cors))
        self._update_reading()
        if not self.busy:
            self.busy = True
            self.server.loop.create_task(self._answer_queue())

    # -- answering ----------------------------------------------------------------------------

    async def _answer_queue(self) -> None:
        try:
            while self.queue and not self.closing:
                if self.write_blocked:  # the client is not reading: make no answer it would not take
                    self.writable = self.writable or self.server.loop.create_future()
                    await self.writable
                    continue
                head, body, keep_alive, coding, cors = self.queue.popleft()
                self._update_reading()
                response = await self.server.respond(head, body)
                self._release(len(body))  # the body counted against the budget until it was answered
                del body
                if self.closing:
                    return
                if not self._deliver(response, keep_alive, coding, cors):
                    return
        finally:
            self.busy = False
        self._answered()

    def _deliver(self, response: Response, keep_alive: bool, coding: str | None, cors: list) -> bool:
        """Write one answer; False when the connection closes after it."""
        keep_alive = keep_alive and not self.server.shutting_down
        if coding is not None:
            response = _compressed(response, coding)
        self._send(_encode(response, keep_alive, cors))
        self.server.answered()
        if not keep_alive:
            self.close()
            return False
        if self.continue_pending and not self.queue:
            self.continue_pending = False
            self._send(_CONTINUE)
        return True

    def _answered(self) -> None:
        """Every request received is answered: close if the client or the server is done, else idle."""
        if not self.closing:
            self.idle_since = time.monotonic()
            if self.eof or (self.server.shutting_down and not self.in_message):
                self.close()
            elif not self.in_message:
                self._arm(self.server.idle_timeout)

    # -- output -------------------------------------------------------------------------------

    def _send(self, data: bytes) -> None:
        """Write ``data`` at the end of this turn of the event loop, with every other connection's.

        Answering all the requests that arrived together before writing any is what keeps a loaded
        server cheap: each write to a client that went to sleep wakes it (on loopback the sender pays
        for that in the kernel, ~10 µs in a VM); written in one burst, the client is woken once per
        burst, not once per answer. With one connection open there is nothing to gather: written at
        once. A connection's bytes keep their order (everything it writes goes through here or
        :meth:`flush_output`), and nothing waits beyond the turn: the flush is the first callback of
        the next one, before the loop polls again.
        """
        out = self.out
        if not out:
            if len(self.server.connections) == 1:  # no other client's answers to wait for
                self.transport.write(data)
                return
            self.server.queue_output(self)
        out.append(data)
        self.out_size += len(data)
        # Pipelined answers piling up: the transport takes them now, and says whether the client does.
        if self.out_size > MAX_GATHERED:
            self.flush_output()

    def flush_output(self) -> None:
        """Hand this connection's pending output to the transport now (before closing or an error);
        dropped if the transport was aborted meanwhile."""
        out = self.out
        if out:
            if not self.transport.is_closing():
                self.transport.write(out[0] if len(out) == 1 else b"".join(out))
            out.clear()
            self.out_size = 0

    # -- helpers ------------------------------------------------------------------------------

    def _method(self) -> str:
        raw = self.parser.get_method()
        method = _METHODS.get(raw)
        if method is None:
            method = raw.decode("ascii")
            if len(_METHODS) < _KNOWN_NAMES:
                _METHODS[raw] = method
        return method

    def _update_reading(self) -> None:
        paused = self.write_blocked or len(self.queue) >= MAX_PIPELINED
        if paused == (not self.reading) or self.closing:
            return
        self.reading = not paused
        if paused:
            self.transport.pause_reading()
        else:
            self.transport.resume_reading()

    def _reserve(self, size: int) -> bool:
        """Take ``size`` bytes of the global buffer budget, or answer 503 and return False."""
        server = self.server
        if size and server.buffered + size > server.max_buffered:
            self.fail(
                ServiceUnavailable(
                    f"The server holds {server.buffered} bytes of request bodies, near its limit of "
                    f"{server.max_buffered}; retry shortly"
                )
            )
            return False
        server.buffered += size
        self.reserved += size
        self.message_reserved += size
        return True

    def _release(self, size: int) -> None:
        size = min(size, self.reserved)
        self.reserved -= size
        self.server.buffered -= size

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
        self.queue.clear()
        self._release(self.reserved)
        self.body = []
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        method = self.parser.get_method().decode("ascii")  # a placeholder before the line is read
        self.flush_output()  # answers to the requests before this one go first
        self.transport.write(_encode(error_response(error), False, cors_headers(method, self.headers)))
        if self.transport.can_write_eof():
            self.transport.write_eof()  # the client sees the answer and end of stream at once
        # data_received drops everything from here on, so the socket never holds unread input.
        if not self.reading:
            self.reading = True
            self.transport.resume_reading()
        self.server.loop.call_later(LINGER, self.transport.close)

    def close(self) -> None:
        """Close after flushing what was written (asyncio flushes before closing)."""
        self.closing = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.flush_output()
        self.transport.close()

    @property
    def idle(self) -> bool:
        """Nothing in progress (or only lingering after an error): may be closed to make room."""
        return not self.busy and (self.closing or not self.in_message)

    def _arm(self, seconds: float) -> None:
        """Time the connection out ``seconds`` from now (replacing the previous deadline).

        Lazily: a timer already set to fire no later than the new deadline is kept, and when it
        fires early it sets itself again for what remains. Requests on a keep-alive connection move
        the deadline twice each (request timeout, then idle timeout); this keeps that to two float
        stores instead of two timers created and cancelled per request.
        """
        loop = self.server.loop
        self.deadline = deadline = loop.time() + seconds
        if self.timer is None or self.timer_at > deadline:
            if self.timer is not None:
                self.timer.cancel()
            self.timer_at = deadline
            self.timer = loop.call_at(deadline, self._timer_fired)

    def _disarm(self) -> None:
        """No deadline until the next :meth:`_arm` (a pending timer then fires to no effect)."""
        self.deadline = None

    def _timer_fired(self) -> None:
        self.timer = None
        if self.deadline is None or self.closing:
            return
        if self.server.loop.time() < self.deadline:  # moved on since this timer was set
            self.timer_at = self.deadline
            self.timer = self.server.loop.call_at(self.deadline, self._timer_fired)
            return
        self._timed_out()

    def _timed_out(self) -> None:
        if self.in_message:
            self.fail(RequestTimeout("Request not received in full within the request timeout"))
        elif not self.busy:
            self.close()


class HttpServer:
    """Listens on one address and serves a :class:`DynamoDBProtocol` over HTTP/1.1."""

    def __init__(
        self,
        app: DynamoDBProtocol,
        *,
        max_body: int = MAX_BODY,
        max_buffered: int = MAX_BUFFERED,
        max_connections: int = MAX_CONNECTIONS,
        request_timeout: float = 30.0,
        idle_timeout: float = 60.0,
        write_queue_timeout: float | None = None,
        reader_threads: int = READER_THREADS,
        poll: float = 0.0,
    ) -> None:
        """``write_queue_timeout``: a write that waited this long for the writer thread is refused
        with a retryable error instead of being run (None waits without bound). ``poll``: seconds to
        poll the connections for after answering, before the loop sleeps (``poll.IdlePoller``; 0:
        never; ``tablewright serve`` polls, a server on a thread of its client's process must not)."""
        self.app = app
        self.max_body = max_body
        self.max_buffered = max(max_buffered, max_body)
        self.max_connections = max_connections
        self.request_timeout = request_timeout
        self.idle_timeout = idle_timeout
        self.write_queue_timeout = write_queue_timeout
        self.buffered = 0
        self.connections: set[_Connection] = set()
        self._output: list[_Connection] = []  # connections with answers to write this turn
        self.shutting_down = False
        self.loop: asyncio.AbstractEventLoop | None = None
        self._listener: asyncio.Server | None = None
        self._drained: asyncio.Event | None = None
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="tablewright-writer")
        self._readers = ThreadPoolExecutor(reader_threads, thread_name_prefix="tablewright-reader")
        self.poller = IdlePoller(poll)
        self._poll_pending = False
        self._on_threads = 0  # requests running on worker threads (their answers do not wake a poll)

    async def start(self, host: str, port: int) -> tuple[str, int]:
        """Bind and start accepting; return the bound (host, port), so port 0 reveals its pick."""
        self.loop = asyncio.get_running_loop()
        self._drained = asyncio.Event()
        self._listener = await self.loop.create_server(lambda: _Connection(self), host, port, backlog=1024)
        for sock in self._listener.sockets:
            self.poller.watch(sock.fileno(), self)
        return self._listener.sockets[0].getsockname()[:2]

    def queue_output(self, connection: _Connection) -> None:
        """Have ``connection``'s pending output written at the start of the event loop's next turn."""
        if not self._output:
            self.loop.call_soon(self._write_output)
        self._output.append(connection)

    def answered(self) -> None:
        """An answer was written: with one connection open, poll for its next request at the end of
        this turn. With several, the loop's sleep is what gathers their requests into bursts answered
        together (``_Connection._send``); polling would take them one by one, at more CPU each."""
        if self.poller.enabled and not self._poll_pending and len(self.connections) == 1:
            self._poll_pending = True
            self.loop.call_soon(self._poll)

    def _poll(self) -> None:
        self._poll_pending = False
        # A worker thread's answer reaches the loop by a channel the poll does not watch.
        if not self._on_threads and not self.shutting_down:
            self.poller.poll()

    def _write_output(self) -> None:
        output, self._output = self._output, []
        for connection in output:
            try:
                connection.flush_output()
            except Exception:  # noqa: BLE001 - one broken transport must not keep the others' answers
                log.exception("dropping a connection whose answers could not be written")
                connection.transport.abort()

    def respond_now(self, head: Head | Response, body: bytes) -> Response | Prepared | None:
        """The response to a complete request if the event loop can give it without waiting (see
        ``DynamoDBProtocol.call_now``); else the request checked and decoded, for a worker thread; or
        None for a compressed body, which :meth:`respond` serves (its decompressed size counts
        against the buffer budget while it is served)."""
        if type(head) is Response:
            return head
        if "content-encoding" in head.headers:
            return None
        try:
            operation, request = self.app.decode_plain(head, body)
        except DynamoDBError as error:
            return error_response(error)
        except Exception as error:  # noqa: BLE001 - a bug must cost one request, not the connection
            return internal_error_response(head.operation, error)
        response = self.app.call_now(operation, request)
        return response if response is not None else Prepared(operation, request)

    async def respond(self, head: Head | Response | Prepared, body: bytes) -> Response:
        """The response to one complete request; the engine call runs on a worker thread."""
        if isinstance(head, Response):
            return head
        if isinstance(head, Prepared):
            return await self._on_thread(head.operation, head.request)
        try:
            plain = self.app.unwrap(head, body, self.max_body)
        except DynamoDBError as error:
            return error_response(error)
        except Exception as error:  # noqa: BLE001 - a bug must cost one request, not the connection
            return internal_error_response(head.operation, error)
        # A decompressed body counts against the buffer budget while its request is served, so
        # small compressed uploads cannot hold more memory than the budget allows.
        expansion = len(plain) - len(body)
        if expansion <= 0:
            return await self._serve(head, plain)
        if self.buffered + expansion > self.max_buffered:
            return error_response(
                ServiceUnavailable(
                    f"The server holds {self.buffered} bytes of request bodies; this one decompresses "
                    f"to {len(plain)} bytes, over its limit of {self.max_buffered}; retry shortly"
                )
            )
        self.buffered += expansion
        try:
            return await self._serve(head, plain)
        finally:
            self.buffered -= expansion

    async def _serve(self, head: Head, body: bytes) -> Response:
        try:
            operation, request = self.app.parse(head, body)
        except DynamoDBError as error:
            return error_response(error)
        except Exception as error:  # noqa: BLE001 - a bug must cost one request, not the connection
            return internal_error_response(head.operation, error)
        response = self.app.call_now(operation, request)
        if response is not None:
            return response
        return await self._on_thread(operation, request)

    async def _on_thread(self, operation: str, request: dict) -> Response:
        """Run the engine call on a worker thread: reads on the readers, writes on the one writer."""
        if self.app.is_read(operation):
            executor, deadline = self._readers, None
        else:
            executor = self._writer
            timeout = self.write_queue_timeout
            deadline = time.monotonic() + timeout if timeout is not None else None
        self._on_threads += 1
        try:
            return await self.loop.run_in_executor(executor, self.app.call, operation, request, deadline)
        finally:
            self._on_threads -= 1

    def evict_idle(self) -> bool:
        """Make room for a new connection: close the one idle the longest or, with none idle, cut off
        the request that has been arriving the longest (if stalled). False if every one is working."""
        idle = [connection for connection in self.connections if connection.idle]
        if not idle:
            return self._evict_stalled()
        # Connections lingering after an error answer go first: they only drain what a client still sends.
        oldest = min(idle, key=lambda connection: (not connection.closing, connection.idle_since))
        self.connections.discard(oldest)
        if oldest.closing:
            oldest.transport.abort()
        else:
            oldest.close()
        return True

    def _evict_stalled(self) -> bool:
        cutoff = time.monotonic() - STALLED
        stalled = [c for c in self.connections if c.in_message and not c.busy and c.message_started < cutoff]
        if not stalled:
            return False
        oldest = min(stalled, key=lambda connection: connection.message_started)
        self.connections.discard(oldest)
        oldest.fail(
            RequestTimeout("Request still incomplete when the server needed its connection for another")
        )
        return True

    def connection_closed(self, connection: _Connection) -> None:
        """Called by each connection as it goes; wakes :meth:`shutdown` when the last one has."""
        self.poller.forget(connection.fd, connection)
        if self.shutting_down and not self.connections and self._drained is not None:
            self._drained.set()

    async def shutdown(self, grace: float = 10.0) -> None:
        """Stop accepting, let requests already arriving finish (up to ``grace`` s), close the rest,
        then wait for the worker threads, so that nothing runs against the engine afterwards."""
        self.shutting_down = True
        if self._listener is not None:
            self._listener.close()
        for connection in list(self.connections):
            if connection.idle:
                connection.close()
        if self.connections:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._drained.wait(), grace)
        for connection in list(self.connections):
            connection.transport.abort()
        if self._listener is not None:
            await self._listener.wait_closed()
        for executor in (self._writer, self._readers):
            await self.loop.run_in_executor(None, executor.shutdown)
        self.poller.close()
