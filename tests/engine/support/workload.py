"""The bank workload shared by the crash and concurrency tests and the child processes they start.

One table holds three kinds of item, each chosen so that a broken write path shows up as a broken
invariant after the fact:

* accounts (``pk="acct"``) whose balances only move by transfers, so their sum is constant;
* audit items (``pk="audit"``), one per transfer, written in the same TransactWriteItems as the two
  balance updates, so every balance can be recomputed from the audit trail;
* counter items (``pk="put#<run>"``) written by single PutItems with increasing sequence numbers.

Two GSIs make index maintenance part of every write: ``by_seq`` (ALL) indexes audit and counter items,
``by_balance`` (KEYS_ONLY) indexes accounts by balance, so every transfer moves two index entries.

This module only uses the engine's public API (``Engine.handle`` through its snake-case shortcuts).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from tablewright.engine import Engine
from tablewright.engine.errors import ConditionalCheckFailedException, TransactionCanceledException

TABLE = "bank"
ACCOUNT_PK = "acct"
AUDIT_PK = "audit"
ACCOUNTS = 8  # accounts of the crash workload
INITIAL_BALANCE = 1000


def _attr(name: str, kind: str) -> dict[str, str]:
    return {"AttributeName": name, "AttributeType": kind}


def _key(hash_name: str, range_name: str) -> list[dict[str, str]]:
    return [
        {"AttributeName": hash_name, "KeyType": "HASH"},
        {"AttributeName": range_name, "KeyType": "RANGE"},
    ]


TABLE_DEFINITION: dict[str, Any] = {
    "TableName": TABLE,
    "KeySchema": _key("pk", "sk"),
    "AttributeDefinitions": [
        _attr("pk", "S"),
        _attr("sk", "S"),
        _attr("kind", "S"),
        _attr("seq", "N"),
        _attr("bkind", "S"),
        _attr("balance", "N"),
    ],
    "BillingMode": "PAY_PER_REQUEST",
    "GlobalSecondaryIndexes": [
        {"IndexName": "by_seq", "KeySchema": _key("kind", "seq"), "Projection": {"ProjectionType": "ALL"}},
        {
            "IndexName": "by_balance",
            "KeySchema": _key("bkind", "balance"),
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        },
    ],
}

# Which index key attributes each GSI reads; the tests use it to know which items belong in an index.
INDEX_KEYS = {"by_seq": ("kind", "seq"), "by_balance": ("bkind", "balance")}


def S(value: str) -> dict[str, str]:
    return {"S": value}


def N(value: int | str | Decimal) -> dict[str, str]:
    return {"N": str(value)}


def account_sk(number: int) -> str:
    return f"a{number:02d}"


def create_bank(engine: Engine, accounts: int, balance: int) -> None:
    """Create the table and open ``accounts`` accounts holding ``balance`` each."""
    engine.create_table(TABLE_DEFINITION)
    for number in range(accounts):
        engine.put_item(
            {
                "TableName": TABLE,
                "Item": {
                    "pk": S(ACCOUNT_PK),
                    "sk": S(account_sk(number)),
                    "bkind": S(ACCOUNT_PK),
                    "balance": N(balance),
                    "txcount": N(0),
                },
            }
        )


def transfer(engine: Engine, tag: str, source: int, target: int, amount: int) -> bool:
    """Move ``amount`` between two accounts and write audit item ``tag``, all in one transaction.

    Returns False when the transaction was cancelled because the source lacks funds (or the audit
    tag exists already); any other failure propagates.
    """
    values = {":amt": N(amount), ":one": N(1)}
    items = [
        {
            "Update": {
                "TableName": TABLE,
                "Key": {"pk": S(ACCOUNT_PK), "sk": S(account_sk(source))},
                "UpdateExpression": "SET balance = balance - :amt ADD txcount :one",
                "ConditionExpression": "balance >= :amt",
                "ExpressionAttributeValues": values,
            }
        },
        {
            "Update": {
                "TableName": TABLE,
                "Key": {"pk": S(ACCOUNT_PK), "sk": S(account_sk(target))},
                "UpdateExpression": "SET balance = balance + :amt ADD txcount :one",
                "ExpressionAttributeValues": values,
            }
        },
        {
            "Put": {
                "TableName": TABLE,
                "Item": {
                    "pk": S(AUDIT_PK),
                    "sk": S(tag),
                    "kind": S(AUDIT_PK),
                    "seq": N(audit_seq(tag)),
                    "source": N(source),
                    "target": N(target),
                    "amount": N(amount),
                },
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        },
    ]
    try:
        engine.transact_write_items({"TransactItems": items})
    except TransactionCanceledException:
        return False
    return True


def audit_seq(tag: str) -> int:
    """A number unique per audit tag ``"<run>:<n>"``, so audit items sort by it in the by_seq index."""
    run, number = tag.split(":")
    return int(run) * 1_000_000 + int(number)


def put_counter(engine: Engine, run: int, number: int, payload: str) -> None:
    """One single-item PutItem of counter ``number`` of ``run``."""
    engine.put_item(
        {
            "TableName": TABLE,
            "Item": {
                "pk": S(f"put#{run}"),
                "sk": S(f"{number:08d}"),
                "kind": S(f"put#{run}"),
                "seq": N(number),
                "payload": S(payload),
            },
        }
    )


def put_batch(engine: Engine, run: int, number: int, size: int) -> None:
    """One BatchWriteItem of ``size`` items of batch ``number`` of ``run``."""
    writes = [
        {
            "PutRequest": {
                "Item": {
                    "pk": S(f"batch#{run}"),
                    "sk": S(f"{number:06d}:{j}"),
                    "kind": S(f"batch#{run}"),
                    "seq": N(number * 100 + j),
                }
            }
        }
        for j in range(size)
    ]
    response = engine.batch_write_item({"RequestItems": {TABLE: writes}})
    assert not response["UnprocessedItems"], response


COUNTER_TABLE = "counters"
COUNTER_KEY = {"id": {"S": "the-counter"}}


def create_counter(engine: Engine) -> None:
    """A table with one counter item ``n = 0`` for the increment contention tests."""
    engine.create_table(
        {
            "TableName": COUNTER_TABLE,
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
            "AttributeDefinitions": [_attr("id", "S")],
            "BillingMode": "PAY_PER_REQUEST",
        }
    )
    engine.put_item({"TableName": COUNTER_TABLE, "Item": {**COUNTER_KEY, "n": N(0)}})


def increment(engine: Engine, table: str, key: dict[str, Any]) -> int:
    """Add one to ``n`` of ``key`` by read + conditional write, retrying on conflict.

    Returns the value this call replaced: two successful calls returning the same value would be a
    lost update.
    """
    while True:
        item = engine.get_item({"TableName": table, "Key": key, "ConsistentRead": True})["Item"]
        expected = item["n"]["N"]
        try:
            engine.update_item(
                {
                    "TableName": table,
                    "Key": key,
                    "UpdateExpression": "SET n = n + :one",
                    "ConditionExpression": "n = :expected",
                    "ExpressionAttributeValues": {":one": N(1), ":expected": N(expected)},
                }
            )
        except ConditionalCheckFailedException:
            continue
        return int(expected)


def pages(engine: Engine, operation: str, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every page of a Query or Scan, following LastEvaluatedKey to the end."""
    request = dict(request)
    while True:
        page = engine.handle(operation, request)
        yield page
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def read_all(engine: Engine, operation: str, request: dict[str, Any]) -> list[dict[str, Any]]:
    """All items of a Query or Scan, across pages."""
    return [item for page in pages(engine, operation, request) for item in page.get("Items", [])]


def _n(item: dict[str, Any], name: str) -> int:
    return int(item[name]["N"])


def check_bank(items: list[dict[str, Any]], accounts: int, initial: int) -> None:
    """Assert the bank's invariants over all items of the table (e.g. a Scan).

    The balances sum to the money created, each balance and transaction count is what the audit trail
    says, and none is negative: together they show no transfer was half-applied or applied twice.
    """
    by_sk = {item["sk"]["S"]: item for item in items if item["pk"]["S"] == ACCOUNT_PK}
    audits = [item for item in items if item["pk"]["S"] == AUDIT_PK]
    assert len(by_sk) == accounts, f"expected {accounts} accounts, found {sorted(by_sk)}"
    balances = {sk: _n(item, "balance") for sk, item in by_sk.items()}
    assert sum(balances.values()) == accounts * initial, f"money was created or lost: {balances}"
    expected = {account_sk(k): initial for k in range(accounts)}
    touches: Counter[str] = Counter()
    for audit in audits:
        source, target = account_sk(_n(audit, "source")), account_sk(_n(audit, "target"))
        expected[source] -= _n(audit, "amount")
        expected[target] += _n(audit, "amount")
        touches.update([source, target])
    assert balances == expected, f"balances disagree with the audit trail: {balances} != {expected}"
    assert min(balances.values()) >= 0, f"a conditional debit overdrew an account: {balances}"
    counts = {sk: _n(item, "txcount") for sk, item in by_sk.items()}
    assert counts == {sk: touches[sk] for sk in by_sk}, "transaction counts disagree with the audit trail"
