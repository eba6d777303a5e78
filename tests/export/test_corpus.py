"""The import corpus (tests/export/corpus): templates in the styles people write, each imported,
loaded, linted, priced, exported and compared with its source property by property; round trips
CloudFormation -> design -> CloudFormation and Terraform -> design -> Terraform.

The expected properties below were worked out by hand from each source file (parameter defaults,
conditions, mappings, variables, tfvars), not computed by the code under test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hcl2
import pytest
import yaml
from cfnlint.api import ManualArgs, lint
from click.testing import CliRunner

from tablewright.cli import main
from tablewright.design import load
from tablewright.export import export

from .test_exports import _plain
from .tools import terraform_validate

CORPUS = Path(__file__).parent / "corpus"


def attrs(*specs: str) -> list[dict[str, str]]:
    return [{"AttributeName": s.split(":")[0], "AttributeType": s.split(":")[1]} for s in specs]


def keys(hash_key: str, range_key: str | None = None) -> list[dict[str, str]]:
    schema = [{"AttributeName": hash_key, "KeyType": "HASH"}]
    return schema + ([{"AttributeName": range_key, "KeyType": "RANGE"}] if range_key else [])


def tags(**values: str) -> list[dict[str, str]]:
    return [{"Key": k, "Value": v} for k, v in values.items()]


def capacity(read: int, write: int) -> dict[str, int]:
    return {"ReadCapacityUnits": read, "WriteCapacityUnits": write}


ON_DEMAND = {"BillingMode": "PAY_PER_REQUEST", "TableClass": "STANDARD"}
AWS_MANAGED_KEY = {"SSEEnabled": True, "SSEType": "KMS"}  # SSEEnabled alone means KMS in CloudFormation
PITR = {"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}}
POLICY = {
    "PolicyDocument": {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"AWS": "arn:aws:iam::111122223333:role/reader"},
                "Action": ["dynamodb:GetItem", "dynamodb:Query"],
                "Resource": "*",
            }
        ],
    }
}
ORDERS_INDEXES = {
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "gsi1-dev",
            "KeySchema": keys("gsi1pk", "sk"),
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["status", "total"]},
            "ProvisionedThroughput": capacity(2, 1),  # StageConfig.dev
        }
    ],
    "LocalSecondaryIndexes": [
        {
            "IndexName": "byCreated",
            "KeySchema": keys("pk", "createdAt"),
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }
    ],
}
ORDERS_COMMON = {
    "AttributeDefinitions": attrs("pk:S", "sk:S", "gsi1pk:S", "createdAt:N"),
    "KeySchema": keys("pk", "sk"),
    "BillingMode": "PROVISIONED",
    "ProvisionedThroughput": capacity(5, 3),  # Number "5" and 3; IsProd is false with Env=dev
    **ORDERS_INDEXES,
    "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"},
    "TimeToLiveSpecification": {"AttributeName": "expiresAt", "Enabled": True},
    "TableClass": "STANDARD",
}


def _events_lsi() -> dict[str, Any]:
    return {
        "IndexName": "by-kind",
        "KeySchema": keys("device_id", "kind"),
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["payload", "source"]},
    }


def _gsi(name: str, hash_key: str, projection: str) -> dict[str, Any]:
    return {
        "IndexName": name,
        "KeySchema": keys(hash_key, "updated_at"),
        "Projection": {"ProjectionType": projection},
        "ProvisionedThroughput": capacity(5, 5),  # var.capacity.read / 2, var.capacity.write
    }


_LOG_TABLE = {
    "AttributeDefinitions": attrs("id:S", "at:N"),
    "KeySchema": keys("id", "at"),
    "BillingMode": "PROVISIONED",
    "ProvisionedThroughput": capacity(1, 1),
    "TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": True},
    "TableClass": "STANDARD",
}
_TENANT_TABLE = {"AttributeDefinitions": attrs("pk:S", "sk:S"), "KeySchema": keys("pk", "sk"), **ON_DEMAND}
_SESSIONS = {
    "AttributeDefinitions": attrs("session_id:S"),
    "KeySchema": keys("session_id"),
    **ON_DEMAND,
    "TimeToLiveSpecification": {"AttributeName": "ttl", "Enabled": True},
    "Tags": tags(Environment="prod", ManagedBy="terraform"),
}

# source (relative to the corpus), --from, {physical table name: every CloudFormation property
# the export must have}, phrases every "not carried" note list must contain.
CASES: list[tuple[str, str, dict[str, dict[str, Any]], list[str]]] = [
    (
        "cfn-short-form.yaml",
        "cloudformation",
        {
            "OrdersTable": {  # !Sub ${AWS::StackName}-orders: deploy time, the resource id stands in
                "TableName": "OrdersTable",
                **ORDERS_COMMON,
                "DeletionProtectionEnabled": True,  # the string "true"
                "ContributorInsightsSpecification": {"Enabled": True},
                "Tags": tags(team="checkout", env="dev"),
                # PointInTimeRecoveryEnabled: !If [IsNotProd, false, true] is false: absent
            },
            "shop-sessions-dev": {
                "TableName": "shop-sessions-dev",
                "AttributeDefinitions": attrs("id:S"),
                "KeySchema": keys("id"),
                **ON_DEMAND,
                "SSESpecification": AWS_MANAGED_KEY,
                "ResourcePolicy": POLICY,
            },
        },
        [
            "OrdersTable: SSESpecification is not carried: !GetAtt",
            "tag 'stack' = !Ref AWS::StackName",
            "ProdOnlyAudit: not imported: its condition IsProd is false",
            "auto-scaling target OrdersReadTarget: dynamodb:table:ReadCapacityUnits",
            "auto-scaling policy OrdersReadPolicy: DynamoDBReadCapacityUtilization",
            "table SessionsTable: tag 'cost-center' = !ImportValue shared-cost-center",
        ],
    ),
    (
        "cfn-long-form.json",
        "cloudformation",
        {
            "orders-dev": {
                "TableName": "orders-dev",
                **ORDERS_COMMON,
                **PITR,  # !If [IsNotProd, true, false]
                "KinesisStreamSpecification": {
                    "StreamArn": "arn:aws:kinesis:us-east-1:111122223333:stream/orders"
                },
                "Tags": tags(team="checkout", env="dev"),
            }
        },
        [
            """table OrdersTable: tag 'owner' = !ImportValue {"Fn::Sub": "${Env}-owner"}""",
            'table OrdersTable: SSESpecification is not carried: !GetAtt ["OrdersKey", "Arn"]',
        ],
    ),
    (
        "cfn-foreach.yaml",
        "cloudformation",
        {
            "acme-beta-items": {"TableName": "acme-beta-items", **_TENANT_TABLE, "Tags": tags(tenant="acme")},
            "globex-beta-items": {
                "TableName": "globex-beta-items",
                **_TENANT_TABLE,
                "Tags": tags(tenant="globex"),
            },
            **{
                f"{kind}-{region}": {"TableName": f"{kind}-{region}", **_LOG_TABLE}
                for kind in ("audit-log", "event-log")
                for region in ("eu", "us")
            },
        },
        [],
    ),
    (
        "sam-template.yaml",
        "sam",
        {
            "SessionsTable": {  # PrimaryKey defaults to a string id; on demand; Globals' SSE
                "TableName": "SessionsTable",
                "AttributeDefinitions": attrs("id:S"),
                "KeySchema": keys("id"),
                **ON_DEMAND,
                "SSESpecification": AWS_MANAGED_KEY,
            },
            "counters-test": {
                "TableName": "counters-test",
                "AttributeDefinitions": attrs("counter_id:N"),
                "KeySchema": keys("counter_id"),
                "BillingMode": "PROVISIONED",
                "ProvisionedThroughput": capacity(2, 1),
                "TableClass": "STANDARD",
                "SSESpecification": AWS_MANAGED_KEY,
                "Tags": tags(app="counters", stage="test"),
            },
            "plain": {  # its own SSEEnabled: false wins over Globals
                "TableName": "plain",
                "AttributeDefinitions": attrs("id:S"),
                "KeySchema": keys("id"),
                **ON_DEMAND,
                **PITR,
            },
            "events-test": {
                "TableName": "events-test",
                "AttributeDefinitions": attrs("stream:S", "seq:N"),
                "KeySchema": keys("stream", "seq"),
                **ON_DEMAND,
                "StreamSpecification": {"StreamViewType": "NEW_IMAGE"},
            },
        },
        [],
    ),
    (
        "serverless/serverless.yml",
        "serverless",
        {
            "todo-api-dev-todos": {  # ${self:service}-${sls:stage}-todos, stage ${opt:stage, 'dev'}
                "TableName": "todo-api-dev-todos",
                "AttributeDefinitions": attrs("userId:S", "todoId:S"),
                "KeySchema": keys("userId", "todoId"),
                "BillingMode": "PROVISIONED",  # ${env:BILLING_MODE, self:custom.defaultBilling}
                "ProvisionedThroughput": capacity(2, 2),  # ${self:custom.capacity.${sls:stage}}
                "TimeToLiveSpecification": {"AttributeName": "expires_at", "Enabled": True},
                "TableClass": "STANDARD",
                "Tags": tags(service="todo-api"),
            },
            "AuditTable": {  # from ${file(./resources/audit.yml)}; its name is an ${ssm:...}
                "TableName": "AuditTable",
                "AttributeDefinitions": attrs("entity:S", "at:S"),
                "KeySchema": keys("entity", "at"),
                **ON_DEMAND,
                "StreamSpecification": {"StreamViewType": "KEYS_ONLY"},
                **PITR,  # ${env:AUDIT_PITR, true}
            },
        },
        ["tag 'owner' = ${env:OWNER}"],
    ),
    (
        "terraform-folder",
        "terraform",
        {
            "acme-prod-orders": {  # terraform.tfvars: environment = "prod"
                "TableName": "acme-prod-orders",
                "AttributeDefinitions": attrs("pk:S", "sk:S", "status:S", "updated_at:S", "owner_id:S"),
                "KeySchema": keys("pk", "sk"),
                "BillingMode": "PROVISIONED",
                "ProvisionedThroughput": capacity(10, 5),
                "GlobalSecondaryIndexes": [
                    _gsi("by-status", "status", "KEYS_ONLY"),
                    _gsi("by-owner", "owner_id", "ALL"),
                ],
                "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"},
                "TableClass": "STANDARD",  # local.is_prod
                "TimeToLiveSpecification": {"AttributeName": "expires_at", "Enabled": True},
                **PITR,
                "SSESpecification": {
                    **AWS_MANAGED_KEY,
                    "KMSMasterKeyId": "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
                },
                "DeletionProtectionEnabled": True,
                "ContributorInsightsSpecification": {"Enabled": True},
                "Tags": tags(Environment="prod", ManagedBy="terraform", Name="acme-prod-orders"),
            },
            "acme-prod-web-sessions": {"TableName": "acme-prod-web-sessions", **_SESSIONS},
            "acme-prod-mobile-sessions": {"TableName": "acme-prod-mobile-sessions", **_SESSIONS},
        },
        [
            "table orders: a global table: replica in us-east-1",
            "auto-scaling target orders_read: dynamodb:table:ReadCapacityUnits 10..100",
            "auto-scaling policy orders_read",
        ],
    ),
    (
        "terraform-single.tf",
        "terraform",
        {
            "this": {  # "${var.name}-events": no default, the resource name stands in
                "TableName": "this",
                "AttributeDefinitions": attrs("device_id:S", "ts:N", "kind:S"),
                "KeySchema": keys("device_id", "ts"),
                **ON_DEMAND,
                "LocalSecondaryIndexes": [_events_lsi()],
                "SSESpecification": AWS_MANAGED_KEY,
                "ResourcePolicy": {
                    "PolicyDocument": {
                        "Version": "2012-10-17",
                        "Statement": [
                            {
                                "Effect": "Allow",
                                "Principal": {"AWS": "arn:aws:iam::111122223333:root"},
                                "Action": "dynamodb:GetItem",
                                "Resource": "*",
                            }
                        ],
                    }
                },
            }
        },
        ["aws_dynamodb_kinesis_streaming_destination.this is not carried: stream_arn = aws_kinesis_stream"],
    ),
    (
        "cfn-global-table.yaml",
        "cloudformation",
        {
            "carts": {  # shared properties + the first replica's; capacity: auto-scaling minimums
                "TableName": "carts",
                "AttributeDefinitions": attrs("pk:S", "sk:S", "owner:S"),
                "KeySchema": keys("pk", "sk"),
                "BillingMode": "PROVISIONED",
                "ProvisionedThroughput": capacity(10, 5),
                "GlobalSecondaryIndexes": [
                    {
                        "IndexName": "by-owner",
                        "KeySchema": keys("owner"),
                        "Projection": {"ProjectionType": "KEYS_ONLY"},
                        "ProvisionedThroughput": capacity(4, 2),
                    }
                ],
                "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"},
                "TableClass": "STANDARD",
                **PITR,
                "SSESpecification": AWS_MANAGED_KEY,
                "DeletionProtectionEnabled": True,
                "Tags": tags(app="carts"),
            }
        },
        [
            "table Carts: a global table (AWS::DynamoDB::GlobalTable) read as one table with the settings of"
            " its replica in !Ref AWS::Region; replicas in eu-west-1 are not carried",
            "table Carts: write auto-scaling of the global table is not carried",
        ],
    ),
    (
        "terraform-module.tf",
        "terraform",
        {
            "carts-dev": {  # module terraform-aws-modules/dynamodb-table: on demand by default
                "TableName": "carts-dev",
                "AttributeDefinitions": attrs("cart_id:S", "line:N", "customer:S"),
                "KeySchema": keys("cart_id", "line"),
                **ON_DEMAND,
                "GlobalSecondaryIndexes": [
                    {
                        "IndexName": "by-customer",
                        "KeySchema": keys("customer"),
                        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["total"]},
                    }
                ],
                "TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": True},
                "SSESpecification": AWS_MANAGED_KEY,
                "DeletionProtectionEnabled": True,
                "Tags": tags(Terraform="true", Environment="dev"),
                # point_in_time_recovery_enabled = var.env == "prod" is false: absent
            }
        },
        ["table dynamodb_table: module input replica_regions is not carried"],
    ),
]
IDS = [case[0].split("/")[0] for case in CASES]
NAME_FROM = {
    "OrdersTable": "!Sub '${AWS::StackName}-orders'",
    "AuditTable": "${ssm:/todo-api/audit-table-name}",
    "this": '"${var.name}-events"',
}


def _by_name(items: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    return sorted(items, key=lambda item: str(item[key]))


def _comparable(props: dict[str, Any]) -> dict[str, Any]:
    """Properties with lists whose order DynamoDB ignores sorted."""
    out = dict(props)
    for prop, key in (
        ("AttributeDefinitions", "AttributeName"),
        ("GlobalSecondaryIndexes", "IndexName"),
        ("LocalSecondaryIndexes", "IndexName"),
        ("Tags", "Key"),
    ):
        if prop in out:
            out[prop] = _by_name(out[prop], key)
    return out


def _import(source: str, fmt: str, out: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["import", str(CORPUS / source), "--from", fmt, "--out", str(out)])
    return result.exit_code, result.stderr


def _cfn_tables(text: str) -> dict[str, dict[str, Any]]:
    template = yaml.safe_load(text)
    return {r["Properties"]["TableName"]: r["Properties"] for r in template["Resources"].values()}


@pytest.mark.parametrize(("source", "fmt", "expected", "not_carried"), CASES, ids=IDS)
def test_corpus_imports_loads_lints_prices_and_exports_as_its_source(
    source: str, fmt: str, expected: dict, not_carried: list[str], tmp_path: Path
) -> None:
    design_path = tmp_path / "design.yaml"
    code, stderr = _import(source, fmt, design_path)
    assert code == 0, stderr
    text = design_path.read_text()
    for phrase in not_carried:  # on stderr and as a comment in the design
        assert phrase in stderr
        assert any(phrase in line for line in text.splitlines() if line.startswith("#   - "))
    design = load(design_path)
    runner = CliRunner()
    linted = runner.invoke(main, ["lint", str(design_path)])
    assert linted.exit_code in (0, 1), linted.output  # findings are fine; an unusable design is not
    priced = runner.invoke(main, ["cost", str(design_path)])
    assert priced.exit_code == 0, priced.output

    exported = export(design, "cloudformation")
    assert lint(exported, config=ManualArgs(regions=["us-east-1"])) == []
    tables = _cfn_tables(exported)
    assert set(tables) == set(expected)
    for name, properties in expected.items():
        got = _comparable(tables[name])
        want = _comparable(properties)
        for prop in sorted(set(got) | set(want)):  # property by property, both ways
            assert got.get(prop) == want.get(prop), f"{source}: {name}.{prop}"
    for table in design.tables.values():
        assert table.name_from == NAME_FROM.get(table.table_name)


def _terraform_tables(text: str) -> dict[str, dict[str, Any]]:
    parsed = _plain(hcl2.loads(text))
    return {
        body["name"]: body
        for block in parsed.get("resource", [])
        for kind, resources in block.items()
        if kind == "aws_dynamodb_table"
        for body in resources.values()
    }


# The Terraform sources' tables as the export must write them, argument by argument.
TERRAFORM_EXPECTED = {
    "acme-prod-orders": {
        "billing_mode": "PROVISIONED",
        "read_capacity": 10,
        "write_capacity": 5,
        "hash_key": "pk",
        "range_key": "sk",
        "table_class": "STANDARD",
        "stream_enabled": True,
        "stream_view_type": "NEW_AND_OLD_IMAGES",
        "deletion_protection_enabled": True,
        "tags": {"Environment": "prod", "ManagedBy": "terraform", "Name": "acme-prod-orders"},
        "ttl": [{"attribute_name": "expires_at", "enabled": True}],
        "point_in_time_recovery": [{"enabled": True}],
        "server_side_encryption": [
            {
                "enabled": True,
                "kms_key_arn": "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
            }
        ],
    },
    "this": {
        "billing_mode": "PAY_PER_REQUEST",
        "hash_key": "device_id",
        "range_key": "ts",
        "table_class": "STANDARD",
        "server_side_encryption": [{"enabled": True}],
        "local_secondary_index": [
            {
                "name": "by-kind",
                "range_key": "kind",
                "projection_type": "INCLUDE",
                "non_key_attributes": ["payload", "source"],
            }
        ],
    },
}


def test_terraform_sources_export_argument_by_argument(tmp_path: Path) -> None:
    for source in ("terraform-folder", "terraform-single.tf"):
        design_path = tmp_path / f"{Path(source).stem}.yaml"
        assert _import(source, "terraform", design_path)[0] == 0
        written = _terraform_tables(export(load(design_path), "terraform"))
        for name, arguments in TERRAFORM_EXPECTED.items():
            if name in written:
                for argument, value in arguments.items():
                    assert written[name].get(argument) == value, f"{name}.{argument}"
    text = export(load(tmp_path / "terraform-folder.yaml"), "terraform")
    assert 'resource "aws_dynamodb_contributor_insights" "acme_prod_orders"' in text


def _tables_part(design) -> dict[str, dict[str, Any]]:
    return {name: _comparable(props) for name, props in _cfn_tables(export(design, "cloudformation")).items()}


def _every_table_property(design) -> dict[str, Any]:
    return {t.table_name: (vars(t), _tables_part(design)) for t in design.tables.values()}


@pytest.mark.parametrize(("source", "fmt", "expected", "not_carried"), CASES, ids=IDS)
def test_round_trips_keep_every_table_property(
    source: str, fmt: str, expected: dict, not_carried: list[str], tmp_path: Path
) -> None:
    first = tmp_path / "first.yaml"
    assert _import(source, fmt, first)[0] == 0
    design = load(first)
    for target, suffix in (("cloudformation", ".yaml"), ("terraform", ".tf")):
        exported = tmp_path / f"exported{suffix}"
        exported.write_text(export(design, target))
        again_path = tmp_path / f"again-{target}.yaml"
        result = CliRunner().invoke(
            main,
            ["import", str(exported), "--from", target, "--out", str(again_path), "--name", design.name],
        )
        assert result.exit_code == 0, result.stderr
        assert result.stderr == ""  # everything the design holds goes out and comes back
        again = load(again_path)
        assert _every_table_property(again) == _every_table_property(design), target
        assert export(again, target) == export(design, target)


def test_terraform_validate_accepts_every_corpus_export(tmp_path: Path) -> None:
    """One root module using every corpus design's export as a child module: one init, one validate."""
    root = tmp_path / "root"
    root.mkdir()
    modules = []
    for number, (source, fmt, _, _) in enumerate(CASES):
        design_path = tmp_path / f"design{number}.yaml"
        assert _import(source, fmt, design_path)[0] == 0
        module = root / f"m{number}"
        module.mkdir()
        (module / "main.tf").write_text(export(load(design_path), "terraform"))
        modules.append(f'module "m{number}" {{\n  source = "./m{number}"\n}}\n')
    (root / "main.tf").write_text("\n".join(modules))
    result = terraform_validate(root)
    assert result.returncode == 0, result.stdout + result.stderr


def test_terraform_validate_does_fail_on_a_broken_export(tmp_path: Path) -> None:
    design_path = tmp_path / "design.yaml"
    assert _import("terraform-single.tf", "terraform", design_path)[0] == 0
    (tmp_path / "main.tf").write_text(
        export(load(design_path), "terraform").replace("hash_key", "hash_keyy", 1)
    )
    assert terraform_validate(tmp_path).returncode != 0
