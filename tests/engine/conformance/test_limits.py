"""Hard limits: item size, key lengths, nesting depth, expression operands.

Reference: Developer Guide, "Quotas in Amazon DynamoDB" (ServiceQuotas.html): item 400 KB including
attribute names; partition key 1-2048 bytes, sort key 1-1024 bytes; 32 levels of nesting; IN takes
at most 100 operands.
"""

from __future__ import annotations

import pytest

from ._support import cases, moto_differs, raises_dynamodb

MAX_ITEM = 400 * 1024


def _item(size: int, name: str = "pad") -> dict:
    """{"pk": "k", name: "x"*...} of exactly ``size`` bytes (names count)."""
    return {"pk": {"S": "k"}, name: {"S": "x" * (size - 3 - len(name.encode()))}}


@moto_differs("counts more than names and values towards the item size")
@pytest.mark.parametrize("size", [MAX_ITEM - 100, MAX_ITEM])
def test_item_at_or_just_under_400_kb_is_stored(client, make_table, size):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=_item(size))
    assert client.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"] == _item(size)


@pytest.mark.parametrize("name", ["pad", "n" * 20_000], ids=["short name", "long name"])
def test_item_just_over_400_kb_is_rejected(client, make_table, name):
    # The long-name case only goes over because attribute names count towards the size.
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "Item size has exceeded the maximum allowed size"):
        client.put_item(TableName=table, Item=_item(MAX_ITEM + 1, name))
    assert "Item" not in client.get_item(TableName=table, Key={"pk": {"S": "k"}})


def test_update_that_grows_an_item_past_400_kb_is_rejected(client, make_table):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=_item(300 * 1024))
    with raises_dynamodb("ValidationException", "exceeded the maximum allowed size"):
        client.update_item(
            TableName=table,
            Key={"pk": {"S": "k"}},
            UpdateExpression="SET more = :m",
            ExpressionAttributeValues={":m": {"S": "y" * (200 * 1024)}},
        )
    assert "more" not in client.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"]


KEY_LENGTHS = {
    # (shape, key attribute, value, accepted) -- lengths are UTF-8 bytes, "é" is 2 bytes
    "partition 2048 bytes": ("hash_s", "pk", "é" * 1024, True),
    "partition 2049 bytes": ("hash_s", "pk", "é" * 1024 + "x", False),
    "partition binary 2048": ("hash_b", "pk", b"\x01" * 2048, True),
    "partition binary 2049": ("hash_b", "pk", b"\x01" * 2049, False),
    "sort 1024 bytes": ("hash_range_s", "sk", "é" * 512, True),
    "sort 1025 bytes": ("hash_range_s", "sk", "é" * 512 + "x", False),
}


@pytest.mark.parametrize(
    ("shape", "attribute", "value", "accepted"),
    cases(KEY_LENGTHS),
)
def test_key_length_limits(client, make_table, shape, attribute, value, accepted):
    table = make_table(shape)
    key = {"pk": {"S": "p"}, "sk": {"S": "s"}} if shape == "hash_range_s" else {}
    key[attribute] = {"B": value} if isinstance(value, bytes) else {"S": value}
    if accepted:
        client.put_item(TableName=table, Item=key)
        assert client.get_item(TableName=table, Key=key)["Item"] == key
    else:
        # "Size of hashkey has exceeded the maximum size limit of2048 bytes" /
        # "Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
        limit = "2048" if attribute == "pk" else "1024"
        with raises_dynamodb("ValidationException", limit):
            client.put_item(TableName=table, Item=key)


def _nested(depth: int) -> dict:
    value: dict = {"S": "leaf"}
    for _ in range(depth):
        value = {"M": {"m": value}}
    return value


@moto_differs("does not limit nesting depth")
def test_nesting_deeper_than_32_levels_is_rejected(client, make_table):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={"pk": {"S": "ok"}, "v": _nested(20)})
    with raises_dynamodb("ValidationException", "Nesting Levels have exceeded supported limits"):
        client.put_item(TableName=table, Item={"pk": {"S": "deep"}, "v": _nested(40)})


@pytest.mark.parametrize(
    ("count", "accepted"),
    cases(
        {"100 operands": (100, True), "101 operands": (101, False)},
        moto={"101 operands": "accepts more than 100 IN operands"},
    ),
)
def test_in_takes_at_most_100_operands(client, make_table, count, accepted):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={"pk": {"S": "k"}, "n": {"N": "0"}})
    values = {f":v{i}": {"N": str(i)} for i in range(count)}
    request = {
        "TableName": table,
        "FilterExpression": f"n IN ({', '.join(values)})",
        "ExpressionAttributeValues": values,
    }
    if accepted:
        assert client.scan(**request)["Count"] == 1
    else:
        with raises_dynamodb("ValidationException", "too many operands"):
            client.scan(**request)
