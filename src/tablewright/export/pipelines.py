"""The infrastructure around a design's tables, from a ``pipelines.yaml`` next to the design: AWS IoT
topic rules (DynamoDBv2 or Lambda action) with their IAM roles, Lambda functions with a role
scoped to the tables they use, and IoT Wireless destinations that hand uplinks to a rule.

Read by the CloudFormation and Terraform exports when the file exists (docs/export.md):

    topic_rules_file: iot_rules.yaml       # rules kept as data elsewhere (van-telemetry's ingester reads them)
    topic_rules:
      <name>: {sql: "SELECT * ...", action: {dynamodbv2: <table>} | {lambda: <function>}}
    lambdas:
      <name>: {handler: handler.handler, runtime: python3.12, tables: [<table>, ...], memory: 256, timeout: 30}
    wireless_destinations:
      <name>: {rule: <topic rule name>, description: ...}

``<table>`` is a design table, by logical or physical name. Lambda code is a parameter (an S3
object in CloudFormation, a zip file variable in Terraform): packaging is the deployer's business.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from ..design.model import Design

SPEC_FILE = "pipelines.yaml"
SQL_VERSION = "2016-03-23"
TABLE_ACTIONS = [
    "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query",
    "dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "dynamodb:Scan",
]  # fmt: skip


class PipelineError(ValueError):
    """``pipelines.yaml`` names something the design or the file does not have; says what and where."""


def load_spec(design_path: Path | None) -> dict[str, Any] | None:
    """The pipelines next to the design, with ``topic_rules_file`` merged in; None without a file."""
    if design_path is None or not (design_path.parent / SPEC_FILE).is_file():
        return None
    path = design_path.parent / SPEC_FILE
    try:
        spec = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        rules = dict(spec.get("topic_rules") or {})
        if spec.get("topic_rules_file"):
            extra = yaml.safe_load((path.parent / spec["topic_rules_file"]).read_text(encoding="utf-8")) or {}
            for name, rule in (extra.get("rules") or {}).items():
                rules[name] = {
                    "sql": rule["sql"],
                    "action": {"dynamodbv2": rule["action"]["dynamodbv2"]["table"]},
                }
    except (OSError, yaml.YAMLError, KeyError, TypeError) as error:
        raise PipelineError(f"{path}: {error}") from None
    return {**spec, "topic_rules": rules}


def _table(design: Design, name: str, where: str) -> str:
    """The logical name of a design table given by logical or physical name."""
    for logical, table in design.tables.items():
        if name in (logical, table.table_name):
            return logical
    raise PipelineError(
        f"{SPEC_FILE}: {where} names table {name!r}, which design {design.name!r} does not have"
    )


def _id(name: str, suffix: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^A-Za-z0-9]+", name) if w) + suffix


def _tf(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_")


def _assume(service: str) -> dict[str, Any]:
    statement = {"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}
    return {"Version": "2012-10-17", "Statement": [statement]}


# --------------------------------------------------------------------------------- hooks
def add_to_template(body: dict[str, Any], design: Design, design_path: Path | None, table_id: Any) -> None:
    """Add the pipelines' parameters and resources to a CloudFormation template (no file: nothing)."""
    spec = load_spec(design_path)
    if spec is None:
        return
    parameters, resources = cloudformation(design, spec, table_id)
    if parameters:
        body["Parameters"] = {**body.get("Parameters", {}), **parameters}
    body["Resources"].update(resources)


def terraform_text(design: Design, design_path: Path | None, table_ref: Any) -> str:
    """The pipelines' HCL to append to the tables' (empty without a file)."""
    spec = load_spec(design_path)
    if spec is None:
        return ""
    return "\n" + terraform(design, spec, table_ref) + "\n"


# --------------------------------------------------------------------------------- CloudFormation
def cloudformation(
    design: Design, spec: dict[str, Any], table_id: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(Parameters, Resources) to add to the tables' template; ``table_id(logical)`` names a table."""
    parameters: dict[str, Any] = {}
    resources: dict[str, Any] = {}

    def arns(tables: list[str]) -> list[Any]:
        found = []
        for logical in tables:  # fresh dicts each: a shared one would be dumped as a YAML alias
            found += [
                {"Fn::GetAtt": [table_id(logical), "Arn"]},
                {"Fn::Join": ["", [{"Fn::GetAtt": [table_id(logical), "Arn"]}, "/index/*"]]},
            ]
        return found

    for name, fn in (spec.get("lambdas") or {}).items():
        tables = [_table(design, t, f"lambda {name}") for t in fn.get("tables", [])]
        parameters["LambdaCodeBucket"] = {
            "Type": "String",
            "Description": "S3 bucket holding the Lambda packages",
        }
        parameters[_id(name, "CodeKey")] = {
            "Type": "String",
            "Description": f"S3 key of the {name} package (zip)",
        }
        policy = {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": TABLE_ACTIONS, "Resource": arns(tables)}],
        }
        resources[_id(name, "Role")] = {
            "Type": "AWS::IAM::Role",
            "Properties": {
                "AssumeRolePolicyDocument": _assume("lambda.amazonaws.com"),
                "ManagedPolicyArns": ["arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"],
                "Policies": [{"PolicyName": f"{name}-tables", "PolicyDocument": policy}],
            },
        }
        resources[_id(name, "Function")] = {
            "Type": "AWS::Lambda::Function",
            "Properties": {
                "Handler": fn["handler"],
                "Runtime": fn.get("runtime", "python3.12"),
                "MemorySize": fn.get("memory", 256),
                "Timeout": fn.get("timeout", 30),
                "Role": {"Fn::GetAtt": [_id(name, "Role"), "Arn"]},
                "Code": {"S3Bucket": {"Ref": "LambdaCodeBucket"}, "S3Key": {"Ref": _id(name, "CodeKey")}},
            },
        }
    for name, rule in (spec.get("topic_rules") or {}).items():
        action = rule.get("action") or {}
        rule_id = _id(name, "TopicRule")
        payload: dict[str, Any] = {
            "Sql": " ".join(str(rule["sql"]).split()),
            "AwsIotSqlVersion": SQL_VERSION,
            "RuleDisabled": False,
        }
        if "dynamodbv2" in action:
            logical = _table(design, action["dynamodbv2"], f"topic rule {name}")
            policy = {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": "dynamodb:PutItem",
                        "Resource": {"Fn::GetAtt": [table_id(logical), "Arn"]},
                    }
                ],
            }
            resources[_id(name, "RuleRole")] = {
                "Type": "AWS::IAM::Role",
                "Properties": {
                    "AssumeRolePolicyDocument": _assume("iot.amazonaws.com"),
                    "Policies": [{"PolicyName": f"{name}-put", "PolicyDocument": policy}],
                },
            }
            put = {"TableName": {"Ref": table_id(logical)}}
            payload["Actions"] = [
                {"DynamoDBv2": {"PutItem": put, "RoleArn": {"Fn::GetAtt": [_id(name, "RuleRole"), "Arn"]}}}
            ]
        elif "lambda" in action:
            function = _id(action["lambda"], "Function")
            if function not in resources:
                raise PipelineError(
                    f"{SPEC_FILE}: topic rule {name} invokes lambda {action['lambda']!r}, which is not declared"
                )
            payload["Actions"] = [{"Lambda": {"FunctionArn": {"Fn::GetAtt": [function, "Arn"]}}}]
            resources[_id(name, "InvokePermission")] = {
                "Type": "AWS::Lambda::Permission",
                "Properties": {
                    "Action": "lambda:InvokeFunction",
                    "FunctionName": {"Ref": function},
                    "Principal": "iot.amazonaws.com",
                    "SourceArn": {"Fn::GetAtt": [rule_id, "Arn"]},
                },
            }
        else:
            raise PipelineError(f"{SPEC_FILE}: topic rule {name} needs action dynamodbv2 or lambda")
        resources[rule_id] = {
            "Type": "AWS::IoT::TopicRule",
            "Properties": {"RuleName": _tf(name), "TopicRulePayload": payload},
        }
    for name, destination in (spec.get("wireless_destinations") or {}).items():
        rule_id = _id(destination["rule"], "TopicRule")
        if rule_id not in resources:
            raise PipelineError(
                f"{SPEC_FILE}: wireless destination {name} names rule {destination['rule']!r}, which is not declared"
            )
        policy = {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": ["iot:DescribeEndpoint", "iot:Publish"], "Resource": "*"}
            ],
        }
        resources[_id(name, "DestinationRole")] = {
            "Type": "AWS::IAM::Role",
            "Properties": {
                "AssumeRolePolicyDocument": _assume("iotwireless.amazonaws.com"),
                "Policies": [{"PolicyName": f"{name}-publish", "PolicyDocument": policy}],
            },
        }
        resources[_id(name, "Destination")] = {
            "Type": "AWS::IoTWireless::Destination",
            "Properties": {
                "Name": name,
                "Description": destination.get("description", f"uplinks to the {destination['rule']} rule"),
                "ExpressionType": "RuleName",
                "Expression": {"Ref": rule_id},
                "RoleArn": {"Fn::GetAtt": [_id(name, "DestinationRole"), "Arn"]},
            },
        }
    return parameters, resources


# --------------------------------------------------------------------------------- Terraform
def _json(value: Any) -> str:
    import json

    return "jsonencode(" + json.dumps(value) + ")"


def terraform(design: Design, spec: dict[str, Any], table_ref: Any) -> str:
    """HCL blocks to append to the tables'; ``table_ref(logical)`` is the table resource address."""
    from .terraform import hcl_string  # terraform.py imports this module

    blocks: list[str] = []
    lambdas = spec.get("lambdas") or {}
    for name, fn in lambdas.items():
        tables = [_table(design, t, f"lambda {name}") for t in fn.get("tables", [])]
        resources = ", ".join(f'{table_ref(t)}.arn, "${{{table_ref(t)}.arn}}/index/*"' for t in tables)
        blocks.append(
            f'variable "{_tf(name)}_zip" {{\n  type        = string\n  description = "Path of the {name} package (zip)"\n}}\n\n'
            f'resource "aws_iam_role" "{_tf(name)}" {{\n  assume_role_policy = {_json(_assume("lambda.amazonaws.com"))}\n}}\n\n'
            f'resource "aws_iam_role_policy_attachment" "{_tf(name)}_logs" {{\n  role       = aws_iam_role.{_tf(name)}.name\n'
            f'  policy_arn = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"\n}}\n\n'
            f'resource "aws_iam_role_policy" "{_tf(name)}_tables" {{\n  role   = aws_iam_role.{_tf(name)}.id\n'
            f'  policy = jsonencode({{ Version = "2012-10-17", Statement = [{{ Effect = "Allow", Action = {_list(TABLE_ACTIONS)}, Resource = [{resources}] }}] }})\n}}\n\n'
            f'resource "aws_lambda_function" "{_tf(name)}" {{\n  function_name = "{name}"\n  role          = aws_iam_role.{_tf(name)}.arn\n'
            f'  handler       = "{fn["handler"]}"\n  runtime       = "{fn.get("runtime", "python3.12")}"\n'
            f"  memory_size   = {fn.get('memory', 256)}\n  timeout       = {fn.get('timeout', 30)}\n"
            f"  filename      = var.{_tf(name)}_zip\n  source_code_hash = filebase64sha256(var.{_tf(name)}_zip)\n}}"
        )
    for name, rule in (spec.get("topic_rules") or {}).items():
        action = rule.get("action") or {}
        sql = hcl_string(
            " ".join(str(rule["sql"]).split())
        )  # a backslash or a quote escaped, ${ kept as text
        head = f'resource "aws_iot_topic_rule" "{_tf(name)}" {{\n  name        = "{_tf(name)}"\n  enabled     = true\n  sql         = {sql}\n  sql_version = "{SQL_VERSION}"\n'
        if "dynamodbv2" in action:
            logical = _table(design, action["dynamodbv2"], f"topic rule {name}")
            blocks.append(
                f'resource "aws_iam_role" "{_tf(name)}_rule" {{\n  assume_role_policy = {_json(_assume("iot.amazonaws.com"))}\n}}\n\n'
                f'resource "aws_iam_role_policy" "{_tf(name)}_rule" {{\n  role   = aws_iam_role.{_tf(name)}_rule.id\n'
                f'  policy = jsonencode({{ Version = "2012-10-17", Statement = [{{ Effect = "Allow", Action = "dynamodb:PutItem", Resource = {table_ref(logical)}.arn }}] }})\n}}\n\n'
                + head
                + f"\n  dynamodbv2 {{\n    role_arn = aws_iam_role.{_tf(name)}_rule.arn\n    put_item {{\n      table_name = {table_ref(logical)}.name\n    }}\n  }}\n}}"
            )
        elif "lambda" in action:
            if action["lambda"] not in lambdas:
                raise PipelineError(
                    f"{SPEC_FILE}: topic rule {name} invokes lambda {action['lambda']!r}, which is not declared"
                )
            function = f"aws_lambda_function.{_tf(action['lambda'])}"
            blocks.append(
                head + f"\n  lambda {{\n    function_arn = {function}.arn\n  }}\n}}\n\n"
                f'resource "aws_lambda_permission" "{_tf(name)}" {{\n  action        = "lambda:InvokeFunction"\n'
                f'  function_name = {function}.function_name\n  principal     = "iot.amazonaws.com"\n'
                f"  source_arn    = aws_iot_topic_rule.{_tf(name)}.arn\n}}"
            )
        else:
            raise PipelineError(f"{SPEC_FILE}: topic rule {name} needs action dynamodbv2 or lambda")
    for name, destination in (spec.get("wireless_destinations") or {}).items():
        # The AWS provider has no resource of its own for IoT Wireless; its generic Cloud Control resource
        # creates AWS::IoTWireless::Destination from the CloudFormation schema, with no second provider.
        blocks.append(
            f'resource "aws_iam_role" "{_tf(name)}_destination" {{\n  assume_role_policy = {_json(_assume("iotwireless.amazonaws.com"))}\n}}\n\n'
            f'resource "aws_iam_role_policy" "{_tf(name)}_destination" {{\n  role   = aws_iam_role.{_tf(name)}_destination.id\n'
            f'  policy = jsonencode({{ Version = "2012-10-17", Statement = [{{ Effect = "Allow", Action = ["iot:DescribeEndpoint", "iot:Publish"], Resource = "*" }}] }})\n}}\n\n'
            f'resource "aws_cloudcontrolapi_resource" "{_tf(name)}" {{\n  type_name = "AWS::IoTWireless::Destination"\n'
            f'  desired_state = jsonencode({{\n    Name           = "{name}"\n    ExpressionType = "RuleName"\n'
            f"    Expression     = aws_iot_topic_rule.{_tf(destination['rule'])}.name\n"
            f"    RoleArn        = aws_iam_role.{_tf(name)}_destination.arn\n  }})\n}}"
        )
    return "\n\n".join(blocks)


def _list(values: list[str]) -> str:
    return "[" + ", ".join(f'"{v}"' for v in values) + "]"
