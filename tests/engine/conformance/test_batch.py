"""BatchGetItem and BatchWriteItem: limits, duplicates, response shapes.

Reference: API Reference BatchWriteItem ("up to 25 item put or delete operations"; duplicates and
more than 25 requests are ValidationExceptions) and BatchGetItem ("up to 100 items").
"""

from __future__ import annotations

import pytest

from ._support import moto_differs, put_all, raises_dynamodb


def _put(i: int, **extra) -> dict:
    return {"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, **extra}}}


def test_batch_write_25_puts_and_deletes(client, make_table):
    table = make_table("hash_s")
    put_all(client, table, [{"pk": {"S": f"k{i}"}} for i in range(30, 40)])
    requests = [_put(i) for i in range(15)] + [
        {"DeleteRequest": {"Key": {"pk": {"S": f"k{i}"}}}} for i in range(30, 40)
    ]
    response = client.batch_write_item(RequestItems={table: requests})
    assert response["UnprocessedItems"] == {}
    keys = sorted(item["pk"]["S"] for item in client.scan(TableName=table)["Items"])
    assert keys == sorted(f"k{i}" for i in range(15))


def test_batch_write_spans_tables(client, make_table):
    first, second = make_table("hash_s", "first"), make_table("hash_s", "second")
    response = client.batch_write_item(RequestItems={first: [_put(1)], second: [_put(2), _put(3)]})
    assert response["UnprocessedItems"] == {}
    assert client.scan(TableName=first)["Count"] == 1
    assert client.scan(TableName=second)["Count"] == 2


@moto_differs("accepts more than 25 requests")
def test_batch_write_of_26_requests_is_rejected(client, make_table):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "length less than or equal to 25"):
        client.batch_write_item(RequestItems={table: [_put(i) for i in range(26)]})
    assert client.scan(TableName=table)["Count"] == 0


DUPLICATES = {
    "two puts": [_put(1), _put(1, v={"S": "x"})],
    "put and delete": [_put(1), {"DeleteRequest": {"Key": {"pk": {"S": "k1"}}}}],
}


@moto_differs("accepts duplicate keys in BatchWriteItem")
@pytest.mark.parametrize("requests", DUPLICATES.values(), ids=DUPLICATES.keys())
def test_batch_write_with_duplicate_keys_is_rejected(client, make_table, requests):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "Provided list of item keys contains duplicates"):
        client.batch_write_item(RequestItems={table: requests})
    assert client.scan(TableName=table)["Count"] == 0


@moto_differs("writes the valid requests before failing on an invalid one")
def test_batch_write_validates_every_item_before_writing(client, make_table):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException"):
        client.batch_write_item(
            RequestItems={table: [_put(1), {"PutRequest": {"Item": {"other": {"S": "x"}}}}]}
        )
    assert client.scan(TableName=table)["Count"] == 0


def test_batch_write_to_a_missing_table_is_resource_not_found(client):
    with raises_dynamodb("ResourceNotFoundException", "Requested resource not found"):
        client.batch_write_item(RequestItems={"nosuch": [_put(1)]})


def test_batch_get_100_keys_returns_found_items_only(client, make_table):
    table = make_table("hash_s")
    put_all(client, table, [{"pk": {"S": f"k{i}"}, "v": {"N": str(i)}} for i in range(0, 100, 2)])
    response = client.batch_get_item(
        RequestItems={table: {"Keys": [{"pk": {"S": f"k{i}"}} for i in range(100)]}}
    )
    assert response["UnprocessedKeys"] == {}
    found = sorted(int(item["v"]["N"]) for item in response["Responses"][table])
    assert found == list(range(0, 100, 2))


def test_batch_get_with_projection_and_several_tables(client, make_table):
    first, second = make_table("hash_s", "first"), make_table("hash_range_n", "second")
    client.put_item(TableName=first, Item={"pk": {"S": "a"}, "x": {"S": "1"}, "y": {"S": "2"}})
    client.put_item(TableName=second, Item={"pk": {"S": "b"}, "sk": {"N": "1"}, "z": {"S": "3"}})
    response = client.batch_get_item(
        RequestItems={
            first: {
                "Keys": [{"pk": {"S": "a"}}],
                "ProjectionExpression": "#x",
                "ExpressionAttributeNames": {"#x": "x"},
            },
            second: {"Keys": [{"pk": {"S": "b"}, "sk": {"N": "1"}}], "ConsistentRead": True},
        }
    )
    assert response["Responses"][first] == [{"x": {"S": "1"}}]
    assert response["Responses"][second] == [{"pk": {"S": "b"}, "sk": {"N": "1"}, "z": {"S": "3"}}]
    assert response["UnprocessedKeys"] == {}


def test_batch_get_of_101_keys_is_rejected(client, make_table):
    table = make_table("hash_s")
    # For one table the model's length constraint on Keys (100) trips first, worded as a
    # "1 validation error detected ... length less than or equal to 100"; across tables DynamoDB says
    # "Too many items requested for the BatchGetItem call" (next test).
    with raises_dynamodb("ValidationException") as info:
        client.batch_get_item(RequestItems={table: {"Keys": [{"pk": {"S": f"k{i}"}} for i in range(101)]}})
    message = info.value.response["Error"]["Message"]
    assert "less than or equal to 100" in message or "Too many items requested" in message


def test_batch_get_limit_counts_keys_across_tables(client, make_table):
    first, second = make_table("hash_s", "first"), make_table("hash_s", "second")
    with raises_dynamodb("ValidationException", "Too many items requested for the BatchGetItem call"):
        client.batch_get_item(
            RequestItems={
                first: {"Keys": [{"pk": {"S": f"k{i}"}} for i in range(60)]},
                second: {"Keys": [{"pk": {"S": f"k{i}"}} for i in range(41)]},
            }
        )


def test_batch_get_with_duplicate_keys_is_rejected(client, make_table):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "Provided list of item keys contains duplicates"):
        client.batch_get_item(RequestItems={table: {"Keys": [{"pk": {"S": "a"}}, {"pk": {"S": "a"}}]}})


@moto_differs("accepts keys that do not match the schema in BatchGetItem")
def test_batch_get_with_a_key_not_matching_the_schema_is_rejected(client, make_table):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "The provided key element does not match the schema"):
        client.batch_get_item(RequestItems={table: {"Keys": [{"other": {"S": "a"}}]}})
