"""A value's size, byte-exact, as the write unit it costs (mutation testing, docs/mutation.md).

DynamoDB sizes a string by its UTF-8 bytes, a binary by its raw bytes, a Boolean or null as one
byte, a map or list as 3 bytes plus its members plus one byte per member, an attribute name by its
UTF-8 bytes. It sizes a number by its significant digits, not by its text: leading and trailing zeros are
trimmed, then one byte per two digits, plus one, plus one more when negative (at most 21 bytes for
38 digits). A write costs one unit per started KB, so an item of exactly 1,024 bytes costs 1 unit
and one of 1,025 bytes costs 2: padding the item to either side of that boundary shows the size
the engine gave the number to the byte. Each number is checked as a top-level attribute, inside a
map, a list and a number set, written by PutItem and by UpdateItem (which sizes the stored item,
not the request), in the spellings clients send: exponents, trailing zeros, leading zeros.
"""

from __future__ import annotations

from typing import Any

import pytest

from ._support import moto_differs, s

# (number as sent, its size in bytes by DynamoDB's rule)
NUMBER_SIZES = [
    ("0", 1),
    ("0.0", 1),
    ("7", 2),
    ("12", 2),
    ("123", 3),
    ("12345", 4),
    ("123456", 4),
    ("1234567", 5),
    ("1000000", 2),
    ("120", 2),
    ("-100", 3),
    ("-1.5", 3),
    ("-7", 3),
    ("123.456", 4),
    ("10.01", 3),
    ("0.000123", 3),
    ("-1.23456789", 7),
    ("1.50", 2),
    ("3.0", 2),
    ("-2.500", 3),
    ("007", 2),
    ("1e3", 2),
    ("1E+3", 2),
    ("-1.2345e-5", 5),
    ("1E-130", 2),
    ("100000000000000000000000000000000000000", 2),
    ("12345678901234567890123456789012345678", 20),
    ("-12345678901234567890123456789012345678", 21),
    ("1234567890123456789012345678901234567", 20),
    ("9.9999999999999999999999999999999999999E+125", 20),
    ("-0.12345678901234567890123456789012345678", 21),
]

# How the number sits in the item -> (attribute value holding it, size of that value given the number's).
SHAPES = {
    "top-level": (lambda text: {"N": text}, lambda size: size),
    "in a map": (lambda text: {"M": {"n": {"N": text}}}, lambda size: 3 + len("n") + size + 1),
    "in a list": (lambda text: {"L": [{"N": text}]}, lambda size: 3 + size + 1),
    "in a number set": (lambda text: {"NS": [text]}, lambda size: size),
}

WRITE_UNIT = 1024
# An item {"pk": <1 character>, "v": <value>, "t": <string>} without the value and the padding.
FIXED = len("pk") + 1 + len("v") + len("t")


def _put(client: Any, table: str, key: str, value: dict, pad: str, name: str = "v") -> float:
    item = {"pk": s(key), name: value, "t": s(pad)}
    response = client.put_item(TableName=table, Item=item, ReturnConsumedCapacity="TOTAL")
    return response["ConsumedCapacity"]["CapacityUnits"]


def _update(client: Any, table: str, key: str, value: dict, pad: str, name: str = "v") -> float:
    response = client.update_item(
        TableName=table,
        Key={"pk": s(key)},
        UpdateExpression="SET #v = :v, t = :pad",
        ExpressionAttributeNames={"#v": name},
        ExpressionAttributeValues={":v": value, ":pad": s(pad)},
        ReturnConsumedCapacity="TOTAL",
    )
    return response["ConsumedCapacity"]["CapacityUnits"]


@moto_differs("moto sizes numbers by their text", strict=False)
@pytest.mark.parametrize(("number", "size"), NUMBER_SIZES, ids=[text for text, _ in NUMBER_SIZES])
def test_a_number_costs_its_significant_digits(client: Any, make_table: Any, number: str, size: int) -> None:
    table = make_table("hash_s")
    keys = iter("abcdefghijklmnopqrstuvwxyz")
    for shape, (wrap, measure) in SHAPES.items():
        value = wrap(number)
        padding = WRITE_UNIT - FIXED - measure(size)
        for write in (_put, _update):
            at_boundary = write(client, table, next(keys), value, "x" * padding)
            past_boundary = write(client, table, next(keys), value, "x" * (padding + 1))
            assert (at_boundary, past_boundary) == (1.0, 2.0), f"{number} {shape} by {write.__name__}"


@moto_differs("moto sizes numbers by their text", strict=False)
def test_a_set_costs_the_sum_of_its_numbers(client: Any, make_table: Any) -> None:
    table = make_table("hash_s")
    numbers = {"-1.5": 3, "1000": 2, "123.45": 4, "0": 1}
    padding = WRITE_UNIT - FIXED - sum(numbers.values())
    value = {"NS": list(numbers)}
    assert _put(client, table, "a", value, "x" * padding) == 1.0
    assert _put(client, table, "b", value, "x" * (padding + 1)) == 2.0


@moto_differs("moto sizes numbers by their text", strict=False)
@pytest.mark.parametrize(
    ("start", "change", "result_size"),
    [("5", "5", 2), ("10", "-15", 3), ("99", "1", 2), ("0", "0.001", 2), ("123", "-1000", 4)],
    ids=["5+5=10", "10-15=-5", "99+1=100", "0+0.001", "123-1000=-877"],
)
def test_arithmetic_results_are_sized_as_stored(
    client: Any, make_table: Any, start: str, change: str, result_size: int
) -> None:
    """SET v = v + :d stores the result in canonical form; its size, not the operands', is charged.

    An update costs the larger of the item before and after: each result is at least as large as
    the number it replaces, so the boundary is the result's."""
    table = make_table("hash_s")
    for key, extra in (("a", 0), ("b", 1)):
        padding = WRITE_UNIT - FIXED - result_size + extra
        client.put_item(TableName=table, Item={"pk": s(key), "v": {"N": start}, "t": s("x" * padding)})
        response = client.update_item(
            TableName=table,
            Key={"pk": s(key)},
            UpdateExpression="SET v = v + :d",
            ExpressionAttributeValues={":d": {"N": change}},
            ReturnConsumedCapacity="TOTAL",
        )
        assert response["ConsumedCapacity"]["CapacityUnits"] == 1.0 + extra, (start, change, key)


# name -> (attribute value, its size in bytes by DynamoDB's rules)
VALUE_SIZES = {
    "empty string": (s(""), 0),
    "ascii string": (s("abc"), 3),
    "accented string": (s("é"), 2),
    "astral string": (s("𝄞"), 4),
    "binary": ({"B": b"\x00\x01\xff"}, 3),
    "empty binary": ({"B": b""}, 0),
    "true": ({"BOOL": True}, 1),
    "false": ({"BOOL": False}, 1),
    "null": ({"NULL": True}, 1),
    "empty map": ({"M": {}}, 3),
    "empty list": ({"L": []}, 3),
    "map": ({"M": {"é": s("xy"), "b": {"NULL": True}}}, 3 + (2 + 2 + 1) + (1 + 1 + 1)),
    "list": ({"L": [s("xy"), {"BOOL": True}, {"N": "-12"}]}, 3 + (2 + 1) + (1 + 1) + (3 + 1)),
    "nested": ({"M": {"l": {"L": [{"M": {}}]}}}, 3 + 1 + (3 + 3 + 1) + 1),
    "string set": ({"SS": ["a", "bé"]}, 1 + 3),
    "binary set": ({"BS": [b"a", b"bc"]}, 3),
}


@moto_differs("moto sizes some values by their text", strict=False)
@pytest.mark.parametrize(("value", "size"), VALUE_SIZES.values(), ids=list(VALUE_SIZES))
def test_a_value_costs_its_documented_size(client: Any, make_table: Any, value: dict, size: int) -> None:
    table = make_table("hash_s")
    padding = WRITE_UNIT - FIXED - size
    for write, keys in ((_put, "ab"), (_update, "cd")):
        at_boundary = write(client, table, keys[0], value, "x" * padding)
        past_boundary = write(client, table, keys[1], value, "x" * (padding + 1))
        assert (at_boundary, past_boundary) == (1.0, 2.0), write.__name__


@moto_differs("moto sizes some values by their text", strict=False)
@pytest.mark.parametrize("name", ["ü", "日本", "𝄞"])
def test_an_attribute_name_costs_its_utf8_bytes(client: Any, make_table: Any, name: str) -> None:
    table = make_table("hash_s")
    padding = WRITE_UNIT - FIXED + len("v") - len(name.encode()) - 1  # the value: {"BOOL": true}
    for write, keys in ((_put, "ab"), (_update, "cd")):
        at_boundary = write(client, table, keys[0], {"BOOL": True}, "x" * padding, name)
        past_boundary = write(client, table, keys[1], {"BOOL": True}, "x" * (padding + 1), name)
        assert (at_boundary, past_boundary) == (1.0, 2.0), write.__name__
