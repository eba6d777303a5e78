"""Importing from an endpoint: a refused call is an error, never a silently "off" setting."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

import tablewright
from tablewright.imports.endpoint import EndpointImportError, import_tables

KEYED = {
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}


def _aws_like_client(describe_continuous_backups_error: str | None):
    """A real boto3 client answered the way AWS answers a principal that may describe tables but not
    their backups (botocore's Stubber, with DescribeTable's answer taken from a real engine)."""
    engine_client = tablewright.connect()
    engine_client.create_table(TableName="orders", **KEYED)
    description = engine_client.describe_table(TableName="orders")["Table"]
    # DynamoDB answers 0 here, but botocore's model (which the Stubber checks answers against) says min 1.
    description["ProvisionedThroughput"].pop("NumberOfDecreasesToday", None)
    client = boto3.client(
        "dynamodb", region_name="eu-west-1", aws_access_key_id="AKID", aws_secret_access_key="secret"
    )
    stub = Stubber(client)
    stub.add_response("list_tables", {"TableNames": ["orders"]}, {})
    stub.add_response("describe_table", {"Table": description}, {"TableName": "orders"})
    stub.add_response(
        "scan", {"Items": [], "Count": 0, "ScannedCount": 0}, {"TableName": "orders", "Limit": 25}
    )
    stub.add_response(
        "list_tags_of_resource",
        {"Tags": [{"Key": "team", "Value": "carts"}], "NextToken": "more"},
        {"ResourceArn": description["TableArn"]},
    )
    stub.add_response(
        "list_tags_of_resource",
        {"Tags": [{"Key": "env", "Value": "prod"}]},
        {"ResourceArn": description["TableArn"], "NextToken": "more"},
    )
    stub.add_response(
        "describe_time_to_live",
        {"TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}},
        {"TableName": "orders"},
    )
    stub.add_client_error(
        "describe_continuous_backups",
        service_error_code=describe_continuous_backups_error,
        service_message="User: arn:aws:iam::123456789012:user/readonly is not authorized to perform: "
        "dynamodb:DescribeContinuousBackups on resource: orders",
        http_status_code=400,
        expected_params={"TableName": "orders"},
    )
    return client, stub


def test_access_denied_on_backups_is_an_error_naming_table_and_call() -> None:
    client, stub = _aws_like_client("AccessDeniedException")
    with stub, pytest.raises(EndpointImportError) as caught:
        import_tables(client)
    message = str(caught.value)
    assert (
        "orders" in message and "AccessDeniedException" in message and "DescribeContinuousBackups" in message
    )


def test_an_endpoint_without_backups_reports_pitr_off() -> None:
    client, stub = _aws_like_client("UnknownOperationException")
    with stub:
        imported = import_tables(client)
    assert [t.pitr for t in imported.tables] == [False]
    # Both pages of ListTagsOfResource (a principal that may describe may list tags: dynamodb:List*).
    assert imported.tables[0].settings["tags"] == {"team": "carts", "env": "prod"}


def test_the_embedded_engine_reports_pitr_as_set() -> None:
    client = tablewright.connect()
    client.create_table(TableName="orders", **KEYED)
    client.create_table(TableName="events", **KEYED)
    client.update_continuous_backups(
        TableName="orders", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
    )
    imported = import_tables(client)
    assert {t.create["TableName"]: t.pitr for t in imported.tables} == {"orders": True, "events": False}


def test_the_embedded_engines_tags_are_imported_and_reach_the_design() -> None:
    client = tablewright.connect()
    client.create_table(TableName="orders", Tags=[{"Key": "team", "Value": "carts"}], **KEYED)
    client.create_table(TableName="events", **KEYED)
    imported = {t.create["TableName"]: t for t in import_tables(client).tables}
    assert imported["orders"].settings["tags"] == {"team": "carts"}
    assert "tags" not in imported["events"].settings
