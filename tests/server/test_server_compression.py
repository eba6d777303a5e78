"""Compressed requests and responses over real HTTP, as DynamoDB handles them (issue 15 req 3).

Gap 1: request bodies with ``Content-Encoding: gzip`` / ``deflate`` are decompressed, the size
limit applies to what they decompress to, and a body that is not what its label says is a 500 with
nothing written. Gap 2: responses over 4096 bytes are compressed as ``Accept-Encoding`` negotiates.
And botocore's own request-compression setting, signed, against ``tablewright serve --auth``.
"""

from __future__ import annotations

import gzip
import http.client
import json
import socket
import time
import zlib
from pathlib import Path

import boto3
import botocore.session
import orjson
import pytest
from botocore.config import Config
from botocore.loaders import Loader

from tablewright.server import ServerThread

from ._support import DUMMY, NO_RETRY, Served, create_table

TABLE = "items"


@pytest.fixture
def served(engine):
    """The engine served as ``tablewright serve`` serves it (requests tried on the event loop)."""
    with ServerThread(engine.handle, try_now=engine.try_handle, request_timeout=10.0) as running:
        client = boto3.client("dynamodb", endpoint_url=running.url, config=NO_RETRY, **DUMMY)
        create_table(client, TABLE)
        running.client = client
        yield running


def post(port: int, operation: str, body: bytes | str, headers: dict[str, str] | None = None):
    """One raw DynamoDB request; returns (response, body bytes as received on the wire)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    all_headers = {
        "X-Amz-Target": f"DynamoDB_20120810.{operation}",
        "Content-Type": "application/x-amz-json-1.0",
    }
    conn.request("POST", "/", body=body, headers={**all_headers, **(headers or {})})
    response = conn.getresponse()
    payload = response.read()
    conn.close()
    return response, payload


def put_body(key: str, filler: int = 10) -> bytes:
    return json.dumps({"TableName": TABLE, "Item": {"pk": {"S": key}, "x": {"S": "x" * filler}}}).encode()


def stored_in(client, key: str) -> dict | None:
    return client.get_item(TableName=TABLE, Key={"pk": {"S": key}}).get("Item")


def stored(served, key: str) -> dict | None:
    return stored_in(served.client, key)


# -- gap 1: compressed request bodies --------------------------------------------------------------

TWO_MEMBERS = {"gzip members": lambda body: gzip.compress(body[:20]) + gzip.compress(body[20:])}
ENCODED = {
    "gzip": ("gzip", gzip.compress),
    "deflate": ("deflate", zlib.compress),
    "GZIP upper case": ("GZIP", gzip.compress),
    "two gzip members are one stream": ("gzip", TWO_MEMBERS["gzip members"]),
    "identity": ("identity", lambda body: body),
    "gzip then deflate, listed in order applied": (
        "gzip, deflate",
        lambda body: zlib.compress(gzip.compress(body)),
    ),
}


@pytest.mark.parametrize(("coding", "encode"), list(ENCODED.values()), ids=list(ENCODED))
def test_compressed_request_body_is_executed(served, coding, encode):
    response, payload = post(
        served.port, "PutItem", encode(put_body("a", 3000)), {"Content-Encoding": coding}
    )
    assert (response.status, payload) == (200, b"{}")
    assert stored(served, "a")["x"] == {"S": "x" * 3000}


REFUSED = {
    "plain JSON labelled gzip": ("gzip", lambda body: body, "not valid gzip data"),
    "plain JSON labelled deflate": ("deflate", lambda body: body, "not valid deflate data"),
    "unknown coding": ("garbage", lambda body: body, "names coding 'garbage'"),
    "x-gzip is not a coding DynamoDB decodes": ("x-gzip", gzip.compress, "names coding 'x-gzip'"),
    "gzip truncated by one byte": ("gzip", lambda body: gzip.compress(body)[:-1], "truncated"),
    "deflate truncated by one byte": ("deflate", lambda body: zlib.compress(body)[:-1], "truncated"),
    "empty body labelled gzip": ("gzip", lambda body: b"", "truncated or empty"),
    "gzip data labelled deflate": ("deflate", gzip.compress, "not valid deflate data"),
    "deflate data labelled gzip": ("gzip", zlib.compress, "not valid gzip data"),
    "garbage after the gzip stream": ("gzip", lambda body: gzip.compress(body) + b"junk", "not valid gzip"),
    "data after the deflate stream": ("deflate", lambda body: zlib.compress(body) * 2, "follow the end"),
}


@pytest.mark.parametrize(("coding", "encode", "says"), list(REFUSED.values()), ids=list(REFUSED))
def test_body_not_in_its_coding_is_500_and_nothing_is_written(served, coding, encode, says):
    response, payload = post(served.port, "PutItem", encode(put_body("a")), {"Content-Encoding": coding})
    error = orjson.loads(payload)
    assert response.status == 500
    assert error["__type"] == "com.amazon.coral.service#InternalFailure"
    assert says in error["message"]
    assert stored(served, "a") is None


def test_size_limit_applies_after_decompression(served):
    # 20 MB of JSON that gzips to a few KB: refused on what it expands to, nothing written.
    body = gzip.compress(put_body("big", 20 * 1024 * 1024), compresslevel=9)
    assert len(body) < 100_000
    response, payload = post(served.port, "PutItem", body, {"Content-Encoding": "gzip"})
    error = orjson.loads(payload)
    assert response.status == 413
    assert error["__type"] == "com.amazon.coral.service#RequestEntityTooLarge"
    assert "decompresses (gzip) to more than the limit" in error["message"]
    assert stored(served, "big") is None
    served.client.put_item(TableName=TABLE, Item={"pk": {"S": "after"}})  # still serving
    assert served.server.buffered == 0  # the budget taken while decompressing was given back


def test_decompressed_bodies_count_against_the_buffer_budget(engine):
    # A body small on the wire but large decompressed must fit the server's buffer budget, so
    # compressed uploads cannot hold more memory than uncompressed ones could.
    mib = 1024 * 1024
    with ServerThread(engine.handle, max_body=4 * mib, max_buffered=4 * mib) as running:
        client = boto3.client("dynamodb", endpoint_url=running.url, config=NO_RETRY, **DUMMY)
        create_table(client, TABLE)
        items = [
            {"PutRequest": {"Item": {"pk": {"S": f"mid{i}"}, "x": {"S": "x" * 350_000}}}} for i in range(6)
        ]
        body = gzip.compress(json.dumps({"RequestItems": {TABLE: items}}).encode())  # 2.1 MB of JSON
        with socket.create_connection(("127.0.0.1", running.port), timeout=10) as holder:
            # Another client announces a 3 MB body and sends none of it: 3 MB of the budget are taken.
            holder.sendall(
                b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
                b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n" % (3 * mib)
            )
            response, payload = post(running.port, "BatchWriteItem", body, {"Content-Encoding": "gzip"})
            assert response.status == 503
            assert orjson.loads(payload)["__type"].endswith("#ServiceUnavailable")
            assert stored_in(client, "mid0") is None
        deadline = time.monotonic() + 10
        while running.server.buffered and time.monotonic() < deadline:
            time.sleep(0.02)  # the holder's reservation is released as its connection closes
        response, payload = post(running.port, "BatchWriteItem", body, {"Content-Encoding": "gzip"})
        assert response.status == 200  # with the budget free again, the same body is served
        assert stored_in(client, "mid5") is not None
        assert running.server.buffered == 0


# -- gap 2: compressed responses -------------------------------------------------------------------

NEGOTIATED = {
    "gzip": ("gzip", "gzip"),
    "deflate": ("deflate", "deflate"),
    "first listed wins at equal q": ("gzip, deflate", "gzip"),
    "first known listed wins": ("br, identity, deflate, gzip", "deflate"),
    "higher q wins": ("gzip;q=0.8, deflate;q=0.9", "deflate"),
    "q over 1 counts as 1": ("deflate;q=5, gzip", "deflate"),
    "case-insensitive": ("GZip", "gzip"),
    "q=0 refuses": ("gzip;q=0", None),
    "q=0 refuses, the other is taken": ("gzip;q=0, deflate;q=0.1", "deflate"),
    "star is gzip": ("*", "gzip"),
    "star with gzip lower is deflate": ("*, gzip;q=0.5", "deflate"),
    "star with gzip refused is deflate": ("gzip;q=0, *", "deflate"),
    "identity": ("identity", None),
    "br": ("br", None),
    "zstd": ("zstd", None),
    "compress": ("compress", None),
    "x-gzip": ("x-gzip", None),
    "empty value": ("", None),
    "quoted": ('"gzip"', None),
    "two words": ("gzip br", None),
    "colon for semicolon": ("gzip:q=1", None),
    "a malformed entry spoils the header": ("gzip, br deflate", None),
    "first q of several counts": ("gzip;q=0;q=1, deflate;q=0.5", "deflate"),
    "spaces around parameters": ("gzip ; q=0.4 , deflate ; q=0.3", "gzip"),
}


@pytest.fixture
def large_item(served):
    served.client.put_item(TableName=TABLE, Item={"pk": {"S": "big"}, "x": {"S": "x" * 6000}})
    return json.dumps({"TableName": TABLE, "Key": {"pk": {"S": "big"}}})


@pytest.mark.parametrize(("accept", "coding"), list(NEGOTIATED.values()), ids=list(NEGOTIATED))
def test_response_coding_negotiated_from_accept_encoding(served, large_item, accept, coding):
    response, wire = post(served.port, "GetItem", large_item, {"Accept-Encoding": accept})
    assert response.status == 200
    assert response.getheader("Content-Encoding") == coding
    assert int(response.getheader("Content-Length")) == len(wire)
    # x-amz-crc32 covers the bytes sent, compressed or not, as DynamoDB computes it.
    assert int(response.getheader("x-amz-crc32")) == zlib.crc32(wire)
    plain = {"gzip": gzip.decompress, "deflate": zlib.decompress, None: bytes}[coding](wire)
    assert orjson.loads(plain)["Item"]["x"] == {"S": "x" * 6000}
    if coding is not None:
        assert len(wire) < 1000


def test_small_responses_are_not_compressed(served):
    served.client.put_item(TableName=TABLE, Item={"pk": {"S": "small"}, "x": {"S": "x" * 3000}})
    request = json.dumps({"TableName": TABLE, "Key": {"pk": {"S": "small"}}})
    response, wire = post(served.port, "GetItem", request, {"Accept-Encoding": "gzip"})
    assert response.getheader("Content-Encoding") is None
    assert orjson.loads(wire)["Item"]["x"] == {"S": "x" * 3000}


def test_only_the_first_accept_encoding_line_counts(served, large_item):
    def exchange(*lines: str) -> bytes:
        body = large_item.encode()
        head = (
            b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\n"
            b"Content-Type: application/x-amz-json-1.0\r\n"
            + b"".join(b"Accept-Encoding: %s\r\n" % line.encode() for line in lines)
            + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
        )
        with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
            sock.sendall(head + body)
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).split(b"\r\n\r\n", 1)[0].lower()

    assert b"content-encoding" not in exchange("identity", "gzip")
    assert b"content-encoding: gzip" in exchange("gzip", "deflate")
    assert b"content-encoding: deflate" in exchange("deflate", "gzip")


def test_boto3_never_asks_for_compression_and_gets_plain_json(served, large_item):
    item = served.client.get_item(TableName=TABLE, Key={"pk": {"S": "big"}})
    assert "content-encoding" not in item["ResponseMetadata"]["HTTPHeaders"]
    assert item["Item"]["x"] == {"S": "x" * 6000}


# -- botocore's own request compression ------------------------------------------------------------


def test_dynamodb_model_marks_no_operation_for_request_compression():
    # botocore compresses only operations whose model carries "requestcompression"; DynamoDB's
    # model has none today, so the setting alone never compresses. If a botocore release adds one,
    # this fails as a reminder that the real SDK path now applies (the test below covers it).
    for service in ("dynamodb", "dynamodbstreams"):
        operations = Loader().load_service_model(service, "service-2")["operations"]
        assert [name for name, op in operations.items() if "requestcompression" in op] == []


@pytest.fixture
def compressing_model(tmp_path: Path) -> Path:
    """DynamoDB's botocore model with gzip request compression declared on every operation, in a
    data path botocore loads ahead of its own (the AWS_DATA_PATH mechanism), as a model that
    declares it would be."""
    loader = Loader()
    version = loader.determine_latest_version("dynamodb", "service-2")
    model = loader.load_service_model("dynamodb", "service-2", version)
    for operation in model["operations"].values():
        operation["requestcompression"] = {"encodings": ["gzip"]}
    folder = tmp_path / "dynamodb" / version
    folder.mkdir(parents=True)
    (folder / "service-2.json").write_text(json.dumps(model))
    return tmp_path


def test_botocore_request_compression_works_signed_against_tablewright_serve(tmp_path, compressing_model):
    auth = tmp_path / "auth.yaml"
    auth.write_text("credentials:\n  - access_key_id: AKIDCOMPRESS\n    secret_access_key: compress-secret\n")
    served = Served("--auth", str(auth))
    try:
        session = botocore.session.get_session()
        session.set_config_variable("data_path", str(compressing_model))
        client = boto3.Session(botocore_session=session).client(
            "dynamodb",
            endpoint_url=served.url,
            region_name="us-east-1",
            aws_access_key_id="AKIDCOMPRESS",
            aws_secret_access_key="compress-secret",
            config=NO_RETRY.merge(
                Config(request_min_compression_size_bytes=128, disable_request_compression=False)
            ),
        )
        sent: list[tuple[bytes | None, int]] = []
        client.meta.events.register(
            "before-send.dynamodb",
            lambda request, **_: sent.append(
                (request.headers.get("Content-Encoding"), len(request.body or b""))
            ),
        )
        create_table(client, TABLE)
        items = [{"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "x": {"S": "y" * 2000}}}} for i in range(20)]
        client.batch_write_item(RequestItems={TABLE: items})
        scanned = client.scan(TableName=TABLE)
        assert scanned["Count"] == 20
        # The batch really went gzip-compressed, signed over the compressed bytes: 40 KB of JSON
        # as a few hundred bytes.
        encoding, size = sent[1]
        assert (encoding, size < 2000) == (b"gzip", True)  # prepared headers are bytes
        # With compression disabled by the setting, the same client sends plain bodies.
        plain = boto3.Session(botocore_session=session).client(
            "dynamodb",
            endpoint_url=served.url,
            region_name="us-east-1",
            aws_access_key_id="AKIDCOMPRESS",
            aws_secret_access_key="compress-secret",
            config=NO_RETRY.merge(Config(disable_request_compression=True)),
        )
        assert plain.get_item(TableName=TABLE, Key={"pk": {"S": "k3"}})["Item"]["x"] == {"S": "y" * 2000}
    finally:
        served.stop()
