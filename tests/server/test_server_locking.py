"""Another process holding the database file's write lock: reads go on, writes wait a bounded
time and then get DynamoDB's retryable errors, and the server's event loop never waits on SQLite."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from botocore.exceptions import ClientError

from ._support import DUMMY, NO_RETRY, Served, create_table

# Holds the write lock (BEGIN IMMEDIATE) on the file until its stdin closes.
HOLD_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.read()
conn.execute("ROLLBACK")
"""


@pytest.fixture
def served_db(tmp_path: Path) -> Iterator[tuple[Served, Path]]:
    db = tmp_path / "locked.db"
    served = Served("--db", str(db), "--lock-timeout", "2")
    yield served, db
    served.kill()


@pytest.fixture
def lock_holder():
    holders: list[subprocess.Popen] = []

    def hold(db: Path) -> subprocess.Popen:
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD_LOCK, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert holder.stdout.readline().strip() == "locked"
        holders.append(holder)
        return holder

    yield hold
    for holder in holders:
        if holder.poll() is None:
            holder.stdin.close()
            holder.wait(timeout=30)


def _code(error: ClientError) -> str:
    return error.response["Error"]["Code"]


def test_reads_are_served_while_a_write_waits_for_another_process_lock(served_db, lock_holder):
    served, db = served_db
    client = boto3.client("dynamodb", endpoint_url=served.url, config=NO_RETRY, **DUMMY)
    create_table(client)
    client.put_item(TableName="items", Item={"pk": {"S": "before"}, "v": {"N": "1"}})
    holder = lock_holder(db)

    outcome: dict[str, object] = {}

    def write() -> None:
        own = boto3.client("dynamodb", endpoint_url=served.url, config=NO_RETRY, **DUMMY)
        try:
            own.put_item(TableName="items", Item={"pk": {"S": "during"}})
            outcome["write"] = "applied"
        except ClientError as error:
            outcome["write"] = error

    writer = threading.Thread(target=write)
    writer.start()
    # While the write waits (up to --lock-timeout 2 s) the reads are answered, each of them.
    for _ in range(5):
        assert client.get_item(TableName="items", Key={"pk": {"S": "before"}})["Item"]["v"] == {"N": "1"}
        assert client.scan(TableName="items")["Count"] == 1
        assert client.describe_table(TableName="items")["Table"]["TableName"] == "items"
    assert writer.is_alive(), "the write should still be waiting for the lock"
    writer.join(timeout=60)
    error = outcome["write"]
    assert isinstance(error, ClientError), error
    assert error.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert _code(error) == "ThrottlingException"
    assert "write lock" in error.response["Error"]["Message"]

    # botocore classes ThrottlingException as retryable: a client with retries gets through once the lock goes.
    holder.stdin.close()
    holder.wait(timeout=30)
    client.put_item(TableName="items", Item={"pk": {"S": "after"}})
    assert client.get_item(TableName="items", Key={"pk": {"S": "during"}}).get("Item") is None
    assert "internal error" not in served.log()


def test_contended_transaction_reports_transaction_conflict(served_db, lock_holder):
    served, db = served_db
    client = boto3.client("dynamodb", endpoint_url=served.url, config=NO_RETRY, **DUMMY)
    create_table(client)
    lock_holder(db)
    with pytest.raises(ClientError) as caught:
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "items", "Item": {"pk": {"S": "a"}}}},
                {
                    "Update": {
                        "TableName": "items",
                        "Key": {"pk": {"S": "b"}},
                        "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": {"N": "1"}},
                    }
                },
            ]
        )
    assert _code(caught.value) == "TransactionCanceledException"
    reasons = caught.value.response["CancellationReasons"]
    assert [reason["Code"] for reason in reasons] == ["TransactionConflict", "TransactionConflict"]
    # ExecuteTransaction (PartiQL) is a transaction too.
    with pytest.raises(ClientError) as caught:
        client.execute_transaction(
            TransactStatements=[{"Statement": "INSERT INTO \"items\" VALUE {'pk': 'c'}"}]
        )
    assert _code(caught.value) == "TransactionCanceledException"
    assert [r["Code"] for r in caught.value.response["CancellationReasons"]] == ["TransactionConflict"]


def test_write_that_waited_for_the_lock_is_applied_once_when_it_frees(served_db, lock_holder):
    served, db = served_db
    client = boto3.client("dynamodb", endpoint_url=served.url, config=NO_RETRY, **DUMMY)
    create_table(client)
    holder = lock_holder(db)
    done: dict[str, object] = {}

    def increment() -> None:
        own = boto3.client("dynamodb", endpoint_url=served.url, config=NO_RETRY, **DUMMY)
        done["answer"] = own.update_item(
            TableName="items",
            Key={"pk": {"S": "counter"}},
            UpdateExpression="ADD n :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        )

    writer = threading.Thread(target=increment)
    writer.start()
    # The write was tried, found the lock taken and went to the writer thread to wait; free the lock.
    assert client.get_item(TableName="items", Key={"pk": {"S": "counter"}}).get("Item") is None
    holder.stdin.close()
    holder.wait(timeout=30)
    writer.join(timeout=60)
    assert done["answer"]["Attributes"] == {"n": {"N": "1"}}
    assert client.get_item(TableName="items", Key={"pk": {"S": "counter"}})["Item"]["n"] == {"N": "1"}


def test_engine_try_handle_raises_would_block_and_applies_nothing(tmp_path: Path, lock_holder):
    from tablewright.engine import Engine
    from tablewright.engine.errors import WouldBlock

    db = tmp_path / "direct.db"
    with Engine(str(db), lock_timeout=0.5) as engine:
        engine.handle(
            "CreateTable",
            {
                "TableName": "items",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "BillingMode": "PAY_PER_REQUEST",
            },
        )
        holder = lock_holder(db)
        put = {"TableName": "items", "Item": {"pk": {"S": "a"}}}
        outcome: dict[str, object] = {}

        def on_a_thread(call) -> None:
            try:
                outcome["result"] = call()
            except Exception as error:  # noqa: BLE001 - the test inspects it
                outcome["result"] = error

        # A thread that never waits: WouldBlock at once (it may run the request elsewhere).
        thread = threading.Thread(target=on_a_thread, args=(lambda: engine.try_handle("PutItem", put),))
        thread.start()
        thread.join(timeout=30)
        assert isinstance(outcome["result"], WouldBlock)
        # A thread that waits: DynamoDB's retryable error after the lock timeout.
        thread = threading.Thread(target=on_a_thread, args=(lambda: engine.handle("PutItem", put),))
        thread.start()
        thread.join(timeout=30)
        assert getattr(outcome["result"], "code", None) == "ThrottlingException"
        holder.stdin.close()
        holder.wait(timeout=30)
        assert engine.handle("GetItem", {"TableName": "items", "Key": {"pk": {"S": "a"}}}) == {}
        assert engine.handle("Scan", {"TableName": "items"})["Count"] == 0
