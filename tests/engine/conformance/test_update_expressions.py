"""UpdateExpression: SET (with +, -, if_not_exists, list_append), REMOVE, ADD, DELETE, and their errors.

Reference: Developer Guide, "Using update expressions in DynamoDB" (Expressions.UpdateExpressions.html).
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from ._support import cases, moto_differs, raises_dynamodb

KEY = {"pk": {"S": "k"}}
START = {
    **KEY,
    "n": {"N": "10"},
    "s": {"S": "text"},
    "l": {"L": [{"S": "a"}, {"S": "b"}, {"S": "c"}]},
    "m": {"M": {"x": {"N": "1"}, "deep": {"M": {"y": {"S": "z"}}}}},
    "ss": {"SS": ["a", "b", "c"]},
    "ns": {"NS": ["1", "2"]},
}

VALUES = {
    ":one": {"N": "1"},
    ":three": {"N": "3"},
    ":zero": {"N": "0"},
    ":half": {"N": "0.5"},
    ":new": {"S": "new"},
    ":more": {"L": [{"S": "d"}]},
    ":ss_bd": {"SS": ["b", "d"]},
    ":ss_ab": {"SS": ["a", "b"]},
    ":ss_all": {"SS": ["a", "b", "c"]},
    ":ns_3": {"NS": ["3"]},
}


def _placeholders(expression: str) -> set[str]:
    return set(re.findall(r":\w+", expression))


def _canonical(value: dict) -> dict:
    ((kind, inner),) = value.items()
    if kind in ("SS", "BS"):
        return {kind: sorted(inner)}
    if kind == "NS":
        return {kind: sorted(inner, key=Decimal)}
    return value


# expression -> {attribute: expected value after the update, or None for "removed"}
UPDATES = {
    "SET a new attribute": ("SET fresh = :new", {"fresh": {"S": "new"}}),
    "SET overwrites": ("SET s = :new", {"s": {"S": "new"}}),
    "SET copies another attribute": ("SET dup = s", {"dup": {"S": "text"}}),
    "SET plus": ("SET n = n + :three", {"n": {"N": "13"}}),
    "SET minus": ("SET n = n - :three", {"n": {"N": "7"}}),
    "SET decimal arithmetic": ("SET n = n + :half", {"n": {"N": "10.5"}}),
    "SET value minus attribute": ("SET n = :one - n", {"n": {"N": "-9"}}),
    "if_not_exists on existing": ("SET n = if_not_exists(n, :zero)", {"n": {"N": "10"}}),
    "if_not_exists on missing": ("SET fresh = if_not_exists(fresh, :zero)", {"fresh": {"N": "0"}}),
    "if_not_exists plus": ("SET fresh = if_not_exists(fresh, :zero) + :one", {"fresh": {"N": "1"}}),
    "list_append at end": (
        "SET l = list_append(l, :more)",
        {"l": {"L": [{"S": "a"}, {"S": "b"}, {"S": "c"}, {"S": "d"}]}},
    ),
    "list_append at front": (
        "SET l = list_append(:more, l)",
        {"l": {"L": [{"S": "d"}, {"S": "a"}, {"S": "b"}, {"S": "c"}]}},
    ),
    "SET nested map member": (
        "SET m.x = :three",
        {"m": {"M": {"x": {"N": "3"}, "deep": {"M": {"y": {"S": "z"}}}}}},
    ),
    "SET new nested member": (
        "SET m.deep.w = :new",
        {"m": {"M": {"x": {"N": "1"}, "deep": {"M": {"y": {"S": "z"}, "w": {"S": "new"}}}}}},
    ),
    "SET list element": ("SET l[1] = :new", {"l": {"L": [{"S": "a"}, {"S": "new"}, {"S": "c"}]}}),
    # Past the end of the list: the value is appended (Developer Guide, "Adding elements to a list").
    "SET list element past the end appends": (
        "SET l[10] = :new",
        {"l": {"L": [{"S": "a"}, {"S": "b"}, {"S": "c"}, {"S": "new"}]}},
    ),
    "SET several": ("SET s = :new, n = n + :one", {"s": {"S": "new"}, "n": {"N": "11"}}),
    "REMOVE attribute": ("REMOVE s", {"s": None}),
    "REMOVE missing attribute is a no-op": ("REMOVE nosuch", {"nosuch": None, "s": {"S": "text"}}),
    "REMOVE nested member": ("REMOVE m.deep", {"m": {"M": {"x": {"N": "1"}}}}),
    "REMOVE list element shifts the rest": ("REMOVE l[0]", {"l": {"L": [{"S": "b"}, {"S": "c"}]}}),
    # Indexes name elements of the list as it was before the update.
    "REMOVE two list elements": ("REMOVE l[0], l[2]", {"l": {"L": [{"S": "b"}]}}),
    "REMOVE list element past the end": ("REMOVE l[7]", {"l": START["l"]}),
    "ADD to number": ("ADD n :three", {"n": {"N": "13"}}),
    "ADD to missing number starts at 0": ("ADD fresh :three", {"fresh": {"N": "3"}}),
    "ADD to string set": ("ADD ss :ss_bd", {"ss": {"SS": ["a", "b", "c", "d"]}}),
    "ADD to number set": ("ADD ns :ns_3", {"ns": {"NS": ["1", "2", "3"]}}),
    "ADD to missing set creates it": ("ADD fresh :ss_ab", {"fresh": {"SS": ["a", "b"]}}),
    "DELETE from set": ("DELETE ss :ss_ab", {"ss": {"SS": ["c"]}}),
    "DELETE absent elements is a no-op": ("DELETE ss :ss_bd", {"ss": {"SS": ["a", "c"]}}),
    # A set cannot be empty: deleting every element removes the attribute.
    "DELETE every element removes the set": ("DELETE ss :ss_all", {"ss": None}),
    "all four clauses": (
        "SET s = :new REMOVE l ADD n :one DELETE ss :ss_ab",
        {"s": {"S": "new"}, "l": None, "n": {"N": "11"}, "ss": {"SS": ["c"]}},
    ),
}


@pytest.mark.parametrize(
    ("expression", "expected"),
    cases(UPDATES),
)
def test_update_expression_applies_like_dynamodb(client, make_table, expression, expected):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=START)
    used = {k: VALUES[k] for k in _placeholders(expression)}
    request = {"TableName": table, "Key": KEY, "UpdateExpression": expression}
    if used:
        request["ExpressionAttributeValues"] = used
    client.update_item(**request)
    item = client.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"]
    for attribute, value in expected.items():
        if value is None:
            assert attribute not in item
        else:
            assert _canonical(item[attribute]) == _canonical(value)
    untouched = set(START) - set(expected) - {w for w in ("fresh", "dup")}
    for attribute in untouched:
        if attribute not in expression:
            assert item[attribute] == START[attribute]


def test_update_creates_a_missing_item(client, make_table):
    table = make_table("hash_range_s")
    key = {"pk": {"S": "p"}, "sk": {"S": "s"}}
    client.update_item(
        TableName=table, Key=key, UpdateExpression="SET v = :v", ExpressionAttributeValues={":v": {"S": "x"}}
    )
    assert client.get_item(TableName=table, Key=key)["Item"] == {**key, "v": {"S": "x"}}


@moto_differs("crashes on an UpdateItem without UpdateExpression")
def test_update_without_expression_creates_an_item_of_only_the_key(client, make_table):
    table = make_table("hash_s")
    client.update_item(TableName=table, Key=KEY)
    assert client.get_item(TableName=table, Key=KEY)["Item"] == KEY


def test_expression_attribute_names_reach_reserved_words_and_odd_names(client, make_table):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={**KEY, "map": {"M": {}}})
    client.update_item(
        TableName=table,
        Key=KEY,
        UpdateExpression="SET #status = :v, #dotted = :v, #m.#k = :v",
        ExpressionAttributeNames={"#status": "status", "#dotted": "a.b", "#m": "map", "#k": "key"},
        ExpressionAttributeValues={":v": {"S": "x"}},
    )
    item = client.get_item(TableName=table, Key=KEY)["Item"]
    # "a.b" through a name placeholder is one top-level attribute, not a path.
    assert item == {**KEY, "status": {"S": "x"}, "a.b": {"S": "x"}, "map": {"M": {"key": {"S": "x"}}}}


# ------------------------------------------------------------------------------------------------ errors

# DynamoDB words type errors two ways: a value whose type is wrong when the expression is parsed
# ("Incorrect operand type for operator or function; operator: ADD, operand type: STRING") and an
# attribute of the wrong type met while applying it ("An operand in the update expression has an
# incorrect data type"). Which one a case gets is not documented, so assert what both say.
_TYPE = "operand"
BAD_UPDATES = {
    "key attribute": ("SET pk = :s", "Cannot update attribute pk. This attribute is part of the key"),
    "same path twice": ("SET s = :s, s = :s", "Two document paths overlap"),
    "overlapping paths": ("SET m = :s REMOVE m.x", "Two document paths overlap"),
    "arithmetic on missing attribute": (
        "SET n2 = nosuch + :one",
        "The provided expression refers to an attribute that does not exist in the item",
    ),
    "arithmetic with a string value": ("SET n = n + :s", _TYPE),
    "ADD a string value": ("ADD n :s", _TYPE),
    "list_append of a string value": ("SET l = list_append(:s, l)", _TYPE),
    "arithmetic on a string attribute": ("SET n = s + :one", _TYPE),
    "ADD to a string attribute": ("ADD s :one", _TYPE),
    "ADD a string set to a number set": ("ADD ns :ss", _TYPE),
    "DELETE from a string attribute": ("DELETE s :ss", _TYPE),
    "list_append on a string attribute": ("SET s = list_append(s, :l)", _TYPE),
    "nested SET under a missing parent": (
        "SET nosuch.child = :s",
        "The document path provided in the update expression is invalid for update",
    ),
    "clause twice": ("SET s = :s SET n = :one", 'The "SET" section can only be used once'),
    "syntax": ("SET = :s", "Syntax error"),
}
_ERROR_VALUES = {":s": {"S": "x"}, ":one": {"N": "1"}, ":ss": {"SS": ["x"]}, ":l": {"L": []}}


@pytest.mark.parametrize(
    ("expression", "phrase"),
    cases(
        BAD_UPDATES,
        moto={},
    ),
)
def test_invalid_update_expressions_are_rejected(client, make_table, expression, phrase):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=START)
    used = {k: _ERROR_VALUES[k] for k in _placeholders(expression)}
    request = {"TableName": table, "Key": KEY, "UpdateExpression": expression}
    if used:
        request["ExpressionAttributeValues"] = used
    with raises_dynamodb("ValidationException", phrase):
        client.update_item(**request)
    assert client.get_item(TableName=table, Key=KEY)["Item"] == START


def test_a_failing_action_applies_none_of_the_update(client, make_table):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=START)
    with raises_dynamodb("ValidationException"):
        client.update_item(
            TableName=table,
            Key=KEY,
            UpdateExpression="SET s = :s, n2 = nosuch + :one",
            ExpressionAttributeValues={":s": {"S": "changed"}, ":one": {"N": "1"}},
        )
    assert client.get_item(TableName=table, Key=KEY)["Item"] == START


@moto_differs("does not range-check arithmetic results")
def test_number_results_are_checked_for_range(client, make_table):
    table = make_table("hash_s")
    client.put_item(
        TableName=table, Item={**KEY, "big": {"N": "9.9999999999999999999999999999999999999E+125"}}
    )
    with raises_dynamodb("ValidationException", "Number overflow"):
        client.update_item(
            TableName=table,
            Key=KEY,
            UpdateExpression="SET big = big + :v",
            ExpressionAttributeValues={":v": {"N": "9.9999999999999999999999999999999999999E+125"}},
        )
