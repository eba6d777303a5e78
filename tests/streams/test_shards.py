"""Shards roll over every four hours, as DynamoDB's do: each period is a shard, the child of the one
before; a closed shard ends at its last record and is read to its end; nothing is lost or repeated
across shards, for a reader following the lineage and for StreamConsumer."""

from __future__ import annotations

import random

from tablewright.engine.ops.streams import SHARD_SECONDS
from tablewright.streams import StreamConsumer

from ._support import HOUR, create_table, iterator, keys_of, put_keys, read_all, read_following, shards_of


def test_a_stream_gets_a_child_shard_when_four_hours_have_passed(ddb, streams, clock):
    arn = create_table(ddb)
    put_keys(ddb, "a", "b")
    (first,) = shards_of(streams, arn)
    clock.advance(SHARD_SECONDS + 1)
    put_keys(ddb, "c")

    parent, child = shards_of(streams, arn)
    last_of_parent = read_all(streams, arn)[1]["dynamodb"]["SequenceNumber"]
    assert parent["ShardId"] == first["ShardId"]  # a shard's id never changes
    assert parent["SequenceNumberRange"]["EndingSequenceNumber"] == last_of_parent
    assert "EndingSequenceNumber" not in child["SequenceNumberRange"]
    assert child["ParentShardId"] == parent["ShardId"] and "ParentShardId" not in parent
    children = streams.describe_stream(
        StreamArn=arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": parent["ShardId"]}
    )["StreamDescription"]["Shards"]
    assert [c["ShardId"] for c in children] == [child["ShardId"]]


def test_a_closed_shard_read_to_its_end_has_no_next_iterator_and_its_child_has_the_rest(ddb, streams, clock):
    arn = create_table(ddb)
    put_keys(ddb, "a")
    clock.advance(SHARD_SECONDS - 60)
    following = iterator(streams, arn, "LATEST")  # on the shard that is about to close
    clock.advance(120)
    put_keys(ddb, "b")

    response = streams.get_records(ShardIterator=following)
    assert response["Records"] == [] and "NextShardIterator" not in response
    child = shards_of(streams, arn)[1]["ShardId"]
    at_start = streams.get_shard_iterator(StreamArn=arn, ShardId=child, ShardIteratorType="TRIM_HORIZON")
    assert keys_of(streams.get_records(ShardIterator=at_start["ShardIterator"])["Records"]) == ["b"]


def test_a_day_and_a_half_of_writes_is_read_once_in_order_across_its_shards(ddb, streams, clock):
    arn = create_table(ddb)
    rng = random.Random(7)
    written = []
    for n in range(120):
        clock.advance(rng.uniform(0, 0.5 * HOUR))
        written.append((clock(), f"k{n:03}"))
        put_keys(ddb, f"k{n:03}")
    retained = [key for at, key in written if at > clock() - 24 * HOUR]

    shards = shards_of(streams, arn)
    assert 6 <= len(shards) <= 8  # the periods that ended less than 24 hours ago, and the open one
    assert [s.get("ParentShardId") for s in shards[1:]] == [s["ShardId"] for s in shards[:-1]]
    assert keys_of(read_all(streams, arn)) == retained


def test_a_disabled_stream_ends_with_the_shard_it_was_disabled_in(ddb, streams, clock):
    arn = create_table(ddb)
    put_keys(ddb, "a")
    clock.advance(SHARD_SECONDS + 60)
    put_keys(ddb, "b")
    ddb.update_table(TableName="orders", StreamSpecification={"StreamEnabled": False})
    clock.advance(3 * SHARD_SECONDS)

    shards = shards_of(streams, arn)
    assert len(shards) == 2 and all("EndingSequenceNumber" in s["SequenceNumberRange"] for s in shards)
    records, following, _ = read_following(streams, arn)
    assert keys_of(records) == ["a", "b"] and following is None


def test_the_consumer_follows_the_shards_and_latest_starts_at_the_open_one(ddb, streams, clock):
    create_table(ddb)
    delivered: list[str] = []

    def handler(event: dict) -> None:
        delivered.extend(r["dynamodb"]["Keys"]["pk"]["S"] for r in event["Records"])

    every = StreamConsumer(ddb, streams, "orders", handler, retry_delay=0)
    put_keys(ddb, "a")
    clock.advance(SHARD_SECONDS)
    put_keys(ddb, "b")
    clock.advance(SHARD_SECONDS)
    put_keys(ddb, "c")
    every.drain()
    assert delivered == ["a", "b", "c"]

    delivered.clear()
    fresh = StreamConsumer(ddb, streams, "orders", handler, retry_delay=0, starting_position="LATEST")
    fresh.drain()
    clock.advance(20 * 60)  # its iterator expires: renewed at LATEST, not at the shard's start
    fresh.drain()
    put_keys(ddb, "d")
    fresh.drain()
    clock.advance(SHARD_SECONDS)
    put_keys(ddb, "e")
    fresh.drain()
    assert delivered == ["d", "e"]
