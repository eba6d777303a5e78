"""Hostile and malformed input: every case is answered with a 4xx and the server keeps serving."""

from __future__ import annotations

import socket

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewright.server import MAX_BODY

from ._support import raw_exchange, status_of


def request(
    body: bytes,
    *,
    target: str | None = "DynamoDB_20120810.ListTables",
    extra: bytes = b"",
    content_type: bytes | None = b"application/x-amz-json-1.0",
    method: bytes = b"POST",
    path: bytes = b"/",
) -> bytes:
    head = [method + b" " + path + b" HTTP/1.1", b"Host: 127.0.0.1"]
    if target is not None:
        head.append(b"X-Amz-Target: " + target.encode())
    if content_type is not None:
        head.append(b"Content-Type: " + content_type)
    head.append(b"Content-Length: %d" % len(body))
    return b"\r\n".join(head) + b"\r\n" + extra + b"\r\n" + body


# (name, raw request, expected status, expected error code in the body or None)
CASES = [
    ("truncated JSON", request(b'{"TableName": "t'), 400, "SerializationException"),
    ("number overflowing a double", request(b'{"Limit": 1e999999}'), 400, "SerializationException"),
    ("deep nesting", request(b"[" * 5000 + b"]" * 5000), 400, "SerializationException"),
    ("deep object nesting", request(b'{"a":' * 3000 + b"1" + b"}" * 3000), 400, "SerializationException"),
    ("binary garbage", request(bytes(range(256)) * 4), 400, "SerializationException"),
    ("invalid UTF-8 in a string", request(b'{"TableName": "\xff\xfe"}'), 400, "SerializationException"),
    ("array body", request(b"[1, 2, 3]"), 400, "SerializationException"),
    ("string body", request(b'"ListTables"'), 400, "SerializationException"),
    ("null body", request(b"null"), 400, "SerializationException"),
    ("wrong content type", request(b"{}", content_type=b"text/plain"), 400, "SerializationException"),
    ("missing content type", request(b"{}", content_type=None), 400, "SerializationException"),
    ("missing target", request(b"{}", target=None), 400, "UnknownOperationException"),
    (
        "unknown operation",
        request(b"{}", target="DynamoDB_20120810.DropEverything"),
        400,
        "UnknownOperationException",
    ),
    (
        "unknown service prefix",
        request(b"{}", target="S3_20060301.ListBuckets"),
        400,
        "UnknownOperationException",
    ),
    (
        "target without operation",
        request(b"{}", target="DynamoDB_20120810"),
        400,
        "UnknownOperationException",
    ),
    ("wrong method", request(b"{}", method=b"PUT"), 405, "MethodNotAllowedException"),
    ("wrong path", request(b"{}", path=b"/admin"), 404, "NotFoundException"),
    (
        "engine rejects bad shape",
        request(b'{"TableName": 5, "Key": []}', target="DynamoDB_20120810.GetItem"),
        400,
        None,
    ),
    (
        "not HTTP at all",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(200),
        400,
        "BadRequestException",
    ),
    ("broken request line", b"POST\r\n\r\n", 400, "BadRequestException"),
    (
        "broken header line",
        b"POST / HTTP/1.1\r\nHost x\r\nContent-Length: 2\r\n\r\n{}",
        400,
        "BadRequestException",
    ),
    (
        "negative content length",
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n{}",
        400,
        "BadRequestException",
    ),
    (
        "content length not a number",
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ab\r\n\r\n{}",
        400,
        "BadRequestException",
    ),
    (
        "huge header",
        request(b"{}", extra=b"X-Pad: " + b"a" * 100_000 + b"\r\n"),
        400,
        "BadRequestException",
    ),
    (
        "declared 20 MB body",
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 20971520\r\n\r\n{",
        413,
        "RequestEntityTooLarge",
    ),
    (
        "upgrade request",
        b"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
        400,
        "BadRequestException",
    ),
]


def assert_still_serving(port: int) -> None:
    answer = raw_exchange(port, request(b"{}"))
    assert status_of(answer) == 200, answer[:300]
    assert b'"TableNames"' in answer


@pytest.mark.parametrize(("name", "raw", "status", "code"), CASES, ids=[case[0] for case in CASES])
def test_malformed_request_is_a_clear_4xx(server, name, raw, status, code):
    answer = raw_exchange(server.port, raw)
    assert status_of(answer) == status, answer[:300]
    body = orjson.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert body["message"]
    if code is not None:
        assert body["__type"].endswith("#" + code)
    assert_still_serving(server.port)


def test_twenty_megabyte_body_is_413_without_killing_the_server(server):
    body = b'{"TableName": "' + b"x" * (20 * 1024 * 1024) + b'"}'
    assert len(body) > MAX_BODY
    answer = raw_exchange(server.port, request(body))
    assert status_of(answer) == 413
    assert b"RequestEntityTooLarge" in answer
    assert_still_serving(server.port)


def test_slowloris_partial_request_is_cut_off(server):
    # The fixture's request timeout is 2 s: a request trickling in is answered 408 and closed.
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Tar")
        answer = sock.recv(65536)
        assert status_of(answer) == 408
        assert sock.recv(65536) == b""
    assert_still_serving(server.port)


def test_client_vanishing_mid_request_leaves_server_serving(server):
    for cut in (5, 40, 90):
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(request(b'{"TableName": "t", "Key": {}}')[:cut])
    assert_still_serving(server.port)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.binary(max_size=2048), target=st.sampled_from(["ListTables", "GetItem", "PutItem", "Query"]))
def test_arbitrary_bodies_never_cause_a_5xx(server, body, target):
    answer = raw_exchange(server.port, request(body, target=f"DynamoDB_20120810.{target}"))
    assert status_of(answer) in (200, 400), answer[:300]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(header=st.binary(min_size=1, max_size=300))
def test_arbitrary_header_bytes_never_cause_a_5xx(server, header):
    answer = raw_exchange(server.port, request(b"{}", extra=b"X-Fuzz: " + header + b"\r\n"))
    assert 200 <= status_of(answer) < 500, answer[:300]
    assert_still_serving(server.port)
