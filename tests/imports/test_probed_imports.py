"""``tablewright import`` on sources written the way AWS writes them, where a setting used to be lost
in silence or end in a traceback: a global table's customer managed key (named per replica) and the
fields no design key holds, a property left out with ``AWS::NoValue``, retain policies and
``prevent_destroy``, and what DescribeTable says of a live table (deletion protection, its KMS key).

The file tests run the real CLI on a file written to ``tmp_path`` and read what it wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

import tablewright
from tablewright.cli import main
from tablewright.imports import result
from tablewright.imports.endpoint import import_tables


def _import(tmp_path: Path, name: str, content: str) -> tuple[int, str, dict[str, Any]]:
    """Run ``tablewright import`` on ``content`` saved as ``name``: (exit code, stderr, design)."""
    source = tmp_path / name
    source.write_text(content)
    out = tmp_path / "design.yaml"
    result = CliRunner().invoke(main, ["import", str(source), "--out", str(out)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    design = yaml.safe_load(out.read_text()) if out.exists() else {}
    return result.exit_code, result.stderr, design


def _global_table(**extra: Any) -> str:
    """An ``AWS::DynamoDB::GlobalTable`` as the CloudFormation user guide writes one."""
    properties = {
        "TableName": "carts",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "owner", "AttributeType": "S"},
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "by-owner",
                "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        "SSESpecification": {"SSEEnabled": True, "SSEType": "KMS"},
        "Replicas": [
            {
                "Region": "us-east-1",
                "SSESpecification": {"KMSMasterKeyId": "alias/carts-key"},
                "GlobalSecondaryIndexes": [
                    {"IndexName": "by-owner", "ContributorInsightsSpecification": {"Enabled": True}}
                ],
            },
            {"Region": "eu-west-1", "SSESpecification": {"KMSMasterKeyId": "alias/carts-key"}},
        ],
        **extra,
    }
    resources = {"Carts": {"Type": "AWS::DynamoDB::GlobalTable", "Properties": properties}}
    return json.dumps({"Resources": resources})


def test_global_table_keeps_the_replicas_customer_managed_key(tmp_path: Path) -> None:
    """A global table names its KMS key per replica (keys are regional): read as aws_managed, the
    design exported back would encrypt with a key AWS manages instead of the customer's."""
    code, _, design = _import(tmp_path, "stack.json", _global_table())
    assert code == 0
    assert design["tables"]["carts"]["encryption"] == {"kms_key": "alias/carts-key"}


def test_global_table_lists_the_fields_it_cannot_hold(tmp_path: Path) -> None:
    """Fields of the global table and of its replica's indexes were dropped with no note."""
    text = _global_table(WarmThroughput={"ReadUnitsPerSecond": 12000})
    code, stderr, _ = _import(tmp_path, "stack.json", text)
    assert code == 0
    assert "table Carts: WarmThroughput is not carried" in stderr
    assert (
        "table Carts: replica in us-east-1: GlobalSecondaryIndexes[by-owner].ContributorInsightsSpecification"
        " is not carried" in stderr
    )


def test_a_property_left_out_by_no_value_is_absent(tmp_path: Path) -> None:
    """``!If [Cond, {...}, !Ref AWS::NoValue]`` on a whole property (the user guide's way to make a
    stream optional) removes it; it used to end in "'_NoValue' object is not subscriptable" (or
    "... not iterable" for Tags)."""
    template = """
Parameters: {Streams: {Type: String, Default: "off"}}
Conditions: {WithStream: !Equals [!Ref Streams, "on"]}
Resources:
  Things:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: things
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      BillingMode: PAY_PER_REQUEST
      StreamSpecification: !If [WithStream, {StreamViewType: KEYS_ONLY}, !Ref AWS::NoValue]
      SSESpecification: !If [WithStream, {SSEEnabled: true}, !Ref AWS::NoValue]
      Tags: !If [WithStream, [{Key: stream, Value: "on"}], !Ref AWS::NoValue]
"""
    code, stderr, design = _import(tmp_path, "stack.yaml", template)
    assert code == 0, stderr
    table = design["tables"]["things"]
    assert "stream" not in table and "encryption" not in table and "tags" not in table


def test_a_retain_policy_is_listed(tmp_path: Path) -> None:
    """``DeletionPolicy: Retain`` (what the user guide and CDK's default RemovalPolicy write) kept
    the items when the stack went; the design drops it, so the import must say so."""
    template = """
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    DeletionPolicy: Retain
    UpdateReplacePolicy: Snapshot
    Properties:
      TableName: orders
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      BillingMode: PAY_PER_REQUEST
"""
    code, stderr, _ = _import(tmp_path, "stack.yaml", template)
    assert code == 0, stderr
    assert "table Orders: DeletionPolicy Retain is not carried" in stderr
    assert "table Orders: UpdateReplacePolicy Snapshot is not carried" in stderr


def test_a_tag_written_twice_is_said_and_kept_once(tmp_path: Path) -> None:
    """CloudFormation refuses a Tags list naming one key twice; the import says so instead of
    keeping whichever came last in silence."""
    template = """
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: orders
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      BillingMode: PAY_PER_REQUEST
      Tags: [{Key: team, Value: a}, {Key: env, Value: prod}, {Key: team, Value: b}]
"""
    code, stderr, design = _import(tmp_path, "stack.yaml", template)
    assert code == 0, stderr
    assert "tag 'team' is written twice" in stderr
    assert design["tables"]["orders"]["tags"] == {"team": "b", "env": "prod"}


def test_terraform_prevent_destroy_is_listed(tmp_path: Path) -> None:
    """``lifecycle { prevent_destroy = true }`` was read as a Terraform meta-argument with nothing
    to say; a table exported without it can be destroyed with its items."""
    source = """
resource "aws_dynamodb_table" "orders" {
  name         = "orders"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
  lifecycle {
    prevent_destroy = true
    ignore_changes  = [read_capacity]
  }
}
"""
    code, stderr, _ = _import(tmp_path, "main.tf", source)
    assert code == 0, stderr
    assert "table orders: lifecycle.prevent_destroy is not carried" in stderr


class _Endpoint:
    """A client answering as AWS does for one table: DescribeTable from the embedded engine, with
    what AWS adds to it (``extra``), TTL and PITR off, no items."""

    def __init__(self, **extra: Any) -> None:
        engine = tablewright.connect()
        engine.create_table(
            TableName="orders",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
            DeletionProtectionEnabled=True,
        )
        self.table = engine.describe_table(TableName="orders")["Table"] | extra

    def list_tables(self) -> dict[str, Any]:
        return {"TableNames": ["orders"]}

    def describe_table(self, TableName: str) -> dict[str, Any]:  # noqa: N803  (boto3's spelling)
        return {"Table": self.table}

    def scan(self, **_: Any) -> dict[str, Any]:
        return {"Items": []}

    def describe_time_to_live(self, **_: Any) -> dict[str, Any]:
        return {"TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}}

    def list_tags_of_resource(self, **_: Any) -> dict[str, Any]:
        return {"Tags": []}

    def describe_continuous_backups(self, **_: Any) -> dict[str, Any]:
        return {"ContinuousBackupsDescription": {}}


def test_endpoint_keeps_deletion_protection_and_the_kms_key() -> None:
    """DescribeTable says both; the design dropped them, and an export of it made a table anyone
    could delete, encrypted with a key AWS owns."""
    arn = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    client = _Endpoint(
        SSEDescription={"Status": "ENABLED", "SSEType": "KMS", "KMSMasterKeyArn": arn},
        Replicas=[{"RegionName": "us-east-1", "ReplicaStatus": "ACTIVE"}],
    )
    done = result(import_tables(client))
    table = yaml.safe_load(done.design)["tables"]["orders"]
    assert table["deletion_protection"] is True
    assert table["encryption"] == {"kms_key": arn}
    assert "table orders: a global table: replicas in us-east-1 are not carried" in done.notes


COUNTED = """
variable "enabled" { default = false }
resource "aws_dynamodb_table" "audit" {
  count        = var.enabled ? 1 : 0
  name         = "audit"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
}
"""


def test_terraform_table_counted_out_is_said(tmp_path: Path) -> None:
    """``count = var.enabled ? 1 : 0`` with the default false made no table and no note (as
    CloudFormation's false Condition does); alone, it was "no aws_dynamodb_table resource"."""
    other = COUNTED.replace('"audit"', '"orders"').replace("count        = var.enabled ? 1 : 0\n", "")
    code, stderr, design = _import(tmp_path, "main.tf", COUNTED + other)
    assert code == 0, stderr
    assert list(design["tables"]) == ["orders"]
    assert "table audit: not imported: its count or for_each makes no instance" in stderr
    code, stderr, _ = _import(tmp_path, "alone.tf", COUNTED)
    assert code == 2 and "no table to import: table audit: not imported" in stderr


def test_terraform_module_told_not_to_create_its_table_is_said(tmp_path: Path) -> None:
    """``create_table = false`` on the dynamodb-table module was skipped without a word."""
    module = """
module "sessions" {
  source       = "terraform-aws-modules/dynamodb-table/aws"
  name         = "sessions"
  hash_key     = "id"
  create_table = false
  attributes   = [{ name = "id", type = "S" }]
}
"""
    code, stderr, _ = _import(tmp_path, "main.tf", COUNTED.replace("var.enabled ? 1 : 0", "1") + module)
    assert code == 0, stderr
    assert "table sessions: not imported: create_table is false" in stderr
