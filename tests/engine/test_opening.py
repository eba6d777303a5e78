"""Opening database files: wrong files refused without a byte written, read-only mode, closing,
TTL sweeps in batches that log what they cannot delete."""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

import tablewright
from tablewright.engine import BadDatabaseFile, DatabaseUnavailable, Engine
from tablewright.engine import ttl as ttl_module
from tablewright.engine.errors import AccessDeniedException, InternalServerError

KEYED = {
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name != path.name)


def _database(path: Path, items: int = 3) -> Path:
    with Engine(str(path)) as engine:
        engine.create_table(TableName="things", **KEYED)
        for i in range(items):
            engine.put_item(TableName="things", Item={"pk": {"S": f"k{i}"}, "n": {"N": str(i)}})
    return path


def _refused(path: Path, kind: type[Exception], *words: str, read_only: bool = False) -> str:
    before = _digest(path) if path.is_file() else None
    siblings = _siblings(path) if path.parent.is_dir() else None
    with pytest.raises(kind) as caught:
        Engine(str(path), read_only=read_only)
    message = str(caught.value)
    assert str(path) in message
    for word in words:
        assert word in message
    if before is not None:
        assert _digest(path) == before, "the refused file was written to"
    if siblings is not None:
        assert _siblings(path) == siblings, "files (-wal, -shm, -journal) were created beside it"
    return message


@pytest.mark.parametrize("blank", ["", " ", "\t\n"])
def test_a_blank_path_is_refused_not_opened_as_a_private_temporary_database(tmp_path, monkeypatch, blank):
    # SQLite opens "" as a temporary file of each connection: every thread would see its own tables,
    # and nothing would be kept. "  " would be a file of that name in the working folder.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BadDatabaseFile, match="is empty; name a file"):
        Engine(blank)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "content",
    [b"", b"hello, I am a text file\n", os.urandom(4096), b"SQLite format 2\x00" + bytes(200)],
    ids=["empty-is-new", "text", "random", "other-header"],
)
def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "data.db"
    path.write_bytes(content)
    if not content:  # an empty file is a new database, as SQLite sees it
        Engine(str(path)).close()
        return
    _refused(path, BadDatabaseFile, "not a SQLite database")


@pytest.mark.parametrize("keep", [0.5, 0.25, 1 / 3])
def test_a_truncated_database_is_refused_with_how_to_check_it(tmp_path: Path, keep: float) -> None:
    whole = _database(tmp_path / "whole.db", items=200).read_bytes()
    path = tmp_path / "copy" / "cut.db"
    path.parent.mkdir()
    path.write_bytes(whole[: int(len(whole) * keep)])
    _refused(path, BadDatabaseFile, "truncated or corrupt", f"sqlite3 {path} 'PRAGMA integrity_check'")


def test_a_damaged_header_is_refused(tmp_path: Path) -> None:
    data = bytearray(_database(tmp_path / "whole.db").read_bytes())
    data[16:18] = (1000).to_bytes(2, "big")  # a page size that is not a power of two
    path = tmp_path / "copy" / "bad.db"
    path.parent.mkdir()
    path.write_bytes(bytes(data))
    _refused(path, BadDatabaseFile, "corrupt", "integrity_check")


def test_another_applications_sqlite_database_is_not_written_into(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.commit()
    conn.close()
    message = _refused(path, BadDatabaseFile, "another application", "invoices")
    assert "will not write" in message


def _set_format(path: Path, version: object) -> None:
    conn = sqlite3.connect(path)
    conn.execute("UPDATE tw_meta SET value = ? WHERE key = 'format'", (version,))
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    ("version", "words"), [(2, ("newer tablewright", "format 2")), (0, ("older", "format 0"))]
)
def test_the_format_version_is_checked_on_open(tmp_path: Path, version: int, words: tuple) -> None:
    path = _database(tmp_path / "data.db")
    _set_format(path, version)
    _refused(path, BadDatabaseFile, *words)
    _refused(path, BadDatabaseFile, *words, read_only=True)


def test_a_missing_directory_is_named(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "dir" / "data.db"
    message = _refused(path, BadDatabaseFile, "does not exist")
    assert str(tmp_path / "no" / "such" / "dir") in message
    assert not (tmp_path / "no").exists()


def test_a_file_in_place_of_the_directory_is_named(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("not a directory")
    _refused(tmp_path / "plain" / "data.db", BadDatabaseFile, "is not a directory")


def test_a_directory_in_place_of_the_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "data.db").mkdir()
    _refused(tmp_path / "data.db", BadDatabaseFile, "is a directory")


def test_an_unwritable_directory_is_an_operational_error(tmp_path: Path, unwritable_dir: Path) -> None:
    directory = unwritable_dir
    path = directory / "tablewright-probe.db"
    with pytest.raises(DatabaseUnavailable) as caught:
        Engine(str(path))
    assert str(directory) in str(caught.value) and "not writable" in str(caught.value)
    assert not path.exists()


def test_a_corrupt_page_found_by_a_request_says_how_to_check(tmp_path: Path) -> None:
    path = _database(tmp_path / "data.db", items=3000)
    size = path.stat().st_size
    page = int.from_bytes(path.read_bytes()[16:18], "big")
    with path.open("r+b") as stream:  # wreck the pages in the middle: the items' b-tree
        stream.seek((size // page // 2) * page)
        stream.write(b"\xff" * page * 3)
    try:
        engine = Engine(str(path))
    except BadDatabaseFile as error:  # the damage was visible on open: fine, as long as it is named
        assert "integrity_check" in str(error)
        return
    with engine, pytest.raises(InternalServerError) as caught:
        engine.scan(TableName="things")
    assert "corrupt" in str(caught.value) and "PRAGMA integrity_check" in str(caught.value)


# ------------------------------------------------------------------------------------------ read-only


def test_read_only_reads_and_refuses_every_write_without_changing_the_file(tmp_path: Path) -> None:
    path = _database(tmp_path / "data.db")
    before = _digest(path)
    client = tablewright.connect(path, read_only=True)
    assert client.get_item(TableName="things", Key={"pk": {"S": "k1"}})["Item"]["n"] == {"N": "1"}
    assert len(client.scan(TableName="things")["Items"]) == 3
    writes = [
        lambda: client.put_item(TableName="things", Item={"pk": {"S": "new"}}),
        lambda: client.update_item(
            TableName="things",
            Key={"pk": {"S": "k1"}},
            UpdateExpression="SET n = :n",
            ExpressionAttributeValues={":n": {"N": "9"}},
        ),
        lambda: client.delete_item(TableName="things", Key={"pk": {"S": "k1"}}),
        lambda: client.create_table(TableName="more", **KEYED),
        lambda: client.delete_table(TableName="things"),
        lambda: client.execute_statement(Statement="UPDATE things SET n = 5 WHERE pk = 'k2'"),
        lambda: client.execute_statement(Statement="DELETE FROM things WHERE pk = 'k2'"),
        lambda: client.transact_write_items(
            TransactItems=[{"Put": {"TableName": "things", "Item": {"pk": {"S": "t"}}}}]
        ),
        lambda: client.batch_write_item(
            RequestItems={"things": [{"PutRequest": {"Item": {"pk": {"S": "b"}}}}]}
        ),
        lambda: client.update_time_to_live(
            TableName="things", TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"}
        ),
    ]
    for write in writes:
        with pytest.raises(ClientError) as caught:
            write()
        error = caught.value.response["Error"]
        assert error["Code"] == "AccessDeniedException", error
        assert "read-only" in error["Message"]
    assert len(client.scan(TableName="things")["Items"]) == 3
    tablewright.engine_of(client).close()
    assert _digest(path) == before


def test_read_only_needs_an_existing_database(tmp_path: Path) -> None:
    _refused(tmp_path / "missing.db", BadDatabaseFile, "does not exist", read_only=True)
    assert not (tmp_path / "missing.db").exists()
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    _refused(empty, BadDatabaseFile, "empty", read_only=True)


def test_read_only_sweeps_nothing(tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    with Engine(str(path)) as engine:
        engine.create_table(TableName="things", **KEYED)
        engine.update_time_to_live(
            TableName="things", TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"}
        )
        engine.put_item(TableName="things", Item={"pk": {"S": "old"}, "ttl": {"N": "1000"}})
    with Engine(str(path), read_only=True, ttl_interval=0.01) as engine:
        assert engine.sweep_ttl(now=2000) == 0
        assert engine.get_item(TableName="things", Key={"pk": {"S": "old"}})["Item"]
        with pytest.raises(AccessDeniedException):
            engine.put_item(TableName="things", Item={"pk": {"S": "x"}})


def test_opening_a_complete_database_writes_nothing(tmp_path: Path) -> None:
    path = _database(tmp_path / "data.db")
    before = _digest(path)
    Engine(str(path)).close()
    assert _digest(path) == before


# -------------------------------------------------------------------------------------------- closing


def _open_handles(path: Path) -> int:
    target = str(path.resolve())
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == target:
                count += 1
        except OSError:
            continue
    return count


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to count open files")
def test_close_closes_the_connection_of_every_thread(tmp_path: Path) -> None:
    path = _database(tmp_path / "data.db")
    engine = Engine(str(path))
    ready, release = threading.Barrier(5), threading.Event()

    def reader() -> None:
        engine.get_item(TableName="things", Key={"pk": {"S": "k0"}})
        ready.wait()
        release.wait()

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for thread in threads:
        thread.start()
    ready.wait()
    assert _open_handles(path) >= 4  # one connection per thread, each holding the file open
    engine.close()
    assert _open_handles(path) == 0  # while their threads still run
    release.set()
    for thread in threads:
        thread.join()
    with pytest.raises(InternalServerError, match="closed"):
        engine.get_item(TableName="things", Key={"pk": {"S": "k0"}})


# ----------------------------------------------------------------------------------------------- TTL


def _ttl_table(engine: Engine, name: str = "things") -> None:
    engine.create_table(
        TableName=name, StreamSpecification={"StreamEnabled": True, "StreamViewType": "OLD_IMAGE"}, **KEYED
    )
    engine.update_time_to_live(
        TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"}
    )


def test_the_sweeper_works_in_batches_and_deletes_exactly_the_expired(tmp_path: Path) -> None:
    with Engine(str(tmp_path / "data.db")) as engine:
        _ttl_table(engine)
        for i in range(301):
            expiry = 1000 if i % 3 == 0 else 5000  # 101 expired at now=2000
            engine.put_item(TableName="things", Item={"pk": {"S": f"k{i:04}"}, "ttl": {"N": str(expiry)}})
        assert ttl_module.sweep(engine, 2000, batch=7) == 101
        left = engine.scan(TableName="things")["Items"]
        assert len(left) == 200 and all(item["ttl"] == {"N": "5000"} for item in left)
        assert ttl_module.sweep(engine, 2000, batch=7) == 0


def test_the_sweeper_logs_what_it_cannot_delete_and_goes_on(tmp_path: Path, caplog) -> None:
    path = tmp_path / "data.db"
    with Engine(str(path)) as engine:
        _ttl_table(engine, "broken")
        _ttl_table(engine, "fine")
        for table in ("broken", "fine"):
            for i in range(5):
                engine.put_item(TableName=table, Item={"pk": {"S": f"k{i}"}, "ttl": {"N": "1000"}})
    # Damage one stored item of "broken" the way a bad disk or a hand edit would.
    conn = sqlite3.connect(path)
    (table_id,) = conn.execute("SELECT id FROM tw_tables WHERE name = 'broken'").fetchone()
    conn.execute(f"UPDATE t{table_id} SET item = x'7b6e6f' WHERE pk = (SELECT MIN(pk) FROM t{table_id})")
    conn.commit()
    conn.close()
    with Engine(str(path)) as engine, caplog.at_level(logging.WARNING, logger="tablewright.engine.ttl"):
        assert engine.sweep_ttl(now=2000) == 9  # every expired item but the unreadable one
    messages = [r.getMessage() for r in caplog.records]
    assert any("broken" in m and "cannot be read" in m for m in messages), messages


def test_the_sweeper_reads_outside_the_write_lock_in_bounded_pages(tmp_path: Path) -> None:
    with Engine(str(tmp_path / "data.db")) as engine:
        _ttl_table(engine)
        for i in range(60):
            engine.put_item(TableName="things", Item={"pk": {"S": f"k{i:03}"}, "ttl": {"N": str(1000 + i)}})
        statements: list[str] = []
        engine.store.conn.set_trace_callback(statements.append)  # every statement the sweep runs
        assert ttl_module.sweep(engine, 1030, batch=8) == 30
        engine.store.conn.set_trace_callback(None)
    writing = False
    pages = 0
    for statement in statements:
        words = statement.split()
        if words[:2] == ["BEGIN", "IMMEDIATE"]:
            writing = True
        elif words[:1] in (["COMMIT"], ["ROLLBACK"]):
            writing = False
        elif statement.startswith("SELECT h, pk, sk, item FROM"):
            pages += 1
            assert not writing, "a page of the table was read under the write lock"
            assert "LIMIT" in statement
    assert pages == 60 // 8 + 1 + 1  # 8 rows a page, the partial last page, then the empty one


def test_read_only_streams_are_readable(tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    with Engine(str(path)) as engine:
        _ttl_table(engine)
        engine.put_item(TableName="things", Item={"pk": {"S": "a"}})
        engine.delete_item(TableName="things", Key={"pk": {"S": "a"}})
    before = _digest(path)
    streams = tablewright.connect(path, read_only=True, service="dynamodbstreams")
    (stream,) = streams.list_streams(TableName="things")["Streams"]
    (shard,) = streams.describe_stream(StreamArn=stream["StreamArn"])["StreamDescription"]["Shards"]
    iterator = streams.get_shard_iterator(
        StreamArn=stream["StreamArn"], ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    records = streams.get_records(ShardIterator=iterator)["Records"]
    assert [r["eventName"] for r in records] == ["INSERT", "REMOVE"]
    tablewright.engine_of(streams).close()
    assert _digest(path) == before


def test_a_file_of_this_format_lacking_a_newer_table_gets_it_on_open(tmp_path: Path) -> None:
    path = _database(tmp_path / "data.db")
    with sqlite3.connect(path) as conn:  # as written before tw_tokens existed (still format 1)
        conn.execute("DROP TABLE tw_tokens")
    conn.close()
    with Engine(str(path)) as engine:
        assert len(engine.scan(TableName="things")["Items"]) == 3
        request = {
            "ClientRequestToken": "once",
            "TransactItems": [{"Put": {"TableName": "things", "Item": {"pk": {"S": "t"}}}}],
        }
        engine.transact_write_items(request)  # needs tw_tokens
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM tw_tokens").fetchone() == (1,)
    conn.close()
