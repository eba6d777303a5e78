"""The boto3 service resource over the engine: Table, conditions, batch_writer, Python types.

boto3's resource layer serialises Python values (Decimal, set, Binary) to the wire shape and back;
these tests check that the round trip through the backend preserves them.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from boto3.dynamodb.conditions import Attr, Key
from boto3.dynamodb.types import Binary

from ._support import create_table, engine_only


@pytest.fixture
def table(resource):
    name = create_table(resource.meta.client, "hash_range_n", "orders")
    return resource.Table(name)


def test_put_and_get_python_values(table):
    item = {
        "pk": "customer",
        "sk": Decimal(1),
        "total": Decimal("12.50"),
        "tags": {"a", "b"},
        "scores": {Decimal(1), Decimal("2.5")},
        "blob": Binary(b"\x00\xff"),
        "nested": {"list": [Decimal(1), "two", None, True], "empty": ""},
    }
    table.put_item(Item=item)
    got = table.get_item(Key={"pk": "customer", "sk": 1})["Item"]
    assert got == {**item, "total": Decimal("12.5")}


def test_query_with_key_and_attr_conditions(table):
    with table.batch_writer() as batch:
        for i in range(20):
            batch.put_item(Item={"pk": "c", "sk": i, "odd": i % 2 == 1})
    items = table.query(
        KeyConditionExpression=Key("pk").eq("c") & Key("sk").between(5, 12),
        FilterExpression=Attr("odd").eq(True),
        ScanIndexForward=False,
    )["Items"]
    assert [int(i["sk"]) for i in items] == [11, 9, 7, 5]


def test_batch_writer_chunks_past_25_and_deletes(table):
    with table.batch_writer() as batch:
        for i in range(60):
            batch.put_item(Item={"pk": "b", "sk": i})
    with table.batch_writer() as batch:
        for i in range(0, 60, 3):
            batch.delete_item(Key={"pk": "b", "sk": i})
    assert table.scan(Select="COUNT")["Count"] == 40


def test_update_item_returns_python_values(table):
    table.put_item(Item={"pk": "u", "sk": 1, "n": 5})
    response = table.update_item(
        Key={"pk": "u", "sk": 1},
        UpdateExpression="SET n = n + :inc, tags = :t",
        ExpressionAttributeValues={":inc": Decimal("0.5"), ":t": {"x"}},
        ReturnValues="UPDATED_NEW",
    )
    assert response["Attributes"] == {"n": Decimal("5.5"), "tags": {"x"}}


def test_conditional_put_raises_the_modelled_exception(table):
    table.put_item(Item={"pk": "c", "sk": 1})
    with pytest.raises(table.meta.client.exceptions.ConditionalCheckFailedException):
        table.put_item(Item={"pk": "c", "sk": 1}, ConditionExpression=Attr("pk").not_exists())


def test_table_attributes_load(table):
    table.put_item(Item={"pk": "c", "sk": 1})
    table.reload()
    assert table.table_status == "ACTIVE"
    assert [k["AttributeName"] for k in table.key_schema] == ["pk", "sk"]


@engine_only("file persistence is the engine's")
def test_connect_with_a_path_persists_between_clients(tmp_path):
    import tablewright

    path = str(tmp_path / "data.db")
    first = tablewright.connect(path)
    create_table(first, "hash_s", "kept")
    first.put_item(TableName="kept", Item={"pk": {"S": "k"}, "v": {"N": "1"}})
    second = tablewright.connect(path)
    assert second.get_item(TableName="kept", Key={"pk": {"S": "k"}})["Item"] == {
        "pk": {"S": "k"},
        "v": {"N": "1"},
    }
    third = tablewright.resource(path)
    assert third.Table("kept").get_item(Key={"pk": "k"})["Item"] == {"pk": "k", "v": Decimal(1)}


@engine_only("separate in-memory engines are the engine's")
def test_each_in_memory_connection_is_a_fresh_engine():
    import tablewright

    first, second = tablewright.connect(), tablewright.connect()
    create_table(first, "hash_s", "only_here")
    assert "only_here" not in second.list_tables()["TableNames"]


@engine_only("the wire API is the engine's")
def test_engine_handle_speaks_the_wire_format():
    from tablewright.engine import Engine

    engine = Engine()
    engine.handle(
        "CreateTable",
        {
            "TableName": "wire",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "B"}],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    engine.handle("PutItem", {"TableName": "wire", "Item": {"pk": {"B": "AP8="}, "n": {"N": "1.50"}}})
    got = engine.handle("GetItem", {"TableName": "wire", "Key": {"pk": {"B": "AP8="}}})
    # Binary values are base64 strings and numbers are normalised strings, exactly as on the wire.
    assert got["Item"] == {"pk": {"B": "AP8="}, "n": {"N": "1.5"}}
