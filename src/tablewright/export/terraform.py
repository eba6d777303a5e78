"""``--to terraform``: one ``aws_dynamodb_table`` resource per design table, as HCL.

Arguments and nested blocks are tables over the API requests of ``create_table.requests``:
``ARGUMENTS`` (HCL argument -> getter) and ``BLOCKS`` (block type -> list of argument dicts). A getter
returning None leaves the argument out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..design.model import Design
from . import pipelines
from .cloudformation import name_notes
from .create_table import requests
from .names import unique_names

Calls = dict[str, dict[str, Any]]


def _key(schema: list[dict[str, str]], kind: str) -> str | None:
    return next((k["AttributeName"] for k in schema if k["KeyType"] == kind), None)


def _create(calls: Calls) -> dict[str, Any]:
    return calls["CreateTable"]


def _capacity(field: str) -> Callable[[dict[str, Any]], int | None]:
    return lambda spec: spec.get("ProvisionedThroughput", {}).get(field)


ARGUMENTS: dict[str, Callable[[Calls], Any]] = {
    "name": lambda c: _create(c)["TableName"],
    "billing_mode": lambda c: _create(c)["BillingMode"],
    "read_capacity": lambda c: _capacity("ReadCapacityUnits")(_create(c)),
    "write_capacity": lambda c: _capacity("WriteCapacityUnits")(_create(c)),
    "hash_key": lambda c: _key(_create(c)["KeySchema"], "HASH"),
    "range_key": lambda c: _key(_create(c)["KeySchema"], "RANGE"),
    "table_class": lambda c: _create(c).get("TableClass"),
    "stream_enabled": lambda c: True if "StreamSpecification" in _create(c) else None,
    "stream_view_type": lambda c: _create(c).get("StreamSpecification", {}).get("StreamViewType"),
    "deletion_protection_enabled": lambda c: _create(c).get("DeletionProtectionEnabled"),
    "tags": lambda c: {t["Key"]: t["Value"] for t in _create(c).get("Tags", [])} or None,
}

_INDEX_ARGUMENTS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "name": lambda i: i["IndexName"],
    "hash_key": lambda i: _key(i["KeySchema"], "HASH"),
    "range_key": lambda i: _key(i["KeySchema"], "RANGE"),
    "projection_type": lambda i: i["Projection"]["ProjectionType"],
    "non_key_attributes": lambda i: i["Projection"].get("NonKeyAttributes"),
    "read_capacity": _capacity("ReadCapacityUnits"),
    "write_capacity": _capacity("WriteCapacityUnits"),
}
# An LSI always shares the table's partition key; the provider takes no hash_key for it.
_LSI_ARGUMENTS = {
    k: v for k, v in _INDEX_ARGUMENTS.items() if k not in ("hash_key", "read_capacity", "write_capacity")
}


def _indexes(
    field: str, arguments: dict[str, Callable[[dict[str, Any]], Any]]
) -> Callable[[Calls], list[dict]]:
    return lambda c: [{k: get(i) for k, get in arguments.items()} for i in _create(c).get(field, [])]


BLOCKS: dict[str, Callable[[Calls], list[dict[str, Any]]]] = {
    "attribute": lambda c: [
        {"name": a["AttributeName"], "type": a["AttributeType"]} for a in _create(c)["AttributeDefinitions"]
    ],
    "global_secondary_index": _indexes("GlobalSecondaryIndexes", _INDEX_ARGUMENTS),
    "local_secondary_index": _indexes("LocalSecondaryIndexes", _LSI_ARGUMENTS),
    "ttl": lambda c: [
        {"attribute_name": s["AttributeName"], "enabled": s["Enabled"]}
        for s in [c.get("UpdateTimeToLive", {}).get("TimeToLiveSpecification")]
        if s
    ],
    "point_in_time_recovery": lambda c: [{"enabled": True}] if "UpdateContinuousBackups" in c else [],
    "server_side_encryption": lambda c: [
        {"enabled": s["Enabled"], "kms_key_arn": s.get("KMSMasterKeyId")}
        for s in [_create(c).get("SSESpecification")]
        if s
    ],
}


class Expression(str):
    """An HCL expression written as is (a reference or a function call), not as a string literal."""


def _table_reference(name: str, attribute: str) -> Expression:
    return Expression(f"aws_dynamodb_table.{resource_name(name)}.{attribute}")


# Settings the provider keeps in resources of their own: resource type -> (arguments or None).
COMPANIONS: dict[str, Callable[[str, Calls], dict[str, Any] | None]] = {
    "aws_dynamodb_contributor_insights": lambda name, c: (
        {"table_name": _table_reference(name, "name")} if "UpdateContributorInsights" in c else None
    ),
    "aws_dynamodb_kinesis_streaming_destination": lambda name, c: (
        {
            "stream_arn": c["EnableKinesisStreamingDestination"]["StreamArn"],
            "table_name": _table_reference(name, "name"),
        }
        if "EnableKinesisStreamingDestination" in c
        else None
    ),
    "aws_dynamodb_resource_policy": lambda name, c: (
        {
            "resource_arn": _table_reference(name, "arn"),
            "policy": Expression(f"jsonencode({hcl_value(json.loads(_create(c)['ResourcePolicy']))})"),
        }
        if "ResourcePolicy" in _create(c)
        else None
    ),
}


def hcl_string(text: str) -> str:
    """A quoted HCL string: JSON's escapes, with ``${`` and ``%{`` doubled so Terraform reads them as
    text (a tag value ``${team}``, a policy's ``${aws:username}``) rather than as a template."""
    return json.dumps(text).replace("${", "$${").replace("%{", "%%{")


def hcl_value(value: Any) -> str:
    """An HCL literal: strings, lists and objects in JSON's syntax (HCL's is the same) with strings
    as ``hcl_string`` writes them, bools lower case, None as null."""
    if isinstance(value, Expression):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{hcl_string(str(k))}: {hcl_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(hcl_value(v) for v in value) + "]"
    return hcl_string(str(value))


def _arguments(values: dict[str, Any], indent: str) -> list[str]:
    present = {k: v for k, v in values.items() if v is not None}
    width = max((len(k) for k in present), default=0)
    return [f"{indent}{k.ljust(width)} = {hcl_value(v)}" for k, v in present.items()]


def resource_name(name: str, number: int = 1) -> str:
    """A Terraform resource name (letters, digits, underscores) for a logical table name (``_2`` on
    the second table whose name cleans to the same label). A cleaned name comes back unchanged."""
    cleaned = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_") or "table"
    cleaned = cleaned if not cleaned[0].isdigit() else f"t_{cleaned}"
    return cleaned if number == 1 else f"{cleaned}_{number}"


# A KMS key named other than by its ARN (which the provider's kms_key_arn requires) -> the data source
# that finds its ARN: (data source type, its argument naming the key, the attribute holding the ARN).
KMS_LOOKUPS = {True: ("aws_kms_alias", "name", "target_key_arn"), False: ("aws_kms_key", "key_id", "arn")}


def kms_key_lookup(key: str | None, name: str) -> tuple[Any, str | None]:
    """``kms_key_arn``'s value for a design's key, and the data block it needs (None for an ARN): an
    alias (``alias/orders``) or a key id would fail the provider's ARN check at plan."""
    if key is None or key.startswith("arn:"):
        return key, None
    kind, argument, attribute = KMS_LOOKUPS[key.startswith("alias/")]
    block = f'data "{kind}" "{resource_name(name)}" {{\n  {argument} = {hcl_string(key)}\n}}'
    return Expression(f"data.{kind}.{resource_name(name)}.{attribute}"), block


NAME_FROM_COMMENT = "# tablewright name_from: "  # read back by tablewright.imports.terraform


def resource(name: str, calls: Calls, name_from: str | None = None) -> str:
    """One ``resource "aws_dynamodb_table"`` block (and the resources its settings need)."""
    lines = [f'resource "aws_dynamodb_table" "{resource_name(name)}" {{']
    if name_from:
        lines.append(f"  {NAME_FROM_COMMENT}{name_from}")
    lines += _arguments({k: get(calls) for k, get in ARGUMENTS.items()}, "  ")
    data = None
    for block, get in BLOCKS.items():
        for values in get(calls):
            if block == "server_side_encryption":
                values["kms_key_arn"], data = kms_key_lookup(values["kms_key_arn"], name)
            lines += ["", f"  {block} {{", *_arguments(values, "    "), "  }"]
    lines.append("}")
    if data:
        lines[:0] = [data, ""]
    for kind, arguments in COMPANIONS.items():
        values = arguments(name, calls)
        if values is not None:
            lines += ["", f'resource "{kind}" "{resource_name(name)}" {{', *_arguments(values, "  "), "}"]
    return "\n".join(lines)


def export(design: Design, design_path: Path | None = None, **_: Any) -> str:
    """The HCL for every table of the design (and the pipelines of a ``pipelines.yaml`` beside it)."""
    header = f"# Generated by `tablewright export --to terraform` from the {design.name} design.\n"
    header += "".join(name_notes(design))
    # Each table's label, none shared; a label passes through resource_name unchanged.
    labels = unique_names(design.tables, resource_name)
    blocks = [
        resource(labels[name], requests(table), table.name_from) for name, table in design.tables.items()
    ]
    extra = pipelines.terraform_text(design, design_path, lambda t: f"aws_dynamodb_table.{labels[t]}")
    return header + "\n" + "\n\n".join(blocks) + "\n" + extra
