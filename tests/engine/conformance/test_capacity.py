"""ReturnConsumedCapacity: read/write unit rules, TOTAL versus INDEXES.

Reference: Developer Guide, "Read/write capacity mode" and "Managing settings on DynamoDB
provisioned capacity tables" (read units per 4 KB, write units per 1 KB, eventual reads half,
transactional double; Query sums item sizes before rounding; BatchGetItem rounds each item),
and "Item sizes and formats" (CapacityUnitCalculations.html); shared/reference dynamodb-facts.md B.

Item size here: UTF-8 bytes of each attribute name plus its value, so {"pk": "k", "pad": "x" * n}
is 2 + 1 + 3 + n = n + 6 bytes.
"""

from __future__ import annotations

import pytest

from ._support import cases, moto_agrees, moto_differs, put_all

# moto reports a fixed 0.5/1.0 for most operations, which is sometimes right by coincidence: the
# tests where it is are marked moto_agrees, so every marker here is strict.
pytestmark = moto_differs("does not compute consumed capacity")
_FIXED = "moto's fixed figure is right for this size"


def _units(consumed: dict | list) -> dict | list:
    """TableName and CapacityUnits only: DynamoDB may add Read/WriteCapacityUnits alongside."""
    if isinstance(consumed, list):
        return [_units(c) for c in consumed]
    return {k: consumed[k] for k in ("TableName", "CapacityUnits") if k in consumed}


def _padded(pk: str, size: int) -> dict:
    """An item of exactly ``size`` bytes."""
    return {"pk": {"S": pk}, "pad": {"S": "x" * (size - 6)}}


READS = {
    "tiny strong": (10, True, 1.0),
    "tiny eventual": (10, False, 0.5),
    "4096 bytes strong": (4096, True, 1.0),
    "4097 bytes strong": (4097, True, 2.0),
    "4097 bytes eventual": (4097, False, 1.0),
    "10 KB strong": (10_240, True, 3.0),
}


@pytest.mark.parametrize(
    ("size", "consistent", "units"), cases(READS, moto_agrees_on={"tiny eventual": _FIXED})
)
def test_get_item_read_units(client, make_table, size, consistent, units):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=_padded("k", size))
    response = client.get_item(
        TableName=table, Key={"pk": {"S": "k"}}, ConsistentRead=consistent, ReturnConsumedCapacity="TOTAL"
    )
    assert _units(response["ConsumedCapacity"]) == {"TableName": table, "CapacityUnits": units}


@pytest.mark.parametrize(
    ("consistent", "units"), [(True, 1.0), pytest.param(False, 0.5, marks=moto_agrees(_FIXED))]
)
def test_get_item_of_a_missing_item_is_still_charged(client, make_table, consistent, units):
    table = make_table("hash_s")
    response = client.get_item(
        TableName=table, Key={"pk": {"S": "k"}}, ConsistentRead=consistent, ReturnConsumedCapacity="TOTAL"
    )
    assert "Item" not in response
    assert response["ConsumedCapacity"]["CapacityUnits"] == units


WRITES = {
    "tiny": (10, 1.0),
    "1024 bytes": (1024, 1.0),
    "1025 bytes": (1025, 2.0),
    "3000 bytes": (3000, 3.0),
}


@pytest.mark.parametrize(
    ("size", "units"), cases(WRITES, moto_agrees_on={"tiny": _FIXED, "1024 bytes": _FIXED})
)
def test_put_item_write_units(client, make_table, size, units):
    table = make_table("hash_s")
    response = client.put_item(TableName=table, Item=_padded("k", size), ReturnConsumedCapacity="TOTAL")
    assert _units(response["ConsumedCapacity"]) == {"TableName": table, "CapacityUnits": units}


def test_overwrite_is_charged_for_the_larger_of_old_and_new(client, make_table):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=_padded("k", 3000))
    response = client.put_item(TableName=table, Item=_padded("k", 10), ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"]["CapacityUnits"] == 3.0
    response = client.update_item(
        TableName=table,
        Key={"pk": {"S": "k"}},
        UpdateExpression="SET #pad = :p",  # PAD is a reserved word
        ExpressionAttributeNames={"#pad": "pad"},
        ExpressionAttributeValues={":p": {"S": "x" * 1500}},
        ReturnConsumedCapacity="TOTAL",
    )
    assert response["ConsumedCapacity"]["CapacityUnits"] == 2.0


def test_delete_is_charged_for_the_deleted_item(client, make_table):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=_padded("k", 2500))
    response = client.delete_item(TableName=table, Key={"pk": {"S": "k"}}, ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"]["CapacityUnits"] == 3.0
    response = client.delete_item(TableName=table, Key={"pk": {"S": "k"}}, ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"]["CapacityUnits"] == 1.0


@moto_agrees("moto leaves ConsumedCapacity out unless asked")
def test_no_consumed_capacity_unless_asked(client, make_table):
    table = make_table("hash_s")
    assert "ConsumedCapacity" not in client.put_item(TableName=table, Item=_padded("k", 10))
    assert "ConsumedCapacity" not in client.put_item(
        TableName=table, Item=_padded("k", 10), ReturnConsumedCapacity="NONE"
    )


@pytest.fixture
def ten_kilobytes(client, make_table) -> str:
    """hash_s table with 10 items of 1,000 bytes: 10,000 bytes, 3 read units when summed."""
    table = make_table("hash_s")
    put_all(client, table, [_padded(f"k{i}", 1000) for i in range(10)])
    return table


@pytest.mark.parametrize(("consistent", "units"), [(True, 3.0), (False, 1.5)])
def test_scan_sums_sizes_before_rounding(client, ten_kilobytes, consistent, units):
    response = client.scan(TableName=ten_kilobytes, ConsistentRead=consistent, ReturnConsumedCapacity="TOTAL")
    assert response["Count"] == 10
    assert response["ConsumedCapacity"]["CapacityUnits"] == units


def test_query_sums_sizes_before_rounding_and_ignores_the_filter(client, make_table):
    table = make_table("hash_range_n")
    # Each item: pk "p" (3) + sk (2 + number) + pad: about 1,000 bytes, 10 of them about 10 KB.
    put_all(
        client,
        table,
        [{"pk": {"S": "p"}, "sk": {"N": str(i)}, "pad": {"S": "x" * 990}} for i in range(10)],
    )
    response = client.query(
        TableName=table,
        KeyConditionExpression="pk = :p",
        FilterExpression="attribute_exists(nosuch)",
        ExpressionAttributeValues={":p": {"S": "p"}},
        ConsistentRead=True,
        ReturnConsumedCapacity="TOTAL",
    )
    assert response["Count"] == 0
    assert response["ConsumedCapacity"]["CapacityUnits"] == 3.0


def test_batch_get_rounds_each_item(client, ten_kilobytes):
    response = client.batch_get_item(
        RequestItems={ten_kilobytes: {"Keys": [{"pk": {"S": f"k{i}"}} for i in range(3)]}},
        ReturnConsumedCapacity="TOTAL",
    )
    assert _units(response["ConsumedCapacity"]) == [{"TableName": ten_kilobytes, "CapacityUnits": 1.5}]


def test_batch_write_rounds_each_item(client, make_table):
    table = make_table("hash_s")
    response = client.batch_write_item(
        RequestItems={table: [{"PutRequest": {"Item": _padded(f"k{i}", 1500)}} for i in range(3)]},
        ReturnConsumedCapacity="TOTAL",
    )
    assert _units(response["ConsumedCapacity"]) == [{"TableName": table, "CapacityUnits": 6.0}]


def test_transactions_cost_double(client, make_table):
    table = make_table("hash_s")
    write = client.transact_write_items(
        TransactItems=[{"Put": {"TableName": table, "Item": _padded(f"k{i}", 1500)}} for i in range(2)],
        ReturnConsumedCapacity="TOTAL",
    )
    assert _units(write["ConsumedCapacity"]) == [{"TableName": table, "CapacityUnits": 8.0}]
    read = client.transact_get_items(
        TransactItems=[{"Get": {"TableName": table, "Key": {"pk": {"S": f"k{i}"}}}} for i in range(2)],
        ReturnConsumedCapacity="TOTAL",
    )
    assert _units(read["ConsumedCapacity"]) == [{"TableName": table, "CapacityUnits": 4.0}]


# ------------------------------------------------------------------------------------------- INDEXES

KEY = {"pk": {"S": "p"}, "sk": {"S": "s"}}


def _write_units(response: dict) -> tuple[float, float, float | None]:
    consumed = response["ConsumedCapacity"]
    gsi = consumed.get("GlobalSecondaryIndexes", {}).get("gsi1", {}).get("CapacityUnits")
    return consumed["CapacityUnits"], consumed["Table"]["CapacityUnits"], gsi


def test_indexes_breaks_down_table_and_index_units(client, make_table):
    table = make_table("gsi")
    put = client.put_item(
        TableName=table,
        Item={**KEY, "gpk": {"S": "g"}, "gsk": {"N": "1"}},
        ReturnConsumedCapacity="INDEXES",
    )
    assert put["ConsumedCapacity"]["TableName"] == table
    assert _write_units(put) == (2.0, 1.0, 1.0)


INDEX_WRITES = {
    # update expression -> (total, table, gsi units); the item starts in the index with gsk 1
    "index key changed: delete + put": ("SET gsk = :two", (3.0, 1.0, 2.0)),
    "projected attribute changed": ("SET extra = :two", (2.0, 1.0, 1.0)),
    "index key removed": ("REMOVE gsk", (2.0, 1.0, 1.0)),
}


@pytest.mark.parametrize(("expression", "units"), cases(INDEX_WRITES))
def test_index_write_units_follow_the_index_entry(client, make_table, expression, units):
    table = make_table("gsi")
    client.put_item(TableName=table, Item={**KEY, "gpk": {"S": "g"}, "gsk": {"N": "1"}})
    request = {
        "TableName": table,
        "Key": KEY,
        "UpdateExpression": expression,
        "ReturnConsumedCapacity": "INDEXES",
    }
    if ":two" in expression:
        request["ExpressionAttributeValues"] = {":two": {"N": "2"}}
    assert _write_units(client.update_item(**request)) == units


@moto_agrees("moto charges 1.0 and no index, which is right for an item outside the index")
def test_item_outside_a_sparse_index_costs_the_index_nothing(client, make_table):
    table = make_table("gsi")
    response = client.put_item(TableName=table, Item=KEY, ReturnConsumedCapacity="INDEXES")
    total, table_units, gsi = _write_units(response)
    assert (total, table_units) == (1.0, 1.0)
    assert gsi in (None, 0.0)


def test_total_has_no_breakdown(client, make_table):
    table = make_table("gsi")
    response = client.put_item(
        TableName=table, Item={**KEY, "gpk": {"S": "g"}, "gsk": {"N": "1"}}, ReturnConsumedCapacity="TOTAL"
    )
    assert _units(response["ConsumedCapacity"]) == {"TableName": table, "CapacityUnits": 2.0}


def test_query_on_a_global_index_is_charged_to_the_index(client, make_table):
    table = make_table("gsi")
    client.put_item(TableName=table, Item={**KEY, "gpk": {"S": "g"}, "gsk": {"N": "1"}})
    response = client.query(
        TableName=table,
        IndexName="gsi1",
        KeyConditionExpression="gpk = :g",
        ExpressionAttributeValues={":g": {"S": "g"}},
        ReturnConsumedCapacity="INDEXES",
    )
    consumed = response["ConsumedCapacity"]
    assert consumed["CapacityUnits"] == 0.5
    assert consumed["GlobalSecondaryIndexes"] == {"gsi1": {"CapacityUnits": 0.5}}
