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
MOTO_PAGING = moto_differs("moto gives no LastEvaluatedKey when the last page ends exactly at Limit")


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


# ------------------------------------------------------------------ engine/types.py: key encoding

# Numbers whose order-preserving key bytes differ in every part: sign, magnitude, digits, trailing
# zeros, the smallest and largest magnitudes DynamoDB allows.
ORDERED_NUMBERS = [
    "-9.9999999999999999999999999999999999999E+125",
    "-1E+125",
    "-1000",
    "-123.45",
    "-100",
    "-99.9",
    "-10",
    "-1.5",
    "-1",
    "-0.5",
    "-0.05",
    "-1E-130",
    "0",
    "1E-130",
    "0.0001",
    "0.05",
    "0.5",
    "1",
    "1.5",
    "9",
    "10",
    "10.5",
    "99.9",
    "100",
    "123.45",
    "1000000",
    "12345678901234567890",
    "9.9999999999999999999999999999999999999E+125",
]


def _pages(client: Any, table: str, forward: bool) -> tuple[list[str], list[str]]:
    """Every sort key in query order, and every LastEvaluatedKey's sort key, paging one item at a time."""
    request: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "pk = :p",
        "ExpressionAttributeValues": {":p": s("p")},
        "Limit": 1,
        "ScanIndexForward": forward,
    }
    seen, resumed = [], []
    while True:
        page = client.query(**request)
        seen.extend(item["sk"]["N"] for item in page["Items"])
        if "LastEvaluatedKey" not in page:
            return seen, resumed
        resumed.append(page["LastEvaluatedKey"]["sk"]["N"])
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


@MOTO_PAGING
def test_number_keys_sort_numerically_and_resume_exactly(client: Any, make_table: Any) -> None:
    from decimal import Decimal

    table = make_table("hash_range_n")
    for number in reversed(ORDERED_NUMBERS):
        client.put_item(TableName=table, Item={"pk": s("p"), "sk": {"N": number}})
    canonical = [str(Decimal(x)) for x in ORDERED_NUMBERS]
    forward, resumed = _pages(client, table, forward=True)
    assert [Decimal(x) for x in forward] == [Decimal(x) for x in ORDERED_NUMBERS]
    # A LastEvaluatedKey gives the key back as it was stored (decoded from the key bytes).
    assert [Decimal(x) for x in resumed] == [Decimal(x) for x in ORDERED_NUMBERS]
    assert all("E" not in x or x in canonical for x in resumed)
    backward, _ = _pages(client, table, forward=False)
    assert backward == list(reversed(forward))


def test_number_key_conditions_compare_by_value(client: Any, make_table: Any) -> None:
    from decimal import Decimal

    table = make_table("hash_range_n")
    for number in ORDERED_NUMBERS:
        client.put_item(TableName=table, Item={"pk": s("p"), "sk": {"N": number}})
    items = client.query(
        TableName=table,
        KeyConditionExpression="pk = :p AND sk BETWEEN :lo AND :hi",
        ExpressionAttributeValues={":p": s("p"), ":lo": {"N": "-1.50"}, ":hi": {"N": "10.50"}},
    )["Items"]
    wanted = ORDERED_NUMBERS[ORDERED_NUMBERS.index("-1.5") : ORDERED_NUMBERS.index("10.5") + 1]
    assert [Decimal(item["sk"]["N"]) for item in items] == [Decimal(x) for x in wanted]


@pytest.mark.parametrize("shape", ["hash_range_s", "hash_range_b"])
def test_string_and_binary_keys_resume_exactly(client: Any, make_table: Any, shape: str) -> None:
    table = make_table(shape)
    # In byte order: UTF-8 for strings ("é" after "z"), unsigned bytes for binaries.
    strings: list[Any] = ["a", "ab", "b", "z", "é"]
    binaries: list[Any] = [b"\x00", b"\x01", b"\x01\x00", b"\xff"]
    keys = strings if shape == "hash_range_s" else binaries
    wire = "S" if shape == "hash_range_s" else "B"
    for key in keys:
        client.put_item(TableName=table, Item={"pk": s("p"), "sk": {wire: key}})
    first = client.query(
        TableName=table,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": s("p")},
        Limit=2,
    )
    assert first["LastEvaluatedKey"] == {"pk": s("p"), "sk": {wire: keys[1]}}
    rest = client.query(
        TableName=table,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": s("p")},
        ExclusiveStartKey=first["LastEvaluatedKey"],
    )
    assert [item["sk"][wire] for item in rest["Items"]] == keys[2:]


# ----------------------------------------------------------- engine/types.py: malformed values


@moto_differs("moto accepts malformed attribute values")
@pytest.mark.parametrize(
    ("value", "phrase"),
    [
        ({}, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
        (
            {"S": "x", "N": "1"},
            "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
        ),
    ],
    ids=["empty", "two types"],
)
def test_malformed_attribute_values(client: Any, make_table: Any, value: dict, phrase: str) -> None:
    from ._support import raises_dynamodb

    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", phrase) as info:
        client.put_item(TableName=table, Item={"pk": s("k"), "a": value})
    assert info.value.response["Error"]["Message"] == phrase
    with raises_dynamodb("ValidationException", phrase) as info:
        client.put_item(TableName=table, Item={"pk": s("k"), "a": {"L": [value]}})
    assert info.value.response["Error"]["Message"] == phrase
    client.put_item(TableName=table, Item={"pk": s("k"), "a": {"NULL": True}, "b": {"L": [{"BOOL": False}]}})


# --------------------------------------------------------------- capacity: second mutation run


@MOTO
def test_local_index_units_are_reported_by_name(client: Any, make_table: Any) -> None:
    table = make_table("lsi")
    response = client.put_item(
        TableName=table,
        Item={"pk": s("a"), "sk": s("1"), "lsk": n(1)},
        ReturnConsumedCapacity="INDEXES",
    )
    assert response["ConsumedCapacity"] == {
        "TableName": table,
        "CapacityUnits": 2.0,
        "Table": {"CapacityUnits": 1.0},
        "LocalSecondaryIndexes": {"lsi1": {"CapacityUnits": 1.0}},
    }


@MOTO
def test_transactional_index_key_change_costs_twice_for_both_entries(client: Any, gsi_table: str) -> None:
    client.put_item(TableName=gsi_table, Item=_item("a"))
    response = client.transact_write_items(
        TransactItems=[
            {
                "Update": {
                    "TableName": gsi_table,
                    "Key": {"pk": s("a"), "sk": s("1")},
                    "UpdateExpression": "SET gsk = :v",
                    "ExpressionAttributeValues": {":v": n(2)},
                }
            }
        ],
        ReturnConsumedCapacity="INDEXES",
    )
    (entry,) = response["ConsumedCapacity"]
    # The old index entry is deleted and the new one written, each at two transactional units.
    assert entry["GlobalSecondaryIndexes"] == {"gsi1": {"CapacityUnits": 4.0, "WriteCapacityUnits": 4.0}}


# ------------------------------------------------------------------ types: sizes of numbers


# name -> (number, its size in bytes: significant digits / 2 rounded up, + 1, + 1 when negative)
NUMBERS = {
    "a": ("-1.23456789", 7),
    "b": ("12345678901234567890123456789012345678", 20),
    "c": ("1000000", 2),
    "d": ("0.000123", 3),
    "e": ("-100", 3),
}


@moto_differs("moto sizes numbers by their text, so one boundary happens to agree", strict=False)
@pytest.mark.parametrize(("padding", "units"), [(0, 1.0), (1, 2.0)], ids=["1024 bytes", "1025 bytes"])
def test_number_sizes_decide_the_write_unit(client: Any, make_table: Any, padding: int, units: float) -> None:
    table = make_table("hash_s")
    item: dict[str, Any] = {"pk": s("k")}
    size = len("pk") + 1
    for name, (number, number_size) in NUMBERS.items():
        item[name] = {"N": number}
        size += len(name) + number_size
    item["s"] = s("x" * (1024 - size - 1 + padding))
    response = client.put_item(TableName=table, Item=item, ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"]["CapacityUnits"] == units
