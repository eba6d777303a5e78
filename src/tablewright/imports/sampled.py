"""A checkable design from live tables: their definitions (``endpoint.import_tables``), a few items
read from each as ``samples:``, and one pattern per key with ``examples:`` drawn from those items.

``tablewright init --from-endpoint URL`` / ``--db FILE`` writes this, so ``tablewright check`` runs
every pattern at once. One entity per table holds the key attributes; other attributes are kept as
the items carry them (``additional_attributes``). Binary attributes are left out of the samples
(YAML has no bytes a person would edit); sets become lists.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ..design.scaffold import snake
from ..export.wire import KEY_TO_DESIGN, from_client
from .endpoint import import_tables
from .writer import design_names, table_dict


def _yaml_value(value: Any) -> Any:
    """A deserialized DynamoDB value as YAML can write it (None for what it cannot). A number with a
    fraction stays a Decimal, written digit for digit (``scaffold.to_yaml``) and read back so under
    ``samples:``/``examples:``: as a float, 1.0000000000000001 came back as 1.0, an example key
    that finds nothing."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else value
    if isinstance(value, set | frozenset):
        return sorted(_yaml_value(v) for v in value)
    if isinstance(value, dict):
        return {k: v for k, v in ((k, _yaml_value(v)) for k, v in value.items()) if v is not None}
    if isinstance(value, list):
        return [_yaml_value(v) for v in value]
    if isinstance(value, str | bool | int) or value is None:
        return value
    return None  # binary


def _sample(client: Any, table: str, limit: int) -> list[dict[str, Any]]:
    items = client.scan(TableName=table, Limit=limit).get("Items", [])
    out = []
    for item in items:
        plain = {k: _yaml_value(from_client(v)) for k, v in item.items()}
        out.append({k: v for k, v in plain.items() if v is not None})
    return out


def _keys(schema: list[dict[str, str]]) -> tuple[str, str | None]:
    hash_key = next(k["AttributeName"] for k in schema if k["KeyType"] == "HASH")
    range_key = next((k["AttributeName"] for k in schema if k["KeyType"] == "RANGE"), None)
    return hash_key, range_key


def design_from_endpoint(
    client: Any, tables: list[str] | None = None, name: str = "imported", samples: int = 20
) -> dict[str, Any]:
    """Design data for the tables behind ``client`` (default: all), with ``samples`` items of each."""
    imported = import_tables(client, tables, name)
    design: dict[str, Any] = {
        "version": 1,
        "name": name,
        "description": "TODO: what this design stores; imported from live tables by tablewright init.",
        "tables": {},
        "entities": {},
        "patterns": {},
    }
    data: dict[str, list[dict[str, Any]]] = {}
    # Tables whose names differ only in case or punctuation (order-lines, order_lines) fold to one
    # logical and entity name: each keeps its own, suffixed, as `tablewright import` does.
    names = design_names(imported)
    if names.changed:
        design["description"] += " Renamed: " + "; ".join(names.changed) + "."
    for table, logical, (entity, *_) in zip(imported.tables, names.tables, names.entities, strict=True):
        create = table.create
        design["tables"][logical] = table_dict(table)
        types = {d["AttributeName"]: d["AttributeType"] for d in create["AttributeDefinitions"]}
        design["entities"][entity] = {
            "table": logical,
            "attributes": {n: KEY_TO_DESIGN.get(t, "string") for n, t in types.items()},
        }
        items = _sample(client, create["TableName"], samples)
        data[entity] = items
        design["patterns"].update(_patterns(entity, create, items, design["entities"][entity]["attributes"]))
    design["samples"] = data
    return design


def _patterns(
    entity: str, create: dict[str, Any], items: list[dict[str, Any]], types: dict[str, str]
) -> dict[str, Any]:
    """A get by the full key and a query by the partition key, plus a query per ALL-projected GSI."""
    hash_key, range_key = _keys(create["KeySchema"])
    stem = snake(entity)
    key = [hash_key, *([range_key] if range_key else [])]
    found: dict[str, Any] = {
        f"get_{stem}": _pattern(entity, key, types, {"op": "get"}, items, order=None),
    }
    if range_key:
        found[f"{stem}_by_{hash_key}"] = _pattern(
            entity, [hash_key], types, {"op": "query"}, items, order=range_key
        )
    for index in create.get("GlobalSecondaryIndexes", []) or []:
        index_hash, index_range = _keys(index["KeySchema"])
        served = {"op": "query", "index": index["IndexName"]}
        pattern = _pattern(entity, [index_hash], types, served, items, order=index_range)
        if index.get("Projection", {}).get("ProjectionType", "ALL") != "ALL":
            pattern["unchecked"] = "the index does not project every attribute; check compares whole items"
        name = f"{stem}_by_{snake(index_hash)}"
        found[f"{name}_on_{snake(index['IndexName'])}" if name in found else name] = pattern
    return found


def _pattern(
    entity: str,
    params: list[str],
    types: dict[str, str],
    served: dict[str, Any],
    items: list[dict[str, Any]],
    order: str | None,
) -> dict[str, Any]:
    pattern: dict[str, Any] = {
        "params": {p: types.get(p, "string") for p in params},
        "returns": entity,
        "means": {"where": " AND ".join(f"{p} = :{p}" for p in params)},
        "served": served,
    }
    if order:
        pattern["means"]["order"] = f"{order} asc"
    seen: list[dict[str, Any]] = []
    for item in items:
        example = {p: item[p] for p in params if p in item}
        if len(example) == len(params) and example not in seen:
            seen.append(example)
        if len(seen) == 2:
            break
    if seen:
        pattern["examples"] = seen
    else:
        pattern["unchecked"] = "the table holds no item to take parameters from"
    return pattern
