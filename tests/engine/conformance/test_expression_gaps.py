"""Expression and legacy-parameter behaviours where the engine used to differ from DynamoDB.

One test per section of the behaviour list (gaps 10, 17, 19, 21, 22, 28, 32, 33, 35, 36, 38, 42,
43, 44; decisions in docs/fidelity.md): each asserts the error type, the HTTP status (400) and
DynamoDB's message, or the result DynamoDB gives.
"""

from __future__ import annotations

from typing import Any

import pytest

from ._support import moto_differs, n, raises_dynamodb, s

# moto (the cross-check backend) misses these checks or does these differently from DynamoDB.
MOTO = moto_differs("moto does not reproduce this DynamoDB check or behaviour")

K = {"pk": s("k")}


@pytest.fixture
def table(make_table: Any) -> str:
    return make_table("hash_s")


def refused(message: str) -> Any:
    """A ValidationException with exactly DynamoDB's ``message`` (checked after the block)."""
    return raises_dynamodb("ValidationException", message)


def exact(info: Any, message: str) -> None:
    assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert info.value.response["Error"]["Message"] == message


# --------------------------------------------------------------- 10: projections checked up front

OVERLAP = (
    "Invalid ProjectionExpression: Two document paths {problem} with each other; must remove or "
    "rewrite one of these paths; path one: {one}, path two: {two}"
)
PROJECTION_ERRORS = {
    "same path": ("a, a", OVERLAP.format(problem="overlap", one="[a]", two="[a]")),
    "prefix": ("a, a.b", OVERLAP.format(problem="overlap", one="[a]", two="[a, b]")),
    "index under path": ("a.b, a.b[2]", OVERLAP.format(problem="overlap", one="[a, b]", two="[a, b, [2]]")),
    "map and list": ("a.b, a[1]", OVERLAP.format(problem="conflict", one="[a, b]", two="[a, [1]]")),
    "33 levels": (
        "a" + ".b" * 32,
        "Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 33",
    ),
    "huge index": (
        "a[99999999999999]",
        "Invalid ProjectionExpression: List index is not within the allowable range; index: [99999999999999]",
    ),
}


@MOTO
@pytest.mark.parametrize(("projection", "message"), PROJECTION_ERRORS.values(), ids=list(PROJECTION_ERRORS))
def test_projection_checked_on_a_missing_item(client: Any, table: str, projection: str, message: str) -> None:
    with refused(message) as info:
        client.get_item(TableName=table, Key={"pk": s("nope")}, ProjectionExpression=projection)
    exact(info, message)


@MOTO
@pytest.mark.parametrize(("projection", "message"), PROJECTION_ERRORS.values(), ids=list(PROJECTION_ERRORS))
def test_projection_checked_on_an_empty_scan(client: Any, table: str, projection: str, message: str) -> None:
    with refused(message) as info:
        client.scan(TableName=table, ProjectionExpression=projection)
    exact(info, message)


@MOTO
def test_projection_limits_on_an_existing_item(client: Any, table: str) -> None:
    client.put_item(TableName=table, Item={**K, "a": {"L": [n(7)]}})
    for projection, message in (PROJECTION_ERRORS["33 levels"], PROJECTION_ERRORS["huge index"]):
        with refused(message) as info:
            client.get_item(TableName=table, Key=K, ProjectionExpression=projection)
        exact(info, message)
    # 32 levels and an index that fits an int are fine (nothing there: an empty projection).
    assert client.get_item(TableName=table, Key=K, ProjectionExpression="a" + ".b" * 31)["Item"] == {}
    assert client.get_item(TableName=table, Key=K, ProjectionExpression="a[2147483647]")["Item"] == {}
    assert client.get_item(TableName=table, Key=K, ProjectionExpression="a[0]")["Item"] == {
        "a": {"L": [n(7)]}
    }


# ------------------------------------------------------------------ 17: redundant parentheses

REDUNDANT = "Invalid ConditionExpression: The expression has redundant parentheses;"


@pytest.mark.parametrize(
    "condition",
    [
        "((pk <> :p))",
        "(((a < b)))",
        "NOT ((a < b))",
        "a < b AND ((c < d))",
        pytest.param("(" * 2046 + "a<b" + ")" * 2046, marks=MOTO),
    ],
    ids=["double", "triple", "under NOT", "one side", "2046 deep"],
)
def test_redundant_parentheses(client: Any, table: str, condition: str) -> None:
    values = {":p": s("x")} if ":p" in condition else {}
    with refused(REDUNDANT) as info:
        client.put_item(TableName=table, Item=K, ConditionExpression=condition, **_values(values))
    exact(info, REDUNDANT)


def test_needed_parentheses_are_fine(client: Any, table: str) -> None:
    client.put_item(
        TableName=table, Item=K, ConditionExpression="(pk <> :p)", ExpressionAttributeValues={":p": s("x")}
    )
    client.put_item(TableName=table, Item=K, ConditionExpression="((pk <> pk) or pk = pk)")
    client.put_item(TableName=table, Item=K, ConditionExpression="(NOT (pk <> pk))")


@MOTO
def test_unclosed_deep_parentheses_are_an_expression_error(client: Any, table: str) -> None:
    with raises_dynamodb("ValidationException", "Invalid ConditionExpression: ") as info:
        client.put_item(TableName=table, Item=K, ConditionExpression="(" * 4096)
    assert info.value.response["Error"]["Message"].startswith("Invalid ConditionExpression: Syntax error;")


@MOTO
def test_redundant_parentheses_in_a_filter(client: Any, table: str) -> None:
    message = REDUNDANT.replace("ConditionExpression", "FilterExpression")
    with refused(message):
        client.scan(TableName=table, FilterExpression="((a = b))")


# ---------------------------------------------------------- 19, 21: function operands


@MOTO
def test_functions_take_a_value_as_first_operand(client: Any, table: str) -> None:
    client.put_item(TableName=table, Item={**K, "a": s("hello")})
    client.put_item(
        TableName=table,
        Item={**K, "a": s("hello")},
        ConditionExpression="attribute_type(:v, :t)",
        ExpressionAttributeValues={":v": n(0), ":t": s("N")},
    )
    client.put_item(
        TableName=table,
        Item={**K, "a": s("hello")},
        ConditionExpression="begins_with(:s, a)",
        ExpressionAttributeValues={":s": s("hellohi")},
    )
    client.put_item(
        TableName=table,
        Item={**K, "a": s("hello")},
        ConditionExpression="size(:s) >= :n",
        ExpressionAttributeValues={":s": s("abc"), ":n": n(2)},
    )
    # The value is evaluated as that value: a false condition fails.
    with raises_dynamodb("ConditionalCheckFailedException"):
        client.put_item(
            TableName=table,
            Item=K,
            ConditionExpression="size(:s) > :n",
            ExpressionAttributeValues={":s": s("abc"), ":n": n(3)},
        )
    with raises_dynamodb("ConditionalCheckFailedException"):
        client.put_item(
            TableName=table,
            Item=K,
            ConditionExpression="attribute_type(:v, :t)",
            ExpressionAttributeValues={":v": n(0), ":t": s("S")},
        )


@MOTO
def test_size_of_a_number_value_is_refused(client: Any, table: str) -> None:
    message = (
        "Invalid ConditionExpression: Incorrect operand type for operator or function; "
        "operator or function: size, operand type: N"
    )
    with refused(message) as info:
        client.put_item(
            TableName=table,
            Item=K,
            ConditionExpression="size(:n) > :n",
            ExpressionAttributeValues={":n": n(1)},
        )
    exact(info, message)


@MOTO
def test_attribute_exists_still_needs_a_path(client: Any, table: str) -> None:
    message = (
        "Invalid ConditionExpression: Operator or function requires a document path; "
        "operator or function: attribute_exists"
    )
    with refused(message):
        client.put_item(
            TableName=table,
            Item=K,
            ConditionExpression="attribute_exists(:v)",
            ExpressionAttributeValues={":v": n(1)},
        )


ATTRIBUTE_TYPE_PATH = (
    "Incorrect operand type for operator or function; operator or function: attribute_type, operand type:"
)


@MOTO
def test_attribute_type_second_operand_must_be_a_value(client: Any, table: str) -> None:
    client.put_item(TableName=table, Item={**K, "a": n(1), "b": s("N")})
    with refused("Invalid ConditionExpression: " + ATTRIBUTE_TYPE_PATH):
        client.put_item(TableName=table, Item=K, ConditionExpression="attribute_type(a, b)")
    with refused("Invalid FilterExpression: " + ATTRIBUTE_TYPE_PATH):
        client.scan(TableName=table, FilterExpression="attribute_type(a, b)")


@MOTO
def test_attribute_type_path_refused_on_an_empty_table(client: Any, table: str) -> None:
    with refused("Invalid FilterExpression: " + ATTRIBUTE_TYPE_PATH):
        client.scan(TableName=table, FilterExpression="attribute_type(a, b)")


# ------------------------------------------------------------------ 22, 33, 38: legacy parameters


@MOTO
@pytest.mark.parametrize(
    ("attribute", "action", "value"),
    [
        ("a", "ADD", {"SS": ["z"]}),
        ("s", "DELETE", {"NS": ["1"]}),
        ("s", "ADD", n(1)),
        ("s", "ADD", {"L": [n(1)]}),
    ],
    ids=["ADD SS to NS", "DELETE NS from S", "ADD N to S", "ADD L to S"],
)
def test_attribute_updates_type_mismatch(
    client: Any, table: str, attribute: str, action: str, value: dict
) -> None:
    client.put_item(TableName=table, Item={**K, "a": {"NS": ["1", "2"]}, "s": s("x")})
    message = "Type mismatch for attribute to update"
    with refused(message) as info:
        client.update_item(
            TableName=table, Key=K, AttributeUpdates={attribute: {"Action": action, "Value": value}}
        )
    exact(info, message)


def test_update_expression_type_mismatch_keeps_its_wording(client: Any, table: str) -> None:
    client.put_item(TableName=table, Item={**K, "a": {"NS": ["1", "2"]}})
    with refused("An operand in the update expression has an incorrect data type"):
        client.update_item(
            TableName=table,
            Key=K,
            UpdateExpression="ADD a :v",
            ExpressionAttributeValues={":v": {"SS": ["z"]}},
        )


def test_attribute_updates_have_no_expression_size_limit(client: Any, table: str) -> None:
    updates = {f"more{i}": {"Action": "PUT", "Value": n(i)} for i in range(200)}
    updates.update({f"gone{i}": {"Action": "DELETE"} for i in range(50)})
    updates.update({f"count{i}": {"Action": "ADD", "Value": n(1)} for i in range(50)})
    client.update_item(TableName=table, Key=K, AttributeUpdates=updates)
    item = client.get_item(TableName=table, Key=K)["Item"]
    assert len(item) == 1 + 200 + 50
    assert item["more199"] == n(199) and item["count49"] == n(1)


@MOTO
def test_update_expression_size_limit_still_applies(client: Any, table: str) -> None:
    text = "SET " + ", ".join(f"more{i} = :v" for i in range(400))
    with raises_dynamodb(
        "ValidationException",
        "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size",
    ):
        client.update_item(
            TableName=table, Key=K, UpdateExpression=text, ExpressionAttributeValues={":v": n(1)}
        )


@MOTO
def test_expected_not_contains_on_a_missing_attribute_fails(client: Any, table: str) -> None:
    client.put_item(TableName=table, Item=K)
    for operator in ("NOT_CONTAINS", "CONTAINS"):
        with raises_dynamodb("ConditionalCheckFailedException"):
            client.update_item(
                TableName=table,
                Key=K,
                AttributeUpdates={"z": {"Action": "PUT", "Value": n(1)}},
                Expected={"q": {"ComparisonOperator": operator, "AttributeValueList": [n(1)]}},
            )
    assert "z" not in client.get_item(TableName=table, Key=K)["Item"]
    # NE is true for a missing attribute; and NOT_CONTAINS holds for a present one without the value.
    client.update_item(
        TableName=table,
        Key=K,
        AttributeUpdates={"z": {"Action": "PUT", "Value": n(1)}},
        Expected={"q": {"ComparisonOperator": "NE", "AttributeValueList": [n(1)]}},
    )
    client.update_item(
        TableName=table,
        Key=K,
        AttributeUpdates={"z": {"Action": "PUT", "Value": n(2)}},
        Expected={"z": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [n(1)]}},
    )
    # The expression form is another rule: NOT contains() of a missing attribute is true.
    client.put_item(
        TableName=table,
        Item=K,
        ConditionExpression="NOT contains(q, :v)",
        ExpressionAttributeValues={":v": n(1)},
    )


# ------------------------------------------------------------------------- 28: REMOVE paths

INVALID_PATH = "The document path provided in the update expression is invalid for update"


@pytest.mark.parametrize("path", ["c.c", "b[0]", "a.x.y"])
def test_remove_under_a_missing_parent(client: Any, table: str, path: str) -> None:
    client.put_item(TableName=table, Item={**K, "a": {"M": {}}})
    with refused(INVALID_PATH) as info:
        client.update_item(TableName=table, Key=K, UpdateExpression=f"REMOVE {path}")
    exact(info, INVALID_PATH)


def test_remove_of_a_missing_leaf_is_a_no_op(client: Any, table: str) -> None:
    item = {**K, "a": {"M": {"x": n(1)}}, "b": {"L": [n(1)]}}
    client.put_item(TableName=table, Item=item)
    client.update_item(TableName=table, Key=K, UpdateExpression="REMOVE a.y, b[7], nothing")
    assert client.get_item(TableName=table, Key=K)["Item"] == item


# ------------------------------------------------------------------------------ 32: '_' names


def _syntax(kind: str, near: str) -> str:
    return f'Invalid {kind}: Syntax error; token: "_", near: "{near}"'


@pytest.mark.parametrize(
    ("expression", "near"),
    [("SET _abc = :v", "SET _abc"), ("SET _123 = :v", "SET _123"), ("SET a = _f(:v)", "= _f")],
)
def test_update_names_must_start_with_a_letter(client: Any, table: str, expression: str, near: str) -> None:
    message = _syntax("UpdateExpression", near)
    with refused(message) as info:
        client.update_item(
            TableName=table, Key=K, UpdateExpression=expression, ExpressionAttributeValues={":v": n(1)}
        )
    exact(info, message)
    assert "Item" not in client.get_item(TableName=table, Key=K)


@MOTO
def test_other_expressions_refuse_names_starting_with_underscore(client: Any, table: str) -> None:
    with refused(_syntax("FilterExpression", "_x")):
        client.scan(TableName=table, FilterExpression="_x = :v", ExpressionAttributeValues={":v": n(1)})
    with refused(_syntax("ConditionExpression", "_x")):
        client.put_item(
            TableName=table, Item=K, ConditionExpression="_x = :v", ExpressionAttributeValues={":v": n(1)}
        )
    with refused(_syntax("ProjectionExpression", ", _x")):
        client.get_item(TableName=table, Key=K, ProjectionExpression="a, _x")
    # An underscore inside a name, or a placeholder for the name, is fine.
    client.update_item(
        TableName=table,
        Key=K,
        UpdateExpression="SET a_b = :v, #u = :v",
        ExpressionAttributeNames={"#u": "_u"},
        ExpressionAttributeValues={":v": n(1)},
    )
    assert client.get_item(TableName=table, Key=K)["Item"] == {**K, "a_b": n(1), "_u": n(1)}


# ------------------------------------------------------------------------------ 35: BETWEEN types


@MOTO
def test_between_bounds_of_different_types(client: Any, table: str) -> None:
    client.put_item(TableName=table, Item={**K, "a": n(1)})
    message = (
        "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; "
        "lower bound operand: AttributeValue: {N:2}, upper bound operand: AttributeValue: {S:dog}"
    )
    with refused(message) as info:
        client.put_item(
            TableName=table,
            Item=K,
            ConditionExpression="a BETWEEN :lo AND :hi",
            ExpressionAttributeValues={":lo": n(2), ":hi": s("dog")},
        )
    exact(info, message)


# ----------------------------------------------------------------------- 36: distinct operands


@MOTO
@pytest.mark.parametrize(
    ("condition", "function"), [("contains(a, a)", "contains"), ("begins_with(#a, a)", "begins_with")]
)
def test_function_operands_must_be_distinct(client: Any, table: str, condition: str, function: str) -> None:
    client.put_item(TableName=table, Item={**K, "a": s("hello")})
    message = (
        "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this "
        f"operator or function; operator: {function}, first operand: [a]"
    )
    names = {"ExpressionAttributeNames": {"#a": "a"}} if "#a" in condition else {}
    with refused(message) as info:
        client.put_item(TableName=table, Item=K, ConditionExpression=condition, **names)
    exact(info, message)


# ----------------------------------------------------------------- 42: ADD/DELETE on a key


@pytest.mark.parametrize(
    ("expression", "values", "attribute"),
    [
        ("ADD pk :n", {":n": n(4)}, "pk"),
        ("DELETE sk :ss", {":ss": {"SS": ["a"]}}, "sk"),
        ("SET pk = :n", {":n": n(4)}, "pk"),
    ],
    ids=["ADD", "DELETE", "SET"],
)
def test_add_or_delete_on_a_key_attribute(
    client: Any, make_table: Any, expression: str, values: dict, attribute: str
) -> None:
    name = make_table("hash_range_s")
    message = f"One or more parameter values were invalid: Cannot update attribute {attribute}. This attribute is part of the key"
    with refused(message) as info:
        client.update_item(
            TableName=name,
            Key={"pk": s("x"), "sk": s("y")},
            UpdateExpression=expression,
            ExpressionAttributeValues=values,
        )
    exact(info, message)


# ------------------------------------------------------------- 43: appends in index order


@MOTO
def test_several_sets_past_the_end_append_in_index_order(client: Any, table: str) -> None:
    client.put_item(TableName=table, Item={**K, "a": {"L": [s("one")]}})
    client.update_item(
        TableName=table,
        Key=K,
        UpdateExpression="SET a[84] = :a1, a[37] = :a2, a[17] = :a3, a[0] = :a0",
        ExpressionAttributeValues={":a1": s("i84"), ":a2": s("i37"), ":a3": s("i17"), ":a0": s("first")},
    )
    listed = client.get_item(TableName=table, Key=K)["Item"]["a"]["L"]
    assert [v["S"] for v in listed] == ["first", "i17", "i37", "i84"]


# --------------------------------------------------------------------- 44: nested list_append


@MOTO
def test_list_append_inside_list_append(client: Any, table: str) -> None:
    one = {"L": [s("x")]}
    message = (
        "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; "
        "function: list_append"
    )
    with refused(message) as info:
        client.update_item(
            TableName=table,
            Key=K,
            UpdateExpression="SET a = list_append(list_append(:a, :b), :c)",
            ExpressionAttributeValues={":a": one, ":b": one, ":c": one},
        )
    exact(info, message)
    # if_not_exists inside list_append, and inside if_not_exists, are fine.
    client.update_item(
        TableName=table,
        Key=K,
        UpdateExpression="SET a = list_append(if_not_exists(a, :a), :b), c = if_not_exists(c, if_not_exists(d, :a))",
        ExpressionAttributeValues={":a": one, ":b": one},
    )
    item = client.get_item(TableName=table, Key=K)["Item"]
    assert item["a"] == {"L": [s("x"), s("x")]} and item["c"] == one


def _values(values: dict) -> dict:
    return {"ExpressionAttributeValues": values} if values else {}


def test_long_legacy_in_list_beside_another_condition(client: Any, table: str) -> None:
    """A legacy IN of more than 100 values becomes an OR of IN lists; beside another condition it is
    parenthesised once, never twice (DynamoDB refuses redundant parentheses)."""
    client.put_item(TableName=table, Item={**K, "a": n(149), "b": s("x")})
    response = client.scan(
        TableName=table,
        ScanFilter={
            "a": {"ComparisonOperator": "IN", "AttributeValueList": [n(i) for i in range(150)]},
            "b": {"ComparisonOperator": "EQ", "AttributeValueList": [s("x")]},
        },
    )
    assert response["Count"] == 1
