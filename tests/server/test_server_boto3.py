"""boto3's client and resource against the served engine: the everyday DynamoDB flow over HTTP."""

from __future__ import annotations

import pytest
from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

from ._support import create_table


def code_of(call, *args, **kwargs) -> tuple[str, int]:
    with pytest.raises(ClientError) as caught:
        call(*args, **kwargs)
    return caught.value.response["Error"]["Code"], caught.value.response["ResponseMetadata"]["HTTPStatusCode"]


def test_create_put_get_and_conditional_update(client):
    create_table(client)
    assert client.list_tables()["TableNames"] == ["items"]
    client.put_item(TableName="items", Item={"pk": {"S": "a"}, "n": {"N": "1"}, "b": {"B": b"\x00\xff"}})
    item = client.get_item(TableName="items", Key={"pk": {"S": "a"}})["Item"]
    assert item == {"pk": {"S": "a"}, "n": {"N": "1"}, "b": {"B": b"\x00\xff"}}
    updated = client.update_item(
        TableName="items",
        Key={"pk": {"S": "a"}},
        UpdateExpression="SET n = n + :one",
        ConditionExpression="n = :expected",
        ExpressionAttributeValues={":one": {"N": "1"}, ":expected": {"N": "1"}},
        ReturnValues="ALL_NEW",
    )
    assert updated["Attributes"]["n"] == {"N": "2"}
    # The same condition is now false: DynamoDB's error, code and status, through boto3's parser.
    assert code_of(
        client.update_item,
        TableName="items",
        Key={"pk": {"S": "a"}},
        UpdateExpression="SET n = n + :one",
        ConditionExpression="n = :expected",
        ExpressionAttributeValues={":one": {"N": "1"}, ":expected": {"N": "1"}},
    ) == ("ConditionalCheckFailedException", 400)


def test_paginated_query(client):
    create_table(client, "events", sort_key=True)
    for n in range(25):
        client.put_item(TableName="events", Item={"pk": {"S": "user"}, "sk": {"N": str(n)}})
    client.put_item(TableName="events", Item={"pk": {"S": "other"}, "sk": {"N": "1"}})
    pages = client.get_paginator("query").paginate(
        TableName="events",
        KeyConditionExpression="pk = :pk AND sk >= :from",
        ExpressionAttributeValues={":pk": {"S": "user"}, ":from": {"N": "5"}},
        PaginationConfig={"PageSize": 6},
    )
    seen = [int(item["sk"]["N"]) for page in pages for item in page["Items"]]
    assert seen == list(range(5, 25))


def test_batch_write_and_batch_get(client):
    create_table(client)
    client.batch_write_item(
        RequestItems={
            "items": [{"PutRequest": {"Item": {"pk": {"S": f"k{n}"}, "n": {"N": str(n)}}}} for n in range(25)]
        }
    )
    response = client.batch_get_item(
        RequestItems={"items": {"Keys": [{"pk": {"S": f"k{n}"}} for n in range(0, 25, 5)]}}
    )
    assert sorted(int(item["n"]["N"]) for item in response["Responses"]["items"]) == [0, 5, 10, 15, 20]
    assert response["UnprocessedKeys"] == {}


def test_transaction_commits_or_cancels_as_a_whole(client):
    create_table(client)
    client.put_item(TableName="items", Item={"pk": {"S": "account"}, "balance": {"N": "10"}})
    client.transact_write_items(
        TransactItems=[
            {
                "Update": {
                    "TableName": "items",
                    "Key": {"pk": {"S": "account"}},
                    "UpdateExpression": "SET balance = balance - :amount",
                    "ConditionExpression": "balance >= :amount",
                    "ExpressionAttributeValues": {":amount": {"N": "7"}},
                }
            },
            {"Put": {"TableName": "items", "Item": {"pk": {"S": "receipt-1"}}}},
        ]
    )
    with pytest.raises(ClientError) as caught:
        client.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": "items",
                        "Key": {"pk": {"S": "account"}},
                        "UpdateExpression": "SET balance = balance - :amount",
                        "ConditionExpression": "balance >= :amount",
                        "ExpressionAttributeValues": {":amount": {"N": "7"}},
                    }
                },
                {"Put": {"TableName": "items", "Item": {"pk": {"S": "receipt-2"}}}},
            ]
        )
    error = caught.value.response
    assert error["Error"]["Code"] == "TransactionCanceledException"
    assert [reason["Code"] for reason in error["CancellationReasons"]] == ["ConditionalCheckFailed", "None"]
    keys = [{"pk": {"S": "account"}}, {"pk": {"S": "receipt-1"}}, {"pk": {"S": "receipt-2"}}]
    got = client.transact_get_items(
        TransactItems=[{"Get": {"TableName": "items", "Key": key}} for key in keys]
    )
    assert [response.get("Item", {}).get("pk", {}).get("S") for response in got["Responses"]] == [
        "account",
        "receipt-1",
        None,
    ]
    assert got["Responses"][0]["Item"]["balance"] == {"N": "3"}


def test_error_cases_carry_dynamodb_codes(client):
    assert code_of(client.get_item, TableName="missing", Key={"pk": {"S": "a"}}) == (
        "ResourceNotFoundException",
        400,
    )
    create_table(client)
    assert code_of(create_table, client) == ("ResourceInUseException", 400)
    assert code_of(client.put_item, TableName="items", Item={"other": {"S": "no key"}}) == (
        "ValidationException",
        400,
    )


def test_resource_layer_with_conditions(resource):
    table = resource.create_table(
        TableName="people",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}, {"AttributeName": "seq", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "id", "AttributeType": "S"},
            {"AttributeName": "seq", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    with table.batch_writer() as batch:
        for seq in range(10):
            batch.put_item(Item={"id": "ann", "seq": seq, "tags": {"x", "y"}, "even": seq % 2 == 0})
    found = table.query(
        KeyConditionExpression=Key("id").eq("ann") & Key("seq").between(2, 7),
        FilterExpression=Attr("even").eq(True),
    )
    assert [item["seq"] for item in found["Items"]] == [2, 4, 6]
    assert found["Items"][0]["tags"] == {"x", "y"}
    with pytest.raises(ClientError) as caught:
        table.put_item(Item={"id": "ann", "seq": 1}, ConditionExpression=Attr("id").not_exists())
    assert caught.value.response["Error"]["Code"] == "ConditionalCheckFailedException"


def test_partiql_and_a_legacy_parameter_over_http(client):
    create_table(client)
    client.execute_statement(
        Statement="INSERT INTO \"items\" VALUE {'pk': ?, 'n': 1}", Parameters=[{"S": "a"}]
    )
    rows = client.execute_statement(Statement='SELECT * FROM "items" WHERE pk = ?', Parameters=[{"S": "a"}])
    assert rows["Items"] == [{"pk": {"S": "a"}, "n": {"N": "1"}}]
    assert code_of(
        client.execute_statement,
        Statement="INSERT INTO \"items\" VALUE {'pk': ?}",
        Parameters=[{"S": "a"}],
    ) == ("DuplicateItemException", 400)
    # The pre-expression form of a condition, as older SDK code still sends it.
    assert code_of(
        client.put_item,
        TableName="items",
        Item={"pk": {"S": "a"}},
        Expected={"pk": {"Exists": False}},
    ) == ("ConditionalCheckFailedException", 400)
