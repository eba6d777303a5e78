"""The neutral form every importer produces, and the design YAML written from it (with comments
where a person has to fill something in).

``Imported`` holds per table the CreateTable request (plus TTL and PITR), and optional entity
skeletons (from NoSQL Workbench facets). Tables come out complete; entities and patterns are a
skeleton to finish.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..export.wire import KEY_TO_DESIGN

_BILLING = {"PAY_PER_REQUEST": "on_demand", "PROVISIONED": "provisioned"}


@dataclass
class EntitySketch:
    """An entity as far as the source format knows it: attributes and table key templates."""

    name: str
    attributes: dict[str, str] = field(default_factory=dict)  # name -> design type
    pk: str | None = None
    sk: str | None = None


@dataclass
class ImportedTable:
    """One table: its CreateTable request, TTL attribute, PITR, and entity sketches."""

    create: dict[str, Any]
    ttl: str | None = None
    pitr: bool = False
    entities: list[EntitySketch] = field(default_factory=list)
    # Design keys written as they are (encryption, tags, name_from...: see export/settings.py).
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass
class Imported:
    """A whole import: a name, a description, tables."""

    name: str
    tables: list[ImportedTable]
    source: str = ""
    # What the source declares and the design cannot hold: written as comments (and told on stderr).
    notes: list[str] = field(default_factory=list)


def logical_name(physical: str) -> str:
    """A logical table name (snake_case) for a physical table name."""
    return re.sub(r"[^A-Za-z0-9]+", "_", physical).strip("_").lower() or "table"


def _key(definitions: dict[str, str], name: str) -> dict[str, str]:
    return {"name": name, "type": definitions.get(name, "S")}


def _schema(key_schema: list[dict[str, str]], kind: str) -> str | None:
    return next((k["AttributeName"] for k in key_schema if k["KeyType"] == kind), None)


def _projection(projection: dict[str, Any]) -> Any:
    kind = projection.get("ProjectionType", "ALL")
    return {"include": list(projection.get("NonKeyAttributes", []))} if kind == "INCLUDE" else kind


def _index(index: dict[str, Any], definitions: dict[str, str], kind: str, billing: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": kind,
        "partition_key": _key(definitions, _schema(index["KeySchema"], "HASH") or ""),
    }
    sort = _schema(index["KeySchema"], "RANGE")
    if sort:
        out["sort_key"] = _key(definitions, sort)
    out["projection"] = _projection(index.get("Projection", {}))
    throughput = index.get("ProvisionedThroughput")
    if throughput and billing == "provisioned" and kind == "global":
        out["throughput"] = {
            "read": throughput["ReadCapacityUnits"],
            "write": throughput["WriteCapacityUnits"],
        }
    return out


def table_dict(table: ImportedTable) -> dict[str, Any]:
    """The design's YAML mapping for one table."""
    create = table.create
    definitions = {d["AttributeName"]: d["AttributeType"] for d in create.get("AttributeDefinitions", [])}
    out: dict[str, Any] = {"name": create["TableName"]}
    out["partition_key"] = _key(definitions, _schema(create["KeySchema"], "HASH") or "")
    sort = _schema(create["KeySchema"], "RANGE")
    if sort:
        out["sort_key"] = _key(definitions, sort)
    billing = _BILLING.get(create.get("BillingMode", "PROVISIONED"), "provisioned")
    if billing == "provisioned":
        units = create.get("ProvisionedThroughput", {})
        out["billing"] = {
            "mode": "provisioned",
            "read": units.get("ReadCapacityUnits", 5),
            "write": units.get("WriteCapacityUnits", 5),
        }
    else:
        out["billing"] = "on_demand"
    if table.ttl:
        out["ttl"] = table.ttl
    stream = create.get("StreamSpecification") or {}
    if stream.get("StreamEnabled", "StreamViewType" in stream) and stream.get("StreamViewType"):
        out["stream"] = stream["StreamViewType"]
    out["table_class"] = create.get("TableClass", "STANDARD")
    if table.pitr:
        out["pitr"] = True
    out.update(table.settings)
    indexes = {
        i["IndexName"]: _index(i, definitions, kind, billing)
        for field_name, kind in (("GlobalSecondaryIndexes", "global"), ("LocalSecondaryIndexes", "local"))
        for i in create.get(field_name, []) or []
    }
    if indexes:
        out["indexes"] = indexes
    return out


def _entity_name(table: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^A-Za-z0-9]+", table) if w) or "Item"


def _skeleton(logical: str, table: ImportedTable) -> dict[str, dict[str, Any]]:
    """Entities of a table: the sketches, or one entity holding the key attributes."""
    definitions = {
        d["AttributeName"]: d["AttributeType"] for d in table.create.get("AttributeDefinitions", [])
    }
    sketches = table.entities or [EntitySketch(_entity_name(table.create["TableName"]))]
    entities = {}
    for sketch in sketches:
        attributes = {n: KEY_TO_DESIGN.get(t, "string") for n, t in definitions.items()}
        attributes.update(sketch.attributes)
        entity: dict[str, Any] = {"table": logical, "attributes": attributes}
        keys = {k: v for k, v in (("pk", sketch.pk), ("sk", sketch.sk)) if v}
        if keys and "pk" not in keys:  # a sort template alone: the partition key is its own attribute
            keys = {"pk": "{" + (_schema(table.create["KeySchema"], "HASH") or "") + "}", **keys}
        if keys:
            entity["keys"] = {"table": keys}
            for template in keys.values():  # template fields must be attributes
                for name in re.findall(r"\{([A-Za-z0-9_]+)", template):
                    entity["attributes"].setdefault(name, "string")
        entities[sketch.name] = entity
    return entities


def _dump(data: Any, indent: int) -> str:
    text = yaml.safe_dump(data, sort_keys=False, width=1000, default_flow_style=False)
    return "".join(" " * indent + line + "\n" for line in text.splitlines())


def notes_comment(notes: list[str]) -> list[str]:
    """Comment lines listing what the source declares that this design does not carry."""
    if not notes:
        return []
    return ["#", "# Not carried into this design (declared in the source; redo it after export):"] + [
        f"#   - {note}" for note in notes
    ]


def to_yaml(imported: Imported) -> str:
    """The design file text: tables complete, entities and patterns as a commented skeleton."""
    tables = {}
    entities: dict[str, Any] = {}
    for table in imported.tables:
        logical = logical_name(table.create["TableName"])
        tables[logical] = table_dict(table)
        entities.update(_skeleton(logical, table))
    lines = [
        "# yaml-language-server: $schema=https://tablewright.dev/schema/design.json",
        f"# Imported by `tablewright import` from {imported.source or 'a model'}.",
        "# Tables and indexes are complete. Entities and access patterns are a skeleton: fill in the",
        "# TODOs, then run `tablewright check` on this file.",
        *notes_comment(imported.notes),
        "version: 1",
        _dump({"name": imported.name}, 0).rstrip(),
        "description: TODO describe what this design stores and for whom",
        "",
        "tables:",
        _dump(tables, 2).rstrip(),
        "",
        "# TODO: one entity per kind of item; add every attribute with its type and rules,",
        '# key templates (e.g. pk: "USER#{user_id}") and the indexes each entity appears in.',
        "entities:",
        _dump(entities, 2).rstrip(),
        "",
        "# TODO: the access patterns, each with what it means and how DynamoDB serves it, e.g.",
        "#   get_item:",
        "#     params: {id: string}",
        "#     returns: SomeEntity",
        '#     means: {where: "id = :id"}',
        "#     served: {op: get}",
        "patterns: {}",
        "",
    ]
    return "\n".join(lines)
