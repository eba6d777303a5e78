"""The item-collection size counts the table's items and their local-index entries of one partition
key, and nothing else: not global-index entries, not other partitions (issue 15, requirement 6).

DynamoDB's 10 GB limit cannot be reached in a test; the engine's ``item_collection_limit`` sets it
low, and the limit is chosen so that an engine counting one thing too many or too few is caught.
"""

from __future__ import annotations

import pytest

import tablewright
from tablewright.engine import Engine
from tablewright.engine.types import item_size

TABLE = "things"


def _client(limit: int):
    client = tablewright.connect(engine=Engine(item_collection_limit=limit))
    client.create_table(
        TableName=TABLE,
        BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": name, "AttributeType": kind}
            for name, kind in (("pk", "S"), ("sk", "S"), ("lsk", "N"), ("gpk", "S"))
        ],
        LocalSecondaryIndexes=[
            {
                "IndexName": "lsi",
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "lsk", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "gsi",
                # Partitioned like the table, so its entries sit beside the collection's: still not in it.
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "gpk", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    return client


def _item(partition: str, n: int) -> dict:
    return {
        "pk": {"S": partition},
        "sk": {"S": f"{n:03}"},
        "lsk": {"N": "1"},
        "gpk": {"S": "g"},
        "pad": {"S": "x" * 200},
    }


ITEM = item_size(_item("a", 0))  # the same for every n
LSI_ENTRY = item_size({k: v for k, v in _item("a", 0).items() if k in ("pk", "sk", "lsk")})


def test_the_sizes_this_test_relies_on():
    assert (ITEM, LSI_ENTRY) == (220, 13)


@pytest.fixture
def client():
    # Four items of partition "a" with their LSI entries fit (932 bytes); a fifth does not (1165). An
    # engine counting the table alone would let the fifth in (1100); one counting the GSI's copies too
    # would refuse the third (1359).
    limit = 1120
    assert 4 * (ITEM + LSI_ENTRY) <= limit < 5 * (ITEM + LSI_ENTRY)
    assert 5 * ITEM <= limit < 3 * (2 * ITEM + LSI_ENTRY)
    return _client(limit)


def test_the_collection_holds_the_table_and_its_local_index_entries(client):
    for n in range(4):  # another partition's items belong to another collection (as full as this one)
        client.put_item(TableName=TABLE, Item=_item("b", n))
    for n in range(4):
        client.put_item(TableName=TABLE, Item=_item("a", n))
    with pytest.raises(client.exceptions.ItemCollectionSizeLimitExceededException):
        client.put_item(TableName=TABLE, Item=_item("a", 4))
    count = client.query(
        TableName=TABLE, KeyConditionExpression="pk = :a", ExpressionAttributeValues={":a": {"S": "a"}}
    )["Count"]
    assert count == 4  # the refused write was undone


def test_the_reported_collection_size_is_the_same_sum(client):
    for n in range(3):
        response = client.put_item(TableName=TABLE, Item=_item("a", n), ReturnItemCollectionMetrics="SIZE")
    low, _ = response["ItemCollectionMetrics"]["SizeEstimateRangeGB"]
    assert low == round(3 * (ITEM + LSI_ENTRY) / 1024**3, 6)
