"""Stream history: each enabling of a stream is a new StreamArn, and a stream that was disabled (or whose
table was deleted) stays listed and readable for 24 hours, its shard closed after its last record."""

from __future__ import annotations

import sqlite3

import pytest
from botocore.exceptions import ClientError

import tablewright
from tablewright.engine import Engine
from tablewright.engine.ops.streams import trim_streams

from ._support import HOUR, create_table, error_code, iterator, keys_of, put_keys, read_all, shard_of


def _disable(ddb, table: str = "orders") -> None:
    ddb.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})


def _enable(ddb, table: str = "orders", view: str = "KEYS_ONLY") -> str:
    description = ddb.update_table(
        TableName=table, StreamSpecification={"StreamEnabled": True, "StreamViewType": view}
    )["TableDescription"]
    return description["LatestStreamArn"]


def _listed(streams, **request) -> list[tuple[str, str]]:
    return [(s["TableName"], s["StreamArn"]) for s in streams.list_streams(**request)["Streams"]]


# ------------------------------------------------------------------------------ disable, re-enable


def test_re_enabling_starts_a_new_empty_stream_and_the_old_one_stays_readable(ddb, streams, clock):
    old = create_table(ddb)
    put_keys(ddb, "a", "b")
    _disable(ddb)
    put_keys(ddb, "between")  # no stream is enabled: in neither
    clock.advance(1)
    new = _enable(ddb)
    put_keys(ddb, "c")

    assert new != old
    assert new.rsplit("/", 1)[1] == ddb.describe_table(TableName="orders")["Table"]["LatestStreamLabel"]
    assert keys_of(read_all(streams, old)) == ["a", "b"]
    assert keys_of(read_all(streams, new)) == ["c"]
    assert shard_of(streams, old) != shard_of(streams, new)
    assert sorted(_listed(streams, TableName="orders")) == [("orders", old), ("orders", new)]

    described = streams.describe_stream(StreamArn=old)["StreamDescription"]
    assert described["StreamStatus"] == "DISABLED"
    assert described["StreamViewType"] == "NEW_AND_OLD_IMAGES"  # the view it was written with
    assert described["TableName"] == "orders"
    current = streams.describe_stream(StreamArn=new)["StreamDescription"]
    assert (current["StreamStatus"], current["StreamViewType"]) == ("ENABLED", "KEYS_ONLY")
    assert "EndingSequenceNumber" not in current["Shards"][0]["SequenceNumberRange"]


def test_a_closed_shard_ends_at_its_last_record_and_then_gives_no_next_iterator(ddb, streams):
    arn = create_table(ddb)
    put_keys(ddb, "a", "b", "c")
    _disable(ddb)
    _enable(ddb)
    put_keys(ddb, "d")  # in the new stream: must not extend the closed shard

    (shard,) = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    first = streams.get_records(ShardIterator=iterator(streams, arn), Limit=2)
    second = streams.get_records(ShardIterator=first["NextShardIterator"], Limit=2)

    assert keys_of(first["Records"]) == ["a", "b"]
    assert keys_of(second["Records"]) == ["c"]
    assert "NextShardIterator" not in second
    assert shard["SequenceNumberRange"] == {
        "StartingSequenceNumber": first["Records"][0]["dynamodb"]["SequenceNumber"],
        "EndingSequenceNumber": second["Records"][-1]["dynamodb"]["SequenceNumber"],
    }
    latest = streams.get_records(ShardIterator=iterator(streams, arn, "LATEST"))
    assert latest["Records"] == [] and "NextShardIterator" not in latest


def test_sequence_numbers_of_another_stream_of_the_table_are_refused(ddb, streams):
    old = create_table(ddb)
    put_keys(ddb, "a")
    _disable(ddb)
    new = _enable(ddb)
    put_keys(ddb, "b")
    old_sequence = read_all(streams, old)[0]["dynamodb"]["SequenceNumber"]
    new_sequence = read_all(streams, new)[0]["dynamodb"]["SequenceNumber"]

    for arn, sequence in ((new, old_sequence), (old, new_sequence)):
        with pytest.raises(ClientError) as excinfo:
            iterator(streams, arn, "AT_SEQUENCE_NUMBER", sequence)
        assert error_code(excinfo) == "ValidationException"
        assert sequence in str(excinfo.value)


def test_a_disabled_stream_disappears_24_hours_after_it_was_disabled(ddb, streams, clock, engine):
    old = create_table(ddb)
    put_keys(ddb, "a")
    clock.advance(HOUR)
    _disable(ddb)
    new = _enable(ddb)
    clock.advance(23 * HOUR + 30 * 60)  # "a" is past 24 hours, the stream is not yet
    assert keys_of(read_all(streams, old)) == []
    assert old in dict(map(reversed, _listed(streams)))

    clock.advance(HOUR)
    assert _listed(streams) == [("orders", new)]
    with pytest.raises(ClientError) as excinfo:
        streams.describe_stream(StreamArn=old)
    assert error_code(excinfo) == "ResourceNotFoundException"
    trim_streams(engine)
    (rows,) = engine.store.conn.execute(
        "SELECT COUNT(*) FROM tw_streams WHERE end_seq IS NOT NULL"
    ).fetchone()
    assert rows == 0


def test_re_enabling_within_one_millisecond_still_gives_a_new_arn():
    engine = Engine(clock=lambda: 1_700_000_000.0)  # time stands still
    ddb = tablewright.connect(engine=engine)
    old = create_table(ddb)
    _disable(ddb)
    assert _enable(ddb) != old
    engine.close()


# ------------------------------------------------------------------------------------- DeleteTable


def test_a_deleted_tables_stream_stays_listed_and_readable_for_24_hours(ddb, streams, clock, engine):
    arn = create_table(ddb, sort_key=True)
    ddb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "sk": {"N": "1"}})
    ddb.delete_table(TableName="orders")

    assert _listed(streams) == [("orders", arn)]
    assert _listed(streams, TableName="orders") == [("orders", arn)]
    described = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert described["StreamStatus"] == "DISABLED"
    assert described["TableName"] == "orders"
    assert [k["AttributeName"] for k in described["KeySchema"]] == ["pk", "sk"]
    assert "EndingSequenceNumber" in described["Shards"][0]["SequenceNumberRange"]
    response = streams.get_records(ShardIterator=iterator(streams, arn))
    assert keys_of(response["Records"]) == ["a"]
    assert "NextShardIterator" not in response

    clock.advance(24 * HOUR + 1)
    assert _listed(streams) == []
    for call in (
        lambda: streams.describe_stream(StreamArn=arn),
        lambda: streams.list_streams(TableName="orders"),
    ):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert error_code(excinfo) == "ResourceNotFoundException"
    trim_streams(engine)
    counts = engine.store.conn.execute(
        "SELECT (SELECT COUNT(*) FROM tw_stream), (SELECT COUNT(*) FROM tw_streams), "
        "(SELECT COUNT(*) FROM tw_meta WHERE key LIKE 'stream_trim:%')"
    ).fetchone()
    assert counts == (0, 0, 0)  # nothing of the deleted table is left behind


def test_a_table_recreated_under_the_same_name_has_a_separate_stream(ddb, streams, clock):
    old = create_table(ddb)
    put_keys(ddb, "a")
    ddb.delete_table(TableName="orders")
    clock.advance(1)
    new = create_table(ddb)
    put_keys(ddb, "b")

    assert sorted(_listed(streams, TableName="orders")) == [("orders", old), ("orders", new)]
    assert keys_of(read_all(streams, old)) == ["a"]
    assert keys_of(read_all(streams, new)) == ["b"]


# ------------------------------------------------------------------------- cost and older files


def test_the_write_path_runs_the_same_statements_on_a_re_enabled_stream(ddb, engine):
    create_table(ddb)
    statements: list[str] = []
    engine.store.conn.set_trace_callback(statements.append)

    def count_put(key: str) -> int:
        statements.clear()
        put_keys(ddb, key)
        return len(statements)

    before = count_put("a")
    _disable(ddb)
    _enable(ddb, view="NEW_AND_OLD_IMAGES")
    after = count_put("b")
    engine.store.conn.set_trace_callback(None)
    assert after == before


def test_a_file_written_before_stream_generations_keeps_working(tmp_path, clock):
    path = str(tmp_path / "old.db")
    engine = Engine(path, clock=clock)
    ddb = tablewright.connect(engine=engine)
    streams = tablewright.connect(service="dynamodbstreams", engine=engine)
    old = create_table(ddb)
    put_keys(ddb, "a", "b")
    _disable(ddb)
    engine.close()
    # What an older engine left: a disabled stream, its records, and no tw_streams table at all.
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE tw_streams")

    engine = Engine(path, clock=clock)
    ddb = tablewright.connect(engine=engine)
    streams = tablewright.connect(service="dynamodbstreams", engine=engine)
    response = streams.get_records(ShardIterator=iterator(streams, old))
    assert keys_of(response["Records"]) == ["a", "b"]
    assert "NextShardIterator" not in response
    ending = streams.describe_stream(StreamArn=old)["StreamDescription"]["Shards"][0]["SequenceNumberRange"]
    assert ending["EndingSequenceNumber"] == response["Records"][-1]["dynamodb"]["SequenceNumber"]

    clock.advance(1)
    new = _enable(ddb)
    put_keys(ddb, "c")
    assert keys_of(read_all(streams, old)) == ["a", "b"]
    assert keys_of(read_all(streams, new)) == ["c"]
    engine.close()
