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


def shards_of(streams: Any, arn: str) -> list[dict[str, Any]]:
    """The stream's shards, oldest first (one per four-hour period still readable)."""
    return streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]


def shard_of(streams: Any, arn: str) -> str:
    """The stream's oldest readable shard."""
    return shards_of(streams, arn)[0]["ShardId"]


def iterator(streams: Any, arn: str, kind: str = "TRIM_HORIZON", sequence: str | None = None) -> str:
    extra = {"SequenceNumber": sequence} if sequence else {}
    return streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard_of(streams, arn), ShardIteratorType=kind, **extra
    )["ShardIterator"]


def read_all(streams: Any, arn: str, start: str | None = None, limit: int = 1000) -> list[dict[str, Any]]:
    """Every record from ``start`` (an iterator on the oldest shard; default its TRIM_HORIZON), shard
    after child shard, until the open shard has nothing more (see :func:`read_following`)."""
    return read_following(streams, arn, start, limit)[0]


def read_following(
    streams: Any, arn: str, start: str | None = None, limit: int = 1000, shard: str | None = None
) -> tuple[list[dict[str, Any]], str | None, str]:
    """The records from ``start`` (an iterator on ``shard``, default the oldest) on, and the iterator
    and shard to go on with: a closed shard read to its end (no NextShardIterator) is followed by its
    child from TRIM_HORIZON, as a consumer must."""
    shard = shard or shard_of(streams, arn)
    current: str | None = start or iterator(streams, arn)
    records: list[dict[str, Any]] = []
    while current:
        response = streams.get_records(ShardIterator=current, Limit=limit)
        records += response["Records"]
        following = response.get("NextShardIterator")
        if following is None:  # a closed shard read to its end: on to its child, if it has one
            children = [s for s in shards_of(streams, arn) if s.get("ParentShardId") == shard]
            if not children:
                return records, None, shard
            shard = children[0]["ShardId"]
            following = streams.get_shard_iterator(
                StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON"
            )["ShardIterator"]
        elif not response["Records"]:
            return records, following, shard
        current = following
    return records, current, shard


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
