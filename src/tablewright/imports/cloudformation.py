"""Import a CloudFormation or AWS SAM template (YAML or JSON): every DynamoDB table it declares.

Tables are ``AWS::DynamoDB::Table``, SAM's ``AWS::Serverless::SimpleTable`` and
``AWS::DynamoDB::GlobalTable`` (read as one table; ``TABLE_TYPES``),
``Fn::ForEach`` loops included. Intrinsic functions are resolved where the template decides the
value (``intrinsics``); a property that decides the table (keys, billing, indexes...) and is left to
deploy time stops the import with the table, the property and the expression. A table name left to
deploy time keeps the resource id and is recorded as ``name_from``. Settings the design cannot hold
(auto-scaling, a deploy-time KMS key...) are listed in ``Imported.notes``.

The property mapping is ``tablewright.export.cloudformation.FIELDS`` read backwards; short-form tags
(``!Ref``, ``!Sub``...) are read as their long forms. A Serverless Framework file given here is read
by ``serverless``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from ..design.files import read_text
from ..export.cloudformation import FIELDS, METADATA, RESOURCE_TYPE
from ..export.settings import design_values
from . import foreach, global_table, sam
from .checks import check_create_table
from .intrinsics import NO_VALUE, Template, Undecidable, describe, resolve
from .reports import related_resource_notes
from .writer import Imported, ImportedTable, assume_capacity


class _TolerantLoader(yaml.SafeLoader):
    """A YAML loader that reads ``!Tag value`` as ``{"Fn::Tag": value}`` (``!Ref`` as ``{"Ref": ...}``),
    and refuses a key written twice in one mapping, which PyYAML would settle by keeping the last."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *defaults` may be overridden: that is what a merge is for
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float | bool):
                continue  # an unhashable key: construct_mapping refuses it below
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key {key!r} is written twice in one mapping", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    constructors = {
        yaml.ScalarNode: loader.construct_scalar,
        yaml.SequenceNode: loader.construct_sequence,
        yaml.MappingNode: loader.construct_mapping,
    }
    value = constructors[type(node)](node)  # type: ignore[operator]
    name = suffix if suffix in ("Ref", "Condition") else f"Fn::{suffix}"
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {name: value}


_TolerantLoader.add_multi_constructor("!", _tag)


class DuplicateKey(ValueError):
    """A JSON object with a key written twice (``json`` would keep the last in silence)."""


def unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json.loads``: an object, refusing a key written twice."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(f"the key {key!r} is written twice in one object")
        out[key] = value
    return out


def read_json(path: Path) -> Any:
    """A JSON file's document: a BOM allowed, a key written twice refused; ``ValueError`` naming the
    file, and the line and column where it does not parse."""
    try:
        text = read_text(path, encoding="utf-8-sig")  # a BOM is not part of the text
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (not UTF-8)") from None
    try:
        return json.loads(text, object_pairs_hook=unique_pairs)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    except DuplicateKey as error:
        raise ValueError(f"{path}: {error}") from None


_KINDS = {dict: "a mapping", list: "a list", str: "a string", int: "a number", float: "a number"}


def read_document(path: Path) -> dict[str, Any]:
    """A YAML or JSON file as a mapping; ``ValueError`` naming the file and what is wrong."""
    try:
        text = read_text(path, encoding="utf-8-sig")  # a BOM is not part of the text
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (not UTF-8)") from None
    try:
        if text.lstrip().startswith("{"):
            body = json.loads(text, object_pairs_hook=unique_pairs)
        else:
            body = yaml.load(text, Loader=_TolerantLoader)  # noqa: S506  (a SafeLoader subclass)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON: {error.msg} at line {error.lineno}") from None
    except DuplicateKey as error:
        raise ValueError(f"{path}: {error}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ValueError(f"{path}: not valid YAML: {problem}{where}{_hint(path, text)}") from None
    if not isinstance(body, dict):
        kind = _KINDS.get(type(body), "nothing" if body is None else type(body).__name__)
        raise ValueError(f"{path}: not a template: the file holds {kind}, not a mapping{_hint(path, text)}")
    return body


_HCL_START = re.compile(r"\s*(resource|variable|provider|terraform|module|locals|data|output)\s+[\"{]")


def _hint(path: Path, text: str = "") -> str:
    """A pointer to ``--from terraform`` for what looks like HCL."""
    if path.suffix in (".tf", ".hcl") or _HCL_START.match(text):
        return " (it looks like Terraform: use --from terraform)"
    return ""


read_template = read_document


def _simple_table(
    rid: str, props: dict[str, Any], template: Template, body: dict[str, Any], notes: list[str]
) -> dict[str, Any]:
    globals_ = ((body.get("Globals") or {}).get("SimpleTable")) or {}
    return sam.table_properties(props, globals_, lambda value: resolve(value, template))


TableReader = Callable[[str, dict[str, Any], Template, dict[str, Any], list[str]], dict[str, Any]]
# Resource type -> its properties as AWS::DynamoDB::Table properties.
TABLE_TYPES: dict[str, TableReader] = {
    RESOURCE_TYPE: lambda rid, props, template, body, notes: props,
    sam.RESOURCE_TYPE: _simple_table,
    global_table.RESOURCE_TYPE: lambda rid, props, template, body, notes: global_table.table_properties(
        rid, props, notes
    ),
}
_PROPERTIES = {prop for _, _, prop, _, _ in FIELDS}
# Settings carried when the template decides them; listed as not carried when it does not.
_SETTINGS = {
    "SSESpecification",
    "Tags",
    "DeletionProtectionEnabled",
    "ResourcePolicy",
    "ContributorInsightsSpecification",
    "KinesisStreamSpecification",
}
_INTEGERS = {"ReadCapacityUnits", "WriteCapacityUnits"}
_BOOLEANS = {"Enabled", "SSEEnabled", "PointInTimeRecoveryEnabled", "DeletionProtectionEnabled"}


def _coerce(value: Any, key: str = "") -> Any:
    """CloudFormation's lenient scalars (``"5"``, ``"true"``) as the numbers and booleans they mean."""
    if isinstance(value, dict):
        return {k: _coerce(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_coerce(v) for v in value]
    if key in _INTEGERS and isinstance(value, str) and value.strip().isdigit():
        return int(value)
    if key in _INTEGERS and isinstance(value, float) and value.is_integer():
        return int(value)
    if key in _BOOLEANS and isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value


def _resolve_tags(tags: Any, template: Template, notes: list[str], rid: str) -> list[dict[str, Any]]:
    """Tags one by one: a tag left to deploy time is listed, the others are kept."""
    kept: list[dict[str, Any]] = []
    listed = resolve(tags, template) if not isinstance(tags, list) else tags
    for tag in listed if listed is not NO_VALUE else []:  # !If [Cond, [...], !Ref AWS::NoValue]
        if not isinstance(tag, dict):
            notes.append(f"table {rid}: tag {tag!r} is not carried: not a {{Key, Value}} mapping")
            continue
        try:
            value = resolve(tag, template)
            if value is not NO_VALUE:  # !If [Cond, {Key: ..}, !Ref AWS::NoValue]
                if any(k.get("Key") == value.get("Key") for k in kept):
                    notes.append(
                        f"table {rid}: tag {value.get('Key')!r} is written twice (CloudFormation refuses "
                        "the template): the last value is kept"
                    )
                    kept = [k for k in kept if k.get("Key") != value.get("Key")]
                kept.append(value)
        except Undecidable as error:
            notes.append(f"table {rid}: tag {tag.get('Key')!r} = {error}")
    return kept


def decide(rid: str, props: dict[str, Any], template: Template, notes: list[str]) -> dict[str, Any]:
    """The table's properties with every intrinsic resolved (see the module docstring)."""
    decided: dict[str, Any] = {}
    for prop, value in props.items():
        if prop not in _PROPERTIES:
            notes.append(f"table {rid}: {prop} is not carried")
            continue
        try:
            if prop == "Tags":
                decided[prop] = _resolve_tags(value, template, notes, rid)
            elif (resolved := resolve(value, template)) is not NO_VALUE:  # !If [C, {...}, !Ref AWS::NoValue]
                decided[prop] = resolved
        except Undecidable as error:
            if prop == "TableName":
                decided["name_from"] = describe(value)
            elif prop in _SETTINGS:
                notes.append(f"table {rid}: {prop} is not carried: {error}")
            else:
                raise ValueError(f"table {rid}: property {prop}: cannot decide {error}") from None
    _note_unheld_fields(rid, decided, notes)
    return _coerce(decided)


_THROUGHPUT = {"ReadCapacityUnits", "WriteCapacityUnits"}
_INDEX = {"IndexName", "KeySchema", "Projection", "ProvisionedThroughput"}
# Property -> the fields of it the design holds (per item for a list); any other is listed.
HELD_FIELDS: dict[str, set[str]] = {
    "ProvisionedThroughput": _THROUGHPUT,
    "GlobalSecondaryIndexes": _INDEX,
    "LocalSecondaryIndexes": _INDEX - {"ProvisionedThroughput"},
    "StreamSpecification": {"StreamViewType"},
    "TimeToLiveSpecification": {"AttributeName", "Enabled"},
    "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled"},
    "SSESpecification": {"SSEEnabled", "SSEType", "KMSMasterKeyId"},
    "ContributorInsightsSpecification": {"Enabled"},
    "KinesisStreamSpecification": {"StreamArn"},
    "ResourcePolicy": {"PolicyDocument"},
}


def _note_unheld_fields(rid: str, decided: dict[str, Any], notes: list[str]) -> None:
    """List the fields of known properties that the design has no place for (e.g. a GSI's
    ContributorInsightsSpecification, a stream's ResourcePolicy)."""
    for prop, held in HELD_FIELDS.items():
        value = decided.get(prop)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                where = f"{prop}[{item['IndexName']}]" if "IndexName" in item else prop
                notes += [f"table {rid}: {where}.{key} is not carried" for key in item if key not in held]


# A table whose template gives no TableName: the resource id stands in as ``name``.
GENERATED_NAME_NOTE = (
    "no TableName: CloudFormation generates the name at deploy (stack name, resource id, random "
    "suffix); this design fixes it as {name!r}"
)


def stand_in_name(resource_id: str) -> str:
    """A valid table name (3-255 of ``A-Za-z0-9_.-``) for a resource whose name is not decided."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", resource_id).strip("-") or "table"
    return name if len(name) >= 3 else f"{name}-table"


def table_from_properties(resource_id: str, props: dict[str, Any]) -> ImportedTable:
    """One table from decided ``AWS::DynamoDB::Table`` properties."""
    calls: dict[str, dict[str, Any]] = {}
    for operation, field, prop, _, from_cfn in FIELDS:
        if props.get(prop) is not None:
            calls.setdefault(operation, {})[field] = from_cfn(props[prop])
    create = calls.setdefault("CreateTable", {})
    if not isinstance(create.get("TableName"), str):  # absent, or decided at deploy time
        create["TableName"] = stand_in_name(resource_id)
    ttl_spec = calls.get("UpdateTimeToLive", {}).get("TimeToLiveSpecification") or {}
    pitr_spec = calls.get("UpdateContinuousBackups", {}).get("PointInTimeRecoverySpecification") or {}
    settings = design_values(calls)
    if props.get("name_from"):
        settings["name_from"] = props["name_from"]
    table = ImportedTable(
        create=create,
        ttl=ttl_spec.get("AttributeName") if ttl_spec.get("Enabled", True) else None,
        pitr=bool(pitr_spec.get("PointInTimeRecoveryEnabled")),
        settings=settings,
    )
    if "TableName" not in props and not props.get("name_from"):  # CDK synth output, a SimpleTable
        table.notes.append(GENERATED_NAME_NOTE.format(name=create["TableName"]))
    return table


def _included(rid: str, resource: dict[str, Any], template: Template, notes: list[str]) -> bool:
    """False when the resource's ``Condition`` is false with the parameters' defaults."""
    condition = resource.get("Condition")
    if condition is None:
        return True
    try:
        if template.condition(str(condition)):
            return True
        notes.append(f"table {rid}: not imported: its condition {condition} is false with the defaults")
        return False
    except Undecidable as error:
        notes.append(f"table {rid}: imported although its condition {condition} is undecided: {error}")
        return True


# Resource attributes that keep a table when its stack deletes or replaces it; a design has no place
# for them, and the exported template leaves them out (CloudFormation's default is Delete).
_KEEPING_POLICIES = {
    "DeletionPolicy": "when its stack is deleted",
    "UpdateReplacePolicy": "when an update replaces it",
}


def policy_notes(rid: str, resource: dict[str, Any]) -> list[str]:
    """A note per deletion or replacement policy other than Delete (``Retain``, ``Snapshot``...)."""
    return [
        f"table {rid}: {policy} {describe(resource[policy])} is not carried: an exported template"
        f" deletes the table and its items {when}"
        for policy, when in _KEEPING_POLICIES.items()
        if resource.get(policy) not in (None, "Delete")
    ]


def found_instead(resources: dict[str, Any]) -> str:
    """What a template holds, for a 'no table found' message."""
    kinds = sorted({str(r.get("Type")) for r in resources.values() if isinstance(r, dict)})
    return f"found {len(resources)} other resource(s): {', '.join(kinds)}" if kinds else "found no resources"


def import_template(body: dict[str, Any], path: Path, source: str) -> Imported:
    """Every DynamoDB table of a parsed template (CloudFormation, SAM, or a Serverless ``resources``)."""
    template = Template(body)
    try:
        resources = foreach.expand(body.get("Resources") or {}, template)
        template.resources = set(resources)
        notes: list[str] = []
        tables = []
        for rid, resource in resources.items():
            if not isinstance(resource, dict) or resource.get("Type") not in TABLE_TYPES:
                continue
            if not _included(rid, resource, template, notes):
                continue
            notes += policy_notes(rid, resource)
            properties = resource.get("Properties") or {}
            if not isinstance(properties, dict):
                raise ValueError(f"table {rid}: Properties is not a mapping")
            props = TABLE_TYPES[resource["Type"]](rid, properties, template, body, notes)
            table = table_from_properties(rid, decide(rid, props, template, notes))
            check_create_table(table.create, rid)
            assume_capacity(table)
            name_from = ((resource.get("Metadata") or {}).get(METADATA) or {}).get("NameFrom")
            if name_from:  # written by our own export, with ${ escaped as ${!
                table.settings["name_from"] = str(name_from).replace("${!", "${")
            tables.append(table)
    except Undecidable as error:
        raise ValueError(f"{path}: cannot decide {error}") from None
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as error:
        raise ValueError(f"{path}: {error}") from None
    if not tables:
        wanted = " or ".join(TABLE_TYPES)
        raise ValueError(f"{path}: no {wanted} resource; {found_instead(resources)}")
    notes += related_resource_notes(resources)
    # The template's Description is what `tablewright export` writes the design's description to.
    description = body.get("Description")
    return Imported(
        name=path.stem,
        tables=tables,
        source=source,
        notes=notes,
        description=description.strip() if isinstance(description, str) else "",
    )


def import_file(path: Path, **_: Any) -> Imported:
    """Every DynamoDB table of a template (a Serverless Framework file is read as such)."""
    from . import serverless

    body = read_document(path)
    if serverless.is_serverless(body):
        return serverless.import_document(body, path)
    return import_template(body, path, f"the CloudFormation template {path.name}")
