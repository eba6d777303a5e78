"""Attribute types: every type round-trips, numbers are validated and normalised, sets are checked.

Reference: Developer Guide, "Supported data types and naming rules"
(HowItWorks.NamingRulesDataTypes.html) and "Data type descriptors".
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from ._support import cases, moto_differs, raises_dynamodb

ROUND_TRIP = {
    "S": {"S": "hello wörld"},
    "N": {"N": "123.45"},
    "N_negative": {"N": "-0.001"},
    "B": {"B": b"\x00\x01\xfe\xff"},
    "SS": {"SS": ["a", "b", "c"]},
    "NS": {"NS": ["1", "2.5", "-3"]},
    "BS": {"BS": [b"\x00", b"\xff"]},
    "M": {"M": {"s": {"S": "x"}, "inner": {"M": {"n": {"N": "1"}}}, "l": {"L": [{"BOOL": False}]}}},
    "L": {"L": [{"S": "a"}, {"N": "1"}, {"NULL": True}, {"L": []}, {"M": {}}]},
    "BOOL_true": {"BOOL": True},
    "BOOL_false": {"BOOL": False},
    "NULL": {"NULL": True},
    "empty_M": {"M": {}},
    "empty_L": {"L": []},
}


def _canonical(value: dict) -> dict:
    """Sets are unordered in DynamoDB: compare them as sorted lists."""
    ((kind, inner),) = value.items()
    if kind in ("SS", "BS"):
        return {kind: sorted(inner)}
    if kind == "NS":
        return {kind: sorted(inner, key=Decimal)}
    if kind == "M":
        return {kind: {k: _canonical(v) for k, v in inner.items()}}
    if kind == "L":
        return {kind: [_canonical(v) for v in inner]}
    return value


@pytest.mark.parametrize("value", ROUND_TRIP.values(), ids=ROUND_TRIP.keys())
def test_every_type_round_trips(client, make_table, value):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={"pk": {"S": "k"}, "v": value})
    item = client.get_item(TableName=table, Key={"pk": {"S": "k"}}, ConsistentRead=True)["Item"]
    assert _canonical(item["v"]) == _canonical(value)
    assert item["pk"] == {"S": "k"}


# --------------------------------------------------------------------------------------------- numbers

ACCEPTED_NUMBERS = [
    "12345678901234567890123456789012345678",  # 38 significant digits
    "-1234567890.1234567890123456789012345678",  # 38 digits with a fraction
    "0.00000000000000000000000000000000000000000012345678901234567890123456789012345678",
    "1E-130",  # smallest positive magnitude
    "-1E-130",
    "9.9999999999999999999999999999999999999E+125",  # largest magnitude
    "-9.9999999999999999999999999999999999999E+125",
]


@pytest.mark.parametrize("number", ACCEPTED_NUMBERS)
def test_numbers_within_precision_and_range_are_stored_exactly(client, make_table, number):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={"pk": {"S": "k"}, "n": {"N": number}})
    stored = client.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"]["n"]["N"]
    assert Decimal(stored) == Decimal(number)


REJECTED_NUMBERS = {
    "39 digits": ("123456789012345678901234567890123456789", "more than 38 significant digits"),
    "39 digits fraction": ("1.23456789012345678901234567890123456789", "more than 38 significant digits"),
    "underflow": ("1E-131", "Number underflow"),
    "negative underflow": ("-1E-131", "Number underflow"),
    "overflow": ("1E+126", "Number overflow"),
    "negative overflow": ("-1E+126", "Number overflow"),
}


_NO_CHECK = "accepts numbers DynamoDB rejects"


@pytest.mark.parametrize(
    ("number", "phrase"),
    cases(
        REJECTED_NUMBERS,
        moto={k: _NO_CHECK for k in ("39 digits", "39 digits fraction", "overflow", "negative overflow")},
    ),
)
def test_numbers_beyond_precision_or_range_are_rejected(client, make_table, number, phrase):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", phrase):
        client.put_item(TableName=table, Item={"pk": {"S": "k"}, "n": {"N": number}})
    assert "Item" not in client.get_item(TableName=table, Key={"pk": {"S": "k"}})


# Python's Decimal takes digit groups ("1_000"); Java's BigDecimal, which DynamoDB parses numbers
# with, does not.
_GROUPED = moto_differs("parses numbers with Python's Decimal, which takes digit groups")


@pytest.mark.parametrize(
    "text",
    [
        "abc",
        "1.2.3",
        "NaN",
        "Infinity",
        "--1",
        "1e",
        pytest.param("1_000", marks=_GROUPED),
        pytest.param("1_0.5", marks=_GROUPED),
        pytest.param("1e1_0", marks=_GROUPED),
    ],
)
def test_non_numeric_number_strings_are_rejected(client, make_table, text):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "numeric value"):
        client.put_item(TableName=table, Item={"pk": {"S": "k"}, "n": {"N": text}})
    assert "Item" not in client.get_item(TableName=table, Key={"pk": {"S": "k"}})


@moto_differs("does not check the members of a number set")
@pytest.mark.parametrize("text", ["abc", "1_000", "1e1_0"])
def test_a_number_set_member_that_is_no_number_is_rejected(client, make_table, text):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "numeric value"):
        client.put_item(TableName=table, Item={"pk": {"S": "k"}, "set": {"NS": ["1", text]}})
    assert "Item" not in client.get_item(TableName=table, Key={"pk": {"S": "k"}})


NORMALISED = {
    "1.50": ("1.50", "1.5"),
    "01": ("01", "1"),
    "1e3": ("1e3", "1000"),
    "1E3": ("1E3", "1000"),
    "-0": ("-0", "0"),
    "0.0": ("0.0", "0"),
    "-1.0": ("-1.0", "-1"),
    "100": ("100", "100"),
    "1.23e-2": ("1.23e-2", "0.0123"),
    "007.700": ("007.700", "7.7"),
}


@pytest.mark.parametrize(
    ("written", "read"),
    cases(NORMALISED, moto={k: "returns numbers as written" for k in NORMALISED if k != "100"}),
)
def test_numbers_come_back_normalised(client, make_table, written, read):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={"pk": {"S": "k"}, "n": {"N": written}, "ns": {"NS": [written]}})
    item = client.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"]
    assert item["n"] == {"N": read}
    assert item["ns"] == {"NS": [read]}


# ------------------------------------------------------------------------------------------------ sets

EMPTY_SETS = {"SS": {"SS": []}, "NS": {"NS": []}, "BS": {"BS": []}}


@pytest.mark.parametrize("value", cases(EMPTY_SETS, moto={"BS": "accepts an empty binary set"}))
def test_empty_sets_are_rejected(client, make_table, value):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "may not be empty"):
        client.put_item(TableName=table, Item={"pk": {"S": "k"}, "set": value})


DUPLICATE_SETS = {
    "SS": {"SS": ["a", "a"]},
    "NS": {"NS": ["1", "1"]},
    "BS": {"BS": [b"x", b"x"]},
}


@moto_differs("accepts sets with duplicates")
@pytest.mark.parametrize("value", cases(DUPLICATE_SETS))
def test_sets_with_duplicates_are_rejected(client, make_table, value):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "contains duplicates"):
        client.put_item(TableName=table, Item={"pk": {"S": "k"}, "set": value})


@moto_differs("accepts sets with duplicates")
def test_number_set_duplicates_are_judged_by_value(client, make_table):
    # "1" and "1.0" are the same number, so the set holds a duplicate.
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "contains duplicates"):
        client.put_item(TableName=table, Item={"pk": {"S": "k"}, "set": {"NS": ["1", "1.0"]}})


def test_empty_set_nested_in_a_map_is_rejected(client, make_table):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "may not be empty"):
        client.put_item(TableName=table, Item={"pk": {"S": "k"}, "m": {"M": {"x": {"SS": []}}}})


# ------------------------------------------------------------------------------ empty strings / binary


def test_empty_string_and_binary_are_allowed_outside_keys(client, make_table):
    # Empty String and Binary values are allowed in non-key attributes (since May 2020).
    table = make_table("hash_s")
    item = {
        "pk": {"S": "k"},
        "s": {"S": ""},
        "b": {"B": b""},
        "m": {"M": {"s": {"S": ""}}},
        "l": {"L": [{"S": ""}, {"B": b""}]},
        "ss": {"SS": ["", "x"]},
    }
    client.put_item(TableName=table, Item=item)
    stored = client.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"]
    assert stored["s"] == {"S": ""}
    assert stored["b"] == {"B": b""}
    assert stored["m"] == {"M": {"s": {"S": ""}}}
    assert stored["l"] == {"L": [{"S": ""}, {"B": b""}]}
    assert sorted(stored["ss"]["SS"]) == ["", "x"]


EMPTY_KEYS = {
    "hash S": ("hash_s", {"pk": {"S": ""}}),
    "hash B": ("hash_b", {"pk": {"B": b""}}),
    "range S": ("hash_range_s", {"pk": {"S": "k"}, "sk": {"S": ""}}),
    "range B": ("hash_range_b", {"pk": {"S": "k"}, "sk": {"B": b""}}),
}


# Current wording: "One or more parameter values are not valid. The AttributeValue for a key attribute
# cannot contain an empty string value. Key: pk" (moto keeps the pre-2020 wording, and accepts empty B).
@moto_differs("old empty-key wording; accepts empty binary keys")
@pytest.mark.parametrize(("shape", "key"), cases(EMPTY_KEYS))
def test_empty_key_values_are_rejected(client, make_table, shape, key):
    table = make_table(shape)
    with raises_dynamodb("ValidationException", "key attribute"):
        client.put_item(TableName=table, Item=key)
    with raises_dynamodb("ValidationException"):
        client.get_item(TableName=table, Key=key)
