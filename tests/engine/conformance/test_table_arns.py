"""A table's ARN in place of its name.

Reference: API Reference, every data-plane and table operation's TableName: "You can also provide the
Amazon Resource Name (ARN) of the table in this parameter" (1 to 1,024 characters); BatchGetItem's
and BatchWriteItem's RequestItems and Responses are maps of "table name or table ARN".
"""

from __future__ import annotations

from ._support import raises_dynamodb


def _arn(client, table: str) -> str:
    return client.describe_table(TableName=table)["Table"]["TableArn"]


def test_every_item_operation_takes_the_tables_arn(client, make_table):
    table = make_table("hash_range_s")
    arn = _arn(client, table)
    key = {"pk": {"S": "p"}, "sk": {"S": "1"}}
    assert client.describe_table(TableName=arn)["Table"]["TableName"] == table
    client.put_item(TableName=arn, Item={**key, "n": {"N": "1"}})
    client.update_item(
        TableName=arn,
        Key=key,
        UpdateExpression="ADD n :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
    )
    assert client.get_item(TableName=arn, Key=key)["Item"]["n"] == {"N": "2"}
    queried = client.query(
        TableName=arn, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p"}}
    )
    assert [item["sk"]["S"] for item in queried["Items"]] == ["1"]
    assert client.scan(TableName=arn)["Count"] == 1
    second = {"pk": {"S": "p"}, "sk": {"S": "2"}}
    client.batch_write_item(RequestItems={arn: [{"PutRequest": {"Item": second}}]})
    fetched = client.batch_get_item(RequestItems={arn: {"Keys": [key, second]}})["Responses"]
    assert sorted(item["sk"]["S"] for item in fetched[arn]) == ["1", "2"]
    client.transact_write_items(
        TransactItems=[
            {"Delete": {"TableName": arn, "Key": second}},
            {
                "ConditionCheck": {
                    "TableName": arn,
                    "Key": key,
                    "ConditionExpression": "n = :two",
                    "ExpressionAttributeValues": {":two": {"N": "2"}},
                }
            },
        ]
    )
    read = client.transact_get_items(TransactItems=[{"Get": {"TableName": arn, "Key": key}}])
    assert read["Responses"][0]["Item"]["n"] == {"N": "2"}
    client.delete_item(TableName=arn, Key=key)
    assert client.scan(TableName=table)["Count"] == 0


def test_a_table_can_be_deleted_by_its_arn(client, make_table):
    table = make_table("hash_s")
    arn = _arn(client, table)
    assert client.delete_table(TableName=arn)["TableDescription"]["TableName"] == table
    with raises_dynamodb("ResourceNotFoundException"):
        client.describe_table(TableName=table)


def test_another_tables_arn_finds_no_table(client, make_table):
    table = make_table("hash_s")
    arn = _arn(client, table)
    with raises_dynamodb("ResourceNotFoundException"):
        client.get_item(TableName=arn + "x", Key={"pk": {"S": "k"}})
