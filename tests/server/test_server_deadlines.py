"""Connection deadlines on a keep-alive connection: each request moves them, and the timer behind
them is re-armed lazily (it may fire early, then sets itself for what remains). These check that
the right timeout still applies after many requests, and that an early firing closes nothing."""

from __future__ import annotations

import socket
import time

from tablewright.server import ServerThread

from ._support import status_of

REQUEST = (
    b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
    b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: 2\r\n\r\n{}"
)


def handler(operation: str, request: dict) -> dict:
    return {"TableNames": []}


def test_requests_spread_over_both_timeouts_keep_the_connection_open_then_idle_closes_it():
    with (
        ServerThread(handler, request_timeout=0.5, idle_timeout=1.5) as running,
        socket.create_connection(("127.0.0.1", running.port), timeout=10) as sock,
    ):
        for _ in range(10):  # 2.5 s of requests: longer than either timeout, never idle for long
            sock.sendall(REQUEST)
            assert status_of(sock.recv(65536)) == 200
            time.sleep(0.25)
        idle_from = time.monotonic()
        assert sock.recv(65536) == b""  # then closed for being idle ...
        assert time.monotonic() - idle_from > 1.0  # ... after the idle timeout, not a stale deadline


def test_request_timeout_applies_to_a_partial_request_after_earlier_ones():
    with (
        ServerThread(handler, request_timeout=1.0, idle_timeout=30.0) as running,
        socket.create_connection(("127.0.0.1", running.port), timeout=20) as sock,
    ):
        for _ in range(3):
            sock.sendall(REQUEST)
            assert status_of(sock.recv(65536)) == 200
        started = time.monotonic()
        sock.sendall(REQUEST[:-5])  # the head and part of nothing more: a stalled request
        assert status_of(sock.recv(65536)) == 408
        assert time.monotonic() - started < 10  # the 1 s request timeout, not the 30 s idle one
