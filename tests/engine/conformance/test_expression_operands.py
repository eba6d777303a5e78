"""Expression details that mutation testing showed no test pinned down (docs/mutation.md).

Operands read from the item (BETWEEN bounds, IN options and ``size()`` are any operand, not only
values), removals at the edges of lists and maps, the exact wording of key-condition and
projection errors, and the expression-size limit, which applies to every expression a caller
writes but not to the translation of legacy AttributeUpdates.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from ._support import moto_differs, raises_dynamodb, s

MOTO = moto_differs("moto does not reproduce this DynamoDB check or behaviour")

ITEM = {
    "pk": s("k"),
    "n": {"N": "5"},
    "lo": {"N": "1"},
    "hi": {"N": "9"},
    "word": s("abc"),
    "bin": {"B": b"abc"},
    "l": {"L": [s("a"), s("b"), s("c")]},
    "m": {"M": {"a": {"M": {"b": s("x"), "c": s("y")}}, "d": s("z")}},
}


@pytest.fixture
def table(client: Any, make_table: Any) -> str:
    name = make_table("hash_s")
    client.put_item(TableName=name, Item=ITEM)
    return name


def _holds(client: Any, table: str, condition: str, values: dict | None = None) -> bool:
    """Whether ``condition`` holds for the stored item, asked through a conditional put."""
    request: dict[str, Any] = {"TableName": table, "Item": ITEM, "ConditionExpression": condition}
    if values:
        request["ExpressionAttributeValues"] = values
    try:
        client.put_item(**request)
    except client.exceptions.ConditionalCheckFailedException:
        return False
    return True


# ------------------------------------------------------------------ operands read from the item


def test_between_bounds_and_in_options_may_be_attributes(client: Any, table: str) -> None:
    assert _holds(client, table, "n BETWEEN lo AND hi")
    assert not _holds(client, table, "n BETWEEN hi AND lo")
    assert _holds(client, table, "n BETWEEN :four AND hi", {":four": {"N": "4"}})
    assert not _holds(client, table, "n BETWEEN lo AND :four", {":four": {"N": "4"}})
    assert _holds(client, table, "lo IN (hi, lo)")
    assert not _holds(client, table, "n IN (hi, lo)")


@MOTO
def test_a_missing_bound_makes_between_false(client: Any, table: str) -> None:
    assert not _holds(client, table, "n BETWEEN lo AND absent")
    assert not _holds(client, table, "n BETWEEN absent AND hi")


@MOTO
def test_size_is_an_operand_of_between_and_in(client: Any, table: str) -> None:
    three = {":three": {"N": "3"}}
    assert _holds(client, table, "size(word) BETWEEN :three AND n", three)
    assert _holds(client, table, "n BETWEEN size(l) AND hi")
    assert _holds(client, table, "lo BETWEEN :zero AND size(l)", {":zero": {"N": "0"}})
    assert _holds(client, table, "size(l) IN (n, :three)", three)
    assert _holds(client, table, ":three IN (size(word), n)", three)
    assert not _holds(client, table, "n IN (size(word), size(l))")


@MOTO
def test_contains_on_a_binary_wants_a_binary(client: Any, table: str) -> None:
    assert _holds(client, table, "contains(bin, :b)", {":b": {"B": b"bc"}})
    assert not _holds(client, table, "contains(bin, :s)", {":s": s("bc")})
    assert not _holds(client, table, "contains(bin, :b)", {":b": {"B": b"cb"}})


@MOTO
def test_attribute_type_names_a_type_with_a_string(client: Any, table: str) -> None:
    message = (
        "Invalid ConditionExpression: Incorrect operand type for operator or function; "
        "operator or function: attribute_type, operand type: N"
    )
    with raises_dynamodb("ValidationException", message) as info:
        _holds(client, table, "attribute_type(n, :t)", {":t": {"N": "1"}})
    assert info.value.response["Error"]["Message"] == message


# ---------------------------------------------------------------------------------------- REMOVE


def _after_update(client: Any, table: str, update: str) -> dict:
    response = client.update_item(
        TableName=table, Key={"pk": s("k")}, UpdateExpression=update, ReturnValues="ALL_NEW"
    )
    return response["Attributes"]


def test_remove_three_levels_down_removes_only_the_leaf(client: Any, table: str) -> None:
    item = _after_update(client, table, "REMOVE m.a.b")
    assert item["m"] == {"M": {"a": {"M": {"c": s("y")}}, "d": s("z")}}


def test_remove_one_past_the_end_of_a_list_changes_nothing(client: Any, table: str) -> None:
    assert _after_update(client, table, "REMOVE l[3]")["l"] == ITEM["l"]
    assert _after_update(client, table, "REMOVE l[2]")["l"] == {"L": [s("a"), s("b")]}


@MOTO
def test_remove_of_a_name_inside_a_list_is_an_invalid_path(client: Any, table: str) -> None:
    message = "The document path provided in the update expression is invalid for update"
    with raises_dynamodb("ValidationException", message) as info:
        _after_update(client, table, "REMOVE l.k")
    assert info.value.response["Error"]["Message"] == message


# --------------------------------------------------------------------------- key-condition errors

NESTED = "Invalid KeyConditionExpression: KeyConditionExpressions cannot have conditions on nested attributes"
TWO_NAMES = (
    "Invalid KeyConditionExpression: Invalid condition in KeyConditionExpression: "
    "Multiple attribute names used in one condition"
)
KEY_ERRORS = {
    "value first, nested name": (":a = pk.x", NESTED),
    "nested range, mirrored": ("pk = :a AND :b < sk.x", NESTED),
    "nested BETWEEN": ("pk = :a AND sk.x BETWEEN :a AND :b", NESTED),
    "name as low bound": ("pk = :a AND sk BETWEEN pk AND :b", TWO_NAMES),
    "name as high bound": ("pk = :a AND sk BETWEEN :a AND pk", TWO_NAMES),
    "nested begins_with": ("pk = :a AND begins_with(sk.x, :b)", NESTED),
    "name as prefix": ("pk = :a AND begins_with(sk, pk)", TWO_NAMES),
    "three conditions": (
        "pk = :a AND sk = :b AND x = :c",
        "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key",
    ),
}


@MOTO
@pytest.mark.parametrize(("condition", "message"), KEY_ERRORS.values(), ids=list(KEY_ERRORS))
def test_key_condition_errors_in_dynamodbs_words(
    client: Any, make_table: Any, condition: str, message: str
) -> None:
    table = make_table("hash_range_s")
    values = {k: s(k[1:]) for k in (":a", ":b", ":c") if k in condition}
    with raises_dynamodb("ValidationException", message) as info:
        client.query(TableName=table, KeyConditionExpression=condition, ExpressionAttributeValues=values)
    assert info.value.response["Error"]["Message"] == message


@MOTO
def test_an_undefined_name_in_a_key_condition_is_named(client: Any, make_table: Any) -> None:
    table = make_table("hash_range_s")
    message = (
        "Invalid KeyConditionExpression: An expression attribute name used in the document path is not "
        "defined; attribute name: #k"
    )
    with raises_dynamodb("ValidationException", message) as info:
        client.query(
            TableName=table, KeyConditionExpression="#k = :a", ExpressionAttributeValues={":a": s("a")}
        )
    assert info.value.response["Error"]["Message"] == message


@pytest.mark.parametrize("condition", ["pk = :a AND x = :b", "pk = :a AND sk = :b"])
def test_a_second_condition_on_a_hash_only_table_is_not_supported(
    client: Any, make_table: Any, condition: str
) -> None:
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "Query key condition not supported") as info:
        client.query(
            TableName=table,
            KeyConditionExpression=condition,
            ExpressionAttributeValues={":a": s("a"), ":b": s("b")},
        )
    assert info.value.response["Error"]["Message"] == "Query key condition not supported"


# ------------------------------------------------------------------------- projections, sizes


@MOTO
@pytest.mark.parametrize("projection", ["#x", "n, #x.y"])
def test_an_undefined_name_in_a_projection_is_named(client: Any, table: str, projection: str) -> None:
    message = (
        "Invalid ProjectionExpression: An expression attribute name used in the document path is not "
        "defined; attribute name: #x"
    )
    with raises_dynamodb("ValidationException", message) as info:
        client.get_item(TableName=table, Key={"pk": s("k")}, ProjectionExpression=projection)
    assert info.value.response["Error"]["Message"] == message


@MOTO
def test_an_update_expression_of_plain_names_is_held_to_the_size_limit(client: Any, table: str) -> None:
    # Only names, SET and operators: nothing in it looks like a translated legacy update.
    assignments = ", ".join(f"attr{i:04} = n" for i in range(400))  # about 5.6 KB
    message = "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size"
    with raises_dynamodb("ValidationException", message):
        client.update_item(TableName=table, Key={"pk": s("k")}, UpdateExpression=f"SET {assignments}")


def test_legacy_attribute_updates_are_not_held_to_the_expression_size_limit(client: Any, table: str) -> None:
    # 300 DELETE and 300 ADD actions translate to far more than 4 KB of expression.
    names = [f"set{i:03}" for i in range(300)]
    client.put_item(TableName=table, Item={**ITEM, **{name: {"SS": ["a", "b"]} for name in names}})
    updates = {name: {"Action": "DELETE", "Value": {"SS": ["a"]}} for name in names}
    updates |= {f"add{i:03}": {"Action": "ADD", "Value": {"N": "1"}} for i in range(300)}
    client.update_item(TableName=table, Key={"pk": s("k")}, AttributeUpdates=updates)
    item = client.get_item(TableName=table, Key={"pk": s("k")})["Item"]
    assert all(item[name] == {"SS": ["b"]} for name in names)
    assert item["add299"] == {"N": "1"}


# --------------------------------------------------------------- request-time operand checks

# condition -> (operator or function named in the error, the operand type it names)
STATIC_ERRORS = {
    "value on the left of <": (":ss < n", "<", "SS"),
    "inside NOT": ("NOT (n < :ss)", "<", "SS"),
    "left of OR": ("n < :ss OR n = :x", "<", "SS"),
    "right of AND": ("n = :x AND n < :ss", "<", "SS"),
    "BETWEEN operand": (":ss BETWEEN n AND n", "BETWEEN", "SS"),
    "BETWEEN low bound": ("n BETWEEN :ss AND :x", "BETWEEN", "SS"),
    "BETWEEN high bound": ("n BETWEEN n AND :ss", "BETWEEN", "SS"),
    "size of a number, compared": ("n = size(:x)", "size", "N"),
    "size of a number, first": ("size(:x) = n", "size", "N"),
    "size of a number, BETWEEN": ("size(:x) BETWEEN n AND n", "size", "N"),
    "size of a number, IN": ("n IN (:x, size(:x))", "size", "N"),
    "begins_with a number, in OR": ("n = :x OR begins_with(s, :x)", "begins_with", "N"),
}


@MOTO
@pytest.mark.parametrize(("condition", "operator", "kind"), STATIC_ERRORS.values(), ids=list(STATIC_ERRORS))
def test_operand_types_are_checked_before_any_item_is_read(
    client: Any, make_table: Any, condition: str, operator: str, kind: str
) -> None:
    """On an empty table: the check cannot depend on the item, and must not wait for one."""
    table = make_table("hash_s")
    values = {":ss": {"SS": ["a"]}, ":x": {"N": "5"}}
    message = (
        "Invalid ConditionExpression: Incorrect operand type for operator or function; "
        f"operator or function: {operator}, operand type: {kind}"
    )
    with raises_dynamodb("ValidationException", message) as info:
        client.put_item(
            TableName=table,
            Item={"pk": s("k")},
            ConditionExpression=condition,
            ExpressionAttributeValues={k: v for k, v in values.items() if re.search(rf"{k}\b", condition)},
        )
    assert info.value.response["Error"]["Message"] == message


@MOTO
def test_a_function_result_is_no_argument_of_another_function(client: Any, table: str) -> None:
    message = (
        "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; "
        "function: size"
    )
    with raises_dynamodb("ValidationException", message) as info:
        _holds(client, table, "contains(size(word), :x)", {":x": {"N": "3"}})
    assert info.value.response["Error"]["Message"] == message


def test_a_function_may_follow_plus_in_set(client: Any, table: str) -> None:
    item = _after_update_with(client, table, "SET n = :one + if_not_exists(n, :one)", {":one": {"N": "1"}})
    assert item["n"] == {"N": "6"}


def _after_update_with(client: Any, table: str, update: str, values: dict) -> dict:
    response = client.update_item(
        TableName=table,
        Key={"pk": s("k")},
        UpdateExpression=update,
        ExpressionAttributeValues=values,
        ReturnValues="ALL_NEW",
    )
    return response["Attributes"]


def test_paths_sharing_two_elements_do_not_overlap(client: Any, table: str) -> None:
    item = _after_update_with(client, table, "SET m.a.b = :x, m.a.e = :y", {":x": s("1"), ":y": s("2")})
    assert item["m"]["M"]["a"] == {"M": {"b": s("1"), "c": s("y"), "e": s("2")}}


@MOTO
def test_an_overlap_after_an_unrelated_path_is_found(client: Any, table: str) -> None:
    message = (
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one "
        "of these paths; path one: [m, a], path two: [m, a, b]"
    )
    with raises_dynamodb("ValidationException", message) as info:
        _after_update_with(client, table, "SET m.a = :x, n = :x, m.a.b = :x", {":x": s("1")})
    assert info.value.response["Error"]["Message"] == message


@MOTO
@pytest.mark.parametrize(
    ("shallow", "deep"),
    [("(a = :x", "(" * 70 + "a = :x"), ("(a = :x))", "(" * 70 + "a = :x" + ")" * 71)],
    ids=["unclosed", "one too many closed"],
)
def test_unbalanced_parentheses_nested_deeply_get_the_same_syntax_error(
    client: Any, table: str, shallow: str, deep: str
) -> None:
    """Beyond 64 levels the engine judges parentheses without its recursive parser: same answer."""
    messages = []
    for condition in (shallow, deep):
        with raises_dynamodb("ValidationException", "Syntax error") as info:
            _holds(client, table, condition, {":x": s("1")})
        messages.append(info.value.response["Error"]["Message"])
    assert messages[0] == messages[1]
