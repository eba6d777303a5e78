"""The whole service model is served: no operation of botocore's DynamoDB model is unknown, and the
features a single-region table has off answer as DynamoDB answers for such a table.

Reference: API Reference DescribeGlobalTable, ListGlobalTables, DescribeKinesisStreamingDestination,
EnableKinesisStreamingDestination, DescribeContributorInsights, UpdateContributorInsights,
Get/Put/DeleteResourcePolicy, DescribeLimits, DescribeEndpoints, DescribeTableReplicaAutoScaling.
"""

from __future__ import annotations

import json

import botocore.session
import pytest

from tablewright.engine.errors import DynamoDBError, UnknownOperationException

from ._support import moto_differs, raises_dynamodb

MODEL_OPERATIONS = sorted(botocore.session.get_session().get_service_model("dynamodb").operation_names)
POLICY = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Deny", "Principal": "*", "Action": "dynamodb:DeleteTable", "Resource": "*"}
        ],
    }
)


@pytest.mark.parametrize("operation", MODEL_OPERATIONS)
def test_every_operation_of_the_service_model_is_served(engine, operation):
    # An empty request is either answered or refused for what it lacks; never "unknown operation".
    try:
        answer = engine.handle(operation, {})
    except UnknownOperationException as error:
        pytest.fail(f"{operation} is not served: {error}")
    except DynamoDBError as error:
        assert error.status == 400, f"{operation}: {error!r}"
    else:
        assert isinstance(answer, dict)


@moto_differs("moto has not implemented ListGlobalTables")
def test_global_tables_do_not_exist(client):
    assert client.list_global_tables()["GlobalTables"] == []
    with raises_dynamodb("GlobalTableNotFoundException", "orders"):
        client.describe_global_table(GlobalTableName="orders")
    with raises_dynamodb("GlobalTableNotFoundException", "orders"):
        client.describe_global_table_settings(GlobalTableName="orders")


@moto_differs("moto has not implemented DescribeKinesisStreamingDestination")
def test_kinesis_destination_described_empty_then_as_enabled(client, make_table):
    table = make_table("hash_s")
    found = client.describe_kinesis_streaming_destination(TableName=table)
    assert found["TableName"] == table and found["KinesisDataStreamDestinations"] == []
    stream = "arn:aws:kinesis:us-east-1:123456789012:stream/orders-changes"
    with raises_dynamodb("ValidationException"):
        client.disable_kinesis_streaming_destination(TableName=table, StreamArn=stream)
    enabled = client.enable_kinesis_streaming_destination(TableName=table, StreamArn=stream)
    assert enabled["DestinationStatus"] == "ENABLING"
    [destination] = client.describe_kinesis_streaming_destination(TableName=table)[
        "KinesisDataStreamDestinations"
    ]
    assert destination["StreamArn"] == stream and destination["DestinationStatus"] == "ACTIVE"
    with raises_dynamodb("ResourceInUseException"):
        client.enable_kinesis_streaming_destination(TableName=table, StreamArn=stream)
    assert client.disable_kinesis_streaming_destination(TableName=table, StreamArn=stream)[
        "DestinationStatus"
    ] == ("DISABLING")
    with raises_dynamodb("ValidationException", "not a Kinesis data stream ARN"):
        client.enable_kinesis_streaming_destination(
            TableName=table, StreamArn="arn:aws:sqs:us-east-1:123456789012:orders-queue-not-kinesis"
        )
    with raises_dynamodb("ResourceNotFoundException"):
        client.describe_kinesis_streaming_destination(TableName="no_such_table")


@moto_differs("moto has not implemented DescribeContributorInsights")
def test_contributor_insights_disabled_until_enabled(client, make_table):
    table = make_table("gsi")
    found = client.describe_contributor_insights(TableName=table)
    assert found["ContributorInsightsStatus"] == "DISABLED"
    assert client.describe_contributor_insights(TableName=table, IndexName="gsi1")["IndexName"] == "gsi1"
    updated = client.update_contributor_insights(TableName=table, ContributorInsightsAction="ENABLE")
    assert updated["ContributorInsightsStatus"] == "ENABLED"
    assert client.describe_contributor_insights(TableName=table)["ContributorInsightsStatus"] == "ENABLED"
    listed = client.list_contributor_insights(TableName=table)["ContributorInsightsSummaries"]
    assert {(s.get("IndexName"), s["ContributorInsightsStatus"]) for s in listed} == {
        (None, "ENABLED"),
        ("gsi1", "DISABLED"),
    }
    client.update_contributor_insights(TableName=table, ContributorInsightsAction="DISABLE")
    assert client.describe_contributor_insights(TableName=table)["ContributorInsightsStatus"] == "DISABLED"
    with raises_dynamodb("ResourceNotFoundException"):
        client.describe_contributor_insights(TableName=table, IndexName="no_such_index")
    with raises_dynamodb("ResourceNotFoundException"):
        client.describe_contributor_insights(TableName="no_such_table")


@moto_differs("moto accepts a policy that is not JSON")
def test_resource_policy_stored_per_arn(client, make_table):
    table = make_table("hash_s")
    arn = client.describe_table(TableName=table)["Table"]["TableArn"]
    with raises_dynamodb("PolicyNotFoundException", arn):
        client.get_resource_policy(ResourceArn=arn)
    revision = client.put_resource_policy(ResourceArn=arn, Policy=POLICY)["RevisionId"]
    found = client.get_resource_policy(ResourceArn=arn)
    assert json.loads(found["Policy"]) == json.loads(POLICY) and found["RevisionId"] == revision
    with raises_dynamodb("PolicyNotFoundException"):
        client.put_resource_policy(ResourceArn=arn, Policy=POLICY, ExpectedRevisionId="1")
    with raises_dynamodb("ValidationException"):
        client.put_resource_policy(ResourceArn=arn, Policy="{not json")
    assert client.delete_resource_policy(ResourceArn=arn)["RevisionId"] == revision
    with raises_dynamodb("PolicyNotFoundException"):
        client.delete_resource_policy(ResourceArn=arn)
    with raises_dynamodb("ResourceNotFoundException"):
        client.get_resource_policy(ResourceArn=arn.replace(table, "no_such_table"))


@moto_differs("moto has not implemented DescribeTableReplicaAutoScaling")
def test_replica_auto_scaling_of_a_single_region_table(client, make_table):
    table = make_table("hash_s")
    found = client.describe_table_replica_auto_scaling(TableName=table)["TableAutoScalingDescription"]
    assert found["TableName"] == table and found["Replicas"] == []


@moto_differs("moto reports the old 10,000-unit table quotas")
def test_describe_limits_and_endpoints(client):
    limits = client.describe_limits()
    assert limits["TableMaxReadCapacityUnits"] == 40000 and limits["AccountMaxWriteCapacityUnits"] == 80000
    [endpoint] = client.describe_endpoints()["Endpoints"]
    assert (
        endpoint["Address"] == "dynamodb.us-east-1.amazonaws.com" and endpoint["CachePeriodInMinutes"] == 1440
    )
