"""Equality of attribute values, and the errors of numbers and nulls (mutation testing, docs/mutation.md).

DynamoDB compares sets as sets: ``{"SS": ["a", "b"]}`` equals ``{"SS": ["b", "a"]}``, at the top
level and inside maps and lists, while a list's order is part of its value. These tests pin that
through conditions (``=``, ``<>``, ``IN``, ``contains``), and the wording of two errors of values:
an arithmetic result with more than 38 digits is a "Number overflow" (DynamoDB's own wording, gap 27
in the behaviour list), and a NULL must be true.
"""

from __future__ import annotations

from typing import Any

import pytest

from ._support import moto_differs, raises_dynamodb, s

MOTO = moto_differs("moto does not reproduce this DynamoDB check")

STORED = {
    "ss": {"SS": ["a", "b", "c"]},
    "ns": {"NS": ["1", "-2.5", "300"]},
    "bs": {"BS": [b"\x01", b"\x02", b"\x03"]},
    "l": {"L": [s("x"), {"N": "1"}, {"SS": ["p", "q"]}]},
    "m": {"M": {"tags": {"SS": ["red", "blue"]}, "list": {"L": [{"NS": ["1", "2"]}]}, "n": {"N": "5"}}},
}

# attribute -> (an equal value written differently, a value that differs)
EQUAL_AND_DIFFERENT = {
    "ss": ({"SS": ["c", "a", "b"]}, {"SS": ["a", "b"]}),
    "ns": ({"NS": ["300", "1", "-2.5"]}, {"NS": ["1", "-2.5", "301"]}),
    "bs": ({"BS": [b"\x03", b"\x01", b"\x02"]}, {"BS": [b"\x01", b"\x02", b"\x04"]}),
    "l": ({"L": [s("x"), {"N": "1.0"}, {"SS": ["q", "p"]}]}, {"L": [{"N": "1"}, s("x"), {"SS": ["p", "q"]}]}),
    "m": (
        {"M": {"n": {"N": "5.0"}, "list": {"L": [{"NS": ["2", "1"]}]}, "tags": {"SS": ["blue", "red"]}}},
        {"M": {"n": {"N": "5"}, "list": {"L": [{"NS": ["2", "1"]}]}, "tags": {"SS": ["blue"]}}},
    ),
}


@pytest.fixture
def table(client: Any, make_table: Any) -> str:
    name = make_table("hash_s")
    client.put_item(TableName=name, Item={"pk": s("k"), **STORED})
    return name


def _holds(client: Any, table: str, condition: str, value: dict) -> bool:
    """Whether ``condition`` (over ``:v``) holds for the stored item, asked through a conditional put."""
    try:
        client.put_item(
            TableName=table,
            Item={"pk": s("k"), **STORED},
            ConditionExpression=condition,
            ExpressionAttributeValues={":v": value},
        )
    except client.exceptions.ConditionalCheckFailedException:
        return False
    return True


@pytest.mark.parametrize("attribute", list(EQUAL_AND_DIFFERENT))
def test_sets_compare_as_sets_at_any_depth(client: Any, table: str, attribute: str) -> None:
    same, different = EQUAL_AND_DIFFERENT[attribute]
    assert _holds(client, table, f"{attribute} = :v", same)
    assert not _holds(client, table, f"{attribute} <> :v", same)
    assert _holds(client, table, f"{attribute} IN (:v)", same)
    assert not _holds(client, table, f"{attribute} = :v", different)
    assert _holds(client, table, f"{attribute} <> :v", different)


def test_contains_finds_a_set_inside_a_list_in_any_order(client: Any, table: str) -> None:
    assert _holds(client, table, "contains(l, :v)", {"SS": ["q", "p"]})
    assert not _holds(client, table, "contains(l, :v)", {"SS": ["p"]})


@MOTO
@pytest.mark.parametrize(
    ("left", "right", "operator"),
    [
        ("1e50", "1", "-"),  # the result needs 50 digits
        ("12345678901234567890123456789012345678", "0.1", "+"),  # 39 digits
        ("1E+125", "1E-130", "+"),  # 256 digits: beyond even the working precision
    ],
    ids=["1e50 - 1", "38 digits + 0.1", "1E+125 + 1E-130"],
)
def test_arithmetic_needing_more_than_38_digits_is_a_number_overflow(
    client: Any, table: str, left: str, right: str, operator: str
) -> None:
    message = "Number overflow. Attempting to store a number with magnitude larger than supported range"
    with raises_dynamodb("ValidationException", message) as info:
        client.update_item(
            TableName=table,
            Key={"pk": s("k")},
            UpdateExpression=f"SET r = :a {operator} :b",
            ExpressionAttributeValues={":a": {"N": left}, ":b": {"N": right}},
        )
    assert info.value.response["Error"]["Message"] == message
    # The same digits written directly are refused in the words for a number, not for arithmetic.
    with raises_dynamodb("ValidationException", "more than 38 significant digits"):
        client.put_item(TableName=table, Item={"pk": s("k"), "r": {"N": "1" * 39}})


@MOTO
@pytest.mark.parametrize("where", ["top level", "in a map", "in a list"])
def test_null_must_be_true(client: Any, table: str, where: str) -> None:
    value = {"NULL": False}
    wrapped = {"top level": value, "in a map": {"M": {"x": value}}, "in a list": {"L": [value]}}[where]
    message = (
        "One or more parameter values were invalid: Null attribute value types must have the value of true"
    )
    with raises_dynamodb("ValidationException", message) as info:
        client.put_item(TableName=table, Item={"pk": s("k"), "z": wrapped})
    assert info.value.response["Error"]["Message"] == message


def _nested(levels: int) -> dict:
    value: dict = s("x")
    for _ in range(levels):
        value = {"L": [value]}
    return value


@pytest.mark.parametrize(
    ("levels", "accepted"), [(31, True), pytest.param(32, False, marks=MOTO)], ids=["31 lists", "32 lists"]
)
def test_an_expression_value_nests_as_deep_as_an_item_attribute(
    client: Any, table: str, levels: int, accepted: bool
) -> None:
    """SET a = :v stores :v as a top-level attribute: the item's nesting limit applies, no less."""
    for write in ("put", "update"):
        try:
            if write == "put":
                client.put_item(TableName=table, Item={"pk": s("k"), "a": _nested(levels)})
            else:
                client.update_item(
                    TableName=table,
                    Key={"pk": s("k")},
                    UpdateExpression="SET a = :v",
                    ExpressionAttributeValues={":v": _nested(levels)},
                )
        except client.exceptions.ClientError as error:
            assert not accepted, f"{write}: {error}"
            assert "Nesting Levels have exceeded supported limits" in error.response["Error"]["Message"]
        else:
            assert accepted, f"{write} accepted {levels} levels"


@pytest.mark.parametrize(
    ("number", "message"),
    [
        (
            "1E-131",
            "Number underflow. Attempting to store a number with magnitude smaller than supported range",
        ),
        pytest.param("1" * 39, "Attempting to store more than 38 significant digits in a Number", marks=MOTO),
        (" 5", "The parameter cannot be converted to a numeric value:  5"),
        ("5 ", "The parameter cannot be converted to a numeric value: 5 "),
    ],
    ids=["underflow", "39 digits", "leading blank", "trailing blank"],
)
def test_numbers_dynamodb_cannot_store_are_refused_in_its_words(
    client: Any, table: str, number: str, message: str
) -> None:
    with raises_dynamodb("ValidationException", message) as info:
        client.put_item(TableName=table, Item={"pk": s("k"), "x": {"N": number}})
    assert info.value.response["Error"]["Message"] == message


@MOTO
def test_a_set_with_duplicates_is_refused_naming_its_members(client: Any, table: str) -> None:
    message = "One or more parameter values were invalid: Input collection [a, b, a] contains duplicates."
    with raises_dynamodb("ValidationException", message) as info:
        client.put_item(TableName=table, Item={"pk": s("k"), "x": {"SS": ["a", "b", "a"]}})
    assert info.value.response["Error"]["Message"] == message
