"""Engine behaviours that no test caught before (issue 15, requirement 6): each test here fails on an
engine that gets the rule wrong, not only on one that crashes.

- TableSizeBytes / IndexSizeBytes count DynamoDB's 100 bytes of overhead per item and index entry.
- An update that leaves an index entry as it was consumes no write units on that index.
- ``begins_with`` on binary values compares bytes, not their base64 text.

The sizes are the engine's live values; DynamoDB itself refreshes them about every six hours, so the
size test is a statement about this engine's model, exact by design.
"""

from __future__ import annotations

from typing import Any

import pytest

from ._support import cases, moto_differs, n, s

OVERHEAD = 100


def _described(client: Any, table: str) -> dict[str, Any]:
    return client.describe_table(TableName=table)["Table"]


# ---------------------------------------------------------------- 100-byte overhead per item


@moto_differs("reports TableSizeBytes 0")
def test_table_size_is_the_items_plus_100_bytes_each(client, make_table):
    table = make_table("hash_s")
    assert _described(client, table)["TableSizeBytes"] == 0
    # Sizes by DynamoDB's rules: name bytes + value bytes ("pk"+"k1" = 4; "pad"+50 = 53; "n"+12345 = 1+4).
    client.put_item(TableName=table, Item={"pk": s("k1")})
    client.put_item(TableName=table, Item={"pk": s("k2"), "pad": s("x" * 50)})
    client.put_item(TableName=table, Item={"pk": s("k3"), "n": n(12345)})
    described = _described(client, table)
    assert described["ItemCount"] == 3
    assert described["TableSizeBytes"] == (4 + OVERHEAD) + (4 + 53 + OVERHEAD) + (4 + 5 + OVERHEAD)
    client.delete_item(TableName=table, Key={"pk": s("k2")})
    assert _described(client, table)["TableSizeBytes"] == (4 + OVERHEAD) + (4 + 5 + OVERHEAD)


@moto_differs("describes no index ItemCount/IndexSizeBytes")
def test_index_size_is_its_entries_plus_100_bytes_each(client, make_table):
    table = make_table("gsi", projection={"ProjectionType": "KEYS_ONLY"})
    item = {"pk": s("p"), "sk": s("s"), "gpk": s("g"), "gsk": n(7), "pad": s("x" * 500)}
    client.put_item(TableName=table, Item=item)
    client.put_item(TableName=table, Item={"pk": s("q"), "sk": s("s")})  # not in the sparse index
    (index,) = _described(client, table)["GlobalSecondaryIndexes"]
    # A KEYS_ONLY entry: pk+p (3), sk+s (3), gpk+g (4), gsk+7 (3 + 2).
    assert index["ItemCount"] == 1
    assert index["IndexSizeBytes"] == 3 + 3 + 4 + 5 + OVERHEAD


# ------------------------------------------------ no index write units for an unchanged entry


def _index_units(response: dict[str, Any]) -> float:
    return (
        response["ConsumedCapacity"]
        .get("GlobalSecondaryIndexes", {})
        .get("gsi1", {})
        .get("CapacityUnits", 0.0)
    )


def _update(client: Any, table: str, expression: str, values: dict[str, Any]) -> dict[str, Any]:
    return client.update_item(
        TableName=table,
        Key={"pk": s("p"), "sk": s("s")},
        UpdateExpression=expression,
        ExpressionAttributeValues=values,
        ReturnConsumedCapacity="INDEXES",
    )


INDEXED = {"pk": s("p"), "sk": s("s"), "gpk": s("g"), "gsk": n(1), "misc": s("a")}


@pytest.mark.parametrize(
    "projection, expression, values, units",
    [
        ({"ProjectionType": "KEYS_ONLY"}, "SET misc = :v", {":v": s("b")}, 0.0),
        ({"ProjectionType": "INCLUDE", "NonKeyAttributes": ["kept"]}, "SET misc = :v", {":v": s("b")}, 0.0),
        ({"ProjectionType": "INCLUDE", "NonKeyAttributes": ["misc"]}, "SET misc = :v", {":v": s("b")}, 1.0),
        ({"ProjectionType": "ALL"}, "SET misc = :v", {":v": s("a")}, 0.0),  # the same value again
        ({"ProjectionType": "ALL"}, "SET misc = :v", {":v": s("b")}, 1.0),
        ({"ProjectionType": "KEYS_ONLY"}, "SET gsk = :v", {":v": n(2)}, 2.0),  # entry moves: delete + put
        (
            {"ProjectionType": "KEYS_ONLY"},
            "REMOVE gsk SET misc = :v",
            {":v": s("b")},
            1.0,
        ),  # leaves the index
    ],
    ids=[
        "keys-only-misc",
        "include-unprojected",
        "include-projected",
        "all-same-value",
        "all-changed",
        "key-changed",
        "key-removed",
    ],
)
@moto_differs("reports no (or zero) per-index write capacity")
def test_index_write_units_follow_what_happened_to_the_entry(
    client, make_table, projection, expression, values, units
):
    table = make_table("gsi", projection=projection)
    client.put_item(TableName=table, Item=INDEXED)
    response = _update(client, table, expression, values)
    assert _index_units(response) == units
    assert response["ConsumedCapacity"]["Table"]["CapacityUnits"] == 1.0
    assert response["ConsumedCapacity"]["CapacityUnits"] == 1.0 + units


def test_an_item_outside_a_sparse_index_costs_it_nothing(client, make_table):
    table = make_table("gsi")
    client.put_item(TableName=table, Item={"pk": s("p"), "sk": s("s")})
    assert _index_units(_update(client, table, "SET misc = :v", {":v": s("b")})) == 0.0


# ------------------------------------------------------------------ begins_with on binary values

VALUES = {
    "abc": b"\x01\x02\x03",
    "abff": b"\x01\x02\xff",
    "ac": b"\x01\x03",
    "b": b"\x02",
    "a-long": b"\x01\x02" + bytes(range(40)),
}


def _binary_table(client: Any, make_table: Any) -> str:
    table = make_table("hash_range_b")
    for name, value in VALUES.items():
        client.put_item(
            TableName=table, Item={"pk": s("p"), "sk": {"B": value}, "name": s(name), "bvalue": {"B": value}}
        )
    return table


@pytest.mark.parametrize(
    "prefix, expected",
    cases(
        {
            "two-bytes": (b"\x01\x02", ["a-long", "abc", "abff"]),
            "one-byte": (b"\x01", ["a-long", "abc", "abff", "ac"]),
            "whole-value": (b"\x01\x02\x03", ["abc"]),
            "four-bytes": (b"\x01\x02\x00\x01", ["a-long"]),
            "none": (b"\x03", []),
        },
        moto={
            case: "matches no binary value with begins_with"
            for case in ("two-bytes", "one-byte", "whole-value", "four-bytes")
        },
    ),
)
def test_begins_with_on_binary_compares_bytes(client, make_table, prefix, expected):
    table = _binary_table(client, make_table)
    by_key = client.query(
        TableName=table,
        KeyConditionExpression="pk = :p AND begins_with(sk, :b)",
        ExpressionAttributeValues={":p": s("p"), ":b": {"B": prefix}},
    )
    by_filter = client.scan(
        TableName=table,
        FilterExpression="begins_with(bvalue, :b)",
        ExpressionAttributeValues={":b": {"B": prefix}},
    )
    assert sorted(i["name"]["S"] for i in by_key["Items"]) == expected
    assert sorted(i["name"]["S"] for i in by_filter["Items"]) == expected


@moto_differs("does not match begins_with on binary values (the condition fails)")
def test_begins_with_binary_in_a_condition(client, make_table):
    table = _binary_table(client, make_table)
    key = {"pk": s("p"), "sk": {"B": VALUES["abc"]}}
    client.delete_item(
        TableName=table,
        Key=key,
        ConditionExpression="begins_with(bvalue, :b)",
        ExpressionAttributeValues={":b": {"B": b"\x01\x02"}},
    )
    assert "Item" not in client.get_item(TableName=table, Key=key)


def test_a_string_prefix_never_matches_a_binary_value(client, make_table):
    table = _binary_table(client, make_table)
    # "AQ" is the start of every stored value's base64 text: a text comparison would match them all.
    found = client.scan(
        TableName=table, FilterExpression="begins_with(bvalue, :t)", ExpressionAttributeValues={":t": s("AQ")}
    )
    assert found["Count"] == 0
