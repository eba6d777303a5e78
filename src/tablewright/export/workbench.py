"""``--to nosql-workbench``: an AWS NoSQL Workbench data model (JSON, model format 3.0).

Each design table becomes a ``DataModel`` entry; each entity becomes a facet whose key aliases are its
key templates (``USER#{userId}``), so the import can recover them; sample items come from the
example's ``generate.py`` when there is one. Workbench models have no LSIs, TTL or streams: those are
left out (the CloudFormation/Terraform exports carry them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..design.model import Design, Entity, Table
from .create_table import BILLING_MODES, index_request, throughput
from .samples import sample_items
from .wire import DESIGN_TO_WIRE, item_to_wire

MODEL_VERSION = "3.0"


def _key_attribute(key: Any) -> dict[str, str]:
    return {"AttributeName": key.name, "AttributeType": key.type}


def _key_attributes(pk: Any, sk: Any) -> dict[str, Any]:
    keys = {"PartitionKey": _key_attribute(pk)}
    if sk is not None:
        keys["SortKey"] = _key_attribute(sk)
    return keys


def _non_key_attributes(table: Table, entities: list[Entity]) -> list[dict[str, str]]:
    keys = {table.partition_key.name, *([table.sort_key.name] if table.sort_key else [])}
    found: dict[str, str] = {}
    for index in table.indexes.values():  # index keys are attributes of the table's items
        for key in (index.partition_key, index.sort_key):
            if key is not None and key.name not in keys:
                found.setdefault(key.name, key.type)
    for entity in entities:
        for name, attr in entity.attributes.items():
            if name not in keys:
                found.setdefault(name, DESIGN_TO_WIRE[attr.type])
        if _type_attribute(entity) not in (None, *keys):
            found.setdefault(_type_attribute(entity), "S")
    return [{"AttributeName": n, "AttributeType": t} for n, t in found.items()]


def _type_attribute(entity: Entity) -> str | None:
    """The attribute every item of ``entity`` carries its ``entity_type`` in, when it has one."""
    return entity.entity_type_attribute if entity.entity_type is not None else None


def _facet_attributes(entity: Entity) -> list[str]:
    """The facet's attributes: everything its items hold, the discriminator and the index keys the
    entity composes too. An item holding an attribute its facet does not list fits no facet, so the
    import would drop it, and a facet without an index's key attributes is not placed in the index."""
    names = dict.fromkeys(entity.attributes)
    for target, entry in entity.keys.items():
        if target != "table":
            names.update(dict.fromkeys(n for n in (entry.partition_name, entry.sort_name) if n))
    kind = _type_attribute(entity)
    if kind is not None:
        names[kind] = None
    return list(names)


def _facet(entity: Entity, table: Table) -> dict[str, Any]:
    entry = entity.keys.get("table")
    alias = {"PartitionKeyAlias": entry.pk.source if entry else table.partition_key.name}
    if table.sort_key is not None:
        alias["SortKeyAlias"] = entry.sk.source if entry and entry.sk else table.sort_key.name
    return {
        "FacetName": entity.name,
        "KeyAttributeAlias": alias,
        "TableData": [],
        "NonKeyAttributes": _facet_attributes(entity),
        "DataAccess": {"MySql": {}},
    }


def _gsi(index: Any, table: Table) -> dict[str, Any]:
    request = index_request(index, table)
    return {
        "IndexName": index.name,
        "KeyAttributes": _key_attributes(index.partition_key, index.sort_key),
        "Projection": request["Projection"],
    }


def data_model(name: str, table: Table, design: Design, items: list[dict]) -> dict[str, Any]:
    """One table's ``DataModel`` entry."""
    entities = design.entities_in(name)
    entry: dict[str, Any] = {
        "TableName": table.table_name,
        "KeyAttributes": _key_attributes(table.partition_key, table.sort_key),
        "NonKeyAttributes": _non_key_attributes(table, entities),
        "TableFacets": [_facet(e, table) for e in entities],
        "GlobalSecondaryIndexes": [_gsi(i, table) for i in table.indexes.values() if i.kind == "global"],
        "TableData": [item_to_wire(i) for i in items],
        "DataAccess": {"MySql": {}},
        "BillingMode": BILLING_MODES[table.billing.mode],
    }
    if table.billing.mode == "provisioned":
        entry["ProvisionedCapacitySettings"] = {"ProvisionedThroughput": throughput(table.billing)}
    return entry


def model(design: Design, design_path: Path | None = None) -> dict[str, Any]:
    """The whole Workbench model as a dict."""
    samples = sample_items(design, design_path)
    return {
        "ModelName": design.name,
        "ModelMetadata": {
            "Author": "tablewright",
            "DateCreated": "",
            "DateLastModified": "",
            "Description": design.description or "",
            "AWSService": "Amazon DynamoDB",
            "Version": MODEL_VERSION,
        },
        "DataModel": [data_model(n, t, design, samples.get(n, [])) for n, t in design.tables.items()],
    }


def export(design: Design, *, design_path: Path | None = None, **_: Any) -> str:
    """The model as JSON text."""
    return json.dumps(model(design, design_path), indent=2) + "\n"
