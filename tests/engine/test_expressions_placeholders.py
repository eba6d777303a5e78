"""Placeholder bookkeeping across the expressions of one request."""

from __future__ import annotations

import pytest

from tablewright.engine.errors import ValidationException
from tablewright.engine.expressions import (
    check_placeholders,
    parse_condition,
    parse_key_condition,
    parse_projection,
    parse_update,
)

UPDATE = parse_update("SET #a = :v")
CONDITION = parse_condition("attribute_exists(#b) AND #a <> :w")
PROJECTION = parse_projection("#p")


def test_union_of_all_expressions_is_satisfied() -> None:
    check_placeholders(
        [UPDATE, CONDITION, None],
        {"#a": "a", "#b": "b"},
        {":v": {"S": "x"}, ":w": {"N": "1"}},
    )
    check_placeholders([parse_key_condition("pk = :h"), PROJECTION], {"#p": "p"}, {":h": {"S": "h"}})
    check_placeholders([parse_condition("a = b")], None, None)


ERRORS = [
    (
        [UPDATE],
        {"a": "a"},
        {":v": {"S": "x"}},
        'ExpressionAttributeNames contains invalid key: Syntax error; key: "a"',
    ),
    (
        [UPDATE],
        {"#a": "a"},
        {"v": {"S": "x"}},
        'ExpressionAttributeValues contains invalid key: Syntax error; key: "v"',
    ),
    (
        [UPDATE],
        {"#a": "a"},
        {":v": {"S": "x"}, ":x": {"S": "y"}},
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}",
    ),
    (
        [UPDATE],
        {"#a": "a"},
        {":v": {"S": "x"}, ":z": {"S": "y"}, ":y": {"S": "y"}},
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:y, :z}",
    ),
    (
        [UPDATE],
        {"#a": "a", "#x": "x"},
        {":v": {"S": "x"}},
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}",
    ),
    ([UPDATE], {}, {":v": {"S": "x"}}, "ExpressionAttributeNames must not be empty"),
    ([UPDATE], {"#a": "a"}, {}, "ExpressionAttributeValues must not be empty"),
    (
        [UPDATE],
        None,
        {":v": {"S": "x"}},
        "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #a",
    ),
    (
        [UPDATE, CONDITION],
        {"#a": "a", "#b": "b"},
        {":v": {"S": "x"}},
        "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :w",
    ),
    (
        [UPDATE],
        {"#a": "a"},
        {":v": {"SS": []}},
        "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: "
        "An string set  may not be empty for key :v",
    ),
    (
        [UPDATE],
        {"#a": "a"},
        {":v": {"S": "x", "N": "1"}},
        "ExpressionAttributeValues contains invalid value: Supplied AttributeValue has more than one datatypes "
        "set, must contain exactly one of the supported datatypes for key :v",
    ),
]


@pytest.mark.parametrize(("exprs", "names", "values", "expected"), ERRORS)
def test_placeholder_errors(exprs: list, names: dict | None, values: dict | None, expected: str) -> None:
    with pytest.raises(ValidationException) as info:
        check_placeholders(exprs, names, values)
    assert info.value.message == expected
