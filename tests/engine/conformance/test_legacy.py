"""The legacy (pre-expression) parameters: Expected, AttributeUpdates, AttributesToGet, KeyConditions,
QueryFilter, ScanFilter and ConditionalOperator.

Every legacy request is checked twice: against the items it must select or produce, and against the
equivalent hand-written expression request (the two must agree). The errors are DynamoDB's own
wording (sources in docs/legacy-parameters.md).

Reference: Developer Guide, "Legacy conditional parameters" (LegacyConditionalParameters.html).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tablewright.engine.legacy import translate

from ._support import cases, moto_differs, raises_dynamodb

N = lambda v: {"N": str(v)}  # noqa: E731 - wire values, kept short for the case tables
S = lambda v: {"S": v}  # noqa: E731

# pk "p", sk 1..4: the attributes each operator is tried against.
ITEMS = {
    1: {
        "s": S("apple"),
        "n": N(10),
        "b": {"B": b"abc"},
        "ss": {"SS": ["x", "y"]},
        "l": {"L": [S("x"), N(1)]},
    },
    2: {"s": S("banana"), "n": N(20), "ss": {"SS": ["z"]}, "l": {"L": [{"BOOL": True}]}},
    3: {"s": S("cherry"), "n": N(30), "nul": {"NULL": True}},
    4: {"n": N(40)},
}


@pytest.fixture
def table(client, make_table) -> str:
    name = make_table("hash_range_n")
    for sk, attributes in ITEMS.items():
        client.put_item(TableName=name, Item={"pk": S("p"), "sk": N(sk), **attributes})
    return name


def _sks(items: list[dict]) -> list[int]:
    return sorted(int(item["sk"]["N"]) for item in items)


def _cond(op: str, *values: dict) -> dict:
    return {"ComparisonOperator": op, "AttributeValueList": list(values)}


# id -> (attribute, ComparisonOperator, operands, equivalent expression, its values, matching sk)
OPERATOR_CASES = {
    "EQ": ("s", "EQ", [S("banana")], "s = :a", [S("banana")], [2]),
    "EQ-set": ("ss", "EQ", [{"SS": ["y", "x"]}], "ss = :a", [{"SS": ["y", "x"]}], [1]),
    "NE": ("s", "NE", [S("banana")], "s <> :a", [S("banana")], [1, 3, 4]),
    "LE": ("n", "LE", [N(20)], "n <= :a", [N(20)], [1, 2]),
    "LT": ("n", "LT", [N(20)], "n < :a", [N(20)], [1]),
    "GE": ("n", "GE", [N(30)], "n >= :a", [N(30)], [3, 4]),
    "GT": ("n", "GT", [N(30)], "n > :a", [N(30)], [4]),
    "LT-string": ("s", "LT", [S("b")], "s < :a", [S("b")], [1]),
    "NOT_NULL": ("s", "NOT_NULL", [], "attribute_exists(s)", [], [1, 2, 3]),
    "NULL": ("s", "NULL", [], "attribute_not_exists(s)", [], [4]),
    "CONTAINS-substring": ("s", "CONTAINS", [S("an")], "contains(s, :a)", [S("an")], [2]),
    "CONTAINS-set": ("ss", "CONTAINS", [S("z")], "contains(ss, :a)", [S("z")], [2]),
    "CONTAINS-list": ("l", "CONTAINS", [N(1)], "contains(l, :a)", [N(1)], [1]),
    "CONTAINS-list-bool": ("l", "CONTAINS", [{"BOOL": True}], "contains(l, :a)", [{"BOOL": True}], [2]),
    "CONTAINS-binary": ("b", "CONTAINS", [{"B": b"bc"}], "contains(b, :a)", [{"B": b"bc"}], [1]),
    "NOT_CONTAINS": ("s", "NOT_CONTAINS", [S("an")], "NOT contains(s, :a)", [S("an")], [1, 3, 4]),
    "BEGINS_WITH": ("s", "BEGINS_WITH", [S("ch")], "begins_with(s, :a)", [S("ch")], [3]),
    "BEGINS_WITH-binary": ("b", "BEGINS_WITH", [{"B": b"ab"}], "begins_with(b, :a)", [{"B": b"ab"}], [1]),
    "IN": ("n", "IN", [N(10), N(30), N(99)], "n IN (:a, :b, :c)", [N(10), N(30), N(99)], [1, 3]),
    "BETWEEN": ("n", "BETWEEN", [N(15), N(30)], "n BETWEEN :a AND :b", [N(15), N(30)], [2, 3]),
    "BETWEEN-string": ("s", "BETWEEN", [S("b"), S("c")], "s BETWEEN :a AND :b", [S("b"), S("c")], [2]),
}


# moto (cross-check backend) evaluates these legacy conditions differently from DynamoDB's documentation.
_MOTO_OPERATOR = "moto's legacy condition evaluation differs for this operator"
MOTO_SCAN = dict.fromkeys(
    ["BEGINS_WITH-binary", "CONTAINS-binary", "CONTAINS-list-bool", "CONTAINS-list", "NE", "NOT_CONTAINS"],
    _MOTO_OPERATOR,
)
MOTO_QUERY = dict.fromkeys(set(OPERATOR_CASES) - {"LE", "LT", "GE", "GT", "IN", "BETWEEN"}, _MOTO_OPERATOR)
MOTO_EXPECTED = dict.fromkeys(
    ["BEGINS_WITH-binary", "CONTAINS-binary", "CONTAINS-list-bool", "CONTAINS-list", "NOT_CONTAINS"],
    _MOTO_OPERATOR,
)


def _expression_values(values: list[dict]) -> dict:
    return {f":{letter}": v for letter, v in zip("abc", values)}


def _with_values(values: list[dict]) -> dict:
    return {"ExpressionAttributeValues": _expression_values(values)} if values else {}


@pytest.mark.parametrize(
    ("attr", "op", "operands", "expression", "values", "expected"), cases(OPERATOR_CASES, MOTO_SCAN)
)
def test_scan_filter_operator(client, table, attr, op, operands, expression, values, expected):
    legacy = client.scan(TableName=table, ScanFilter={attr: _cond(op, *operands)})
    modern = client.scan(TableName=table, FilterExpression=expression, **_with_values(values))
    assert _sks(legacy["Items"]) == expected == _sks(modern["Items"])
    assert legacy["ScannedCount"] == 4


@pytest.mark.parametrize(
    ("attr", "op", "operands", "expression", "values", "expected"), cases(OPERATOR_CASES, MOTO_QUERY)
)
def test_query_filter_operator(client, table, attr, op, operands, expression, values, expected):
    keys = {"pk": _cond("EQ", S("p"))}
    legacy = client.query(TableName=table, KeyConditions=keys, QueryFilter={attr: _cond(op, *operands)})
    modern = client.query(
        TableName=table,
        KeyConditionExpression="pk = :pk",
        FilterExpression=expression,
        ExpressionAttributeValues={":pk": S("p"), **_expression_values(values)},
    )
    assert _sks(legacy["Items"]) == expected == _sks(modern["Items"])


def _put_passes(client, table: str, sk: int, **condition: Any) -> bool:
    """Rewrite item ``sk`` unchanged under a condition; whether the condition held."""
    item = {"pk": S("p"), "sk": N(sk), **ITEMS[sk]}
    try:
        client.put_item(TableName=table, Item=item, **condition)
    except client.exceptions.ConditionalCheckFailedException:
        return False
    return True


@pytest.mark.parametrize(
    ("attr", "op", "operands", "expression", "values", "expected"), cases(OPERATOR_CASES, MOTO_EXPECTED)
)
def test_expected_operator(client, table, attr, op, operands, expression, values, expected):
    legacy = [sk for sk in ITEMS if _put_passes(client, table, sk, Expected={attr: _cond(op, *operands)})]
    modern = [
        sk
        for sk in ITEMS
        if _put_passes(client, table, sk, ConditionExpression=expression, **_with_values(values))
    ]
    assert modern == expected
    assert legacy == EXPECTED_DIFFERS.get(op, expected)


# Where Expected differs from its expression: NOT_CONTAINS is false for a missing attribute (item 4
# has no s), while ``NOT contains(s, :a)`` is true for it.
EXPECTED_DIFFERS = {"NOT_CONTAINS": [1, 3]}


# id -> (Expected entry for attribute "s", sk of the items it holds for)
VALUE_EXISTS_CASES = {
    "value": ({"Value": S("apple")}, [1]),
    "value-exists-true": ({"Value": S("apple"), "Exists": True}, [1]),
    "exists-false": ({"Exists": False}, [4]),
    "value-with-operator": ({"Value": S("b"), "ComparisonOperator": "GT"}, [2, 3]),
    "operator-null": ({"ComparisonOperator": "NULL"}, [4]),
}


@pytest.mark.parametrize(
    ("entry", "expected"),
    cases(
        VALUE_EXISTS_CASES,
        {
            "value-exists-true": "moto ignores Exists=true",
            "value-with-operator": "moto ignores Value with an operator",
        },
    ),
)
def test_expected_value_and_exists_forms(client, table, entry, expected):
    assert [sk for sk in ITEMS if _put_passes(client, table, sk, Expected={"s": entry})] == expected


@moto_differs("moto's Expected on DeleteItem/UpdateItem differs")
def test_expected_on_delete_and_update(client, table):
    key = {"pk": S("p"), "sk": N(1)}
    with raises_dynamodb("ConditionalCheckFailedException"):
        client.delete_item(TableName=table, Key=key, Expected={"s": {"Value": S("nope")}})
    client.update_item(
        TableName=table,
        Key=key,
        Expected={"s": {"Value": S("apple")}},
        AttributeUpdates={"n": {"Value": N(11)}},
    )
    client.delete_item(TableName=table, Key=key, Expected={"n": {"Value": N(11)}})
    assert "Item" not in client.get_item(TableName=table, Key=key)


# id -> (ConditionalOperator, conditions on s and n, matching sk)
COMBINED_CASES = {
    "AND": ("AND", {"s": _cond("BEGINS_WITH", S("b")), "n": _cond("GE", N(20))}, [2]),
    "OR": ("OR", {"s": _cond("EQ", S("apple")), "n": _cond("GE", N(40))}, [1, 4]),
    "default-AND": (None, {"s": _cond("NOT_NULL"), "n": _cond("LE", N(20))}, [1, 2]),
}


@pytest.mark.parametrize(("operator", "conditions", "expected"), cases(COMBINED_CASES))
@moto_differs("moto does not apply ConditionalOperator to every legacy map")
def test_conditional_operator(client, table, operator, conditions, expected):
    joined = {"ConditionalOperator": operator} if operator else {}
    scanned = client.scan(TableName=table, ScanFilter=conditions, **joined)
    queried = client.query(
        TableName=table, KeyConditions={"pk": _cond("EQ", S("p"))}, QueryFilter=conditions, **joined
    )
    assert _sks(scanned["Items"]) == expected == _sks(queried["Items"])
    assert [sk for sk in ITEMS if _put_passes(client, table, sk, Expected=conditions, **joined)] == expected


def test_in_longer_than_the_expression_limit(client, table):
    # The expression language caps IN at 100 operands; the legacy list is split, not refused.
    operands = [N(i) for i in range(15, 165)] + [N(40)]
    response = client.scan(TableName=table, ScanFilter={"n": _cond("IN", *operands)})
    assert _sks(response["Items"]) == [2, 3, 4]


# --------------------------------------------------------------------------------- AttributeUpdates

# id -> (AttributeUpdates, equivalent UpdateExpression, its values, the attributes afterwards)
UPDATE_CASES = {
    "PUT": ({"s": {"Action": "PUT", "Value": S("kiwi")}}, "SET s = :a", [S("kiwi")], {"s": S("kiwi")}),
    "PUT-default": ({"fresh": {"Value": N(1)}}, "SET fresh = :a", [N(1)], {"fresh": N(1)}),
    "ADD-number": ({"n": {"Action": "ADD", "Value": N(5)}}, "ADD n :a", [N(5)], {"n": N(15)}),
    "ADD-number-missing": ({"c": {"Action": "ADD", "Value": N(-2)}}, "ADD c :a", [N(-2)], {"c": N(-2)}),
    "ADD-set": ({"ss": {"Action": "ADD", "Value": {"SS": ["w"]}}}, "ADD ss :a", [{"SS": ["w"]}], None),
    "ADD-list": (
        {"l": {"Action": "ADD", "Value": {"L": [S("z")]}}},
        "SET l = list_append(l, :a)",
        [{"L": [S("z")]}],
        {"l": {"L": [S("x"), N(1), S("z")]}},
    ),
    "ADD-list-missing": (
        {"nl": {"Action": "ADD", "Value": {"L": [S("z")]}}},
        "SET nl = :a",
        [{"L": [S("z")]}],
        {"nl": {"L": [S("z")]}},
    ),
    "DELETE-attribute": ({"s": {"Action": "DELETE"}}, "REMOVE s", [], {"s": None}),
    "DELETE-elements": (
        {"ss": {"Action": "DELETE", "Value": {"SS": ["x"]}}},
        "DELETE ss :a",
        [{"SS": ["x"]}],
        {"ss": {"SS": ["y"]}},
    ),
    "several": (
        {"s": {"Action": "DELETE"}, "n": {"Action": "ADD", "Value": N(1)}, "t": {"Value": S("t")}},
        "REMOVE s ADD n :a SET t = :b",
        [N(1), S("t")],
        {"s": None, "n": N(11), "t": S("t")},
    ),
}


def _normalised(item: dict) -> dict:
    return {k: ({"SS": sorted(v["SS"])} if "SS" in v else v) for k, v in item.items() if k != "sk"}


@pytest.mark.parametrize(("updates", "expression", "values", "after"), cases(UPDATE_CASES))
def test_attribute_updates(client, table, updates, expression, values, after):
    legacy = client.update_item(
        TableName=table, Key={"pk": S("p"), "sk": N(1)}, AttributeUpdates=updates, ReturnValues="ALL_NEW"
    )["Attributes"]
    # The same change by expression on a twin of item 1.
    client.put_item(TableName=table, Item={"pk": S("p"), "sk": N(9), **ITEMS[1]})
    modern = client.update_item(
        TableName=table,
        Key={"pk": S("p"), "sk": N(9)},
        UpdateExpression=expression,
        ReturnValues="ALL_NEW",
        **_with_values(values),
    )["Attributes"]
    assert _normalised(legacy) == _normalised(modern)
    for name, value in (after or {"ss": {"SS": ["w", "x", "y"]}}).items():
        assert _normalised(legacy).get(name) == value


@pytest.mark.parametrize(
    ("updates", "created"),
    [
        pytest.param({"a": {"Action": "ADD", "Value": N(3)}}, {"a": N(3)}, id="ADD"),
        pytest.param({"a": {"Action": "ADD", "Value": {"NS": ["1"]}}}, {"a": {"NS": ["1"]}}, id="ADD-set"),
        pytest.param({"a": {"Action": "PUT", "Value": S("v")}}, {"a": S("v")}, id="PUT"),
    ],
)
def test_attribute_updates_create_the_item(client, table, updates, created):
    key = {"pk": S("new"), "sk": N(1)}
    client.update_item(TableName=table, Key=key, AttributeUpdates=updates)
    assert client.get_item(TableName=table, Key=key)["Item"] == {**key, **created}


def test_attribute_updates_return_updated_values(client, table):
    response = client.update_item(
        TableName=table,
        Key={"pk": S("p"), "sk": N(2)},
        AttributeUpdates={"n": {"Action": "ADD", "Value": N(1)}, "s": {"Action": "DELETE"}},
        ReturnValues="UPDATED_OLD",
    )
    assert response["Attributes"] == {"n": N(20), "s": S("banana")}


@moto_differs("moto lets AttributeUpdates change a key attribute")
def test_attribute_updates_on_a_key_attribute(client, table):
    with raises_dynamodb(
        "ValidationException", "Cannot update attribute sk", "This attribute is part of the key"
    ):
        client.update_item(
            TableName=table, Key={"pk": S("p"), "sk": N(1)}, AttributeUpdates={"sk": {"Value": N(5)}}
        )


# --------------------------------------------------------------------------------- AttributesToGet

ODD_NAMES = ["a.b", "size", "n"]  # a dot and a reserved word: legal names, only via placeholders


@pytest.fixture
def odd(client, table) -> dict:
    item = {"pk": S("q"), "sk": N(1), "a.b": S("dot"), "size": N(3), "n": N(7), "other": S("x")}
    client.put_item(TableName=table, Item=item)
    return {"a.b": S("dot"), "size": N(3), "n": N(7)}


@moto_differs("moto reads AttributesToGet names as document paths")
def test_attributes_to_get_in_get_item_and_batch_get(client, table, odd):
    key = {"pk": S("q"), "sk": N(1)}
    assert client.get_item(TableName=table, Key=key, AttributesToGet=ODD_NAMES)["Item"] == odd
    batch = client.batch_get_item(
        RequestItems={table: {"Keys": [key, {"pk": S("p"), "sk": N(4)}], "AttributesToGet": ODD_NAMES}}
    )
    assert sorted(batch["Responses"][table], key=len) == [{"n": N(40)}, odd]


@moto_differs("moto reads AttributesToGet names as document paths")
def test_attributes_to_get_in_query_and_scan(client, table, odd):
    queried = client.query(
        TableName=table, KeyConditions={"pk": _cond("EQ", S("q"))}, AttributesToGet=ODD_NAMES
    )
    scanned = client.scan(
        TableName=table,
        ScanFilter={"pk": _cond("EQ", S("q"))},
        AttributesToGet=ODD_NAMES,
        Select="SPECIFIC_ATTRIBUTES",
    )
    assert queried["Items"] == [odd] == scanned["Items"]


SELECT_CASES = {
    "scan-ALL_ATTRIBUTES": (
        "scan",
        "ALL_ATTRIBUTES",
        "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES",
    ),
    "scan-COUNT": ("scan", "COUNT", "Cannot specify the AttributesToGet when choosing to get only the Count"),
    "query-ALL_ATTRIBUTES": (
        "query",
        "ALL_ATTRIBUTES",
        "1 validation error detected: Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES",
    ),
    "query-ALL_PROJECTED_ATTRIBUTES": (
        "query",
        "ALL_PROJECTED_ATTRIBUTES",
        "Cannot specify the AttributesToGet when choosing to get ALL_PROJECTED_ATTRIBUTES",
    ),
}


@pytest.mark.parametrize(
    ("operation", "select", "message"),
    cases(SELECT_CASES),
)
def test_attributes_to_get_contradicting_select(client, table, operation, select, message):
    extra = {"KeyConditions": {"pk": _cond("EQ", S("p"))}} if operation == "query" else {}
    with raises_dynamodb("ValidationException", message):
        getattr(client, operation)(TableName=table, AttributesToGet=["s"], Select=select, **extra)


# ----------------------------------------------------------------------------------- KeyConditions

# id -> (condition on sk, equivalent range condition, its values, matching sk)
KEY_CASES = {
    "EQ": (_cond("EQ", N(2)), "sk = :a", [N(2)], [2]),
    "LE": (_cond("LE", N(2)), "sk <= :a", [N(2)], [1, 2]),
    "LT": (_cond("LT", N(2)), "sk < :a", [N(2)], [1]),
    "GE": (_cond("GE", N(3)), "sk >= :a", [N(3)], [3, 4]),
    "GT": (_cond("GT", N(3)), "sk > :a", [N(3)], [4]),
    "BETWEEN": (_cond("BETWEEN", N(2), N(3)), "sk BETWEEN :a AND :b", [N(2), N(3)], [2, 3]),
}


@pytest.mark.parametrize(("condition", "expression", "values", "expected"), cases(KEY_CASES))
def test_key_conditions(client, table, condition, expression, values, expected):
    legacy = client.query(TableName=table, KeyConditions={"pk": _cond("EQ", S("p")), "sk": condition})
    modern = client.query(
        TableName=table,
        KeyConditionExpression=f"pk = :pk AND {expression}",
        ExpressionAttributeValues={":pk": S("p"), **_expression_values(values)},
    )
    assert _sks(legacy["Items"]) == expected == _sks(modern["Items"])


def test_key_conditions_begins_with(client, make_table):
    table = make_table("hash_range_s")
    for sk in ("a1", "b1", "b2", "c1"):
        client.put_item(TableName=table, Item={"pk": S("p"), "sk": S(sk)})
    response = client.query(
        TableName=table, KeyConditions={"pk": _cond("EQ", S("p")), "sk": _cond("BEGINS_WITH", S("b"))}
    )
    assert [item["sk"]["S"] for item in response["Items"]] == ["b1", "b2"]


def test_key_conditions_with_filter_and_projection_expressions(client, table):
    # DynamoDB accepts legacy KeyConditions next to FilterExpression/ProjectionExpression; the caller's
    # placeholders, even one spelled like a generated one, keep their meaning.
    response = client.query(
        TableName=table,
        KeyConditions={"pk": _cond("EQ", S("p")), "sk": _cond("LE", N(3))},
        FilterExpression="#legacy0 >= :legacy0",
        ProjectionExpression="sk, #legacy0",
        ExpressionAttributeNames={"#legacy0": "n"},
        ExpressionAttributeValues={":legacy0": N(20)},
    )
    assert response["Items"] == [{"sk": N(2), "n": N(20)}, {"sk": N(3), "n": N(30)}]


# ------------------------------------------------------------------------------------------ errors

INVALID = "One or more parameter values were invalid: "
KEY = {"pk": S("p"), "sk": N(1)}
ITEM = {"pk": S("p"), "sk": N(1)}
EQ_X = _cond("EQ", S("x"))

# id -> (operation, request without TableName, the message DynamoDB returns)
ERROR_CASES = {
    "mixing-expected": (
        "put_item",
        {"Item": ITEM, "Expected": {"a": EQ_X}, "ConditionExpression": "attribute_exists(a)"},
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}",
    ),
    "mixing-update": (
        "update_item",
        {
            "Key": KEY,
            "AttributeUpdates": {"a": {"Value": S("v")}},
            "Expected": {"a": EQ_X, "b": EQ_X},
            "ConditionalOperator": "AND",
            "UpdateExpression": "SET a = :v",
            "ConditionExpression": "attribute_exists(pk)",
            "ExpressionAttributeValues": {":v": S("x")},
        },
        "Non-expression parameters: {AttributeUpdates, Expected, ConditionalOperator} "
        "Expression parameters: {UpdateExpression, ConditionExpression}",
    ),
    "mixing-scan": (
        "scan",
        {"AttributesToGet": ["a"], "ScanFilter": {"a": EQ_X}, "ProjectionExpression": "b"},
        "Non-expression parameters: {AttributesToGet, ScanFilter} Expression parameters: {ProjectionExpression}",
    ),
    "mixing-key-conditions": (
        "query",
        {
            "KeyConditions": {"pk": EQ_X},
            "KeyConditionExpression": "pk = :p",
            "ExpressionAttributeValues": {":p": S("p")},
        },
        "Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}",
    ),
    "mixing-get": (
        "get_item",
        {"Key": KEY, "AttributesToGet": ["a"], "ProjectionExpression": "a"},
        "Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
    ),
    "conditional-operator-alone": (
        "delete_item",
        {"Key": KEY, "ConditionalOperator": "AND"},
        "ConditionalOperator cannot be used without Filter or Expected",
    ),
    "conditional-operator-one-condition": (
        "scan",
        {"ScanFilter": {"a": EQ_X}, "ConditionalOperator": "OR"},
        "ConditionalOperator can only be used when Filter or Expected has two or more elements",
    ),
    "conditional-operator-query-before-key-check": (
        "query",
        {"ConditionalOperator": "AND"},
        "ConditionalOperator cannot be used without Filter or Expected",
    ),
    "names-without-expression": (
        "put_item",
        {"Item": ITEM, "Expected": {"a": EQ_X}, "ExpressionAttributeNames": {"#a": "a"}},
        "ExpressionAttributeNames can only be specified when using expressions",
    ),
    "values-without-expression": (
        "update_item",
        {"Key": KEY, "AttributeUpdates": {}, "ExpressionAttributeValues": {":v": S("x")}},
        "ExpressionAttributeValues can only be specified when using expressions: "
        "UpdateExpression and ConditionExpression are null",
    ),
    "exists-with-operator": (
        "put_item",
        {"Item": ITEM, "Expected": {"a": {"Exists": True, "ComparisonOperator": "NULL"}}},
        INVALID + "Exists and ComparisonOperator cannot be used together for Attribute: a",
    ),
    "value-and-list": (
        "put_item",
        {"Item": ITEM, "Expected": {"a": {"Value": S("x"), **EQ_X}}},
        INVALID + "Value and AttributeValueList cannot be used together for Attribute: a",
    ),
    "list-without-operator": (
        "put_item",
        {"Item": ITEM, "Expected": {"a": {"AttributeValueList": [S("x")]}}},
        INVALID + "AttributeValueList can only be used with a ComparisonOperator for Attribute: a",
    ),
    "value-with-exists-false": (
        "put_item",
        {"Item": ITEM, "Expected": {"a": {"Value": S("x"), "Exists": False}}},
        INVALID + "Value cannot be used when Exists is false for Attribute: a",
    ),
    "exists-true-without-value": (
        "put_item",
        {"Item": ITEM, "Expected": {"a": {"Exists": True}}},
        INVALID + "Value must be provided when Exists is true for Attribute: a",
    ),
    "empty-expected-entry": (
        "put_item",
        {"Item": ITEM, "Expected": {"a": {}}},
        INVALID + "Value must be provided when Exists is null for Attribute: a",
    ),
    "operator-without-operands": (
        "put_item",
        {"Item": ITEM, "Expected": {"a": {"ComparisonOperator": "GT"}}},
        INVALID + "Value or AttributeValueList must be used with ComparisonOperator: GT for Attribute: a",
    ),
    "count-EQ": (
        "scan",
        {"ScanFilter": {"a": _cond("EQ")}},
        INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator",
    ),
    "count-NULL": (
        "put_item",
        {"Item": ITEM, "Expected": {"a": {"Value": S("x"), "ComparisonOperator": "NULL"}}},
        INVALID + "Invalid number of argument(s) for the NULL ComparisonOperator",
    ),
    "count-BETWEEN": (
        "scan",
        {"ScanFilter": {"a": _cond("BETWEEN", N(1), N(2), N(3))}},
        INVALID + "Invalid number of argument(s) for the BETWEEN ComparisonOperator",
    ),
    "count-IN": (
        "scan",
        {"ScanFilter": {"a": _cond("IN")}},
        INVALID + "Invalid number of argument(s) for the IN ComparisonOperator",
    ),
    "mixed-types": (
        "scan",
        {"ScanFilter": {"a": _cond("IN", S("x"), N(1))}},
        INVALID + "AttributeValues inside AttributeValueList must be of same type",
    ),
    "type-LT-set": (
        "scan",
        {"ScanFilter": {"a": _cond("LT", {"SS": ["x"]})}},
        INVALID + "ComparisonOperator LT is not valid for SS AttributeValue type",
    ),
    "type-CONTAINS-list": (
        "query",
        {"KeyConditions": {"pk": EQ_X}, "QueryFilter": {"a": _cond("CONTAINS", {"L": []})}},
        INVALID + "ComparisonOperator CONTAINS is not valid for L AttributeValue type",
    ),
    "type-BEGINS_WITH-number": (
        "put_item",
        {"Item": ITEM, "Expected": {"a": _cond("BEGINS_WITH", N(1))}},
        INVALID + "ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type",
    ),
    "between-reversed": (
        "scan",
        {"ScanFilter": {"a": _cond("BETWEEN", N(5), N(1))}},
        "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
    ),
    "invalid-operand-value": (
        "scan",
        {"ScanFilter": {"a": _cond("EQ", N("x"))}},
        "The parameter cannot be converted to a numeric value",
    ),
    "update-no-value": (
        "update_item",
        {"Key": KEY, "AttributeUpdates": {"a": {"Action": "ADD"}}},
        INVALID + "Only DELETE action is allowed when no attribute value is specified",
    ),
    "update-add-string": (
        "update_item",
        {"Key": KEY, "AttributeUpdates": {"a": {"Action": "ADD", "Value": S("x")}}},
        INVALID + "ADD action is not supported for the type S",
    ),
    "update-delete-number": (
        "update_item",
        {"Key": KEY, "AttributeUpdates": {"a": {"Action": "DELETE", "Value": N(1)}}},
        INVALID + "DELETE action with value is not supported for the type N",
    ),
    "duplicate-attributes-to-get": (
        "get_item",
        {"Key": KEY, "AttributesToGet": ["a", "b", "a"]},
        INVALID + "Duplicate value in attribute name: a",
    ),
    "key-not-indexable": (
        "query",
        {"KeyConditions": {"pk": EQ_X, "sk": _cond("NE", N(1))}},
        "Attempted conditional constraint is not an indexable operation",
    ),
    "key-three-conditions": (
        "query",
        {"KeyConditions": {"pk": EQ_X, "sk": _cond("EQ", N(1)), "n": _cond("EQ", N(1))}},
        "Conditions can be of length 1 or 2 only",
    ),
    "key-hash-not-EQ": (
        "query",
        {"KeyConditions": {"pk": _cond("BEGINS_WITH", S("p"))}},
        "Query key condition not supported",
    ),
    "key-hash-missing": (
        "query",
        {"KeyConditions": {"sk": _cond("EQ", N(1))}},
        "Query condition missed key schema element: pk",
    ),
    # An empty name is reported in the caller's own terms, never as a generated #legacyN placeholder
    # (docs/legacy-parameters.md: the wording is ours).
    "empty-name-attributes-to-get": (
        "get_item",
        {"Key": KEY, "AttributesToGet": ["a", ""]},
        INVALID + "AttributesToGet contains an empty attribute name",
    ),
    "empty-name-attribute-updates": (
        "update_item",
        {"Key": KEY, "AttributeUpdates": {"": {"Action": "PUT", "Value": S("x")}}},
        INVALID + "AttributeUpdates contains an empty attribute name",
    ),
    "empty-name-expected": (
        "delete_item",
        {"Key": KEY, "Expected": {"": {"Exists": False}}},
        INVALID + "Expected contains an empty attribute name",
    ),
    "empty-name-scan-filter": (
        "scan",
        {"ScanFilter": {"": _cond("NULL")}},
        INVALID + "ScanFilter contains an empty attribute name",
    ),
    "empty-name-query-filter": (
        "query",
        {"KeyConditions": {"pk": EQ_X}, "QueryFilter": {"": _cond("NULL")}},
        INVALID + "QueryFilter contains an empty attribute name",
    ),
    "empty-name-key-conditions": (
        "query",
        {"KeyConditions": {"": EQ_X}},
        INVALID + "KeyConditions contains an empty attribute name",
    ),
}


@pytest.mark.parametrize(
    ("operation", "request_", "message"),
    cases(
        ERROR_CASES,
        dict.fromkeys(
            set(ERROR_CASES) - {"mixing-get", "key-hash-not-EQ", "key-hash-missing"},
            "moto lacks this legacy validation or words it differently",
        ),
    ),
)
def test_legacy_errors(client, table, operation, request_, message):
    with raises_dynamodb("ValidationException", message):
        getattr(client, operation)(TableName=table, **request_)


@moto_differs("moto does not validate BatchGetItem's AttributesToGet")
def test_batch_get_errors_per_table(client, table):
    with raises_dynamodb("ValidationException", "Non-expression parameters: {AttributesToGet}"):
        client.batch_get_item(
            RequestItems={table: {"Keys": [KEY], "AttributesToGet": ["a"], "ProjectionExpression": "a"}}
        )
    with raises_dynamodb("ValidationException", INVALID + "Duplicate value in attribute name: s"):
        client.batch_get_item(RequestItems={table: {"Keys": [KEY], "AttributesToGet": ["s", "s"]}})
    with raises_dynamodb("ValidationException", INVALID + "AttributesToGet contains an empty attribute name"):
        client.batch_get_item(RequestItems={table: {"Keys": [KEY], "AttributesToGet": [""]}})


# ------------------------------------------------------------------------------ translate() itself


def test_translate_is_a_no_op_without_legacy_parameters():
    request = {"TableName": "t", "Key": {"pk": S("p")}, "ProjectionExpression": "a"}
    assert translate("GetItem", request) is request
    batch = {"RequestItems": {"t": {"Keys": [{"pk": S("p")}]}}}
    assert translate("BatchGetItem", batch) is batch


def test_translate_returns_a_new_request_and_leaves_the_input_alone():
    request = {
        "TableName": "t",
        "Key": {"pk": S("p")},
        "Expected": {"a": {"Value": S("x")}, "b": {"Exists": False}},
        "ConditionalOperator": "OR",
        "AttributeUpdates": {"c": {"Action": "ADD", "Value": N(1)}},
    }
    before = copy.deepcopy(request)
    out = translate("UpdateItem", request)
    assert request == before
    assert out == {
        "TableName": "t",
        "Key": {"pk": S("p")},
        "ConditionExpression": "(#legacy0 = :legacy0) OR (attribute_not_exists(#legacy1))",
        "UpdateExpression": "ADD #legacy2 :legacy1",
        "ExpressionAttributeNames": {"#legacy0": "a", "#legacy1": "b", "#legacy2": "c"},
        "ExpressionAttributeValues": {":legacy0": S("x"), ":legacy1": N(1)},
    }
