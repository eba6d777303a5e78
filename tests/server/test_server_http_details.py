"""HTTP details as DynamoDB answers them, over real HTTP against a served engine (issue 15 req 4).

Gap 23 CORS, gap 26 request-line and header limits, gap 37 the Date header, gap 40 the health
check's body, gap 41 the wording for unparsable JSON, gap 46 empty bodies for TagResource and
UntagResource.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from email.utils import parsedate_to_datetime

import boto3
import orjson
import pytest
from botocore.exceptions import ClientError

from tablewright.server import ServerThread

from ._support import DUMMY, NO_RETRY, create_table, raw_exchange, status_of

TABLE = "items"
ORIGIN = "http://example.com/"
CORS = ("access-control-allow-origin", "access-control-expose-headers", "access-control-max-age")
PREFLIGHT_ECHO = ("access-control-allow-methods", "access-control-allow-headers")


@pytest.fixture
def served(engine):
    """The engine served as ``tablewright serve`` serves it (requests tried on the event loop)."""
    with ServerThread(engine.handle, try_now=engine.try_handle, request_timeout=5.0) as running:
        client = boto3.client("dynamodb", endpoint_url=running.url, config=NO_RETRY, **DUMMY)
        create_table(client, TABLE)
        running.client = client
        yield running


def request(port: int, method: str, body: bytes | str = b"", headers: dict[str, str] | None = None, path="/"):
    """One raw request; returns (status, lower-cased headers, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    payload = response.read()
    conn.close()
    return response.status, {name.lower(): value for name, value in response.getheaders()}, payload


def target(operation: str) -> dict[str, str]:
    return {"X-Amz-Target": f"DynamoDB_20120810.{operation}", "Content-Type": "application/x-amz-json-1.0"}


# -- gap 23: CORS ----------------------------------------------------------------------------------

PREFLIGHT = {
    "Origin": ORIGIN,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "content-type, x-amz-target, x-amz-date, authorization",
}


def test_preflight_options_is_answered_with_what_it_asked_for(served):
    status, headers, body = request(served.port, "OPTIONS", headers=PREFLIGHT)
    assert (status, body) == (200, b"")
    assert headers["access-control-allow-origin"] == "*"
    assert "x-amzn-RequestId" in headers["access-control-expose-headers"].split(",")
    assert headers["access-control-max-age"] == "172800"
    assert headers["access-control-allow-methods"] == "POST"
    assert headers["access-control-allow-headers"] == "content-type, x-amz-target, x-amz-date, authorization"


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_requests_with_origin_get_allow_origin_but_no_preflight_headers(served, method):
    body = b"{}" if method == "POST" else b""
    status, headers, _ = request(served.port, method, body, {**PREFLIGHT, **target("ListTables")})
    assert status == 200
    assert headers["access-control-allow-origin"] == "*"
    assert "access-control-expose-headers" in headers
    assert not {"access-control-max-age", *PREFLIGHT_ECHO} & headers.keys()


@pytest.mark.parametrize("method", ["OPTIONS", "GET", "POST"])
def test_without_origin_no_cors_header_is_sent(served, method):
    body = b"{}" if method == "POST" else b""
    headers = {"Access-Control-Request-Method": "POST", **target("ListTables")}
    status, answer, _ = request(served.port, method, body, headers)
    assert status == 200
    assert not [name for name in answer if name.startswith("access-control-")]


def test_errors_carry_cors_headers_so_a_page_can_read_them(served):
    status, headers, body = request(
        served.port, "POST", b"{}", {"Origin": ORIGIN, **target("DropEverything")}
    )
    assert status == 400 and b"UnknownOperationException" in body
    assert headers["access-control-allow-origin"] == "*"
    # Refused by the transport itself (headers over the limit), still readable by the page.
    answer = raw_exchange(
        served.port,
        b"POST / HTTP/1.1\r\nHost: x\r\nOrigin: http://a\r\nX-Pad: " + b"p" * 20_000 + b"\r\n\r\n",
    )
    assert status_of(answer) == 400
    assert b"\r\nAccess-Control-Allow-Origin: *\r\n" in answer


def test_preflight_needs_no_signature_on_a_server_that_checks_them(engine):
    with ServerThread(engine.handle, credentials={"AKIDCORS": "secret"}) as secured:
        status, headers, _ = request(secured.port, "OPTIONS", headers=PREFLIGHT)
        assert status == 200 and headers["access-control-allow-origin"] == "*"
        status, headers, body = request(
            secured.port, "POST", b"{}", {"Origin": ORIGIN, **target("ListTables")}
        )
        assert status == 400 and b"MissingAuthenticationTokenException" in body
        assert headers["access-control-allow-origin"] == "*"


# -- gap 26: request-line and header size limits ---------------------------------------------------


def put(key: str) -> bytes:
    return json.dumps({"TableName": TABLE, "Item": {"pk": {"S": key}}}).encode()


def stored(served, key: str) -> bool:
    return "Item" in served.client.get_item(TableName=TABLE, Key={"pk": {"S": key}})


def test_headers_over_16_kb_are_refused_with_400(served):
    status, _, body = request(
        served.port, "POST", put("h"), {**target("PutItem"), "h1": "x" * 8192, "h2": "y" * 8192}
    )
    assert status == 400
    assert orjson.loads(body) == {
        "__type": "com.amazon.coral.service#BadRequestException",
        "message": "Request headers exceed the limit of 16384 bytes",
    }
    assert not stored(served, "h")


def test_headers_just_under_16_kb_are_served(served):
    status, _, _ = request(served.port, "POST", put("ok"), {**target("PutItem"), "h1": "x" * 15_000})
    assert status == 200
    assert stored(served, "ok")


def test_url_over_16_kb_is_refused_with_400_before_the_body(served):
    # The body is announced but never sent: the answer must come from the request line alone.
    line = b"POST /" + b"x" * 17_000 + b" HTTP/1.1\r\n"
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(line + b"Host: x\r\nContent-Length: 100\r\n\r\n")
        answer = sock.recv(65536)
    assert status_of(answer) == 400
    assert b"Request URL exceeds the limit of 16384 bytes" in answer


def test_short_unknown_path_is_still_404(served):
    status, _, body = request(served.port, "POST", put("p"), target("PutItem"), path="/" + "x" * 1000)
    assert status == 404 and b"NotFoundException" in body


def test_header_that_never_ends_is_refused_without_waiting_for_it(served):
    # The server's request timeout would answer 408; the size limit answers 400 first.
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Pad: ")
        for _ in range(5):
            time.sleep(0.05)  # separate reads, as a slow client's arrive
            sock.sendall(b"a" * 8192)
        answer = sock.recv(65536)
    assert status_of(answer) == 400
    assert b"Request headers exceed the limit of 16384 bytes" in answer


def test_a_pipelined_chunk_with_large_bodies_is_not_counted_as_head(served):
    # A client pipelining faster than the server reads hands over chunks that finish one request
    # (body and all) and begin the next one's head: only head bytes count against the 16 KB limit.
    def frame(key: str, pad: int) -> bytes:
        body = json.dumps({"TableName": TABLE, "Item": {"pk": {"S": key}, "pad": {"S": "p" * pad}}}).encode()
        head = "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
        head += f"Content-Type: application/x-amz-json-1.0\r\nContent-Length: {len(body)}\r\n\r\n"
        return head.encode() + body

    first, second = frame("big", 40_000), frame("next", 10)
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(first[:20])  # the first head is unfinished when the next chunk arrives
        time.sleep(0.1)
        sock.sendall(first[20:] + second[:30])  # ends inside the second request's head
        time.sleep(0.1)
        sock.sendall(second[30:])
        answers = b""
        while answers.count(b"HTTP/1.1 ") < 2:
            chunk = sock.recv(65536)
            assert chunk, f"connection closed after {answers!r}"
            answers += chunk
    assert answers.count(b"HTTP/1.1 200 ") == 2, answers
    assert stored(served, "big") and stored(served, "next")


# -- gap 37: Date --------------------------------------------------------------------------------


def test_every_response_carries_a_date_header(served):
    before = time.time()
    answer = served.client.get_item(TableName=TABLE, Key={"pk": {"S": "k"}})
    date = parsedate_to_datetime(answer["ResponseMetadata"]["HTTPHeaders"]["date"])
    assert before - 2 <= date.timestamp() <= time.time() + 1
    with pytest.raises(ClientError) as caught:
        served.client.get_item(TableName="missing", Key={"pk": {"S": "k"}})
    assert "date" in caught.value.response["ResponseMetadata"]["HTTPHeaders"]
    for method, body, headers in [("GET", b"", {}), ("OPTIONS", b"", {}), ("POST", b"{", target("PutItem"))]:
        assert "date" in request(served.port, method, body, headers)[1]
    refused = raw_exchange(
        served.port, b"BREW / HTTP/1.1\r\n\r\n"
    )  # malformed HTTP, answered by the transport
    assert status_of(refused) == 400
    assert b"\r\nDate: " in refused


# -- gap 40: health check --------------------------------------------------------------------------


def test_get_root_names_the_host_the_client_used(served):
    status, headers, body = request(served.port, "GET")
    assert (status, body) == (200, f"healthy: 127.0.0.1:{served.port}".encode())
    assert headers["content-type"] == "text/plain"
    status, _, body = request(served.port, "GET", headers={"Host": "dynamodb.local:8000"})
    assert body == b"healthy: dynamodb.local:8000"


# -- gap 41: unparsable JSON -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "position"), [(b"{broken json", 1), (b'{"TableName": "items"', 21), (b"\xff{}", 0)]
)
def test_unparsable_json_is_a_serialization_exception_ending_at_its_position(served, body, position):
    status, _, answer = request(served.port, "POST", body, target("PutItem"))
    error = orjson.loads(answer)
    assert status == 400
    assert error["__type"] == "com.amazon.coral.service#SerializationException"
    assert error["message"].endswith(f" at {position}")


# -- gap 46: empty bodies --------------------------------------------------------------------------


def test_tag_and_untag_resource_answer_with_an_empty_body(served):
    arn = served.client.describe_table(TableName=TABLE)["Table"]["TableArn"]
    tag = json.dumps({"ResourceArn": arn, "Tags": [{"Key": "team", "Value": "core"}]})
    status, headers, body = request(served.port, "POST", tag, target("TagResource"))
    assert (status, body, headers["content-length"], headers["x-amz-crc32"]) == (200, b"", "0", "0")
    assert served.client.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "core"}]
    untag = json.dumps({"ResourceArn": arn, "TagKeys": ["team"]})
    status, headers, body = request(served.port, "POST", untag, target("UntagResource"))
    assert (status, body, headers["content-length"]) == (200, b"", "0")
    assert served.client.list_tags_of_resource(ResourceArn=arn)["Tags"] == []
    # boto3 reads the empty bodies as DynamoDB's: success, nothing to parse.
    served.client.tag_resource(ResourceArn=arn, Tags=[{"Key": "a", "Value": "b"}])
    served.client.untag_resource(ResourceArn=arn, TagKeys=["a"])


def test_operations_with_output_still_answer_json(served):
    status, _, body = request(served.port, "POST", b"{}", target("ListTables"))
    assert (status, orjson.loads(body)) == (200, {"TableNames": [TABLE]})
