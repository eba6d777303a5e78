"""ListStreams, DescribeStream, GetShardIterator and GetRecords through boto3's dynamodbstreams client."""

from __future__ import annotations

import base64
import json

import pytest
from botocore.exceptions import ClientError

import tablewright
from tablewright.engine import Engine

from ._support import (
    HOUR,
    create_table,
    error_code,
    iterator,
    keys_of,
    put_keys,
    read_all,
    read_following,
    shard_of,
)

# ----------------------------------------------------------------------------------- ListStreams


def test_list_streams_filters_by_table_and_pages(ddb, streams):
    arns = sorted(create_table(ddb, name=f"table{i}") for i in range(5))
    create_table(ddb, name="nostream", view=None)

    assert [s["StreamArn"] for s in streams.list_streams()["Streams"]] == arns
    only = streams.list_streams(TableName="table3")["Streams"]
    assert [(s["TableName"], s["StreamArn"]) for s in only] == [("table3", arns[3])]
    assert only[0]["StreamLabel"] == arns[3].rsplit("/", 1)[1]

    pages, start = [], None
    while True:
        page = streams.list_streams(Limit=2, **({"ExclusiveStartStreamArn": start} if start else {}))
        pages.append([s["StreamArn"] for s in page["Streams"]])
        start = page.get("LastEvaluatedStreamArn")
        if not start:
            break
    assert pages == [arns[0:2], arns[2:4], arns[4:5]]


def test_list_streams_of_a_missing_table_is_not_found(streams):
    with pytest.raises(ClientError) as excinfo:
        streams.list_streams(TableName="missing")
    assert error_code(excinfo) == "ResourceNotFoundException"


# -------------------------------------------------------------------------------- DescribeStream


def test_describe_stream_reports_the_table_and_one_shard(ddb, streams):
    arn = create_table(ddb, sort_key=True)
    ddb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "sk": {"N": "1"}})
    first = read_all(streams, arn)[0]["dynamodb"]["SequenceNumber"]

    description = streams.describe_stream(StreamArn=arn)["StreamDescription"]

    assert description["StreamArn"] == arn
    assert description["StreamStatus"] == "ENABLED"
    assert description["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert description["TableName"] == "orders"
    assert description["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert description["StreamLabel"] == arn.rsplit("/", 1)[1]
    assert (
        description["CreationRequestDateTime"].strftime("%Y-%m-%dT%H:%M:%S")
        == description["StreamLabel"][:19]
    )
    (shard,) = description["Shards"]
    assert shard["ShardId"].startswith("shardId-")
    assert shard["SequenceNumberRange"] == {"StartingSequenceNumber": first}


def test_describe_stream_of_an_unknown_arn_is_not_found(ddb, streams):
    arn = create_table(ddb)
    with pytest.raises(ClientError) as excinfo:
        streams.describe_stream(StreamArn=arn.replace("orders", "others"))
    assert error_code(excinfo) == "ResourceNotFoundException"
    assert "others" in str(excinfo.value)


def test_a_disabled_stream_is_closed_after_its_last_record(ddb, streams):
    arn = create_table(ddb)
    put_keys(ddb, "a", "b")
    ddb.update_table(TableName="orders", StreamSpecification={"StreamEnabled": False})
    put_keys(ddb, "c")  # written after the stream was disabled: not in it

    description = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    response = streams.get_records(ShardIterator=iterator(streams, arn))

    assert description["StreamStatus"] == "DISABLED"
    assert keys_of(response["Records"]) == ["a", "b"]
    ending = description["Shards"][0]["SequenceNumberRange"]["EndingSequenceNumber"]
    assert ending == response["Records"][-1]["dynamodb"]["SequenceNumber"]
    assert "NextShardIterator" not in response


# ------------------------------------------------------------------------------ GetShardIterator


def test_iterator_types_start_where_they_say(ddb, streams):
    arn = create_table(ddb)
    put_keys(ddb, "a", "b", "c")
    records = read_all(streams, arn)
    second = records[1]["dynamodb"]["SequenceNumber"]
    latest = iterator(streams, arn, "LATEST")
    put_keys(ddb, "d")

    assert keys_of(read_all(streams, arn, iterator(streams, arn, "TRIM_HORIZON"))) == ["a", "b", "c", "d"]
    assert keys_of(read_all(streams, arn, iterator(streams, arn, "AT_SEQUENCE_NUMBER", second))) == [
        "b",
        "c",
        "d",
    ]
    assert keys_of(read_all(streams, arn, iterator(streams, arn, "AFTER_SEQUENCE_NUMBER", second))) == [
        "c",
        "d",
    ]
    assert keys_of(read_all(streams, arn, latest)) == ["d"]


def test_limit_pages_and_next_iterator_continues(ddb, streams):
    arn = create_table(ddb)
    put_keys(ddb, *[f"k{i:02d}" for i in range(10)])

    first = streams.get_records(ShardIterator=iterator(streams, arn), Limit=4)
    second = streams.get_records(ShardIterator=first["NextShardIterator"], Limit=4)

    assert keys_of(first["Records"]) == ["k00", "k01", "k02", "k03"]
    assert keys_of(second["Records"]) == ["k04", "k05", "k06", "k07"]
    with pytest.raises(ClientError) as excinfo:
        streams.get_records(ShardIterator=second["NextShardIterator"], Limit=1001)
    assert error_code(excinfo) == "ValidationException"


@pytest.mark.parametrize(
    ("kind", "sequence", "code"),
    [
        ("AT_SEQUENCE_NUMBER", None, "ValidationException"),
        ("AFTER_SEQUENCE_NUMBER", "not-a-number-at-all-xx", "ValidationException"),
        ("AFTER_SEQUENCE_NUMBER", "9" * 25, "ValidationException"),
    ],
)
def test_bad_sequence_numbers_are_refused(ddb, streams, kind, sequence, code):
    arn = create_table(ddb)
    put_keys(ddb, "a")
    extra = {"SequenceNumber": sequence} if sequence else {}
    with pytest.raises(ClientError) as excinfo:
        streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard_of(streams, arn), ShardIteratorType=kind, **extra
        )
    assert error_code(excinfo) == code


def test_an_unknown_shard_is_not_found(ddb, streams):
    arn = create_table(ddb)
    with pytest.raises(ClientError) as excinfo:
        streams.get_shard_iterator(
            StreamArn=arn, ShardId="shardId-00000000000000000000-00000000", ShardIteratorType="TRIM_HORIZON"
        )
    assert error_code(excinfo) == "ResourceNotFoundException"


# ---------------------------------------------------------------------------- expiry and forgery


def test_iterators_expire_after_fifteen_minutes_and_next_iterators_are_fresh(ddb, streams, clock):
    arn = create_table(ddb)
    put_keys(ddb, "a")
    start = iterator(streams, arn)
    clock.advance(14 * 60)
    next_iterator = streams.get_records(ShardIterator=start)["NextShardIterator"]
    clock.advance(2 * 60)

    with pytest.raises(ClientError) as excinfo:
        streams.get_records(ShardIterator=start)
    assert error_code(excinfo) == "ExpiredIteratorException"
    assert streams.get_records(ShardIterator=next_iterator)["Records"] == []


def _tampered(token: str) -> str:
    payload, signature = token.split(".")
    state = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    state["p"] = 0  # rewind to the beginning
    forged = base64.urlsafe_b64encode(json.dumps(state).encode()).decode().rstrip("=")
    return f"{forged}.{signature}"


def test_forged_and_altered_iterators_are_refused(ddb, streams):
    arn = create_table(ddb)
    put_keys(ddb, "a")
    latest = iterator(streams, arn, "LATEST")
    with Engine() as other:
        create_table(tablewright.connect(engine=other))
        other_streams = tablewright.connect(service="dynamodbstreams", engine=other)
        foreign = iterator(other_streams, other_streams.list_streams()["Streams"][0]["StreamArn"])

    for bad in (_tampered(latest), "garbage", latest[:-4] + "AAAA", foreign):
        with pytest.raises(ClientError) as excinfo:
            streams.get_records(ShardIterator=bad)
        assert error_code(excinfo) == "ValidationException", bad


def test_engines_sharing_a_file_accept_each_others_iterators(tmp_path):
    path = str(tmp_path / "app.db")
    with Engine(path) as first, Engine(path) as second:
        ddb = tablewright.connect(engine=first)
        arn = create_table(ddb)
        put_keys(ddb, "a")
        token = iterator(tablewright.connect(service="dynamodbstreams", engine=first), arn)
        records = tablewright.connect(service="dynamodbstreams", engine=second).get_records(
            ShardIterator=token
        )
        assert keys_of(records["Records"]) == ["a"]


# ------------------------------------------------------------------------------------- retention


def test_records_older_than_24_hours_are_trimmed(ddb, streams, clock, engine):
    arn = create_table(ddb)
    put_keys(ddb, "old1", "old2")
    old_sequence = read_all(streams, arn)[0]["dynamodb"]["SequenceNumber"]
    clock.advance(24 * HOUR - 5 * 60)
    stale = iterator(streams, arn)  # positioned before "old1", which is not yet 24 hours old
    assert keys_of(read_all(streams, arn)) == ["old1", "old2"]

    clock.advance(10 * 60)  # the iterator is still valid, but what it points to is now trimmed
    put_keys(ddb, "new")

    with pytest.raises(ClientError) as excinfo:
        streams.get_records(ShardIterator=stale)
    assert error_code(excinfo) == "TrimmedDataAccessException"
    assert keys_of(read_all(streams, arn)) == ["new"]
    with pytest.raises(ClientError) as excinfo:
        streams.get_shard_iterator(
            StreamArn=arn,
            ShardId=shard_of(streams, arn),
            ShardIteratorType="AT_SEQUENCE_NUMBER",
            SequenceNumber=old_sequence,
        )
    assert error_code(excinfo) == "TrimmedDataAccessException"
    new_sequence = read_all(streams, arn)[0]["dynamodb"]["SequenceNumber"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][-1]  # the current period's
    assert shard["SequenceNumberRange"]["StartingSequenceNumber"] == new_sequence
    # Trimmed records are deleted from the database, not just hidden.
    (remaining,) = engine.store.conn.execute("SELECT COUNT(*) FROM tw_stream").fetchone()
    assert remaining == 1


def test_a_reader_that_kept_up_is_not_refused_when_read_records_are_trimmed(ddb, streams, clock):
    arn = create_table(ddb)
    put_keys(ddb, "a")
    clock.advance(24 * HOUR - 5 * 60)
    put_keys(ddb, "b")
    records, following, shard = read_following(streams, arn)  # "a" and "b" are five shards apart
    assert keys_of(records) == ["a", "b"]
    clock.advance(10 * 60)  # "a" is trimmed now, but it was read already; "c" starts a new shard
    put_keys(ddb, "c")

    assert keys_of(read_following(streams, arn, following, shard=shard)[0]) == ["c"]


def test_trim_streams_applies_the_retention_to_streams_nobody_reads(ddb, clock, engine):
    from tablewright.engine.ops.streams import trim_streams

    create_table(ddb)
    create_table(ddb, name="quiet")
    put_keys(ddb, "a")
    clock.advance(25 * HOUR)
    put_keys(ddb, "b", table="quiet")

    assert trim_streams(engine) == 1
    (remaining,) = engine.store.conn.execute("SELECT COUNT(*) FROM tw_stream").fetchone()
    assert remaining == 1
    assert trim_streams(engine) == 0
