"""KeyConditionExpression: the accepted shapes, resolution against key names, and DynamoDB's errors."""

from __future__ import annotations

import pytest

from tablewright.engine.errors import ValidationException
from tablewright.engine.expressions import KeyCondition, parse_key_condition, resolve_key_condition

VALUES = {
    ":h": {"S": "user#1"},
    ":r": {"N": "3"},
    ":lo": {"N": "1"},
    ":hi": {"N": "5"},
    ":p": {"S": "ord"},
    ":bin": {"B": "AQI="},
    ":set": {"SS": ["a"]},
}


def resolve(text: str, range_name: str | None = "sk", names: dict | None = None) -> KeyCondition:
    expr = parse_key_condition(text)
    used = {k: v for k, v in VALUES.items() if k in expr.values_used}
    return resolve_key_condition(expr, names, used, "pk", range_name)


@pytest.mark.parametrize(
    ("text", "op", "values"),
    [
        ("pk = :h", None, ()),
        ("pk = :h AND sk = :r", "=", (":r",)),
        ("sk < :r AND pk = :h", "<", (":r",)),
        ("pk = :h and sk <= :r", "<=", (":r",)),
        ("pk = :h AND sk > :r", ">", (":r",)),
        ("pk = :h AND sk >= :r", ">=", (":r",)),
        ("pk = :h AND :r > sk", "<", (":r",)),  # written value-first: mirrored
        ("pk = :h AND sk BETWEEN :lo AND :hi", "BETWEEN", (":lo", ":hi")),
        ("pk = :h AND begins_with(sk, :p)", "begins_with", (":p",)),
        ("pk = :h AND begins_with(sk, :bin)", "begins_with", (":bin",)),
        ("(pk = :h) AND (sk = :r)", "=", (":r",)),
        ("#k = :h AND #s = :r", "=", (":r",)),
    ],
)
def test_key_conditions(text: str, op: str | None, values: tuple) -> None:
    result = resolve(text, names={"#k": "pk", "#s": "sk"} if "#" in text else None)
    assert result == KeyCondition(VALUES[":h"], op, tuple(VALUES[v] for v in values))


SCHEMA_ERRORS = [
    ("sk = :r", "Query condition missed key schema element: pk"),
    ("pk = :h AND extra = :r", "Query condition missed key schema element: sk"),
    ("pk < :h", "Query key condition not supported"),
]


@pytest.mark.parametrize(("text", "expected"), SCHEMA_ERRORS)
def test_key_schema_errors(text: str, expected: str) -> None:
    with pytest.raises(ValidationException) as info:
        resolve(text)
    assert info.value.message == expected


ERRORS = [
    ("pk = :h AND pk = :h", "KeyConditionExpressions must only contain one condition per key"),
    ("pk = :h AND sk = :r AND sk = :r", "KeyConditionExpressions must only contain one condition per key"),
    ("pk = :h OR sk = :r", "Invalid operator used in KeyConditionExpression: OR"),
    ("NOT pk = :h", "Invalid operator used in KeyConditionExpression: NOT"),
    ("pk = :h AND sk <> :r", "Invalid operator used in KeyConditionExpression: <>"),
    ("pk = :h AND sk IN (:r)", "Invalid operator used in KeyConditionExpression: IN"),
    ("pk = :h AND attribute_exists(sk)", "Invalid operator used in KeyConditionExpression: attribute_exists"),
    ("pk = :h AND size(sk) = :r", "Invalid operator used in KeyConditionExpression: size"),
    (
        "pk = :h AND sk = pk",
        "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition",
    ),
    ("pk = :h AND :r = :r", "Invalid condition in KeyConditionExpression: No key attribute specified"),
    ("pk.x = :h", "KeyConditionExpressions cannot have conditions on nested attributes"),
    (
        "pk = :h AND sk BETWEEN :hi AND :lo",
        "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
        "lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}",
    ),
    (
        "pk = :h AND begins_with(sk, :r)",
        "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
    ),
    (
        "pk = :h AND sk > :set",
        "Incorrect operand type for operator or function; operator or function: >, operand type: SS",
    ),
    ("pk = :h AND status = :r", "Attribute name is a reserved keyword; reserved keyword: status"),
]


@pytest.mark.parametrize(("text", "expected"), ERRORS)
def test_key_condition_errors(text: str, expected: str) -> None:
    with pytest.raises(ValidationException) as info:
        resolve(text)
    assert info.value.message == "Invalid KeyConditionExpression: " + expected


def test_range_condition_on_a_hash_only_table() -> None:
    with pytest.raises(ValidationException, match="Query key condition not supported"):
        resolve("pk = :h AND sk = :r", range_name=None)
    assert resolve("pk = :h", range_name=None) == KeyCondition(VALUES[":h"])
