"""Import a CloudFormation template (YAML or JSON): every ``AWS::DynamoDB::Table`` resource.

The property mapping is ``tablewright.export.cloudformation.FIELDS`` read backwards. CloudFormation's
short-form tags (``!Ref``, ``!Sub``, ``!GetAtt``...) are read as their long form, so templates load
without AWS's own parser; a table name that is an intrinsic function becomes the resource's id.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from ..export.cloudformation import FIELDS, RESOURCE_TYPE
from .writer import Imported, ImportedTable


class _TolerantLoader(yaml.SafeLoader):
    """A YAML loader that reads ``!Tag value`` as ``{"Fn::Tag": value}`` (``!Ref`` as ``{"Ref": ...}``)."""


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    constructors = {
        yaml.ScalarNode: loader.construct_scalar,
        yaml.SequenceNode: loader.construct_sequence,
        yaml.MappingNode: loader.construct_mapping,
    }
    value = constructors[type(node)](node)  # type: ignore[operator]
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {name: value}


_TolerantLoader.add_multi_constructor("!", _tag)


def read_template(path: Path) -> dict[str, Any]:
    """A template file as a dict (JSON, or YAML with short-form tags)."""
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("{"):
        return json.loads(text)
    return yaml.load(text, Loader=_TolerantLoader)  # noqa: S506  (a SafeLoader subclass)


def table_from_properties(resource_id: str, props: dict[str, Any]) -> ImportedTable:
    """One table from an ``AWS::DynamoDB::Table`` resource's properties."""
    calls: dict[str, dict[str, Any]] = {}
    for operation, field, prop, _, from_cfn in FIELDS:
        if prop in props:
            calls.setdefault(operation, {})[field] = from_cfn(props[prop])
    create = calls.get("CreateTable", {})
    if not isinstance(create.get("TableName"), str):  # absent or an intrinsic function
        create["TableName"] = resource_id
    ttl_spec = calls.get("UpdateTimeToLive", {}).get("TimeToLiveSpecification") or {}
    pitr_spec = calls.get("UpdateContinuousBackups", {}).get("PointInTimeRecoverySpecification") or {}
    return ImportedTable(
        create=create,
        ttl=ttl_spec.get("AttributeName") if ttl_spec.get("Enabled", True) else None,
        pitr=bool(pitr_spec.get("PointInTimeRecoveryEnabled")),
    )


def import_file(path: Path, **_: Any) -> Imported:
    """Every DynamoDB table of a template."""
    template = read_template(path)
    resources = template.get("Resources") or {}
    tables = [
        table_from_properties(rid, r.get("Properties") or {})
        for rid, r in resources.items()
        if isinstance(r, dict) and r.get("Type") == RESOURCE_TYPE
    ]
    if not tables:
        raise ValueError(f"{path}: no {RESOURCE_TYPE} resource in the template")
    return Imported(name=path.stem, tables=tables, source=f"the CloudFormation template {path.name}")
