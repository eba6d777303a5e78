"""Condition/filter evaluation against items, by DynamoDB's semantics, and its request-time errors."""

from __future__ import annotations

import base64

import pytest

from tablewright.engine.errors import ValidationException
from tablewright.engine.expressions import (
    check_condition,
    evaluate_condition,
    evaluate_in_scope,
    parse_condition,
)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


ITEM = {
    "s": {"S": "hello"},
    "n": {"N": "10"},
    "b": {"B": b64(b"\x01\x02\x03")},
    "ss": {"SS": ["x", "y"]},
    "ns": {"NS": ["1", "2.5"]},
    "bs": {"BS": [b64(b"\x01")]},
    "m": {"M": {"k": {"S": "v"}, "deep": {"M": {"x": {"N": "1"}}}}},
    "l": {"L": [{"S": "a"}, {"N": "2"}, {"M": {"z": {"BOOL": True}}}]},
    "t": {"BOOL": True},
    "nul": {"NULL": True},
    "uni": {"S": "héllo"},
}
VALUES = {
    ":s": {"S": "hello"},
    ":he": {"S": "he"},
    ":n": {"N": "10"},
    ":n10": {"N": "10.0"},
    ":n5": {"N": "5"},
    ":n20": {"N": "20"},
    ":sn": {"S": "10"},
    ":b1": {"B": b64(b"\x01")},
    ":b23": {"B": b64(b"\x02\x03")},
    ":x": {"S": "x"},
    ":a": {"S": "a"},
    ":two": {"N": "2"},
    ":twofive": {"N": "2.50"},
    ":ss": {"SS": ["y", "x"]},
    ":true": {"BOOL": True},
    ":v": {"S": "v"},
    ":S": {"S": "S"},
    ":M": {"S": "M"},
    ":NULL": {"S": "NULL"},
    ":BOOL": {"S": "BOOL"},
    ":m": {"M": {"z": {"BOOL": True}}},
    ":three": {"N": "3"},
    ":six": {"N": "6"},
    ":zero": {"N": "0"},
}


def check(text: str, item: dict | None = None) -> bool:
    expr = parse_condition(text)
    used = {k: v for k, v in VALUES.items() if k in expr.values_used}
    return evaluate_condition(expr, ITEM if item is None else item, {"#s": "s", "#k": "k"}, used)


CASES = [
    # comparisons
    ("s = :s", True),
    ("n = :n10", True),  # numbers compare by value
    ("n = :sn", False),  # across types: false, not an error
    ("n <> :sn", True),
    ("n < :n20", True),
    ("n <= :n", True),
    ("n > :n5", True),
    ("n >= :n20", False),
    ("s > :he", True),
    ("b > :b1", True),  # binary compares bytewise
    ("s < :n", False),
    ("ss = :ss", True),  # sets compare unordered
    ("l[2] = :m", True),
    ("m.deep.x = :n5", False),
    ("#s = :s", True),
    ("m.#k = :v", True),
    ("l[1] = :two", True),
    ("l[9] = :two", False),
    # absent attributes
    ("absent = :s", False),
    ("absent < :s", False),
    ("absent <> :s", True),
    ("NOT absent = :s", True),
    # BETWEEN / IN
    ("n BETWEEN :n5 AND :n20", True),
    ("n BETWEEN :n AND :n10", True),
    ("n BETWEEN :n20 AND :n20", False),
    ("s BETWEEN :n5 AND :n20", False),
    ("absent BETWEEN :n5 AND :n20", False),
    ("n IN (:n5, :n10)", True),
    ("n IN (:n5, :sn)", False),
    ("absent IN (:n5)", False),
    # functions
    ("attribute_exists(s)", True),
    ("attribute_exists(m.deep.x)", True),
    ("attribute_exists(m.nope)", False),
    ("attribute_not_exists(absent)", True),
    ("attribute_not_exists(l[1])", False),
    ("attribute_type(s, :S)", True),
    ("attribute_type(m, :M)", True),
    ("attribute_type(nul, :NULL)", True),
    ("attribute_type(t, :BOOL)", True),
    ("attribute_type(s, :M)", False),
    ("attribute_type(absent, :S)", False),
    ("begins_with(s, :he)", True),
    ("begins_with(s, :x)", False),
    ("begins_with(b, :b1)", True),
    ("begins_with(n, :he)", False),
    ("begins_with(absent, :he)", False),
    ("contains(s, :he)", True),
    ("contains(ss, :x)", True),
    ("contains(ss, :a)", False),
    ("contains(ns, :twofive)", True),
    ("contains(ns, :x)", False),
    ("contains(bs, :b1)", True),
    ("contains(b, :b23)", True),
    ("contains(l, :a)", True),
    ("contains(l, :m)", True),
    ("contains(l, :x)", False),
    ("contains(n, :n)", False),
    ("contains(absent, :x)", False),
    ("contains(s, uni)", False),  # the operand may itself be a path (a distinct one)
    ("contains(:s, :he)", True),  # and the first operand a value
    # size
    ("size(s) = :n5", True),
    ("size(uni) = :six", True),  # bytes, not characters
    ("size(b) = :three", True),
    ("size(ss) = :two", True),
    ("size(m) = :two", True),
    ("size(l) = :three", True),
    ("size(n) = :two", False),  # size has no value for a number
    ("size(absent) >= :zero", False),
    # boolean structure
    ("s = :s AND n = :n", True),
    ("s = :x OR n = :n", True),
    ("NOT (s = :s AND n = :n5)", True),
    ("NOT NOT s = :s", True),
    ("t = :true", True),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_condition(text: str, expected: bool) -> None:
    assert check(text) is expected


def test_absent_item_is_an_empty_item() -> None:
    assert check("attribute_not_exists(s)", {}) is True
    assert check("s = :s", {}) is False


def message(text: str, values: dict, names: dict | None = None, kind: str = "ConditionExpression") -> str:
    with pytest.raises(ValidationException) as info:
        evaluate_condition(parse_condition(text, kind), ITEM, names, values)
    return info.value.message


ERRORS = [
    (
        "n < :m",
        {":m": {"M": {}}},
        "Invalid ConditionExpression: Incorrect operand type for operator or function; "
        "operator or function: <, operand type: M",
    ),
    (
        "n BETWEEN :a AND :b",
        {":a": {"N": "5"}, ":b": {"N": "1"}},
        "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal "
        "to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}",
    ),
    (
        "begins_with(s, :n)",
        {":n": {"N": "1"}},
        "Invalid ConditionExpression: Incorrect operand type for operator or function; "
        "operator or function: begins_with, operand type: N",
    ),
    (
        "attribute_type(s, :t)",
        {":t": {"S": "STRING"}},
        "Invalid ConditionExpression: Invalid attribute type name found; type: STRING, "
        "valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }",
    ),
    (
        "s = :nope",
        {},
        "Invalid ConditionExpression: An expression attribute value used in expression is not defined; "
        "attribute value: :nope",
    ),
    (
        "#nope = :s",
        {":s": {"S": "x"}},
        "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; "
        "attribute name: #nope",
    ),
    (
        "n = :bad",
        {":bad": {"N": "abc"}},
        "ExpressionAttributeValues contains invalid value: The parameter cannot be converted to a numeric "
        "value: abc for key :bad",
    ),
]


@pytest.mark.parametrize(("text", "values", "expected"), ERRORS)
def test_condition_errors(text: str, values: dict, expected: str) -> None:
    assert message(text, values) == expected


def test_static_errors_are_not_hidden_by_short_circuit() -> None:
    text = "attribute_exists(absent) AND begins_with(s, :n)"
    with pytest.raises(ValidationException, match="begins_with, operand type: N"):
        evaluate_condition(parse_condition(text), {}, None, {":n": {"N": "1"}})
    with pytest.raises(ValidationException, match="begins_with, operand type: N"):
        check_condition(parse_condition(text), None, {":n": {"N": "1"}})


def test_filter_kind_in_messages() -> None:
    assert message("s = :nope", {}, kind="FilterExpression").startswith("Invalid FilterExpression:")


def test_a_checked_scope_serves_many_items() -> None:
    expr = parse_condition("n > :n5", "FilterExpression")
    scope = check_condition(expr, None, {":n5": {"N": "5"}})
    items = [{"n": {"N": str(i)}} for i in range(10)]
    assert [i for i, item in enumerate(items) if evaluate_in_scope(expr, item, scope)] == [6, 7, 8, 9]
