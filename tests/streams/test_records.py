"""Every item change produces one stream record with the images its StreamViewType asks for."""

from __future__ import annotations

import pytest

from ._support import create_table, iterator, read_all

VIEWS = {
    # view type -> (NewImage present, OldImage present)
    "KEYS_ONLY": (False, False),
    "NEW_IMAGE": (True, False),
    "OLD_IMAGE": (False, True),
    "NEW_AND_OLD_IMAGES": (True, True),
}


@pytest.mark.parametrize("view", list(VIEWS))
def test_insert_modify_remove_carry_the_images_of_the_view_type(ddb, streams, view):
    arn = create_table(ddb, view=view)
    key = {"pk": {"S": "o1"}}
    ddb.put_item(TableName="orders", Item={**key, "status": {"S": "new"}})
    ddb.update_item(
        TableName="orders",
        Key=key,
        UpdateExpression="SET #s = :s",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":s": {"S": "paid"}},
    )
    ddb.delete_item(TableName="orders", Key=key)

    records = read_all(streams, arn)

    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
    new_wanted, old_wanted = VIEWS[view]
    expected_new = [{**key, "status": {"S": "new"}}, {**key, "status": {"S": "paid"}}, None]
    expected_old = [None, {**key, "status": {"S": "new"}}, {**key, "status": {"S": "paid"}}]
    for record, new, old in zip(records, expected_new, expected_old):
        body = record["dynamodb"]
        assert body["Keys"] == key
        assert body["StreamViewType"] == view
        assert body.get("NewImage") == (new if new_wanted else None)
        assert body.get("OldImage") == (old if old_wanted else None)
        assert record["eventSource"] == "aws:dynamodb" and record["awsRegion"] == "us-east-1"
        assert "userIdentity" not in record


def test_writes_that_change_nothing_produce_no_record(ddb, streams):
    arn = create_table(ddb)
    item = {"pk": {"S": "o1"}, "n": {"N": "1.0"}}
    ddb.put_item(TableName="orders", Item=item)
    ddb.put_item(TableName="orders", Item={"pk": {"S": "o1"}, "n": {"N": "1"}})  # same number, other spelling
    ddb.update_item(
        TableName="orders",
        Key={"pk": {"S": "o1"}},
        UpdateExpression="SET n = :n",
        ExpressionAttributeValues={":n": {"N": "1"}},
    )
    ddb.delete_item(TableName="orders", Key={"pk": {"S": "missing"}})
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):
        ddb.put_item(
            TableName="orders",
            Item={"pk": {"S": "o1"}, "n": {"N": "2"}},
            ConditionExpression="n = :x",
            ExpressionAttributeValues={":x": {"N": "5"}},
        )

    assert [r["eventName"] for r in read_all(streams, arn)] == ["INSERT"]


def test_ttl_deletions_are_marked_as_done_by_the_service(ddb, streams, engine, clock):
    arn = create_table(ddb)
    ddb.update_time_to_live(
        TableName="orders", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"}
    )
    now = int(clock())
    ddb.put_item(TableName="orders", Item={"pk": {"S": "old"}, "expires": {"N": str(now - 10)}})
    ddb.put_item(TableName="orders", Item={"pk": {"S": "fresh"}, "expires": {"N": str(now + 3600)}})
    ddb.delete_item(TableName="orders", Key={"pk": {"S": "fresh"}})

    assert engine.sweep_ttl(now=now) == 1

    records = read_all(streams, arn)
    removes = {r["dynamodb"]["Keys"]["pk"]["S"]: r for r in records if r["eventName"] == "REMOVE"}
    assert removes["old"]["userIdentity"] == {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}
    assert "userIdentity" not in removes["fresh"]


def test_records_of_one_item_come_in_write_order_with_increasing_sequence_numbers(ddb, streams):
    arn = create_table(ddb, sort_key=True)
    for _ in range(30):
        for item in range(3):
            ddb.update_item(
                TableName="orders",
                Key={"pk": {"S": f"p{item}"}, "sk": {"N": "1"}},
                UpdateExpression="ADD n :one",
                ExpressionAttributeValues={":one": {"N": "1"}},
            )

    records = read_all(streams, arn, limit=7)

    assert len(records) == 90
    sequence_numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
    assert sequence_numbers == sorted(set(sequence_numbers))
    for item in range(3):
        counts = [
            r["dynamodb"]["NewImage"]["n"]["N"]
            for r in records
            if r["dynamodb"]["Keys"]["pk"]["S"] == f"p{item}"
        ]
        assert counts == [str(i) for i in range(1, 31)]


def test_transactions_write_one_record_per_changed_item_and_none_when_cancelled(ddb, streams):
    arn = create_table(ddb)
    ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": "orders", "Item": {"pk": {"S": "a"}}}},
            {"Put": {"TableName": "orders", "Item": {"pk": {"S": "b"}}}},
        ]
    )
    with pytest.raises(ddb.exceptions.TransactionCanceledException):
        ddb.transact_write_items(
            TransactItems=[
                {"Delete": {"TableName": "orders", "Key": {"pk": {"S": "a"}}}},
                {
                    "Put": {
                        "TableName": "orders",
                        "Item": {"pk": {"S": "b"}},
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
            ]
        )

    records = read_all(streams, arn)
    assert [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in records] == [
        ("INSERT", "a"),
        ("INSERT", "b"),
    ]


def test_wire_record_has_sequence_number_creation_time_and_size(engine, ddb, streams, clock):
    arn = create_table(ddb, view="KEYS_ONLY")
    ddb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "payload": {"S": "x" * 100}})
    before = clock()

    response = engine.handle("GetRecords", {"ShardIterator": iterator(streams, arn)})

    (record,) = response["Records"]
    body = record["dynamodb"]
    assert len(body["SequenceNumber"]) >= 21 and body["SequenceNumber"].isdigit()
    assert isinstance(body["ApproximateCreationDateTime"], int)
    assert before - 5 <= body["ApproximateCreationDateTime"] <= before
    assert body["SizeBytes"] == 3  # KEYS_ONLY: the key "pk" (2 bytes) plus "a" (1 byte)
    assert record["eventVersion"] == "1.1"


def test_tables_without_a_stream_have_none(ddb, streams):
    create_table(ddb, name="plain", view=None)
    ddb.put_item(TableName="plain", Item={"pk": {"S": "a"}})

    assert streams.list_streams()["Streams"] == []
    assert "LatestStreamArn" not in ddb.describe_table(TableName="plain")["Table"]
