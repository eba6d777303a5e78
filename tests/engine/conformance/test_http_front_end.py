"""DynamoDB's HTTP front end, as far as a boto3 client sees it: compressed request bodies, the
``Date`` header, the header size limit, unparsable JSON and empty bodies (behaviour gaps 1, 26,
37, 41, 46).

These are properties of the HTTP exchange, so they run on backends that have one (``tablewright
serve``, any endpoint named to the harness, Amazon DynamoDB itself) and are skipped for the
in-process client, which answers before any HTTP request exists, and for moto, which intercepts
at the same point. Requests are changed by botocore hooks after serialisation and before signing,
as botocore's own request compression does, so they are signed like any other and pass on an
endpoint that checks signatures. The raw HTTP details (CORS, negotiation, exact status of every
malformed body) are tested in tests/server.
"""

from __future__ import annotations

import gzip
import zlib
from email.utils import parsedate_to_datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError

from ._support import create_table

_IN_PROCESS_ENDPOINT = "http://tablewright.local"  # tablewright.client's in-process pseudo endpoint


@pytest.fixture
def http_client(client: Any, backend: str) -> Any:
    """``client`` if it talks HTTP to its backend; skip otherwise (nothing HTTP to check)."""
    if backend == "moto" or client.meta.endpoint_url == _IN_PROCESS_ENDPOINT:
        pytest.skip("needs a backend reached over HTTP (tablewright serve or another endpoint)")
    return client


def _rewrite_body(client: Any, operation: str, rewrite: Any, headers: dict[str, str] | None = None) -> None:
    """Have ``client`` send ``rewrite(serialised body)`` (and ``headers``) for ``operation``, signed."""

    def before_sign(request: Any, **_: Any) -> None:
        request.data = rewrite(request.body if isinstance(request.body, bytes) else request.body.encode())
        for name, value in (headers or {}).items():
            request.headers[name] = value

    client.meta.events.register_first(f"before-sign.dynamodb.{operation}", before_sign)


@pytest.mark.parametrize(
    ("coding", "encode"),
    [("gzip", gzip.compress), ("deflate", zlib.compress)],
    ids=["gzip", "deflate"],
)
def test_compressed_request_body_is_executed(http_client, coding, encode):
    table = create_table(http_client, "hash_s")
    _rewrite_body(http_client, "PutItem", encode, {"Content-Encoding": coding})
    http_client.put_item(TableName=table, Item={"pk": {"S": "zipped"}, "v": {"S": "x" * 2000}})
    item = http_client.get_item(TableName=table, Key={"pk": {"S": "zipped"}})["Item"]
    assert item["v"] == {"S": "x" * 2000}


def test_every_response_carries_a_date_header(http_client):
    table = create_table(http_client, "hash_s")
    answer = http_client.get_item(TableName=table, Key={"pk": {"S": "none"}})
    assert parsedate_to_datetime(answer["ResponseMetadata"]["HTTPHeaders"]["date"]).tzinfo is not None
    with pytest.raises(ClientError) as caught:
        http_client.describe_table(TableName="no_such_table")
    assert "date" in caught.value.response["ResponseMetadata"]["HTTPHeaders"]


def test_headers_over_16_kb_are_refused_with_400_and_nothing_is_written(http_client):
    table = create_table(http_client, "hash_s")
    _rewrite_body(http_client, "PutItem", lambda body: body, {"X-Pad-1": "x" * 8192, "X-Pad-2": "y" * 8192})
    with pytest.raises(ClientError) as caught:
        http_client.put_item(TableName=table, Item={"pk": {"S": "padded"}})
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    http_client.meta.events.unregister("before-sign.dynamodb.PutItem")  # nothing else is padded
    assert "Item" not in http_client.get_item(TableName=table, Key={"pk": {"S": "padded"}})


def test_unparsable_json_is_a_serialization_exception(http_client):
    table = create_table(http_client, "hash_s")
    _rewrite_body(http_client, "PutItem", lambda body: b"{broken json")
    with pytest.raises(ClientError) as caught:
        http_client.put_item(TableName=table, Item={"pk": {"S": "a"}})
    error = caught.value.response
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert error["Error"]["Code"] == "SerializationException"
    # DynamoDB sends no message, or one ending with the error's position.
    assert error["Error"].get("Message", "at 1").endswith("at 1")


def test_tag_and_untag_resource_answer_with_an_empty_body(http_client):
    table = create_table(http_client, "hash_s")
    arn = http_client.describe_table(TableName=table)["Table"]["TableArn"]
    tagged = http_client.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "core"}])
    assert tagged["ResponseMetadata"]["HTTPHeaders"]["content-length"] == "0"
    untagged = http_client.untag_resource(ResourceArn=arn, TagKeys=["team"])
    assert untagged["ResponseMetadata"]["HTTPHeaders"]["content-length"] == "0"
