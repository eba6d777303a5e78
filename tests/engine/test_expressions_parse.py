"""Parsing of every expression kind: precedence, keywords, placeholders, and DynamoDB's syntax errors."""

from __future__ import annotations

import pytest

from tablewright.engine.errors import ValidationException
from tablewright.engine.expressions import parse_condition, parse_projection, parse_update
from tablewright.engine.expressions.nodes import And, Between, Call, Compare, In, Not, Or, PathExpr, ValueRef


def message(call, *args) -> str:
    with pytest.raises(ValidationException) as info:
        call(*args)
    return info.value.message


def test_precedence_or_below_and_below_not() -> None:
    root = parse_condition("a = :a OR NOT b = :b AND c = :c").root
    assert isinstance(root, Or)
    assert isinstance(root.right, And)
    assert isinstance(root.right.left, Not)


def test_parentheses_override_precedence() -> None:
    root = parse_condition("(a = :a OR b = :b) AND c = :c").root
    assert isinstance(root, And) and isinstance(root.left, Or)


@pytest.mark.parametrize(
    "text", ["a = :v and b = :w", "a = :v AnD b = :w", "a between :v AND :w", "a in (:v)"]
)
def test_keywords_are_case_insensitive(text: str) -> None:
    assert parse_condition(text).root is not None


def test_paths_keep_placeholders_unresolved_and_indexes_as_ints() -> None:
    root = parse_condition("#a.b[2].#c = :v").root
    assert root == Compare("=", PathExpr(("#a", "b", 2, "#c")), ValueRef(":v"))


def test_between_and_in_and_functions() -> None:
    assert parse_condition("a BETWEEN :lo AND :hi").root == Between(
        PathExpr(("a",)), ValueRef(":lo"), ValueRef(":hi")
    )
    assert parse_condition("a IN (:x, :y)").root == In(PathExpr(("a",)), (ValueRef(":x"), ValueRef(":y")))
    assert parse_condition("size(a) > :n").root == Compare(
        ">", Call("size", (PathExpr(("a",)),)), ValueRef(":n")
    )


def test_placeholders_used_are_recorded() -> None:
    expr = parse_condition("#a = :v AND contains(#b.c, :w)")
    assert expr.names_used == {"#a", "#b"}
    assert expr.values_used == {":v", ":w"}
    assert parse_update("SET #x = :v REMOVE #y").names_used == {"#x", "#y"}
    assert parse_projection("#p, q").names_used == {"#p"}


def test_parse_is_cached_by_text_and_kind() -> None:
    assert parse_condition("a = :v") is parse_condition("a = :v")
    assert parse_condition("a = :v", "FilterExpression").kind == "FilterExpression"
    assert parse_condition("a = :v").kind == "ConditionExpression"


def test_update_clauses_any_order_and_case() -> None:
    expr = parse_update("remove a add b :n set c = :v delete d :s")
    assert [a.clause for a in expr.actions] == ["REMOVE", "ADD", "SET", "DELETE"]


CONDITION_ERRORS = [
    ("a = ", 'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "= "'),
    ("a = $", 'Invalid ConditionExpression: Syntax error; token: "$", near: "= $"'),
    ("a = :v b", 'Invalid ConditionExpression: Syntax error; token: "b", near: ":v b"'),
    ("a :v", 'Invalid ConditionExpression: Syntax error; token: ":v", near: "a :v"'),
    (
        "status = :v",
        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status",
    ),
    (
        "a.Name = :v",
        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Name",
    ),
    ("foo(a)", "Invalid ConditionExpression: Invalid function name; function: foo"),
    ("SIZE(a) = :v", "Invalid ConditionExpression: Invalid function name; function: SIZE"),
    (
        "attribute_exists(:v)",
        "Invalid ConditionExpression: Operator or function requires a document path; "
        "operator or function: attribute_exists",
    ),
    (
        "begins_with(a)",
        "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
        "operator or function: begins_with, number of operands: 1",
    ),
    (
        ":v = attribute_exists(a)",
        "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; "
        "function: attribute_exists",
    ),
    (
        "if_not_exists(a, :v) = :v",
        "Invalid ConditionExpression: The function is not allowed in a condition expression; function: if_not_exists",
    ),
    (
        "a IN (" + ", ".join(f":v{i}" for i in range(101)) + ")",
        "Invalid ConditionExpression: The IN operator is provided with too many operands; number of operands: 101",
    ),
    ("   ", "Invalid ConditionExpression: The expression can not be empty;"),
    (
        "a = :v OR " * 410 + "a = :v",
        "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4106",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CONDITION_ERRORS)
def test_condition_errors(text: str, expected: str) -> None:
    assert message(parse_condition, text) == expected


def test_in_accepts_exactly_one_hundred_operands() -> None:
    text = "a IN (" + ", ".join(f":v{i}" for i in range(100)) + ")"
    assert len(parse_condition(text).values_used) == 100


def test_kind_names_the_expression_in_errors() -> None:
    assert message(parse_condition, "status = :v", "FilterExpression").startswith("Invalid FilterExpression:")


UPDATE_ERRORS = [
    (
        "SET a = :v SET b = :w",
        'Invalid UpdateExpression: The "SET" section can only be used once in an update expression;',
    ),
    (
        "set a = :v REMOVE b remove c",
        'Invalid UpdateExpression: The "REMOVE" section can only be used once in an update expression;',
    ),
    ("SET", 'Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "SET"'),
    ("UPSERT a = :v", 'Invalid UpdateExpression: Syntax error; token: "UPSERT", near: "UPSERT a"'),
    ("SET a = :v + :w + :x", 'Invalid UpdateExpression: Syntax error; token: "+", near: ":w + :x"'),
    ("ADD a b", 'Invalid UpdateExpression: Syntax error; token: "b", near: "a b"'),
    (
        "SET a = size(b)",
        "Invalid UpdateExpression: The function is not allowed in an update expression; function: size",
    ),
    (
        "SET a = if_not_exists(:v, :w)",
        "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists",
    ),
    ("SET a[x] = :v", 'Invalid UpdateExpression: Syntax error; token: "x", near: "[x]"'),
    ("REMOVE Size", "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: Size"),
]


@pytest.mark.parametrize(("text", "expected"), UPDATE_ERRORS)
def test_update_errors(text: str, expected: str) -> None:
    assert message(parse_update, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a,", 'Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","'),
        ("a b", 'Invalid ProjectionExpression: Syntax error; token: "b", near: "a b"'),
        (
            "a, data",
            "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: data",
        ),
        ("a[-1]", 'Invalid ProjectionExpression: Syntax error; token: "-", near: "[-1"'),
    ],
)
def test_projection_errors(text: str, expected: str) -> None:
    assert message(parse_projection, text) == expected
