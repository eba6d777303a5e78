"""ReturnValues per operation: which values each write accepts and what each returns.

Reference: API Reference PutItem / UpdateItem / DeleteItem, parameter ReturnValues: PutItem and
DeleteItem accept only NONE and ALL_OLD; UpdateItem accepts NONE, ALL_OLD, UPDATED_OLD, ALL_NEW,
UPDATED_NEW.
"""

from __future__ import annotations

import pytest

from ._support import cases, moto_differs, raises_dynamodb

KEY = {"pk": {"S": "k"}}
OLD = {
    **KEY,
    "a": {"N": "1"},
    "b": {"N": "2"},
    "c": {"N": "3"},
    "m": {"M": {"x": {"N": "1"}, "y": {"N": "2"}}},
}
NEW = {
    **KEY,
    "a": {"N": "10"},
    "c": {"N": "3"},
    "d": {"S": "new"},
    "m": {"M": {"x": {"N": "5"}, "y": {"N": "2"}}},
}
UPDATE = "SET a = :ten, d = :new, m.x = :five REMOVE b"
UPDATE_VALUES = {":ten": {"N": "10"}, ":new": {"S": "new"}, ":five": {"N": "5"}}

UPDATE_RETURNS = {
    "NONE": None,
    "ALL_OLD": OLD,
    "ALL_NEW": NEW,
    # Only the updated paths: nested updates come back as the nested path, not the whole map.
    "UPDATED_OLD": {"a": {"N": "1"}, "b": {"N": "2"}, "m": {"M": {"x": {"N": "1"}}}},
    "UPDATED_NEW": {"a": {"N": "10"}, "d": {"S": "new"}, "m": {"M": {"x": {"N": "5"}}}},
}


@pytest.mark.parametrize(
    ("return_values", "expected"),
    cases(
        {k: (k, v) for k, v in UPDATE_RETURNS.items()},
        moto={"UPDATED_OLD": "returns whole maps for nested updates"},
    ),
)
def test_update_item_return_values(client, make_table, return_values, expected):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=OLD)
    response = client.update_item(
        TableName=table,
        Key=KEY,
        UpdateExpression=UPDATE,
        ExpressionAttributeValues=UPDATE_VALUES,
        ReturnValues=return_values,
    )
    assert response.get("Attributes") == expected
    assert client.get_item(TableName=table, Key=KEY)["Item"] == NEW


@pytest.mark.parametrize("return_values", ["ALL_OLD", "UPDATED_OLD"])
def test_update_item_old_values_of_a_new_item_are_absent(client, make_table, return_values):
    table = make_table("hash_s")
    response = client.update_item(
        TableName=table,
        Key=KEY,
        UpdateExpression="SET a = :ten",
        ExpressionAttributeValues={":ten": {"N": "10"}},
        ReturnValues=return_values,
    )
    assert "Attributes" not in response


def test_update_item_all_new_of_a_new_item_includes_the_key(client, make_table):
    table = make_table("hash_s")
    response = client.update_item(
        TableName=table,
        Key=KEY,
        UpdateExpression="SET a = :ten",
        ExpressionAttributeValues={":ten": {"N": "10"}},
        ReturnValues="ALL_NEW",
    )
    assert response["Attributes"] == {**KEY, "a": {"N": "10"}}


SIMPLE_WRITES = {
    "PutItem": lambda c, t, rv: c.put_item(TableName=t, Item={**KEY, "z": {"S": "z"}}, ReturnValues=rv),
    "DeleteItem": lambda c, t, rv: c.delete_item(TableName=t, Key=KEY, ReturnValues=rv),
}


@pytest.mark.parametrize("write", SIMPLE_WRITES.values(), ids=SIMPLE_WRITES.keys())
def test_put_and_delete_return_the_old_item_with_all_old(client, make_table, write):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=OLD)
    assert write(client, table, "ALL_OLD")["Attributes"] == OLD


@pytest.mark.parametrize("write", SIMPLE_WRITES.values(), ids=SIMPLE_WRITES.keys())
def test_put_and_delete_return_nothing_with_none(client, make_table, write):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=OLD)
    assert "Attributes" not in write(client, table, "NONE")


def test_put_all_old_of_a_new_item_is_absent(client, make_table):
    table = make_table("hash_s")
    assert "Attributes" not in client.put_item(TableName=table, Item=OLD, ReturnValues="ALL_OLD")


def test_delete_all_old_of_a_missing_item_is_absent(client, make_table):
    table = make_table("hash_s")
    assert "Attributes" not in client.delete_item(TableName=table, Key=KEY, ReturnValues="ALL_OLD")


@pytest.mark.parametrize("return_values", ["UPDATED_OLD", "UPDATED_NEW", "ALL_NEW"])
@pytest.mark.parametrize("write", SIMPLE_WRITES.values(), ids=SIMPLE_WRITES.keys())
def test_put_and_delete_reject_update_only_return_values(client, make_table, write, return_values):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=OLD)
    # DynamoDB's wording, seen from the service since at least 2015.
    with raises_dynamodb("ValidationException", "Return values set to invalid value"):
        write(client, table, return_values)
    assert client.get_item(TableName=table, Key=KEY)["Item"] == OLD


@moto_differs("accepts unknown ReturnValues")
def test_unknown_return_values_are_rejected(client, make_table):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "returnValues"):
        client.update_item(
            TableName=table,
            Key=KEY,
            UpdateExpression="SET a = :ten",
            ExpressionAttributeValues={":ten": {"N": "10"}},
            ReturnValues="EVERYTHING",
        )
    assert "Item" not in client.get_item(TableName=table, Key=KEY)
