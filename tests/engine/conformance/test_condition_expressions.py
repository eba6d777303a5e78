"""ConditionExpression: every comparator and function, precedence, nosuch attributes, failure shape.

Reference: Developer Guide, "Condition and filter expressions, operators, and functions"
(Expressions.OperatorsAndFunctions.html).
"""

from __future__ import annotations

import re

import pytest

from ._support import cases, moto_differs, raises_dynamodb

ITEM = {
    "pk": {"S": "k"},
    "n": {"N": "5"},
    "s": {"S": "hello"},
    "sn": {"S": "10"},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2"]},
    "l": {"L": [{"N": "1"}, {"S": "x"}]},
    "m": {"M": {"deep": {"S": "v"}, "num": {"N": "3"}}},
    "b": {"B": b"\x01\x02"},
    "t": {"BOOL": True},
    "nul": {"NULL": True},
    "blank": {"S": ""},
}

VALUES = {
    ":one": {"N": "1"},
    ":two": {"N": "2"},
    ":four": {"N": "4"},
    ":five": {"N": "5"},
    ":six": {"N": "6"},
    ":str5": {"S": "5"},
    ":hello": {"S": "hello"},
    ":he": {"S": "he"},
    ":ell": {"S": "ell"},
    ":nope": {"S": "nope"},
    ":s9": {"S": "9"},
    ":a": {"S": "a"},
    ":x": {"S": "x"},
    ":v": {"S": "v"},
    ":bin": {"B": b"\x01\x02"},
    ":b1": {"B": b"\x01"},
    ":true": {"BOOL": True},
    ":S": {"S": "S"},
    ":N": {"S": "N"},
    ":SS": {"S": "SS"},
    ":M": {"S": "M"},
    ":L": {"S": "L"},
    ":NULL": {"S": "NULL"},
    ":BOOL": {"S": "BOOL"},
    ":blank": {"S": ""},
}

CONDITIONS = {
    # comparators
    "n = :five": True,
    "n <> :five": False,
    "n < :six": True,
    "n <= :five": True,
    "n > :four": True,
    "n >= :six": False,
    "n BETWEEN :four AND :six": True,
    "n BETWEEN :six AND :six": False,
    "n IN (:four, :five)": True,
    "n IN (:four, :six)": False,
    "s = :hello": True,
    "s < :nope": True,
    "sn < :s9": True,  # strings compare by bytes: "10" < "9"
    "b = :bin": True,
    "b > :b1": True,
    "t = :true": True,
    "blank = :blank": True,
    # different types never compare equal, and ordering across types is false
    "n = :str5": False,
    "n <> :str5": True,
    "n < :hello": False,  # an attribute's type is only known at run time: no error, just false
    # a nosuch attribute: = is false, <> is true
    "nosuch = :five": False,
    "nosuch <> :five": True,
    "nosuch < :five": False,
    # functions
    "attribute_exists(s)": True,
    "attribute_exists(nosuch)": False,
    "attribute_not_exists(nosuch)": True,
    "attribute_not_exists(s)": False,
    "attribute_exists(m.deep)": True,
    "attribute_exists(m.nosuch)": False,
    "attribute_exists(l[1])": True,
    "attribute_exists(l[2])": False,
    "attribute_exists(nul)": True,
    "attribute_type(s, :S)": True,
    "attribute_type(s, :N)": False,
    "attribute_type(n, :N)": True,
    "attribute_type(ss, :SS)": True,
    "attribute_type(m, :M)": True,
    "attribute_type(l, :L)": True,
    "attribute_type(nul, :NULL)": True,
    "attribute_type(t, :BOOL)": True,
    "begins_with(s, :he)": True,
    "begins_with(s, :ell)": False,
    "contains(s, :ell)": True,
    "contains(s, :nope)": False,
    "contains(ss, :a)": True,
    "contains(ss, :x)": False,
    "contains(ns, :two)": True,
    "contains(l, :x)": True,
    "contains(l, :one)": True,
    "contains(l, :a)": False,
    "size(s) = :five": True,
    "size(ss) = :two": True,
    "size(l) = :two": True,
    "size(m) = :two": True,
    "size(b) = :two": True,
    "size(nosuch) = :five": False,
    # document paths
    "m.deep = :v": True,
    "m.num < :four": True,
    "l[0] = :one": True,
    "l[1] = :x": True,
    "l[5] = :x": False,
    # logic and precedence: NOT > AND > OR
    "NOT n = :five": False,
    "NOT n = :four": True,
    "n = :five AND s = :hello": True,
    "n = :five AND s = :nope": False,
    "n = :four OR s = :hello": True,
    "n = :five OR n = :four AND s = :nope": True,  # n=5 OR (n=4 AND s=nope)
    "(n = :five OR n = :four) AND s = :nope": False,
    "NOT n = :four AND n = :four": False,  # (NOT n=4) AND n=4
    "NOT (n = :four AND n = :four)": True,
}


def _values_for(expression: str) -> dict:
    # Only the placeholders the expression uses: unused ones are an error in DynamoDB.
    return {name: VALUES[name] for name in set(re.findall(r":\w+", expression))}


@pytest.mark.parametrize(
    ("condition", "holds"),
    cases(
        {c: (c, holds) for c, holds in CONDITIONS.items()},
        moto={
            "n < :hello": "raises TypeError comparing a number with a string",
            "size(nosuch) = :five": "raises ValueError for size() of a missing attribute",
        },
    ),
)
def test_condition_expression_evaluates_like_dynamodb(client, make_table, condition, holds):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=ITEM)
    request = {
        "TableName": table,
        "Item": {**ITEM, "written": {"BOOL": True}},
        "ConditionExpression": condition,
        "ExpressionAttributeValues": _values_for(condition),
    }
    if not request["ExpressionAttributeValues"]:
        del request["ExpressionAttributeValues"]
    if holds:
        client.put_item(**request)
        stored = client.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"]
        assert stored.get("written") == {"BOOL": True}
    else:
        with raises_dynamodb("ConditionalCheckFailedException", "The conditional request failed"):
            client.put_item(**request)
        stored = client.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"]
        assert "written" not in stored


def test_attribute_not_exists_on_the_key_makes_put_create_only(client, make_table):
    table = make_table("hash_s")
    create_only = {"TableName": table, "ConditionExpression": "attribute_not_exists(pk)"}
    client.put_item(Item={"pk": {"S": "k"}, "v": {"N": "1"}}, **create_only)
    with raises_dynamodb("ConditionalCheckFailedException"):
        client.put_item(Item={"pk": {"S": "k"}, "v": {"N": "2"}}, **create_only)
    assert client.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"]["v"] == {"N": "1"}


def test_condition_on_a_nosuch_item_sees_no_attributes(client, make_table):
    table = make_table("hash_s")
    with raises_dynamodb("ConditionalCheckFailedException"):
        client.delete_item(
            TableName=table, Key={"pk": {"S": "k"}}, ConditionExpression="attribute_exists(pk)"
        )
    with raises_dynamodb("ConditionalCheckFailedException"):
        client.update_item(
            TableName=table,
            Key={"pk": {"S": "k"}},
            UpdateExpression="SET v = :one",
            ConditionExpression="v = :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
        )
    assert "Item" not in client.get_item(TableName=table, Key={"pk": {"S": "k"}})


def test_optimistic_locking_with_a_version_attribute(client, make_table):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={"pk": {"S": "k"}, "version": {"N": "1"}})
    bump = {
        "TableName": table,
        "Key": {"pk": {"S": "k"}},
        "UpdateExpression": "SET version = version + :one",
        "ConditionExpression": "version = :expected",
    }
    client.update_item(**bump, ExpressionAttributeValues={":one": {"N": "1"}, ":expected": {"N": "1"}})
    with raises_dynamodb("ConditionalCheckFailedException"):
        client.update_item(**bump, ExpressionAttributeValues={":one": {"N": "1"}, ":expected": {"N": "1"}})
    assert client.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"]["version"] == {"N": "2"}


# ---------------------------------------------------------------- ReturnValuesOnConditionCheckFailure

FAILING_WRITES = {
    "PutItem": lambda c, t: c.put_item(
        TableName=t, Item={"pk": {"S": "k"}}, ConditionExpression="attribute_not_exists(pk)", **_ALL_OLD
    ),
    "UpdateItem": lambda c, t: c.update_item(
        TableName=t,
        Key={"pk": {"S": "k"}},
        UpdateExpression="SET v = :two",
        ConditionExpression="v = :two",
        ExpressionAttributeValues={":two": {"N": "2"}},
        **_ALL_OLD,
    ),
    "DeleteItem": lambda c, t: c.delete_item(
        TableName=t, Key={"pk": {"S": "k"}}, ConditionExpression="attribute_not_exists(pk)", **_ALL_OLD
    ),
}
_ALL_OLD = {"ReturnValuesOnConditionCheckFailure": "ALL_OLD"}


@pytest.mark.parametrize("write", FAILING_WRITES.values(), ids=FAILING_WRITES.keys())
def test_failed_condition_returns_the_item_when_asked(client, make_table, write):
    table = make_table("hash_s")
    stored = {"pk": {"S": "k"}, "v": {"N": "1"}, "m": {"M": {"x": {"S": "y"}}}}
    client.put_item(TableName=table, Item=stored)
    with raises_dynamodb("ConditionalCheckFailedException", "The conditional request failed") as info:
        write(client, table)
    assert info.value.response["Item"] == stored
    assert client.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"] == stored


def test_failed_condition_carries_no_item_unless_asked(client, make_table):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={"pk": {"S": "k"}})
    with raises_dynamodb("ConditionalCheckFailedException") as info:
        client.put_item(
            TableName=table, Item={"pk": {"S": "k"}}, ConditionExpression="attribute_not_exists(pk)"
        )
    assert "Item" not in info.value.response


def test_failed_condition_on_a_nosuch_item_carries_no_item(client, make_table):
    table = make_table("hash_s")
    with raises_dynamodb("ConditionalCheckFailedException") as info:
        client.delete_item(
            TableName=table, Key={"pk": {"S": "k"}}, ConditionExpression="attribute_exists(pk)", **_ALL_OLD
        )
    assert "Item" not in info.value.response


def test_conditional_check_failed_is_the_modelled_exception_class(client, make_table):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={"pk": {"S": "k"}})
    with pytest.raises(client.exceptions.ConditionalCheckFailedException):
        client.put_item(
            TableName=table, Item={"pk": {"S": "k"}}, ConditionExpression="attribute_not_exists(pk)"
        )


# ------------------------------------------------------------------------------------------ bad input

BAD_CONDITIONS = {
    "syntax": ("n = = :five", "Syntax error"),
    "unknown function": ("nofunc(n)", "Invalid function name"),
    "function as operand": ("attribute_exists(n) = :five", "ConditionExpression"),
    "size of nothing": ("size() = :five", "ConditionExpression"),
    "unbalanced parenthesis": ("(n = :five", "Syntax error"),
}


@moto_differs("raises a Python ValueError instead of a ValidationException")
@pytest.mark.parametrize(("condition", "phrase"), cases(BAD_CONDITIONS))
def test_malformed_condition_expressions_are_rejected(client, make_table, condition, phrase):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=ITEM)
    with raises_dynamodb("ValidationException", "Invalid ConditionExpression", phrase):
        client.put_item(
            TableName=table,
            Item=ITEM,
            ConditionExpression=condition,
            ExpressionAttributeValues={":five": {"N": "5"}},
        )
