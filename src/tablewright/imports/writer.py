"""The neutral form every importer produces, and the design YAML written from it (with comments
where a person has to fill something in).

``Imported`` holds per table the CreateTable request (plus TTL and PITR), and optional entity
skeletons (from NoSQL Workbench facets). Tables come out complete; entities and patterns are a
skeleton to finish. Sample items (``Imported.samples``) are written as a sample-data generator beside
the design (``generator_text``), the ``tablewright check`` convention, so check, ``cost --measure``
and exports use them; their average size becomes the entity's declared ``item_size``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..cost.sizes import item_size
from ..design.templates import KeyTemplate, field_source
from ..export.wire import KEY_TO_DESIGN, from_wire

_BILLING = {"PAY_PER_REQUEST": "on_demand", "PROVISIONED": "provisioned"}


@dataclass
class EntitySketch:
    """An entity as far as the source format knows it: attributes and table key templates."""

    name: str
    attributes: dict[str, str] = field(default_factory=dict)  # name -> design type
    pk: str | None = None
    sk: str | None = None
    pk_name: str | None = None  # the table's key attribute names, to read composed sample keys
    sk_name: str | None = None


@dataclass
class ImportedTable:
    """One table: its CreateTable request, TTL attribute, PITR, and entity sketches."""

    create: dict[str, Any]
    ttl: str | None = None
    pitr: bool = False
    entities: list[EntitySketch] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # assumptions made for this table, written as comments
    # Design keys written as they are (encryption, tags, name_from...: see export/settings.py).
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass
class Imported:
    """A whole import: a name, tables, sample items per entity (wire form), and warnings naming
    what the source said that the design cannot carry."""

    name: str
    tables: list[ImportedTable]
    source: str = ""
    description: str = ""
    samples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # What the source declares and the design cannot hold: written as comments (and told on stderr).
    notes: list[str] = field(default_factory=list)


DEFAULT_UNITS = 5  # what a provisioned table without units is given (Workbench's and the console's)


def assume_capacity(table: ImportedTable, billing_stated: bool | None = None) -> None:
    """Give a provisioned table the capacity its source leaves out (``DEFAULT_UNITS`` each), and say
    so in the table's notes: the design must not look as if the source had stated it.
    ``billing_stated``: whether the source wrote the billing mode (default: whether ``create`` has one)."""
    create = table.create
    if billing_stated is None:
        billing_stated = "BillingMode" in create
    if create.get("BillingMode", "PROVISIONED") != "PROVISIONED":
        return
    units = create.setdefault("ProvisionedThroughput", {})
    missing = [k for k in ("ReadCapacityUnits", "WriteCapacityUnits") if units.get(k) is None]
    if not missing:
        return
    for key in missing:
        units[key] = DEFAULT_UNITS
    stated = "provisioned" if billing_stated else "no billing mode (so provisioned, the default)"
    table.notes.append(
        f"the source states {stated} without {' or '.join(missing)}: {DEFAULT_UNITS} units each are assumed"
    )


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
            "read": units.get("ReadCapacityUnits", DEFAULT_UNITS),
            "write": units.get("WriteCapacityUnits", DEFAULT_UNITS),
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


def entity_name(table: str) -> str:
    """An entity name (PascalCase) for a physical table name."""
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^A-Za-z0-9]+", table) if w) or "Item"


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name_2``, ``name_3``... when it is taken; the result is added to ``taken``."""
    unique, count = name, 1
    while unique in taken:
        count += 1
        unique = f"{name}_{count}"
    taken.add(unique)
    return unique


def _sketches(table: ImportedTable) -> list[EntitySketch]:
    return table.entities or [EntitySketch(entity_name(table.create["TableName"]))]


@dataclass
class DesignNames:
    """The design's name for each imported table (logical) and entity, all distinct, and one line per
    name that had to change: tables whose names differ only in case or punctuation (``my-orders``,
    ``my.orders``) fold to one logical name, and neither may be lost."""

    tables: list[str]
    entities: list[list[str]]  # per table, its sketches' names in order
    changed: list[str]


def design_names(imported: Imported) -> DesignNames:
    """Distinct logical table and entity names for ``imported`` (see :class:`DesignNames`)."""
    natural_tables = [logical_name(t.create["TableName"]) for t in imported.tables]
    # A suffixed name must not take the natural name of a table further down.
    taken_tables: set[str] = set()
    reserved = set(natural_tables)
    folded_from: dict[str, str] = {}  # logical name -> the physical table that holds it first
    tables, entities, changed = [], [], []
    for table, natural in zip(imported.tables, natural_tables, strict=True):
        physical = table.create["TableName"]
        logical = natural
        if natural in taken_tables:
            logical = unique_name(natural, taken_tables | reserved)
            changed.append(
                f"tables {folded_from[natural]!r} and {physical!r} both fold to the logical name "
                f"{natural!r}: {physical!r} is imported as {logical!r} (its name: stays {physical!r})"
            )
        taken_tables.add(logical)
        folded_from.setdefault(natural, physical)
        tables.append(logical)
    taken_entities: set[str] = set()
    for table in imported.tables:
        names = []
        for sketch in _sketches(table):
            name = unique_name(sketch.name, taken_entities)
            if name != sketch.name:
                changed.append(
                    f"table {table.create['TableName']!r}: another table's entity is already named "
                    f"{sketch.name!r}: this one is imported as {name!r}"
                )
            names.append(name)
        entities.append(names)
    return DesignNames(tables, entities, changed)


def _skeleton(logical: str, table: ImportedTable, names: list[str]) -> dict[str, dict[str, Any]]:
    """Entities of a table (named ``names``): the sketches, or one entity holding the key attributes."""
    definitions = {
        d["AttributeName"]: d["AttributeType"] for d in table.create.get("AttributeDefinitions", [])
    }
    # Sketches from the source list their own attributes: only the table's keys are added, so a facet
    # appears only in the indexes whose keys it holds. Without sketches one entity holds every key.
    key_names = (
        {k["AttributeName"] for k in table.create["KeySchema"]} if table.entities else set(definitions)
    )
    entities = {}
    for sketch, entity_name_in_design in zip(_sketches(table), names, strict=True):
        attributes = {n: KEY_TO_DESIGN.get(t, "string") for n, t in definitions.items() if n in key_names}
        attributes.update(sketch.attributes)
        for name, kind in definitions.items():  # a key attribute keeps its key type
            if name in attributes:
                attributes[name] = KEY_TO_DESIGN.get(kind, "string")
        entity: dict[str, Any] = {"table": logical, "attributes": attributes}
        key_attributes = {
            role: _schema(table.create["KeySchema"], kind) for role, kind in (("pk", "HASH"), ("sk", "RANGE"))
        }
        keys = {k: v for k, v in (("pk", sketch.pk), ("sk", sketch.sk)) if v}
        if keys:
            # One template given (a display-name alias for the other key, or none): the other key of
            # the table is its own attribute, the default template.
            keys = {
                role: keys.get(role) or field_source(attribute)
                for role, attribute in key_attributes.items()
                if attribute
            }
            entity["keys"] = {"table": keys}
            for role, template in keys.items():  # template fields must be attributes
                parsed = KeyTemplate(template)
                # A bare field (``{ts}``) is the key's whole value: it has the key attribute's type.
                kind = KEY_TO_DESIGN.get(definitions.get(key_attributes[role] or "", "S"), "string")
                for name in parsed.fields:
                    entity["attributes"].setdefault(name, kind if parsed.is_bare_field else "string")
        entities[entity_name_in_design] = entity
    return entities


def _dump(data: Any, indent: int) -> str:
    text = yaml.safe_dump(data, sort_keys=False, width=1000, default_flow_style=False, allow_unicode=True)
    return "".join(" " * indent + line + "\n" for line in text.splitlines())


def _sample_sizes(imported: Imported, entities: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Entity -> ``{item_size: average bytes}`` of its sample items (keys composed as stored)."""
    sizes = {}
    for name, items in imported.samples.items():
        if name in entities and items:
            total = sum(item_size({k: from_wire(v) for k, v in item.items()}) for item in items)
            sizes[name] = {"item_size": max(1, round(total / len(items)))}
    return sizes


def _notes(imported: Imported) -> list[str]:
    notes = [f"#   {table.create['TableName']}: {note}" for table in imported.tables for note in table.notes]
    return ["# Assumptions made by the import (the source does not say):", *notes] if notes else []


def _renamed_comment(changed: list[str]) -> list[str]:
    if not changed:
        return []
    return ["# Names changed so that no table or entity overwrites another:", *(f"#   {c}" for c in changed)]


def notes_comment(notes: list[str]) -> list[str]:
    """Comment lines listing what the source declares that this design does not carry."""
    if not notes:
        return []
    return ["#", "# Not carried into this design (declared in the source; redo it after export):"] + [
        f"#   - {note}" for note in notes
    ]


def to_yaml(imported: Imported) -> str:
    """The design file text: tables complete, entities and patterns as a commented skeleton."""
    names = design_names(imported)
    tables = {}
    entities: dict[str, Any] = {}
    for table, logical, entity_names in zip(imported.tables, names.tables, names.entities, strict=True):
        tables[logical] = table_dict(table)
        entities.update(_skeleton(logical, table, entity_names))
    description = imported.description or "TODO describe what this design stores and for whom"
    sizes = _sample_sizes(imported, entities)
    volumes = (
        [
            "",
            "# Item sizes: the average of the source's sample items (kept in the generator beside this file).",
            _dump({"volumes": {"entities": sizes}}, 0).rstrip(),
        ]
        if sizes
        else []
    )
    lines = [
        "# yaml-language-server: $schema=https://tablewright.dev/schema/design.json",
        f"# Imported by `tablewright import` from {imported.source or 'a model'}.",
        "# Tables and indexes are complete. Entities and access patterns are a skeleton: fill in the",
        "# TODOs, then run `tablewright check` on this file.",
        *_notes(imported),
        *_renamed_comment(names.changed),
        *notes_comment(imported.notes),
        "version: 1",
        _dump({"name": imported.name}, 0).rstrip(),
        _dump({"description": description}, 0).rstrip(),
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
        *volumes,
        "",
    ]
    return "\n".join(lines)


GENERATOR = '''"""Sample items of {source}, kept by `tablewright import`.

``generate()`` returns them per entity (the `tablewright check` convention); ``params()`` has none
yet: add parameter sets for the access patterns you write.
"""

import json

from tablewright.export.wire import from_wire

SAMPLES = json.loads(
    r"""
{samples}
"""
)


def generate(seed=0, scale=1.0):
    """Entity -> list of values, as the source's sample data holds them."""
    return {{
        entity: [{{name: from_wire(value) for name, value in item.items()}} for item in items]
        for entity, items in SAMPLES.items()
    }}


def params(seed=0, scale=1.0):
    """Pattern -> list of parameter sets (none yet)."""
    return {{}}
'''


def generator_text(imported: Imported) -> str | None:
    """The sample-data generator (Python) for the import's sample items; None when there are none."""
    if not imported.samples:
        return None
    entities = [
        f"  {json.dumps(entity)}: [\n"
        + ",\n".join(f"    {json.dumps(item, ensure_ascii=False)}" for item in items)
        + "\n  ]"
        for entity, items in imported.samples.items()
    ]
    samples = "{\n" + ",\n".join(entities) + "\n}"
    return GENERATOR.format(source=imported.source or "the imported model", samples=samples)
