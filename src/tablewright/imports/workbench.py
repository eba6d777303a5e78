"""Import an AWS NoSQL Workbench data model (format 3.0, the JSON Workbench exports).

Everything the model says is kept: every attribute with its type (``NonKeyAttributes`` included),
facets as entities (a facet's key aliases become key templates when they are templates, like the
ones ``export`` writes), each facet only in the indexes its attributes populate, sample items
(``TableData`` of the table and of each facet) as the design's sample data, and billing as the
model states it. Where the model says nothing about billing, Workbench's current default is assumed
(on-demand, since Workbench 3.13.5) and the assumption is written into the design. What the design
cannot carry (auto scaling settings) is named in a warning.

Workbench 3.0 models carry no access patterns (facets are views of the data, not queries), so the
design's ``patterns:`` stay a skeleton. Any key of the model or of a table this importer does not
read (newer Workbench releases add access patterns in a shape not published) is named in a warning,
never dropped silently.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..design.templates import KeyTemplate
from ..export.wire import WIRE_TO_DESIGN
from .cloudformation import read_json
from .dynamodb_json import value_problem
from .writer import EntitySketch, Imported, ImportedTable, entity_name

# NoSQL Workbench 3.13.5 (February 2025): "Capacity mode for default table settings is now on-demand".
DEFAULT_BILLING = "PAY_PER_REQUEST"
DEFAULT_BILLING_NOTE = (
    "the model states no capacity mode: NoSQL Workbench's default since 3.13.5 (February 2025), "
    "on-demand, is assumed"
)


MODEL_KEYS = {"ModelName", "ModelMetadata", "DataModel"}
TABLE_KEYS = {
    "TableName",
    "KeyAttributes",
    "NonKeyAttributes",
    "TableFacets",
    "GlobalSecondaryIndexes",
    "TableData",
    "DataAccess",  # where Workbench imported sample data from (MySQL): nothing for a design
    "BillingMode",
    "ProvisionedCapacitySettings",
}


def _unread(keys: object, known: set[str], where: str) -> list[str]:
    extra = sorted(k for k in keys if k not in known) if isinstance(keys, dict) else []
    return [
        f"{where}: {k} is not read by this importer (not in Workbench's model format 3.0): left out"
        for k in extra
    ]


def _keys(attributes: dict[str, Any]) -> tuple[list[dict], list[dict]]:
    definitions, schema = [], []
    for role, kind in (("PartitionKey", "HASH"), ("SortKey", "RANGE")):
        key = attributes.get(role)
        if key and key.get("AttributeType") not in ("S", "N", "B"):
            raise ValueError(
                f"{role} {key.get('AttributeName')!r} has type {key.get('AttributeType')!r}; DynamoDB keys are S, N or B"
            )
        if key:
            definitions.append({"AttributeName": key["AttributeName"], "AttributeType": key["AttributeType"]})
            schema.append({"AttributeName": key["AttributeName"], "KeyType": kind})
    return definitions, schema


def _template(alias: str | None, key_name: str | None) -> str | None:
    """A key alias as a template: ``USER#{id}`` and constants such as ``ORG`` stay; the key's own name
    or a display name gives the default template (None)."""
    if not alias or alias == key_name:
        return None
    if "{" in alias:
        try:
            KeyTemplate(alias)
        except ValueError:  # braces that are not a template: a display name
            return None
        return alias
    # An upper-case alias without fields is a constant key (``ORG``); others are display names.
    return alias if re.fullmatch(r"[A-Z0-9#_:.-]+", alias) else None


def _billing(entry: dict[str, Any], name: str, notes: list[str], warnings: list[str]) -> dict[str, Any]:
    """The CreateTable billing fields for a model table, noting assumptions and what is dropped."""
    settings = entry.get("ProvisionedCapacitySettings") or {}
    mode = entry.get("BillingMode")
    if mode not in (None, "PROVISIONED", "PAY_PER_REQUEST"):
        raise ValueError(f"BillingMode {mode!r} is neither PROVISIONED nor PAY_PER_REQUEST")
    if mode is None:
        notes.append(DEFAULT_BILLING_NOTE)
        mode = DEFAULT_BILLING
    billing: dict[str, Any] = {"BillingMode": mode}
    if mode == "PROVISIONED":
        throughput = settings.get("ProvisionedThroughput")
        if not throughput:
            throughput = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
            notes.append("the model says PROVISIONED without units: Workbench's 5 RCU / 5 WCU are assumed")
        units = {k: throughput.get(k) for k in ("ReadCapacityUnits", "WriteCapacityUnits")}
        bad = {k: v for k, v in units.items() if not isinstance(v, int) or isinstance(v, bool) or v < 1}
        if bad:
            raise ValueError(f"ProvisionedThroughput needs whole numbers of units, not {bad}")
        billing["ProvisionedThroughput"] = units
        for scaling in ("AutoScalingRead", "AutoScalingWrite"):
            if settings.get(scaling):
                warnings.append(
                    f"table {name}: {scaling} is not carried (a design has no auto scaling); "
                    "the design keeps the provisioned units"
                )
    return billing


def _facet_of(item: dict[str, Any], facets: list[EntitySketch]) -> EntitySketch | None:
    """The first facet whose key templates parse the item's keys and whose attributes hold its own."""
    for facet in facets:
        if set(item) <= set(facet.attributes) and _keys_fit(item, facet):
            return facet
    return None


def _keys_fit(item: dict[str, Any], facet: EntitySketch) -> bool:
    for source, name in ((facet.pk, facet.pk_name), (facet.sk, facet.sk_name)):
        if source and name in item:
            try:
                KeyTemplate(source).parse(_plain(item[name]))
            except ValueError:
                return False
    return True


def _plain(value: dict[str, Any]) -> Any:
    ((_, payload),) = value.items()
    return payload


def _values(item: dict[str, Any], facet: EntitySketch) -> dict[str, Any]:
    """An item's values for its entity: template fields parsed back out of composed keys."""
    values = dict(item)
    for source, name in ((facet.pk, facet.pk_name), (facet.sk, facet.sk_name)):
        if source and name in item:
            parsed = KeyTemplate(source).parse(_plain(item[name]))
            types = {f: facet.attributes.get(f, "string") for f in parsed}
            values.update({f: {"N" if types[f] == "number" else "S": str(v)} for f, v in parsed.items()})
    return values


def _table(
    entry: dict[str, Any], samples: dict[str, list[dict]], warnings: list[str], taken: set[str]
) -> ImportedTable:
    name = entry["TableName"]
    definitions, schema = _keys(entry["KeyAttributes"])
    gsis = _gsis(entry, definitions)
    notes: list[str] = []
    warnings.extend(_unread(entry, TABLE_KEYS, f"table {name}"))
    create: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": definitions,
        "KeySchema": schema,
        **_billing(entry, name, notes, warnings),
    }
    if create["BillingMode"] == "PROVISIONED":
        for gsi in gsis:  # a Workbench GSI has no units of its own: it is created with the table's
            gsi["ProvisionedThroughput"] = dict(create["ProvisionedThroughput"])
        if gsis:
            notes.append(_shared_capacity_note(create["ProvisionedThroughput"]))
    if gsis:
        create["GlobalSecondaryIndexes"] = gsis
    types = _types(entry, definitions, warnings)
    facets = _facets(entry, types, warnings, taken)
    sketches = [s for s, _ in facets]
    _keep_unplaced_attributes(sketches, types, {d["AttributeName"] for d in definitions})
    for sketch, facet_items in facets:
        samples.setdefault(sketch.name, []).extend(_values(i, sketch) for i in facet_items)
    unplaced = 0
    for item in _items(entry.get("TableData"), f"table {name}", warnings):
        owner = _facet_of(item, sketches)
        if owner is None:
            unplaced += 1
            continue
        samples.setdefault(owner.name, []).append(_values(item, owner))
    if unplaced:
        warnings.append(
            f"table {name}: {unplaced} sample item(s) fit no facet (keys or attributes differ) and are not kept"
        )
    return ImportedTable(create=create, entities=sketches, notes=notes)


def _shared_capacity_note(throughput: dict[str, Any]) -> str:
    """Says what each GSI was given, with the units, so the note reads as a whole sentence."""
    units = f"{throughput['ReadCapacityUnits']} read and {throughput['WriteCapacityUnits']} write units"
    return (
        "the model gives indexes no capacity of their own, so each GSI is given the table's "
        f"provisioned capacity ({units})"
    )


def _gsis(entry: dict[str, Any], definitions: list[dict]) -> list[dict[str, Any]]:
    """The GSIs of a model table as CreateTable entries; their key attributes join ``definitions``."""
    defined = {d["AttributeName"] for d in definitions}
    gsis = []
    for index in entry.get("GlobalSecondaryIndexes", []) or []:
        if any(g["IndexName"] == index["IndexName"] for g in gsis):  # the design would keep the last
            raise ValueError(
                f"two GSIs are named {index['IndexName']!r}: which one the author meant "
                "is not the importer's to guess"
            )
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
    return gsis


def _types(entry: dict[str, Any], definitions: list[dict], warnings: list[str]) -> dict[str, str]:
    """Attribute name -> design type, non-key attributes first, key attributes' types winning."""
    types = {}
    for attribute in entry.get("NonKeyAttributes", []) or []:
        wire = attribute["AttributeType"]
        if wire not in WIRE_TO_DESIGN:
            warnings.append(
                f"table {entry['TableName']}: attribute {attribute['AttributeName']!r} has type {wire!r}, "
                "not a DynamoDB type: imported as a string"
            )
        types[attribute["AttributeName"]] = WIRE_TO_DESIGN.get(wire, "string")
    types.update({d["AttributeName"]: WIRE_TO_DESIGN[d["AttributeType"]] for d in definitions})
    return types


def _facets(
    entry: dict[str, Any], types: dict[str, str], warnings: list[str], taken: set[str]
) -> list[tuple[EntitySketch, list[dict]]]:
    """One sketch per facet with its sample items (or one for the whole table when it has none).

    Facet names are unique across the model: a repeated one gets a suffix (``User_2``), named in a
    warning, before any sample item is filed under it."""
    pk_name = entry["KeyAttributes"]["PartitionKey"]["AttributeName"]
    sk_name = (entry["KeyAttributes"].get("SortKey") or {}).get("AttributeName")
    table_keys = [n for n in (pk_name, sk_name) if n]
    facets: list[tuple[EntitySketch, list[dict]]] = []
    for facet in entry.get("TableFacets", []) or []:
        alias = facet.get("KeyAttributeAlias", {})
        names = [*table_keys, *facet.get("NonKeyAttributes", [])]
        facet_items = _items(
            facet.get("TableData"), f"table {entry['TableName']}, facet {facet['FacetName']}", warnings
        )
        for item in facet_items:  # attributes only the facet's sample items show
            names += [n for n in item if n not in names]
        sketch = EntitySketch(
            _unique_name(str(facet["FacetName"]), taken, warnings),
            {n: types.get(n, "string") for n in names},
            _template(alias.get("PartitionKeyAlias"), pk_name),
            _template(alias.get("SortKeyAlias"), sk_name),
            pk_name=pk_name,
            sk_name=sk_name,
        )
        for template, key_name in ((sketch.pk, pk_name), (sketch.sk, sk_name)):
            if template and KeyTemplate(template).is_bare_field:  # ``{ts}``: the key's value, its type
                sketch.attributes.setdefault(KeyTemplate(template).fields[0], types[key_name])
        facets.append((sketch, facet_items))
    if not facets:  # no facets: one entity holding every attribute of the table
        whole = {n: types[n] for n in [*table_keys, *types] if n in types}
        name = _unique_name(entity_name(entry["TableName"]), taken, warnings)
        facets.append((EntitySketch(name, whole, None, None, pk_name=pk_name, sk_name=sk_name), []))
    return facets


def _unique_name(name: str, taken: set[str], warnings: list[str]) -> str:
    unique, count = name, 1
    while unique in taken:
        count += 1
        unique = f"{name}_{count}"
    if unique != name:
        warnings.append(f"two facets are named {name!r}: the second is imported as {unique!r}")
    taken.add(unique)
    return unique


def _items(data: Any, where: str, warnings: list[str]) -> list[dict[str, Any]]:
    """Sample items in DynamoDB JSON; anything else is named in a warning and left out, and so is an
    item with a value DynamoDB would refuse (``{"N": "0x10"}``, ``{"BOOL": "false"}``), naming the
    item and the attribute."""
    kept, dropped = [], 0
    for position, item in enumerate(data or []):
        wire = isinstance(item, dict) and all(
            isinstance(v, dict) and len(v) == 1 and next(iter(v)) in WIRE_TO_DESIGN for v in item.values()
        )
        if not wire:
            dropped += 1
            continue
        problems = ((name, value_problem(value)) for name, value in item.items())
        bad = next(((name, problem) for name, problem in problems if problem), None)
        if bad:
            warnings.append(
                f"{where}: sample item TableData[{position}]: attribute {bad[0]!r}: {bad[1]}: "
                "the item is left out"
            )
            continue
        kept.append(item)
    if dropped:
        warnings.append(
            f"{where}: {dropped} sample item(s) are not DynamoDB JSON ({{name: {{type: value}}}}): left out"
        )
    return kept


def _keep_unplaced_attributes(sketches: list[EntitySketch], types: dict[str, str], keys: set[str]) -> None:
    """A non-key attribute no facet lists still belongs to the table's items: every facet may hold
    it (optional). Index key attributes are not spread so: they would put facets in indexes."""
    placed = {n for s in sketches for n in s.attributes}
    for name, kind in types.items():
        if name not in placed and name not in keys:
            for sketch in sketches:
                sketch.attributes[name] = kind


def _unique_tables(path: Path, tables: list[ImportedTable]) -> None:
    """Two tables of one name would overwrite each other in the design: refuse the model."""
    seen: set[str] = set()
    for table in tables:
        name = table.create["TableName"]
        if name in seen:
            raise ValueError(f"{path}: two tables are named {name!r}")
        seen.add(name)


def import_file(path: Path, **_: Any) -> Imported:
    """Every table of a Workbench model file."""
    model = read_json(path)
    if not isinstance(model, dict) or not isinstance(model.get("DataModel"), list):
        raise ValueError(f"{path}: not a NoSQL Workbench model (no DataModel list)")
    if not model["DataModel"]:
        raise ValueError(f"{path}: the model's DataModel list is empty: no table to import")
    samples: dict[str, list[dict]] = {}
    warnings: list[str] = _unread(model, MODEL_KEYS, "model")
    tables: list[ImportedTable] = []
    taken: set[str] = set()  # entity names given so far
    for position, entry in enumerate(model["DataModel"]):
        where = f"{path}: DataModel[{position}]"
        if not isinstance(entry, dict):
            raise ValueError(f"{where} is a {type(entry).__name__}, not a table")
        where += f" ({entry.get('TableName', 'no TableName')})"
        try:
            tables.append(_table(entry, samples, warnings, taken))
        except KeyError as error:
            raise ValueError(f"{where}: {error.args[0]!r} is missing") from None
        except (TypeError, AttributeError) as error:
            raise ValueError(f"{where}: not the shape of a Workbench table ({error})") from None
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
    _unique_tables(path, tables)
    return Imported(
        name=str(model.get("ModelName") or path.stem),
        tables=tables,
        source=f"the NoSQL Workbench model {path.name}",
        description=(model.get("ModelMetadata") or {}).get("Description") or "",
        samples={k: v for k, v in samples.items() if v},
        warnings=warnings,
    )


__all__ = ["DEFAULT_BILLING", "import_file"]
