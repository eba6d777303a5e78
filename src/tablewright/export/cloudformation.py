"""``--to cloudformation``: one ``AWS::DynamoDB::Table`` per design table, as YAML.

The mapping is a table (``FIELDS``) between the API requests of ``create_table.requests`` and the
resource's properties; ``tablewright.imports.cloudformation`` reads the same table backwards, so the
two directions cannot drift apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from ..design.model import Design
from . import pipelines
from .create_table import requests
from .names import unique_names


def _same(value: Any) -> Any:
    return value


def _stream_to_cfn(spec: dict[str, Any]) -> dict[str, Any] | None:
    # CloudFormation has no StreamEnabled: a StreamViewType enables the stream.
    return {"StreamViewType": spec["StreamViewType"]} if spec.get("StreamEnabled", True) else None


def _stream_from_cfn(spec: dict[str, Any]) -> dict[str, Any]:
    return {"StreamEnabled": True, "StreamViewType": spec["StreamViewType"]}


def _sse_to_cfn(spec: dict[str, Any]) -> dict[str, Any]:
    out = {"SSEEnabled": spec["Enabled"], "SSEType": spec.get("SSEType", "KMS")}
    return out | ({"KMSMasterKeyId": spec["KMSMasterKeyId"]} if spec.get("KMSMasterKeyId") else {})


def _sse_from_cfn(spec: dict[str, Any]) -> dict[str, Any]:
    out = {"Enabled": bool(spec.get("SSEEnabled")), "SSEType": spec.get("SSEType", "KMS")}
    return out | ({"KMSMasterKeyId": spec["KMSMasterKeyId"]} if spec.get("KMSMasterKeyId") else {})


def _policy_to_cfn(text: str) -> dict[str, Any]:
    return {"PolicyDocument": json.loads(text)}


def _policy_from_cfn(spec: dict[str, Any]) -> str:
    return json.dumps(spec.get("PolicyDocument"))


# (API operation, request field, resource property, to CloudFormation, from CloudFormation)
Field = tuple[str, str, str, Callable[[Any], Any], Callable[[Any], Any]]
FIELDS: tuple[Field, ...] = (
    ("CreateTable", "TableName", "TableName", _same, _same),
    ("CreateTable", "AttributeDefinitions", "AttributeDefinitions", _same, _same),
    ("CreateTable", "KeySchema", "KeySchema", _same, _same),
    ("CreateTable", "BillingMode", "BillingMode", _same, _same),
    ("CreateTable", "ProvisionedThroughput", "ProvisionedThroughput", _same, _same),
    ("CreateTable", "GlobalSecondaryIndexes", "GlobalSecondaryIndexes", _same, _same),
    ("CreateTable", "LocalSecondaryIndexes", "LocalSecondaryIndexes", _same, _same),
    ("CreateTable", "StreamSpecification", "StreamSpecification", _stream_to_cfn, _stream_from_cfn),
    ("CreateTable", "TableClass", "TableClass", _same, _same),
    ("UpdateTimeToLive", "TimeToLiveSpecification", "TimeToLiveSpecification", _same, _same),
    (
        "UpdateContinuousBackups",
        "PointInTimeRecoverySpecification",
        "PointInTimeRecoverySpecification",
        _same,
        _same,
    ),
    ("CreateTable", "SSESpecification", "SSESpecification", _sse_to_cfn, _sse_from_cfn),
    ("CreateTable", "Tags", "Tags", _same, _same),
    ("CreateTable", "DeletionProtectionEnabled", "DeletionProtectionEnabled", _same, _same),
    ("CreateTable", "ResourcePolicy", "ResourcePolicy", _policy_to_cfn, _policy_from_cfn),
    (
        "UpdateContributorInsights",
        "ContributorInsightsAction",
        "ContributorInsightsSpecification",
        lambda action: {"Enabled": action == "ENABLE"},
        lambda spec: "ENABLE" if spec.get("Enabled") else "DISABLE",
    ),
    (
        "EnableKinesisStreamingDestination",
        "StreamArn",
        "KinesisStreamSpecification",
        lambda arn: {"StreamArn": arn},
        lambda spec: spec.get("StreamArn"),
    ),
)
RESOURCE_TYPE = "AWS::DynamoDB::Table"
METADATA = "Tablewright"  # the resource Metadata key of what a template cannot say otherwise


def logical_id(name: str, number: int = 1) -> str:
    """A CloudFormation logical id (alphanumeric) for a design table: ``device-state`` -> ``DeviceStateTable``
    (``DeviceState2Table`` for the second table whose name cleans to the same words)."""
    words = re.split(r"[^A-Za-z0-9]+", name)
    return "".join(w[:1].upper() + w[1:] for w in words if w) + (str(number) if number > 1 else "") + "Table"


def logical_ids(design: Design) -> dict[str, str]:
    """Each design table's logical id, none shared (a shared one would keep only the last table)."""
    return unique_names(design.tables, logical_id)


def properties(calls: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Resource properties from the API requests of one table."""
    props: dict[str, Any] = {}
    for operation, field, prop, to_cfn, _ in FIELDS:
        value = calls.get(operation, {}).get(field)
        if value is not None:
            converted = to_cfn(value)
            if converted is not None:
                props[prop] = converted
    return props


def template(design: Design) -> dict[str, Any]:
    """The whole template as a dict."""
    resources: dict[str, Any] = {}
    outputs: dict[str, Any] = {}
    ids = logical_ids(design)
    for name, table in design.tables.items():
        resource_id = ids[name]
        resources[resource_id] = {"Type": RESOURCE_TYPE, "Properties": properties(requests(table))}
        if table.name_from:  # kept for the next import (CloudFormation ignores resource Metadata)
            # ${!...}: CloudFormation's escape, so no tool reads the text as a substitution.
            name_from = table.name_from.replace("${", "${!")
            resources[resource_id]["Metadata"] = {METADATA: {"NameFrom": name_from}}
        outputs[f"{resource_id}Name"] = {"Value": {"Ref": resource_id}}
        outputs[f"{resource_id}Arn"] = {"Value": {"Fn::GetAtt": [resource_id, "Arn"]}}
    body: dict[str, Any] = {"AWSTemplateFormatVersion": "2010-09-09"}
    body["Description"] = design.description or f"DynamoDB tables of the {design.name} design"
    body["Resources"] = resources
    body["Outputs"] = outputs
    return body


def name_notes(design: Design) -> list[str]:
    """Comment lines for tables whose source decided the name at deploy time (``name_from``)."""
    return [
        f"# NOTE: table {t.table_name!r} was named at deploy time in its source, from {t.name_from};"
        f" this output names it {t.table_name!r}: check the name before deploying.\n"
        for t in design.tables.values()
        if t.name_from
    ]


def export(design: Design, design_path: Path | None = None, **_: Any) -> str:
    """The CloudFormation template as YAML text (with the pipelines of a ``pipelines.yaml`` beside the design)."""
    header = f"# Generated by `tablewright export --to cloudformation` from the {design.name} design.\n"
    header += "".join(name_notes(design))
    body = template(design)
    pipelines.add_to_template(body, design, design_path, logical_ids(design).__getitem__)
    return header + yaml.safe_dump(body, sort_keys=False, width=1000)
