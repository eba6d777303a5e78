"""`tablewright export` with a pipelines.yaml beside the design: the van's IoT topic rules with their
IAM role, the EVSE Lambda, its rule and IoT Wireless destination, for CloudFormation (cfn-lint) and
Terraform (python-hcl2; `terraform validate` where terraform can initialise)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import hcl2
import pytest
import yaml
from cfnlint.api import ManualArgs, lint

from tablewright.design import load
from tablewright.export import export

from .tools import terraform_validate

ROOT = Path(__file__).resolve().parents[2]
EVSE, VAN = ROOT / "examples/evse/design.yaml", ROOT / "examples/van-telemetry/design.yaml"


def cloudformation(path: Path) -> dict:
    text = export(load(path), "cloudformation", design_path=path)
    assert lint(text, config=ManualArgs(regions=["us-east-1"])) == []
    return yaml.safe_load(text)


def of_type(template: dict, kind: str) -> dict:
    return {k: v["Properties"] for k, v in template["Resources"].items() if v["Type"] == kind}


def test_van_topic_rules_write_the_table_through_a_role_allowed_only_that():
    template = cloudformation(VAN)
    rules = of_type(template, "AWS::IoT::TopicRule")
    assert sorted(r["RuleName"] for r in rules.values()) == ["van_alert", "van_status", "van_telemetry"]
    for rule in rules.values():
        payload = rule["TopicRulePayload"]
        assert (
            "floor(timestamp() / 1000) + 2592000 AS ttl" in payload["Sql"]
        )  # seconds, as the ingester applies
        [action] = payload["Actions"]
        assert action["DynamoDBv2"]["PutItem"]["TableName"] == {"Ref": "TelemetryTable"}
    for role in of_type(template, "AWS::IAM::Role").values():
        assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"]["Service"] == "iot.amazonaws.com"
        [statement] = role["Policies"][0]["PolicyDocument"]["Statement"]
        assert statement["Action"] == "dynamodb:PutItem"


def test_evse_lambda_rule_permission_and_wireless_destination():
    template = cloudformation(EVSE)
    [function] = of_type(template, "AWS::Lambda::Function").values()
    assert function["Handler"] == "handler.handler"
    [destination] = of_type(template, "AWS::IoTWireless::Destination").values()
    assert destination["ExpressionType"] == "RuleName" and destination["Expression"] == {
        "Ref": "EvseUplinksTopicRule"
    }
    [permission] = of_type(template, "AWS::Lambda::Permission").values()
    assert permission["Principal"] == "iot.amazonaws.com"
    role = template["Resources"]["EvseIngestRole"]["Properties"]
    resources = role["Policies"][0]["PolicyDocument"]["Statement"][0]["Resource"]
    tables = {r["Fn::GetAtt"][0] for r in resources if "Fn::GetAtt" in r}
    assert tables == {
        "EventsTable",
        "DevicesTable",
        "DeviceStateTable",
    }  # what ingest_uplink touches, no more
    assert set(template["Parameters"]) == {"LambdaCodeBucket", "EvseIngestCodeKey"}


@pytest.mark.parametrize("path", [EVSE, VAN], ids=["evse", "van"])
def test_terraform_parses_and_validates_where_terraform_can(path: Path, tmp_path: Path):
    text = export(load(path), "terraform", design_path=path)
    parsed = hcl2.loads(text)
    kinds = {kind.strip('"') for block in parsed["resource"] for kind in block}
    assert "aws_iot_topic_rule" in kinds and "aws_iam_role" in kinds
    if path == EVSE:
        assert {"aws_lambda_function", "aws_lambda_permission", "aws_cloudcontrolapi_resource"} <= kinds
        [destination] = [
            b['"aws_cloudcontrolapi_resource"']
            for b in parsed["resource"]
            if '"aws_cloudcontrolapi_resource"' in b
        ]
        [(_, body)] = destination.items()
        assert body["type_name"].strip('"') == "AWS::IoTWireless::Destination"
        assert "ExpressionType" in body["desired_state"] and "aws_iot_topic_rule." in body["desired_state"]
    # Everything, the IoT Wireless destination included, is checked by terraform validate.
    (tmp_path / "main.tf").write_text(text)
    result = terraform_validate(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_design_without_pipelines_exports_only_its_tables():
    path = ROOT / "examples/woms/design.yaml"
    template = yaml.safe_load(export(load(path), "cloudformation", design_path=path))
    assert {r["Type"] for r in template["Resources"].values()} == {"AWS::DynamoDB::Table"}


def test_a_pipeline_naming_an_unknown_table_is_a_clear_error(tmp_path: Path):
    shutil.copy(VAN, tmp_path / "design.yaml")
    (tmp_path / "pipelines.yaml").write_text(
        "topic_rules:\n  r: {sql: SELECT * FROM 'a', action: {dynamodbv2: nowhere}}\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from tablewright.cli import main; main()",
            "export",
            str(tmp_path / "design.yaml"),
            "--to",
            "terraform",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "nowhere" in done.stderr and "Traceback" not in done.stderr
