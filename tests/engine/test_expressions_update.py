"""UpdateExpression application: every clause, DynamoDB's path rules, and its errors."""

from __future__ import annotations

import copy

import pytest

from tablewright.engine.errors import ValidationException
from tablewright.engine.expressions import apply_update, parse_update, updated_paths

ITEM = {
    "n": {"N": "5"},
    "s": {"S": "x"},
    "l": {"L": [{"S": "a"}, {"S": "b"}, {"S": "c"}]},
    "m": {"M": {"k": {"S": "v"}, "nest": {"M": {}}}},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2"]},
}
VALUES = {
    ":one": {"N": "1"},
    ":half": {"N": "0.5"},
    ":s": {"S": "new"},
    ":l": {"L": [{"S": "z"}]},
    ":ss": {"SS": ["b", "c"]},
    ":ns": {"NS": ["2.0", "3"]},
    ":ssab": {"SS": ["a", "b"]},
    ":big": {"N": "9E+125"},
}


def update(text: str, item: dict | None = None, names: dict | None = None) -> dict:
    expr = parse_update(text)
    used = {k: v for k, v in VALUES.items() if k in expr.values_used}
    return apply_update(expr, ITEM if item is None else item, names, used)


CASES = [
    ("SET n = :one", {"n": {"N": "1"}}),
    ("SET n = n + :one", {"n": {"N": "6"}}),
    ("SET n = n - :half", {"n": {"N": "4.5"}}),
    ("SET n = :one - n", {"n": {"N": "-4"}}),
    ("SET fresh = :s", {"fresh": {"S": "new"}}),
    ("SET s = n", {"s": {"N": "5"}}),
    ("SET m.k = :s", {"m": {"M": {"k": {"S": "new"}, "nest": {"M": {}}}}}),
    ("SET m.nest.deep = :one", {"m": {"M": {"k": {"S": "v"}, "nest": {"M": {"deep": {"N": "1"}}}}}}),
    ("SET l[1] = :s", {"l": {"L": [{"S": "a"}, {"S": "new"}, {"S": "c"}]}}),
    ("SET l[3] = :s", {"l": {"L": [{"S": "a"}, {"S": "b"}, {"S": "c"}, {"S": "new"}]}}),
    ("SET l[99] = :s", {"l": {"L": [{"S": "a"}, {"S": "b"}, {"S": "c"}, {"S": "new"}]}}),
    ("SET l = list_append(l, :l)", {"l": {"L": [{"S": "a"}, {"S": "b"}, {"S": "c"}, {"S": "z"}]}}),
    ("SET l = list_append(:l, l)", {"l": {"L": [{"S": "z"}, {"S": "a"}, {"S": "b"}, {"S": "c"}]}}),
    ("SET fresh = if_not_exists(fresh, :s)", {"fresh": {"S": "new"}}),
    ("SET s = if_not_exists(s, :s)", {"s": {"S": "x"}}),
    ("SET fresh = list_append(if_not_exists(fresh, :l), :l)", {"fresh": {"L": [{"S": "z"}, {"S": "z"}]}}),
    ("SET n = if_not_exists(n, :one) + :one", {"n": {"N": "6"}}),
    ("SET #a = :s", {"s": {"S": "new"}}),
    ("REMOVE s", {"s": None}),
    ("REMOVE absent", {}),
    ("REMOVE m.k", {"m": {"M": {"nest": {"M": {}}}}}),
    ("REMOVE m.nope", {}),
    ("REMOVE l[0]", {"l": {"L": [{"S": "b"}, {"S": "c"}]}}),
    ("REMOVE l[0], l[2]", {"l": {"L": [{"S": "b"}]}}),
    ("REMOVE l[2], l[0]", {"l": {"L": [{"S": "b"}]}}),
    ("REMOVE l[7]", {}),
    ("REMOVE l[0] SET l[1] = :s", {"l": {"L": [{"S": "new"}, {"S": "c"}]}}),
    ("ADD n :one", {"n": {"N": "6"}}),
    ("ADD fresh :one", {"fresh": {"N": "1"}}),
    ("ADD ss :ss", {"ss": {"SS": ["a", "b", "c"]}}),
    ("ADD ns :ns", {"ns": {"NS": ["1", "2", "3"]}}),
    ("ADD fresh :ss", {"fresh": {"SS": ["b", "c"]}}),
    ("ADD m.tally :one", {"m": {"M": {"k": {"S": "v"}, "nest": {"M": {}}, "tally": {"N": "1"}}}}),
    ("DELETE ss :ss", {"ss": {"SS": ["a"]}}),
    ("DELETE ns :ns", {"ns": {"NS": ["1"]}}),
    ("DELETE ss :ssab", {"ss": None}),
    ("DELETE fresh :ss", {}),
    (
        "SET s = :s REMOVE n ADD fresh :one DELETE ss :ss",
        {"s": {"S": "new"}, "n": None, "fresh": {"N": "1"}, "ss": {"SS": ["a"]}},
    ),
]


@pytest.mark.parametrize(("text", "changes"), CASES)
def test_update(text: str, changes: dict) -> None:
    expected = copy.deepcopy(ITEM)
    for name, value in changes.items():
        if value is None:
            del expected[name]
        else:
            expected[name] = value
    before = copy.deepcopy(ITEM)
    assert update(text, names={"#a": "s"} if "#a" in text else None) == expected
    assert before == ITEM  # the input is never modified


def test_result_shares_no_structure_with_the_input() -> None:
    result = update("SET dup = m")
    result["dup"]["M"]["k"]["S"] = "changed"
    assert ITEM["m"]["M"]["k"]["S"] == "v"


def test_update_of_a_missing_item_creates_it() -> None:
    assert update("SET s = :s ADD n :one", item={}) == {"s": {"S": "new"}, "n": {"N": "1"}}


def test_all_actions_read_the_original_item() -> None:
    assert update("SET a2 = n, n = :one") == {**ITEM, "a2": {"N": "5"}, "n": {"N": "1"}}
    assert update("SET n = s, s = n")["s"] == {"N": "5"}


def message(text: str, item: dict | None = None) -> str:
    with pytest.raises(ValidationException) as info:
        update(text, item)
    return info.value.message


OVERLAP = "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; "
ERRORS = [
    ("SET m = :s, m.k = :s", OVERLAP + "path one: [m], path two: [m, k]"),
    ("SET m.k = :s REMOVE m", OVERLAP + "path one: [m, k], path two: [m]"),
    ("SET n = :one ADD n :one", OVERLAP + "path one: [n], path two: [n]"),
    ("REMOVE l[1], l[1]", OVERLAP + "path one: [l, [1]], path two: [l, [1]]"),
    (
        "SET l[0] = :s, l.k = :s",
        "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of "
        "these paths; path one: [l, [0]], path two: [l, k]",
    ),
    ("SET n = s + :one", "An operand in the update expression has an incorrect data type"),
    (
        "SET n = n + :s",
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S",
    ),
    (
        "SET n = absent + :s",
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S",
    ),
    (
        "SET l = list_append(absent, :s)",
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S",
    ),
    (
        "SET n = absent + :one",
        "The provided expression refers to an attribute that does not exist in the item",
    ),
    ("SET n = absent", "The provided expression refers to an attribute that does not exist in the item"),
    (
        "SET l = list_append(l, :s)",
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S",
    ),
    ("SET l = list_append(m, :l)", "An operand in the update expression has an incorrect data type"),
    ("SET absent.k = :s", "The document path provided in the update expression is invalid for update"),
    ("SET s.k = :s", "The document path provided in the update expression is invalid for update"),
    ("SET m[0] = :s", "The document path provided in the update expression is invalid for update"),
    ("SET l.k = :s", "The document path provided in the update expression is invalid for update"),
    ("REMOVE s.k", "The document path provided in the update expression is invalid for update"),
    ("REMOVE m.nope.deeper", "The document path provided in the update expression is invalid for update"),
    ("REMOVE absent[0]", "The document path provided in the update expression is invalid for update"),
    (
        "ADD n :s",
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: ADD, operand type: S",
    ),
    ("ADD s :one", "An operand in the update expression has an incorrect data type"),
    ("ADD ss :ns", "An operand in the update expression has an incorrect data type"),
    (
        "DELETE ss :one",
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: DELETE, operand type: N",
    ),
    ("DELETE ns :ss", "An operand in the update expression has an incorrect data type"),
    (
        "SET n = :big + :big",
        "Number overflow. Attempting to store a number with magnitude larger than supported range",
    ),
    ("ADD absent.k :one", "The document path provided in the update expression is invalid for update"),
]


@pytest.mark.parametrize(("text", "expected"), ERRORS)
def test_update_errors(text: str, expected: str) -> None:
    assert message(text) == expected


def test_updated_paths_are_top_level_and_resolved() -> None:
    expr = parse_update("SET #m.k = :s, n = n + :one REMOVE l[0] ADD #m.c :one")
    assert updated_paths(expr, {"#m": "m"}) == [("m",), ("n",), ("l",)]
