"""Every field of every operation's request shape, made hostile, against ``tablewright serve``.

At least 20,000 requests (from :mod:`._model_fuzz`, driven by botocore's service models) go over
loopback to a real server process; not one may be answered with a 5xx, and the server must log no
internal error. Bounded in time: the run stops at its time cap, and fails if the cap came first.
Requests are pipelined on one connection (a thread sends, the test reads the answers in order), so
the client costs little of the machine the server runs on.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import Counter

import pytest

from ._model_fuzz import SETUP_TABLE, TABLE, all_requests
from ._support import Served

MINIMUM_REQUESTS = 20_000
TIME_CAP = 90.0  # seconds; a run takes about 15 s on one free core
_SETUP = "setup"


@pytest.fixture
def served():
    running = Served()
    yield running
    running.kill()


def _frame(target: str, body: bytes) -> bytes:
    return (
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: %s\r\n"
        b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n%s"
        % (target.encode(), len(body), body)
    )


def _requests(started: float):
    """(label, framed request) in order: each operation's mutants after putting its table back."""
    setup = [
        _frame("DynamoDB_20120810.CreateTable", json.dumps(SETUP_TABLE).encode()),
        _frame(
            "DynamoDB_20120810.PutItem", json.dumps({"TableName": TABLE, "Item": {"pk": {"S": "a"}}}).encode()
        ),
    ]
    previous = None
    for prefix, operation, request in all_requests():
        if time.monotonic() - started > TIME_CAP:
            return
        if operation != previous:  # a DeleteTable mutant may have dropped it
            for frame in setup:
                yield _SETUP, frame
            previous = operation
        body = json.dumps(request).encode()  # json, not orjson: it writes integers of any size
        yield operation, _frame(f"{prefix}.{operation}", body)


class _Answers:
    """Reads HTTP responses (status line, headers with Content-Length, body) off a socket, in order."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def _fill(self) -> None:
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise AssertionError("the server closed the connection")
        self.buffer += chunk

    def next(self) -> tuple[int, bytes]:
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        while len(rest) < length:
            self._fill()
            head, _, rest = self.buffer.partition(b"\r\n\r\n")
        self.buffer = rest[length:]
        return int(head[9:12]), rest[:length]


@pytest.mark.slow
def test_no_hostile_field_gets_a_5xx(served):
    started = time.monotonic()
    labels: list[str] = []
    sent = threading.Event()
    with socket.create_connection(("127.0.0.1", served.port), timeout=60) as sock:

        def send() -> None:
            for label, frame in _requests(started):
                labels.append(label)
                sock.sendall(frame)
            sent.set()

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        answers = _Answers(sock)
        statuses: Counter[int] = Counter()
        server_errors: list[tuple[str, bytes]] = []
        read = 0
        last = b""
        while not (sent.is_set() and read == len(labels)):
            if read >= len(labels):
                time.sleep(0.001)
                continue
            try:
                status, payload = answers.next()
            except AssertionError as error:  # say what came before, and what the server logged
                time.sleep(1)  # its log is read on a thread
                raise AssertionError(
                    f"{error} after {read} answers (next: {labels[read]!r}; last: {last[:300]!r}); {statuses}; "
                    f"server exit status {served.process.poll()}; server log: {served.log()[-2000:]}"
                ) from None
            last = payload
            label = labels[read]
            read += 1
            if label == _SETUP:
                continue
            statuses[status] += 1
            if status >= 500:
                server_errors.append((label, payload[:300]))
        sender.join(timeout=60)
    total = sum(statuses.values())
    assert not server_errors, f"{len(server_errors)} 5xx answers, first ones: {server_errors[:5]}"
    assert total >= MINIMUM_REQUESTS, f"only {total} requests within {TIME_CAP} s: {statuses}"
    assert statuses[400] > MINIMUM_REQUESTS // 2  # most are refused, as they must be
    assert "internal error" not in served.log()
