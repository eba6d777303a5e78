"""Index rules (TW2xx): redundant, unused, over-projected or misused secondary indexes."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

from tablewright.cost import analysis
from tablewright.cost.estimate import SECONDS_PER_MONTH
from tablewright.cost.prices import default_prices
from tablewright.cost.sizes import entity_size, index_entry_size, read_units, write_units
from tablewright.design.model import Design, Entity, Projection

from ..context import Context, index_path, pattern_path
from ..registry import Hit, rule

MAX_GSI, MAX_LSI = 20, 5
UNIQUENESS_WORDS = re.compile(r"uniq|dedup|duplicat", re.IGNORECASE)
PROJECTION_SAVING = 0.5  # report ALL when KEYS_ONLY + fetches would cost less than half
PROJECTION_MIN_DOLLARS = 1.0  # ... and the saving is at least a dollar a month


@rule(
    "TW201",
    "gsi-repeats-table-key",
    "indexes",
    "warning",
    "A GSI is keyed exactly like its table.",
    "A GSI whose keys repeat the table's serves no access pattern the table cannot, yet every write is "
    "paid twice and every item stored twice.",
    "Drop the index and query the table; keep it only to isolate capacity or to trim the projection.",
)
def gsi_repeats_table_key(ctx: Context) -> Iterator[Hit]:
    for tname, table in ctx.design.tables.items():
        for iname, index in table.indexes.items():
            if index.kind != "global" or index.projection.type != "ALL":
                continue
            same_names = index.partition_key.name == table.partition_key.name and (
                (index.sort_key.name if index.sort_key else None)
                == (table.sort_key.name if table.sort_key else None)
            )
            entities = [e for e in ctx.design.entities_in(tname) if iname in e.keys and "table" in e.keys]
            same_templates = bool(entities) and all(
                e.keys[iname].pk.source == e.keys["table"].pk.source
                and (e.keys[iname].sk.source if e.keys[iname].sk else None)
                == (e.keys["table"].sk.source if e.keys["table"].sk else None)
                and e.keys[iname].when is None
                for e in entities
            )
            if same_names or same_templates:
                how = "the same key attributes" if same_names else "the same key templates for every entity"
                yield Hit(
                    index_path(tname, iname),
                    f"GSI {iname} of table {tname} uses {how} as the table; it costs "
                    f"{ctx.impact(ctx.target_dollars(tname, iname))}",
                )


@rule(
    "TW202",
    "gsi-uniqueness",
    "indexes",
    "error",
    "A GSI is relied on to enforce uniqueness or to deduplicate.",
    "A GSI is eventually consistent and cannot appear in a write condition: two writers can both query "
    "it, both see no duplicate and both write. It cannot enforce a unique constraint.",
    "Declare the constraint (unique: [[a, b]]): the runtime writes a marker item per unique value "
    "in the same TransactWriteItems, guarded by attribute_not_exists.",
)
def gsi_uniqueness(ctx: Context) -> Iterator[Hit]:
    for tname, table in ctx.design.tables.items():
        for iname, index in table.indexes.items():
            if index.kind != "global" or _enforced(ctx, tname, iname):
                continue
            if UNIQUENESS_WORDS.search(iname):
                yield Hit(
                    index_path(tname, iname), f"GSI {iname} of table {tname} is named as a uniqueness check"
                )
                continue
            for pattern in ctx.patterns_on(tname, iname):
                text = f"{pattern.name} {pattern.description or ''}"
                if UNIQUENESS_WORDS.search(text):
                    yield Hit(
                        pattern_path(pattern.name),
                        f"pattern {pattern.name} uses GSI {iname} of table {tname} as a uniqueness/duplicate check",
                    )


def _enforced(ctx: Context, table: str, index: str) -> bool:
    """True when every entity in the index declares a unique constraint over the index key's fields:
    the runtime's marker items enforce it, and the index is only a lookup."""
    keyed = [e for e in ctx.design.entities_in(table) if index in e.keys]
    for entity in keyed:
        entry = entity.keys[index]
        fields = set(entry.pk.fields) | set(entry.sk.fields if entry.sk else ())
        if not any(set(group) <= fields for group in entity.unique):
            return False
    return bool(keyed)


@rule(
    "TW203",
    "unused-index",
    "indexes",
    "warning",
    "No access pattern reads an index.",
    "Every index costs a write per item write and its own storage; an index no pattern reads is pure cost "
    "(or a pattern the design forgot to declare).",
    "Declare the pattern that needs the index, or drop the index.",
)
def unused_index(ctx: Context) -> Iterator[Hit]:
    if not ctx.design.patterns:
        return
    used = {
        (p.served.via or (p.returns[0] if p.returns else ""), p.served.index)
        for p in ctx.design.patterns.values()
    }
    used_names = {index for _, index in used}
    for tname, table in ctx.design.tables.items():
        for iname in table.indexes:
            if iname not in used_names or not ctx.patterns_on(tname, iname):
                yield Hit(
                    index_path(tname, iname),
                    f"no access pattern reads index {iname} of table {tname}; it costs "
                    f"{ctx.impact(ctx.target_dollars(tname, iname))}",
                )


@rule(
    "TW204",
    "projection-too-wide",
    "indexes",
    "warning",
    "An index projects ALL attributes although its patterns read it rarely.",
    "Projection ALL stores every attribute again and sizes every index write on the whole item. When the "
    "patterns read the index rarely, KEYS_ONLY plus fetching the items they return costs less.",
    "Project KEYS_ONLY (or INCLUDE the attributes the patterns need) and fetch the rest from the table.",
)
def projection_too_wide(ctx: Context) -> Iterator[Hit]:
    prices = default_prices()
    design = ctx.design
    for tname, table in design.tables.items():
        for iname, index in table.indexes.items():
            if index.kind != "global" or index.projection.type != "ALL":
                continue
            extra = 0.0  # monthly cost of ALL over KEYS_ONLY
            fetch = 0.0  # monthly cost of reading returned items from the table instead
            for entity in design.entities_in(tname):
                volume = design.volumes.entities.get(entity.name)
                if iname not in entity.keys or volume is None:
                    continue
                whole = entity_size(design, entity.name).typical
                keys = _keys_only_size(ctx, entity.name, tname, iname)
                # A sparse index (when:) holds, and is written for, only its share of the items.
                share = analysis.membership(design, entity.name, iname)
                writes = volume.writes_per_second * SECONDS_PER_MONTH * share
                extra += writes * (write_units(whole) - write_units(keys)) * prices.write_request_unit
                extra += (
                    volume.items
                    * share
                    * (whole - keys)
                    / 1024**3
                    * prices.storage_gb_month.get(table.table_class, 0.25)
                )
            for cost in ctx.estimate.patterns:
                if cost.target == f"{tname}/{iname}":
                    size = entity_size(design, design.patterns[cost.name].returns[0]).typical
                    fetch += cost.calls * cost.items_per_call * read_units(size) * prices.read_request_unit
            if extra >= PROJECTION_MIN_DOLLARS and fetch < extra * PROJECTION_SAVING:
                yield Hit(
                    index_path(tname, iname),
                    f"GSI {iname} of table {tname} projects ALL: ${extra:,.2f}/month more than KEYS_ONLY, while "
                    f"fetching what its patterns return from the table would cost ${fetch:,.2f}/month",
                )


def _keys_only_size(ctx: Context, entity: str, table: str, index: str) -> int:
    return index_entry_size(ctx.design, entity, index, Projection("KEYS_ONLY"))


@rule(
    "TW205",
    "too-many-indexes",
    "indexes",
    "error",
    "A table declares more secondary indexes than DynamoDB allows.",
    "DynamoDB allows 20 GSIs per table (the default quota) and 5 LSIs (a hard limit); CreateTable and "
    "UpdateTable fail beyond that.",
    "Overload generic index keys (GSI1PK/GSI1SK) so one index serves several patterns, or request a GSI "
    "quota increase.",
)
def too_many_indexes(ctx: Context) -> Iterator[Hit]:
    for tname, table in ctx.design.tables.items():
        for kind, limit in (("global", MAX_GSI), ("local", MAX_LSI)):
            count = sum(1 for i in table.indexes.values() if i.kind == kind)
            if count > limit:
                label = "GSIs" if kind == "global" else "LSIs"
                yield Hit(
                    ("tables", tname, "indexes"),
                    f"table {tname} declares {count} {label}; the limit is {limit}",
                )


@rule(
    "TW206",
    "consistent-read-on-gsi",
    "indexes",
    "error",
    "A pattern asks a GSI for a strongly consistent read.",
    "GSIs are maintained asynchronously and do not support strongly consistent reads; DynamoDB rejects "
    "the request with 'Consistent reads are not supported on global secondary indexes'. Read-after-write "
    "through a GSI can miss the write.",
    "Read the table (or an LSI) when the read must see the latest write, or drop consistent: true.",
)
def consistent_read_on_gsi(ctx: Context) -> Iterator[Hit]:
    for pattern in ctx.design.patterns.values():
        served = pattern.served
        if not served.consistent or not served.index:
            continue
        for table in ctx.design.tables.values():
            index = table.indexes.get(served.index)
            if index is not None and index.kind == "global":
                yield Hit(
                    pattern_path(pattern.name, "served"),
                    f"pattern {pattern.name} asks GSI {served.index} for a consistent read: "
                    "Consistent reads are not supported on global secondary indexes",
                )
                break


@rule(
    "TW208",
    "unique-repeats-table-key",
    "indexes",
    "warning",
    "A unique constraint covers every field of its entity's table key.",
    "The table key is unique already: a create (rt.put) of a second item with the same key is refused, "
    "so the values of a constraint holding every key field cannot repeat either. Yet the runtime still "
    "stores a marker item per value and writes every create in a TransactWriteItems (2x): writes and "
    "storage paid for a guarantee the key gives.",
    "Remove the constraint from unique:; keep constraints over attributes the table key does not hold "
    "(an email beside an id).",
)
def unique_repeats_table_key(ctx: Context) -> Iterator[Hit]:
    for entity in ctx.design.entities.values():
        key_fields = _table_key_fields(entity)
        if not key_fields:
            continue  # a constant key (or none): nothing the key proves about the values
        for position, group in enumerate(entity.unique):
            if not key_fields <= set(group):
                continue
            saved = _constraint_dollars(ctx, entity, position)
            yield Hit(
                ("entities", entity.name, "unique", position),
                f"unique constraint [{', '.join(group)}] of {entity.name} holds every field of its table "
                f"key ({', '.join(sorted(key_fields))}): the key already keeps those values unique, yet "
                f"each create writes a marker item for them; the constraint costs {ctx.impact(saved)}",
            )


def _table_key_fields(entity: Entity) -> set[str]:
    """The fields the entity's table key templates are made of (empty without a table key)."""
    entry = entity.keys.get("table")
    if entry is None:
        return set()
    return set(entry.pk.fields) | set(entry.sk.fields if entry.sk else ())


def _constraint_dollars(ctx: Context, entity: Entity, position: int) -> float:
    """What one constraint adds to its table's on-demand bill: the design priced with and without it
    (its markers, and the transaction's 2x when it is the entity's only reason for one)."""
    without = Context(_without_constraint(ctx.design, entity, position), ctx.options)
    return ctx.target_dollars(entity.table) - without.target_dollars(entity.table)


def _without_constraint(design: Design, entity: Entity, position: int) -> Design:
    kept = tuple(group for i, group in enumerate(entity.unique) if i != position)
    entities = {**design.entities, entity.name: dataclasses.replace(entity, unique=kept)}
    return dataclasses.replace(design, entities=entities)
