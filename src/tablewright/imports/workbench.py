"""Import an AWS NoSQL Workbench data model: tables, GSIs, and facets as entity skeletons (a facet's key
aliases become key templates when they are templates, like the ones ``export`` writes)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..export.wire import WIRE_TO_DESIGN
from .writer import EntitySketch, Imported, ImportedTable


def _keys(attributes: dict[str, Any]) -> tuple[list[dict], list[dict]]:
    definitions, schema = [], []
    for role, kind in (("PartitionKey", "HASH"), ("SortKey", "RANGE")):
        key = attributes.get(role)
        if key:
            definitions.append({"AttributeName": key["AttributeName"], "AttributeType": key["AttributeType"]})
            schema.append({"AttributeName": key["AttributeName"], "KeyType": kind})
    return definitions, schema


def _template(alias: str | None, key_name: str | None) -> str | None:
    """A key alias as a template: ``USER#{id}`` and constants such as ``ORG`` stay; the key's own name
    or a display name gives the default template (None)."""
    if not alias or alias == key_name:
        return None
    # An upper-case alias without fields is a constant key (``ORG``); others are display names.
    return alias if re.search(r"\{[A-Za-z0-9_]+", alias) or re.fullmatch(r"[A-Z0-9#_:.-]+", alias) else None


def _table(entry: dict[str, Any]) -> ImportedTable:
    definitions, schema = _keys(entry["KeyAttributes"])
    defined = {d["AttributeName"] for d in definitions}
    gsis = []
    for index in entry.get("GlobalSecondaryIndexes", []) or []:
        index_defs, index_schema = _keys(index["KeyAttributes"])
        definitions += [d for d in index_defs if d["AttributeName"] not in defined]
        defined |= {d["AttributeName"] for d in index_defs}
        gsis.append(
            {
                "IndexName": index["IndexName"],
                "KeySchema": index_schema,
                "Projection": index.get("Projection", {"ProjectionType": "ALL"}),
            }
        )
    create: dict[str, Any] = {
        "TableName": entry["TableName"],
        "AttributeDefinitions": definitions,
        "KeySchema": schema,
        "BillingMode": entry.get("BillingMode", "PROVISIONED"),
    }
    throughput = (entry.get("ProvisionedCapacitySettings") or {}).get("ProvisionedThroughput")
    if create["BillingMode"] == "PROVISIONED":
        create["ProvisionedThroughput"] = throughput or {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
        for gsi in gsis:
            gsi["ProvisionedThroughput"] = dict(create["ProvisionedThroughput"])
    if gsis:
        create["GlobalSecondaryIndexes"] = gsis
    types = {
        a["AttributeName"]: WIRE_TO_DESIGN.get(a["AttributeType"], "string")
        for a in entry.get("NonKeyAttributes", [])
    }
    types.update(
        {d["AttributeName"]: WIRE_TO_DESIGN[d["AttributeType"]] for d in definitions}
    )  # key types win
    pk_name = entry["KeyAttributes"]["PartitionKey"]["AttributeName"]
    sk_name = (entry["KeyAttributes"].get("SortKey") or {}).get("AttributeName")
    entities = []
    for facet in entry.get("TableFacets", []) or []:
        alias = facet.get("KeyAttributeAlias", {})
        attributes = {name: types.get(name, "string") for name in facet.get("NonKeyAttributes", [])}
        entities.append(
            EntitySketch(
                facet["FacetName"],
                attributes,
                _template(alias.get("PartitionKeyAlias"), pk_name),
                _template(alias.get("SortKeyAlias"), sk_name),
            )
        )
    return ImportedTable(create=create, entities=entities)


def import_file(path: Path, **_: Any) -> Imported:
    """Every table of a Workbench model file."""
    model = json.loads(path.read_text(encoding="utf-8"))
    if "DataModel" not in model:
        raise ValueError(f"{path}: not a NoSQL Workbench model (no DataModel)")
    return Imported(
        name=model.get("ModelName", path.stem),
        tables=[_table(t) for t in model["DataModel"]],
        source=f"the NoSQL Workbench model {path.name}",
    )
