"""Helpers shared by the stream tests: a movable clock, table creation, reading a whole stream."""

from __future__ import annotations

import time
from typing import Any

HOUR = 3600.0


class MovableClock:
    """Real time plus an offset the test moves forward (stream records are stamped in real time)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


def create_table(
    client: Any, name: str = "orders", view: str | None = "NEW_AND_OLD_IMAGES", sort_key: bool = False
) -> str | None:
    """Create a table (with a stream of ``view`` unless None); return the stream ARN."""
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}]
    attributes = [{"AttributeName": "pk", "AttributeType": "S"}]
    if sort_key:
        keys.append({"AttributeName": "sk", "KeyType": "RANGE"})
        attributes.append({"AttributeName": "sk", "AttributeType": "N"})
    extra = {"StreamSpecification": {"StreamEnabled": True, "StreamViewType": view}} if view else {}
    table = client.create_table(
        TableName=name,
        KeySchema=keys,
        AttributeDefinitions=attributes,
        BillingMode="PAY_PER_REQUEST",
        **extra,
    )["TableDescription"]
    return table.get("LatestStreamArn")


def shard_of(streams: Any, arn: str) -> str:
    return streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]


def iterator(streams: Any, arn: str, kind: str = "TRIM_HORIZON", sequence: str | None = None) -> str:
    extra = {"SequenceNumber": sequence} if sequence else {}
    return streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard_of(streams, arn), ShardIteratorType=kind, **extra
    )["ShardIterator"]


def read_all(streams: Any, arn: str, start: str | None = None, limit: int = 1000) -> list[dict[str, Any]]:
    """Every record from ``start`` (an iterator; default TRIM_HORIZON) until a read returns nothing."""
    current = start or iterator(streams, arn)
    records: list[dict[str, Any]] = []
    while current:
        response = streams.get_records(ShardIterator=current, Limit=limit)
        records += response["Records"]
        if not response["Records"]:
            break
        current = response.get("NextShardIterator")
    return records


def error_code(excinfo: Any) -> str:
    """The DynamoDB error code of a ``pytest.raises(ClientError)`` result."""
    return excinfo.value.response["Error"]["Code"]


def put_keys(ddb: Any, *keys: str, table: str = "orders") -> None:
    """Put one key-only item per key (a hash-key-only table keyed by ``pk``)."""
    for key in keys:
        ddb.put_item(TableName=table, Item={"pk": {"S": key}})


def keys_of(records: list[dict[str, Any]]) -> list[str]:
    """The ``pk`` of each stream record, in order."""
    return [r["dynamodb"]["Keys"]["pk"]["S"] for r in records]
