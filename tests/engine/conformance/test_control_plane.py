"""Control plane: CreateTable/DescribeTable/ListTables/UpdateTable/DeleteTable and tags.

Reference: API Reference CreateTable, DescribeTable, ListTables, UpdateTable, DeleteTable,
TagResource/UntagResource/ListTagsOfResource; Developer Guide "Using deletion protection".
"""

from __future__ import annotations

import pytest

from ._support import cases, moto_differs, put_all, raises_dynamodb, table_request


def _describe(client, table: str) -> dict:
    return client.describe_table(TableName=table)["Table"]


def test_create_table_echoes_its_definition(client):
    request = table_request("gsi", "orders")
    request["LocalSecondaryIndexes"] = [
        {
            "IndexName": "by_n",
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "lsk", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "b"]},
        }
    ]
    request["AttributeDefinitions"].append({"AttributeName": "lsk", "AttributeType": "N"})
    request["GlobalSecondaryIndexes"][0]["Projection"] = {"ProjectionType": "KEYS_ONLY"}
    created = client.create_table(**request)["TableDescription"]
    assert created["TableName"] == "orders"
    assert created["TableStatus"] in ("CREATING", "ACTIVE")
    client.get_waiter("table_exists").wait(TableName="orders", WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    table = _describe(client, "orders")
    assert table["TableStatus"] == "ACTIVE"
    assert table["KeySchema"] == request["KeySchema"]
    assert sorted(table["AttributeDefinitions"], key=lambda d: d["AttributeName"]) == sorted(
        request["AttributeDefinitions"], key=lambda d: d["AttributeName"]
    )
    assert table["TableArn"].endswith(":table/orders")
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    (gsi,) = table["GlobalSecondaryIndexes"]
    assert gsi["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    (lsi,) = table["LocalSecondaryIndexes"]
    assert lsi["IndexName"] == "by_n"
    assert lsi["Projection"]["ProjectionType"] == "INCLUDE"
    assert sorted(lsi["Projection"]["NonKeyAttributes"]) == ["a", "b"]


def test_provisioned_table_reports_its_throughput(client):
    request = table_request(
        "hash_s",
        "prov",
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 7, "WriteCapacityUnits": 3},
    )
    client.create_table(**request)
    throughput = _describe(client, "prov")["ProvisionedThroughput"]
    assert (throughput["ReadCapacityUnits"], throughput["WriteCapacityUnits"]) == (7, 3)


@moto_differs("omits TableClassSummary")
def test_stream_specification_and_table_class(client):
    client.create_table(
        **table_request(
            "hash_s",
            "streamed",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
            TableClass="STANDARD_INFREQUENT_ACCESS",
        )
    )
    table = _describe(client, "streamed")
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert table["LatestStreamArn"].startswith(table["TableArn"] + "/stream/")
    assert table["TableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"


@moto_differs("TagResource adds a second tag with an existing key instead of replacing it")
def test_tags_at_creation_and_tag_untag_list(client):
    client.create_table(**table_request("hash_s", "tagged", Tags=[{"Key": "team", "Value": "a"}]))
    arn = _describe(client, "tagged")["TableArn"]
    assert client.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "a"}]
    client.tag_resource(ResourceArn=arn, Tags=[{"Key": "env", "Value": "dev"}, {"Key": "team", "Value": "b"}])
    tags = sorted(client.list_tags_of_resource(ResourceArn=arn)["Tags"], key=lambda t: t["Key"])
    assert tags == [{"Key": "env", "Value": "dev"}, {"Key": "team", "Value": "b"}]
    client.untag_resource(ResourceArn=arn, TagKeys=["team"])
    assert client.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "dev"}]


@moto_differs("does not refuse DeleteTable on a protected table")
def test_deletion_protection_refuses_delete_table(client):
    client.create_table(**table_request("hash_s", "precious", DeletionProtectionEnabled=True))
    assert _describe(client, "precious")["DeletionProtectionEnabled"] is True
    with raises_dynamodb(
        "ValidationException",
        "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.",
    ):
        client.delete_table(TableName="precious")
    assert _describe(client, "precious")["TableStatus"] == "ACTIVE"
    client.update_table(TableName="precious", DeletionProtectionEnabled=False)
    client.delete_table(TableName="precious")
    with raises_dynamodb("ResourceNotFoundException"):
        client.describe_table(TableName="precious")


def test_delete_table_returns_its_description_and_removes_it(client, make_table):
    table = make_table("hash_s")
    described = client.delete_table(TableName=table)["TableDescription"]
    assert described["TableName"] == table
    assert table not in client.list_tables()["TableNames"]
    with raises_dynamodb("ResourceNotFoundException"):
        client.delete_table(TableName=table)


def test_describe_missing_table_names_it(client):
    with raises_dynamodb("ResourceNotFoundException", "Requested resource not found", "nosuch"):
        client.describe_table(TableName="nosuch")


def test_create_existing_table_is_resource_in_use(client, make_table):
    table = make_table("hash_s")
    with raises_dynamodb("ResourceInUseException", f"Table already exists: {table}"):
        client.create_table(**table_request("hash_s", table))


BAD_CREATES = {
    "unused attribute definition": (
        {
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "extra", "AttributeType": "S"},
            ]
        },
        # "Number of attributes in KeySchema does not exactly match number of attributes defined in
        # AttributeDefinitions" (or "Some AttributeDefinitions are not used" when indexes are involved)
        "AttributeDefinitions",
    ),
    "undefined key attribute": (
        {
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ]
        },
        "",  # DynamoDB's wording varies with the request shape; the code is what matters
    ),
    "provisioned without throughput": ({"BillingMode": "PROVISIONED"}, "ReadCapacityUnits"),
    "on-demand with throughput": (
        {"ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}},
        "PAY_PER_REQUEST",
    ),
}


@pytest.mark.parametrize(
    ("override", "phrase"),
    cases(
        BAD_CREATES,
        moto={},
    ),
)
def test_invalid_create_table_is_rejected(client, override, phrase):
    with raises_dynamodb("ValidationException", phrase):
        client.create_table(**table_request("hash_s", "bad", **override))
    assert client.list_tables()["TableNames"] == []


@moto_differs("does not report true ItemCount and sizes")
def test_describe_table_reports_true_counts_and_sizes(client, make_table):
    table = make_table("gsi")
    assert _describe(client, table)["ItemCount"] == 0
    assert _describe(client, table)["TableSizeBytes"] == 0
    put_all(
        client,
        table,
        [{"pk": {"S": f"p{i}"}, "sk": {"S": "s"}, "pad": {"S": "x" * 100}} for i in range(5)]
        + [{"pk": {"S": f"q{i}"}, "sk": {"S": "s"}, "gpk": {"S": "g"}, "gsk": {"N": "1"}} for i in range(3)],
    )
    described = _describe(client, table)
    assert described["ItemCount"] == 8
    # Item sizes: "pk"+"p0" (4) + "sk"+"s" (3) + "pad"+100 (103) = 110; "pk"+"q0" + "sk"+"s" +
    # "gpk"+"g" (4) + "gsk"+1 (3 + 2) = 16 at the least: the table holds at least the raw bytes.
    assert described["TableSizeBytes"] >= 5 * 110 + 3 * 16
    (index,) = described["GlobalSecondaryIndexes"]
    assert index["ItemCount"] == 3  # sparse: only items carrying both index keys
    assert 0 < index["IndexSizeBytes"] < described["TableSizeBytes"]
    client.delete_item(TableName=table, Key={"pk": {"S": "q0"}, "sk": {"S": "s"}})
    described = _describe(client, table)
    assert described["ItemCount"] == 7
    assert described["GlobalSecondaryIndexes"][0]["ItemCount"] == 2


@moto_differs("lists tables in creation order")
def test_list_tables_pages_in_name_order(client, make_table):
    names = ["delta", "alpha", "echo", "charlie", "bravo"]
    for name in names:
        make_table("hash_s", name)
    assert client.list_tables()["TableNames"] == sorted(names)
    first = client.list_tables(Limit=2)
    assert first["TableNames"] == ["alpha", "bravo"]
    assert first["LastEvaluatedTableName"] == "bravo"
    second = client.list_tables(Limit=2, ExclusiveStartTableName="bravo")
    assert second["TableNames"] == ["charlie", "delta"]
    third = client.list_tables(Limit=2, ExclusiveStartTableName=second["LastEvaluatedTableName"])
    assert third["TableNames"] == ["echo"]
    assert "LastEvaluatedTableName" not in third


def _wait_index_active(client, table: str, index: str) -> None:
    # Index creation is asynchronous in DynamoDB; poll its status (bounded, no timing assertions).
    waiter_polls = 0
    while True:
        indexes = _describe(client, table).get("GlobalSecondaryIndexes", [])
        status = next((i["IndexStatus"] for i in indexes if i["IndexName"] == index), None)
        if status == "ACTIVE":
            return
        waiter_polls += 1
        assert waiter_polls < 600, f"index {index} never became ACTIVE (last status {status})"


def test_update_table_adds_a_global_index_that_backfills(client, make_table):
    table = make_table("hash_s")
    put_all(
        client,
        table,
        [{"pk": {"S": f"k{i}"}, "colour": {"S": "red" if i % 2 else "blue"}} for i in range(10)],
    )
    client.update_table(
        TableName=table,
        AttributeDefinitions=[{"AttributeName": "colour", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "by_colour",
                    "KeySchema": [{"AttributeName": "colour", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )
    _wait_index_active(client, table, "by_colour")
    red = client.query(
        TableName=table,
        IndexName="by_colour",
        KeyConditionExpression="colour = :c",
        ExpressionAttributeValues={":c": {"S": "red"}},
    )["Items"]
    assert sorted(i["pk"]["S"] for i in red) == [f"k{i}" for i in (1, 3, 5, 7, 9)]


@moto_differs("answers a query of a deleted index with ResourceNotFoundException")
def test_update_table_deletes_a_global_index(client, make_table):
    table = make_table("gsi")
    client.update_table(TableName=table, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "gsi1"}}])
    indexes = _describe(client, table).get("GlobalSecondaryIndexes", [])
    assert all(i["IndexStatus"] == "DELETING" for i in indexes)
    if not indexes:
        with raises_dynamodb("ValidationException", "The table does not have the specified index"):
            client.query(
                TableName=table,
                IndexName="gsi1",
                KeyConditionExpression="gpk = :g",
                ExpressionAttributeValues={":g": {"S": "g"}},
            )


def test_update_table_switches_billing_mode_and_streams(client, make_table):
    table = make_table("hash_s")
    client.update_table(
        TableName=table,
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 6},
    )
    described = _describe(client, table)
    assert described["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
    assert described["ProvisionedThroughput"]["ReadCapacityUnits"] == 5
    assert described["ProvisionedThroughput"]["WriteCapacityUnits"] == 6
    client.update_table(
        TableName=table, StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    )
    described = _describe(client, table)
    assert described["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    assert "LatestStreamArn" in described


def test_update_missing_table_is_resource_not_found(client):
    with raises_dynamodb("ResourceNotFoundException"):
        client.update_table(TableName="nosuch", BillingMode="PAY_PER_REQUEST")


_KEY_ARN = "arn:aws:kms:us-east-1:123456789012:key/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"


@moto_differs("moto leaves SSEDescription out after an UpdateTable that turns KMS on")
def test_a_table_encrypted_with_a_kms_key_says_so_and_one_on_dynamodbs_key_says_nothing(client):
    """DescribeTable's SSEDescription: KMS with the key's ARN for SSESpecification Enabled (the AWS
    managed key when none is named); none for the default, DynamoDB's own key."""
    client.create_table(**table_request("hash_s", "plain"))
    client.create_table(**table_request("hash_s", "managed"), SSESpecification={"Enabled": True})
    client.create_table(
        **table_request("hash_s", "own_key"),
        SSESpecification={"Enabled": True, "SSEType": "KMS", "KMSMasterKeyId": _KEY_ARN},
    )
    assert "SSEDescription" not in _describe(client, "plain")
    managed = _describe(client, "managed")["SSEDescription"]
    assert managed["Status"] in ("ENABLED", "UPDATING") and managed["SSEType"] == "KMS"
    assert managed["KMSMasterKeyArn"].startswith("arn:aws:kms:")
    assert _describe(client, "own_key")["SSEDescription"]["KMSMasterKeyArn"] == _KEY_ARN
    client.update_table(TableName="plain", SSESpecification={"Enabled": True, "KMSMasterKeyId": _KEY_ARN})
    assert _describe(client, "plain")["SSEDescription"]["KMSMasterKeyArn"] == _KEY_ARN


@moto_differs("moto ignores CreateTable's ResourcePolicy")
def test_a_policy_given_to_create_table_is_the_tables_policy(client):
    policy = (
        '{"Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", '
        '"Action": "dynamodb:DeleteTable", "Resource": "*"}]}'
    )
    created = client.create_table(**table_request("hash_s", "guarded"), ResourcePolicy=policy)
    found = client.get_resource_policy(ResourceArn=created["TableDescription"]["TableArn"])
    assert found["Policy"] == policy and found["RevisionId"]
    with raises_dynamodb("ValidationException", "policy"):
        client.create_table(**table_request("hash_s", "badly_guarded"), ResourcePolicy="not json")
