"""Capacity behaviours that mutation testing showed no test pinned down (docs/mutation.md).

Each test kills mutants of ``engine/capacity.py`` that survived the first run: aggregate-only
ConsumedCapacity for batches, per-table entries, index units summed over a batch, transactional
index writes at twice the units, read units named as reads, and no index charge when the index
entry does not change.
"""

from __future__ import annotations

from typing import Any

import pytest

from ._support import moto_differs, n, s

MOTO = moto_differs("moto reports no per-index or transactional ConsumedCapacity as DynamoDB does")


@pytest.fixture
def gsi_table(make_table: Any) -> str:
    return make_table("gsi", projection={"ProjectionType": "KEYS_ONLY"})


def _item(pk: str, with_index_key: bool = True) -> dict[str, Any]:
    item = {"pk": s(pk), "sk": s("1"), "note": s("x")}
    if with_index_key:
        item.update(gpk=s("g"), gsk=n(1))
    return item


@MOTO
def test_batch_write_capacity_per_table_with_index_units_summed(
    client: Any, make_table: Any, gsi_table: str
) -> None:
    plain = make_table("hash_s")
    response = client.batch_write_item(
        RequestItems={
            gsi_table: [{"PutRequest": {"Item": _item("a")}}, {"PutRequest": {"Item": _item("b")}}],
            plain: [{"PutRequest": {"Item": {"pk": s("a")}}}],
        },
        ReturnConsumedCapacity="INDEXES",
    )
    by_table = {entry["TableName"]: entry for entry in response["ConsumedCapacity"]}
    assert by_table == {
        gsi_table: {
            "TableName": gsi_table,
            "CapacityUnits": 4.0,
            "Table": {"CapacityUnits": 2.0},
            "GlobalSecondaryIndexes": {"gsi1": {"CapacityUnits": 2.0}},
        },
        plain: {"TableName": plain, "CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}},
    }


@MOTO
def test_batch_write_total_is_the_aggregate_alone(client: Any, gsi_table: str) -> None:
    response = client.batch_write_item(
        RequestItems={gsi_table: [{"PutRequest": {"Item": _item("a")}}]}, ReturnConsumedCapacity="TOTAL"
    )
    assert response["ConsumedCapacity"] == [{"TableName": gsi_table, "CapacityUnits": 2.0}]


@MOTO
def test_transactional_index_writes_cost_twice(client: Any, gsi_table: str) -> None:
    response = client.transact_write_items(
        TransactItems=[{"Put": {"TableName": gsi_table, "Item": _item("a")}}],
        ReturnConsumedCapacity="INDEXES",
    )
    (entry,) = response["ConsumedCapacity"]
    assert entry["GlobalSecondaryIndexes"] == {"gsi1": {"CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}}
    assert entry["CapacityUnits"] == entry["WriteCapacityUnits"] == 4.0


def test_transactional_reads_are_reported_as_read_units(client: Any, gsi_table: str) -> None:
    client.put_item(TableName=gsi_table, Item=_item("a"))
    response = client.transact_get_items(
        TransactItems=[{"Get": {"TableName": gsi_table, "Key": {"pk": s("a"), "sk": s("1")}}}],
        ReturnConsumedCapacity="TOTAL",
    )
    assert response["ConsumedCapacity"] == [
        {"TableName": gsi_table, "CapacityUnits": 2.0, "ReadCapacityUnits": 2.0}
    ]


@MOTO
def test_no_index_units_when_the_entry_does_not_change(client: Any, gsi_table: str) -> None:
    client.put_item(TableName=gsi_table, Item=_item("a"))
    response = client.update_item(
        TableName=gsi_table,
        Key={"pk": s("a"), "sk": s("1")},
        UpdateExpression="SET note = :v",
        ExpressionAttributeValues={":v": s("y")},
        ReturnConsumedCapacity="INDEXES",
    )
    assert response["ConsumedCapacity"] == {
        "TableName": gsi_table,
        "CapacityUnits": 1.0,
        "Table": {"CapacityUnits": 1.0},
    }


def test_no_index_units_for_an_item_outside_the_index(client: Any, gsi_table: str) -> None:
    response = client.put_item(
        TableName=gsi_table, Item=_item("a", with_index_key=False), ReturnConsumedCapacity="INDEXES"
    )
    assert response["ConsumedCapacity"] == {
        "TableName": gsi_table,
        "CapacityUnits": 1.0,
        "Table": {"CapacityUnits": 1.0},
    }
