"""The HTTP layer on its own: framing, headers, keep-alive, timeouts and crash isolation.

These drive the real HttpServer and DynamoDBProtocol with a tiny handler so that failures the
engine cannot be made to produce on demand (an unexpected exception) can be exercised.
"""

from __future__ import annotations

import http.client
import logging
import socket
import zlib

import orjson
import pytest

from tablewright.engine.errors import ConditionalCheckFailedException
from tablewright.server import ServerThread

from ._support import raw_exchange, status_of


def handler(operation: str, request: dict) -> dict:
    if operation == "PutItem" and "ConditionExpression" in request:
        raise ConditionalCheckFailedException()
    if operation == "Scan":
        raise ZeroDivisionError("a bug in the engine")
    return {"Operation": operation, "Echo": request}


@pytest.fixture(scope="module")
def plain():
    with ServerThread(handler, request_timeout=1.0, idle_timeout=5.0, max_body=1024 * 1024) as running:
        yield running


def post(port: int, target: str, body: bytes, content_type: str = "application/x-amz-json-1.0"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/", body=body, headers={"X-Amz-Target": target, "Content-Type": content_type})
    response = conn.getresponse()
    payload = response.read()
    conn.close()
    return response, payload


def test_success_has_crc32_request_id_and_json(plain):
    response, payload = post(plain.port, "DynamoDB_20120810.ListTables", b'{"Limit": 3}')
    assert response.status == 200
    assert response.getheader("Content-Type") == "application/x-amz-json-1.0"
    assert int(response.getheader("x-amz-crc32")) == zlib.crc32(payload)
    assert len(response.getheader("x-amzn-RequestId")) >= 32
    assert orjson.loads(payload) == {"Operation": "ListTables", "Echo": {"Limit": 3}}


def test_streams_target_reaches_the_handler_under_its_operation_name(plain):
    response, payload = post(plain.port, "DynamoDBStreams_20120810.ListStreams", b"{}")
    assert response.status == 200
    assert orjson.loads(payload)["Operation"] == "ListStreams"


def test_engine_error_keeps_dynamodb_type_and_status(plain):
    response, payload = post(plain.port, "DynamoDB_20120810.PutItem", b'{"ConditionExpression": "x"}')
    assert response.status == 400
    assert orjson.loads(payload) == {
        "__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
        "message": "The conditional request failed",
    }
    assert int(response.getheader("x-amz-crc32")) == zlib.crc32(payload)


def test_unexpected_exception_is_500_and_server_keeps_serving(plain):
    response, payload = post(plain.port, "DynamoDB_20120810.Scan", b"{}")
    assert response.status == 500
    assert orjson.loads(payload)["__type"].endswith("#InternalServerError")
    response, _ = post(plain.port, "DynamoDB_20120810.ListTables", b"{}")
    assert response.status == 200


def test_internal_error_is_logged_with_traceback_and_the_client_gets_only_its_id(plain, caplog):
    caplog.set_level(logging.ERROR, logger="tablewright.server")
    response, payload = post(plain.port, "DynamoDB_20120810.Scan", b"{}")
    request_id = response.getheader("x-amzn-RequestId")
    message = orjson.loads(payload)["message"]
    assert response.status == 500
    assert request_id in message
    assert "ZeroDivisionError" not in message and "a bug in the engine" not in message
    logged = [record for record in caplog.records if request_id in record.getMessage()]
    assert len(logged) == 1
    assert "Scan" in logged[0].getMessage()
    assert logged[0].exc_info is not None and logged[0].exc_info[0] is ZeroDivisionError
    assert "a bug in the engine" in caplog.text  # the traceback, on the server's side only


def test_keep_alive_serves_many_requests_on_one_connection(plain):
    conn = http.client.HTTPConnection("127.0.0.1", plain.port, timeout=10)
    for n in range(5):
        headers = {
            "X-Amz-Target": "DynamoDB_20120810.ListTables",
            "Content-Type": "application/x-amz-json-1.0",
        }
        conn.request("POST", "/", body=b'{"n": %d}' % n, headers=headers)
        response = conn.getresponse()
        assert orjson.loads(response.read())["Echo"] == {"n": n}
    conn.close()


def test_pipelined_requests_are_answered_in_order(plain):
    one = (
        b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
        b'Content-Type: application/x-amz-json-1.0\r\nContent-Length: 7\r\n\r\n{"n":%d}'
    )
    answer = raw_exchange(plain.port, b"".join(one % n for n in range(3)))
    assert answer.count(b"HTTP/1.1 200 OK") == 3
    assert answer.index(b'"n":0') < answer.index(b'"n":1') < answer.index(b'"n":2')


def test_chunked_body_is_accepted(plain):
    request = (
        b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
        b"Content-Type: application/x-amz-json-1.0\r\nTransfer-Encoding: chunked\r\n\r\n"
        b'4\r\n{"a"\r\n4\r\n:1}\n\r\n0\r\n\r\n'
    )
    answer = raw_exchange(plain.port, request)
    assert status_of(answer) == 200 and b'"Echo":{"a":1}' in answer


def test_chunked_body_over_the_limit_is_413(plain):
    chunk = b"x" * 65536
    request = (
        b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
        b"Content-Type: application/x-amz-json-1.0\r\nTransfer-Encoding: chunked\r\n\r\n"
    ) + (b"10000\r\n" + chunk + b"\r\n") * 17
    assert status_of(raw_exchange(plain.port, request)) == 413


def test_slow_partial_request_times_out_with_408(plain):
    with socket.create_connection(("127.0.0.1", plain.port), timeout=10) as sock:
        sock.sendall(
            b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
            b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: 100\r\n\r\n{"
        )
        answer = sock.recv(65536)  # the server's 1 s request timeout answers, then closes
        assert status_of(answer) == 408
        assert sock.recv(65536) == b""


def test_health_check_on_get(plain):
    conn = http.client.HTTPConnection("127.0.0.1", plain.port, timeout=10)
    conn.request("GET", "/")
    response = conn.getresponse()
    assert response.status == 200 and response.read().startswith(b"healthy")


@pytest.mark.parametrize(
    "target", [b"http://127.0.0.1:{port}/", b"HTTP://localhost/?x=1", b"https://proxy.example"]
)
def test_a_request_in_absolute_form_as_sent_through_a_proxy_is_served(plain, target):
    target = target.replace(b"{port}", str(plain.port).encode())
    body = b'{"Limit": 3}'
    answer = raw_exchange(
        plain.port,
        b"POST " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
        b"Content-Type: application/x-amz-json-1.0\r\nConnection: close\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body,
    )
    assert status_of(answer) == 200
    assert orjson.loads(answer.split(b"\r\n\r\n", 1)[1]) == {"Operation": "ListTables", "Echo": {"Limit": 3}}


def test_an_absolute_target_to_another_path_is_still_404(plain):
    answer = raw_exchange(
        plain.port,
        b"POST http://127.0.0.1/admin HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
    )
    assert status_of(answer) == 404 and b"'/admin'" in answer
