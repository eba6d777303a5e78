"""Shard boundaries and positions: empty shards (open, closed, trimmed), AT_TIMESTAMP, paging of shards."""

from __future__ import annotations

import datetime

import pytest
from botocore.exceptions import ClientError

from ._support import HOUR, create_table, error_code, iterator, keys_of, put_keys, read_all, shards_of

BY_NUMBER = ["AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"]


def only_shard(streams, arn: str) -> dict:
    (shard,) = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    return shard


def at(seconds: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC)


@pytest.mark.parametrize("kind", BY_NUMBER)
def test_a_closed_shard_that_never_held_a_record_is_read_to_its_end_from_its_start(ddb, streams, kind):
    arn = create_table(ddb)
    ddb.update_table(TableName="orders", StreamSpecification={"StreamEnabled": False})
    shard = only_shard(streams, arn)
    numbers = shard["SequenceNumberRange"]

    start = iterator(streams, arn, kind, numbers["StartingSequenceNumber"])
    response = streams.get_records(ShardIterator=start)

    assert set(numbers) == {"StartingSequenceNumber", "EndingSequenceNumber"}
    assert response["Records"] == []
    assert "NextShardIterator" not in response  # a closed shard read to its end


@pytest.mark.parametrize("kind", BY_NUMBER)
def test_a_shard_whose_records_were_all_trimmed_reads_from_its_reported_start(ddb, streams, clock, kind):
    arn = create_table(ddb)
    put_keys(ddb, "old")
    clock.advance(25 * HOUR)
    start = shards_of(streams, arn)[0]["SequenceNumberRange"]["StartingSequenceNumber"]

    position = iterator(streams, arn, kind, start)
    put_keys(ddb, "new")

    assert keys_of(read_all(streams, arn, position)) == ["new"]


def test_a_shard_number_before_a_trimmed_record_is_refused_as_trimmed(ddb, streams, clock):
    arn = create_table(ddb)
    put_keys(ddb, "old", "older")  # the shard then reports its last (trimmed) number as its start
    old = read_all(streams, arn)[0]["dynamodb"]["SequenceNumber"]
    clock.advance(25 * HOUR)
    put_keys(ddb, "new")

    with pytest.raises(ClientError) as excinfo:
        iterator(streams, arn, "AT_SEQUENCE_NUMBER", old)
    assert error_code(excinfo) == "TrimmedDataAccessException"


def test_at_timestamp_starts_with_the_first_record_written_at_or_after_it(ddb, streams, clock):
    arn = create_table(ddb)
    before_a = clock()
    put_keys(ddb, "a")
    clock.advance(60)
    between = clock()
    put_keys(ddb, "b")
    clock.advance(60)
    put_keys(ddb, "c")

    assert keys_of(read_all(streams, arn, iterator_at(streams, arn, before_a - 60))) == ["a", "b", "c"]
    assert keys_of(read_all(streams, arn, iterator_at(streams, arn, between - 1))) == ["b", "c"]
    future = iterator_at(streams, arn, clock() + HOUR)
    put_keys(ddb, "d")  # the position was fixed when the iterator was issued: after the newest record then
    assert keys_of(read_all(streams, arn, future)) == ["d"]


def iterator_at(streams, arn: str, seconds: float) -> str:
    shard = only_shard(streams, arn)["ShardId"]
    return streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="AT_TIMESTAMP", Timestamp=at(seconds)
    )["ShardIterator"]


@pytest.mark.parametrize(
    ("kind", "extra", "phrase"),
    [
        ("AT_TIMESTAMP", {}, "Timestamp is required for ShardIteratorType AT_TIMESTAMP"),
        ("LATEST", {"Timestamp": at(0)}, "Timestamp must not be given with ShardIteratorType LATEST"),
        ("AT_TIMESTAMP", {"SequenceNumber": "0" * 21}, "SequenceNumber must not be given"),
    ],
)
def test_each_iterator_type_takes_only_its_own_position(ddb, streams, kind, extra, phrase):
    arn = create_table(ddb)
    shard = only_shard(streams, arn)["ShardId"]
    with pytest.raises(ClientError) as excinfo:
        streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType=kind, **extra)
    assert error_code(excinfo) == "ValidationException"
    assert phrase in excinfo.value.response["Error"]["Message"]


def test_describe_stream_pages_shards_and_filters_them_by_parent(ddb, streams):
    arn = create_table(ddb)
    shard = only_shard(streams, arn)

    page = streams.describe_stream(StreamArn=arn, Limit=1)["StreamDescription"]
    children = streams.describe_stream(
        StreamArn=arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": "shardId-" + "0" * 20 + "-00000000"}
    )["StreamDescription"]

    assert page["Shards"] == [shard]
    assert "LastEvaluatedShardId" not in page  # nothing after the last shard
    assert children["Shards"] == []  # a shard that is not the stream's has no children in it
    assert children["StreamArn"] == arn


@pytest.mark.parametrize(
    ("kind", "boundary", "expected"),
    [
        ("AT_SEQUENCE_NUMBER", "StartingSequenceNumber", ["a", "b"]),
        ("AFTER_SEQUENCE_NUMBER", "StartingSequenceNumber", ["b"]),
        ("AT_SEQUENCE_NUMBER", "EndingSequenceNumber", ["b"]),
        ("AFTER_SEQUENCE_NUMBER", "EndingSequenceNumber", []),
        ("TRIM_HORIZON", None, ["a", "b"]),
        ("LATEST", None, []),
    ],
)
def test_iterators_at_a_closed_shards_boundaries_read_to_its_end_and_stop(
    ddb, streams, kind, boundary, expected
):
    arn = create_table(ddb)
    put_keys(ddb, "a", "b")
    ddb.update_table(TableName="orders", StreamSpecification={"StreamEnabled": False})
    numbers = only_shard(streams, arn)["SequenceNumberRange"]

    response = streams.get_records(ShardIterator=iterator(streams, arn, kind, numbers.get(boundary)))

    assert keys_of(response["Records"]) == expected
    assert "NextShardIterator" not in response
