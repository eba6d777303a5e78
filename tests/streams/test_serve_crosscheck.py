"""Cross-check: the Streams API over HTTP (``tablewright serve``) answers exactly as in process.

One database file, two ways in: a ``tablewright serve`` process on it, reached by boto3's
``dynamodb``/``dynamodbstreams`` clients over HTTP, and an in-process engine on the same file, reached
by ``tablewright.connect``. Every stream read, description, error and consumer delivery must be the same
through both, and an iterator issued by one must be redeemable by the other (they share the file's key).
This replaces the moto cross-check, which this machine's moto cannot serve for this botocore.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

import tablewright
from tablewright.streams import FileCheckpoint, StreamConsumer, lambda_record

from ._support import read_all

SERVE = [sys.executable, "-c", "from tablewright.cli import main; main()", "serve", "--port", "0"]
DUMMY = {"region_name": "us-east-1", "aws_access_key_id": "anything", "aws_secret_access_key": "anything"}
NO_RETRY = Config(retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=10, read_timeout=60)


class Side:
    """A DynamoDB client and a DynamoDB Streams client that reach the same database one way."""

    def __init__(self, name: str, dynamodb: Any, streams: Any) -> None:
        self.name, self.dynamodb, self.streams = name, dynamodb, streams


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("crosscheck") / "streams.db"


@pytest.fixture(scope="module")
def http(database: Path) -> Iterator[Side]:
    process = subprocess.Popen(
        [*SERVE, "--db", str(database)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    banner = []
    for line in process.stdout:
        banner.append(line)
        if line.startswith("Press Ctrl+C"):
            break
    found = re.search(r"DynamoDB API at (http://\S+)", "".join(banner))
    if found is None:
        process.kill()
        raise AssertionError(f"tablewright serve did not start: {banner}")
    # Drain stdout so the server never blocks on a full pipe.
    threading.Thread(target=process.stdout.read, daemon=True).start()
    url = found.group(1)
    yield Side(
        "http",
        boto3.client("dynamodb", endpoint_url=url, config=NO_RETRY, **DUMMY),
        boto3.client("dynamodbstreams", endpoint_url=url, config=NO_RETRY, **DUMMY),
    )
    process.terminate()
    process.wait(timeout=60)


@pytest.fixture(scope="module")
def local(database: Path, http: Side) -> Iterator[Side]:
    dynamodb = tablewright.connect(database)  # opened after the server created the file
    yield Side(
        "in-process",
        dynamodb,
        tablewright.connect(service="dynamodbstreams", engine=tablewright.engine_of(dynamodb)),
    )
    tablewright.engine_of(dynamodb).close()


def create_streamed_table(side: Side, name: str, view: str = "NEW_AND_OLD_IMAGES") -> str:
    return side.dynamodb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": view},
    )["TableDescription"]["LatestStreamArn"]


def write_history(side: Side, table: str) -> None:
    """Inserts, a modification, a removal and a conditional failure (which writes no record)."""
    client = side.dynamodb
    for key, amount in (("a", "1"), ("b", "2.50"), ("c", "-3")):
        client.put_item(
            TableName=table, Item={"pk": {"S": key}, "amount": {"N": amount}, "tags": {"SS": ["x", "y"]}}
        )
    client.update_item(
        TableName=table,
        Key={"pk": {"S": "b"}},
        UpdateExpression="SET amount = amount + :d, note = :n REMOVE tags",
        ExpressionAttributeValues={":d": {"N": "1"}, ":n": {"B": b"\x00\xff"}},
    )
    client.delete_item(TableName=table, Key={"pk": {"S": "a"}})
    with pytest.raises(ClientError):
        client.delete_item(
            TableName=table, Key={"pk": {"S": "zz"}}, ConditionExpression="attribute_exists(pk)"
        )


def outcome(call: Any, target: Any) -> Any:
    """What ``call(target)`` answered: its response without the transport's metadata, or its error's
    code, message and HTTP status."""
    try:
        response = call(target)
    except ClientError as error:
        return (
            "error",
            error.response["Error"]["Code"],
            error.response["Error"].get("Message"),
            error.response["ResponseMetadata"]["HTTPStatusCode"],
        )
    if isinstance(response, dict):
        response.pop("ResponseMetadata", None)
    return response


@pytest.mark.parametrize("writer", ["http", "in-process"])
def test_records_descriptions_and_listings_are_the_same_through_both_clients(http, local, writer):
    table = f"crosscheck-{writer}"
    source = http if writer == "http" else local
    arn = create_streamed_table(source, table)
    write_history(source, table)

    over_http, in_process = read_all(http.streams, arn), read_all(local.streams, arn)

    assert [r["eventName"] for r in over_http] == ["INSERT", "INSERT", "INSERT", "MODIFY", "REMOVE"]
    assert over_http == in_process
    for call in (
        lambda side: side.streams.describe_stream(StreamArn=arn),
        lambda side: side.streams.list_streams(TableName=table),
        lambda side: side.dynamodb.describe_table(TableName=table)["Table"]["LatestStreamArn"],
    ):
        assert outcome(call, http) == outcome(call, local)


def test_an_iterator_from_one_client_reads_the_same_records_through_the_other(http, local):
    arn = create_streamed_table(http, "crosscheck-iterators", view="KEYS_ONLY")
    write_history(local, "crosscheck-iterators")
    shard = http.streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = http.streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")

    first = local.streams.get_records(ShardIterator=iterator["ShardIterator"], Limit=2)
    second = http.streams.get_records(ShardIterator=first["NextShardIterator"])

    assert first["Records"] + second["Records"] == read_all(http.streams, arn)


def test_argument_errors_are_the_same_through_both_clients(http, local):
    arn = create_streamed_table(http, "crosscheck-errors", view="KEYS_ONLY")
    shard = local.streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    start = shard["SequenceNumberRange"]["StartingSequenceNumber"]
    calls = [
        lambda s: s.list_streams(Limit=101),
        lambda s: s.list_streams(ExclusiveStartStreamArn="kossaapaaasdafsdaasdasdasdasasdasfadfadfasdasdas"),
        lambda s: s.describe_stream(StreamArn="sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf"),
        lambda s: s.describe_stream(StreamArn=arn, Limit=101),
        lambda s: s.describe_stream(StreamArn=arn, ExclusiveStartShardId="z" * 40),
        lambda s: s.describe_stream(StreamArn=arn, ShardFilter={"Type": "CHILD_SHARDS"}),
        lambda s: s.describe_stream(StreamArn=arn, ShardFilter={"ShardId": shard["ShardId"]}),
        lambda s: s.describe_stream(
            StreamArn=arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": shard["ShardId"]}
        ),
        lambda s: s.describe_stream(StreamArn=arn.replace("crosscheck-errors", "crosscheck-absent")),
        lambda s: s.get_shard_iterator(
            StreamArn=arn, ShardId="shardId-" + "9" * 30, ShardIteratorType="LATEST"
        ),
        lambda s: s.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="LATEST", SequenceNumber=start
        ),
        lambda s: s.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="AT_SEQUENCE_NUMBER"
        ),
        lambda s: s.get_records(ShardIterator="not-an-iterator-anybody-issued", Limit=10),
        lambda s: s.get_records(ShardIterator="not-an-iterator-anybody-issued", Limit=1001),
    ]
    answers = [(outcome(call, http.streams), outcome(call, local.streams)) for call in calls]

    assert [a for a, b in answers if a != b] == []
    assert sum(a[0] == "error" for a, _ in answers if isinstance(a, tuple)) == 12


@pytest.mark.parametrize("consumer_side", ["http", "in-process"])
def test_the_consumer_delivers_what_get_records_returns_through_either_client(
    http, local, tmp_path, consumer_side
):
    table = f"crosscheck-consumer-{consumer_side}"
    arn = create_streamed_table(http, table)
    write_history(http, table)
    side = http if consumer_side == "http" else local
    first: list[dict] = []
    StreamConsumer(
        side.dynamodb,
        side.streams,
        table,
        first.append,
        checkpoint=FileCheckpoint(tmp_path / "cp"),
        batch_size=2,
    ).drain()
    side.dynamodb.put_item(TableName=table, Item={"pk": {"S": "d"}})
    second: list[dict] = []

    StreamConsumer(
        side.dynamodb, side.streams, table, second.append, checkpoint=FileCheckpoint(tmp_path / "cp")
    ).drain()

    delivered = [r for e in first + second for r in e["Records"]]
    assert [len(e["Records"]) for e in first] == [2, 2, 1]
    assert delivered == [lambda_record(r, arn) for r in read_all(http.streams, arn)]
    assert delivered == [lambda_record(r, arn) for r in read_all(local.streams, arn)]
