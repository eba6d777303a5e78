"""Capacity a design consumes per month, per table and per index, from its patterns and volumes.

Writes: each entity write costs its item size rounded up to 1 KB on the table, and again on every
index the item lands in (sized on the index entry, scaled by how many items a sparse ``when`` keeps);
writes guarded by unique/idempotency markers are transactional (2x) and add a marker put each.
Reads: each pattern call costs what DynamoDB charges for its op (GetItem per item, Query summed then
rounded once, Scan the whole table), eventual 0.5 / strong 1 / transactional 2 per 4 KB. TTL deletes
are free. Storage adds 100 bytes per item and per index entry. Peak = average x ``peak_factor``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tablewright.design.model import AccessPattern, Design
from tablewright.design.units import SECONDS_PER

from . import analysis, update
from .sizes import entity_size, index_entry_size, read_units, write_units

SECONDS_PER_MONTH = SECONDS_PER["month"]
OVERHEAD = 100  # bytes DynamoDB adds per item and per index entry for storage
MARKER_BYTES = 100  # a uniqueness/idempotency marker item: a key and little else
PARTITION_WCU, PARTITION_RCU = 1000, 3000


@dataclass
class Target:
    """A table or one of its indexes, with what it stores and the units it consumes per month."""

    table: str
    index: str | None
    kind: str  # table | global | local
    items: float = 0.0
    entry_bytes: float = 0.0  # average, without overhead
    write_units: float = 0.0  # per month
    read_units: float = 0.0  # per month
    partition_wcu: float | None = None  # peak units per second on the busiest key value
    partition_rcu: float | None = None
    table_class: str = "STANDARD"
    # The billing the design declares: ("on_demand", 0, 0) or ("provisioned", read, write) units.
    declared: tuple[str, int, int] = ("on_demand", 0, 0)

    @property
    def name(self) -> str:
        """``table`` or ``table/index``."""
        return self.table if self.index is None else f"{self.table}/{self.index}"

    @property
    def storage_bytes(self) -> float:
        """Stored bytes including DynamoDB's 100-byte overhead per item or entry."""
        return self.items * (self.entry_bytes + OVERHEAD)


@dataclass
class PatternCost:
    """One access pattern: calls per month and the read units each call consumes."""

    name: str
    target: str
    op: str
    calls: float
    items_per_call: float
    units_per_call: float
    consistency: str
    assumed: bool
    # With an open sort range the estimate prices the whole partition (an upper bound); this is the
    # typical call beside it (DEFAULT_QUERY_ITEMS items), None when the figure is not a bound.
    typical_units_per_call: float | None = None

    @property
    def read_units(self) -> float:
        """Read units per month."""
        return self.calls * self.units_per_call


@dataclass
class Estimate:
    """Everything the bill and the report need."""

    design: str
    peak_factor: float
    targets: dict[str, Target] = field(default_factory=dict)
    patterns: list[PatternCost] = field(default_factory=list)
    stream_records: dict[str, float] = field(default_factory=dict)  # table -> per month
    ttl_deletes: dict[str, float] = field(default_factory=dict)  # table -> per month (free)
    storage_growth: dict[str, float] = field(default_factory=dict)  # table -> GB a month (TTL ignored)
    assumptions: list[str] = field(default_factory=list)
    volumes_declared: bool = True
    pitr_tables: list[str] = field(default_factory=list)  # tables with point-in-time recovery on

    def total(self, attr: str) -> float:
        """Sum of a numeric ``Target`` attribute over every target."""
        return sum(getattr(t, attr) for t in self.targets.values())


def estimate(design: Design) -> Estimate:
    """Estimate monthly units, storage and peak partition load for a whole design."""
    result = Estimate(design.name, design.volumes.peak_factor)
    result.volumes_declared = design.volumes.declared
    result.pitr_tables = [name for name, table in design.tables.items() if table.pitr]
    for tname, table in design.tables.items():
        billing = table.billing
        declared = (billing.mode, billing.read or 0, billing.write or 0)
        result.targets[tname] = Target(tname, None, "table", table_class=table.table_class, declared=declared)
        for iname, index in table.indexes.items():
            units = index.throughput or billing
            result.targets[f"{tname}/{iname}"] = Target(
                tname,
                iname,
                index.kind,
                table_class=table.table_class,
                declared=(billing.mode, units.read or 0, units.write or 0),
            )
    for name in design.entities:
        _entity(design, name, result)
    declared = design.lint.get("transactional") if isinstance(design.lint, dict) else None
    for name in declared if isinstance(declared, list) else []:
        if name not in design.entities:
            result.assumptions.append(f"lint.transactional names {name!r}, which is not an entity: ignored")
    for pattern in design.patterns.values():
        _pattern(design, pattern, result)
    for target in result.targets.values():
        _partition_load(design, target, result)
    return result


def _entity(design: Design, name: str, result: Estimate) -> None:
    entity = design.entities[name]
    table = design.tables.get(entity.table)
    if table is None:
        return
    volume = design.volumes.entities.get(name)
    items = volume.items if volume else 0
    creates = (volume.writes_per_second if volume else 0.0) * SECONDS_PER_MONTH
    updates = (volume.updates_per_second if volume else 0.0) * SECONDS_PER_MONTH
    size = entity_size(design, name)
    if size.source == "attributes" and (items or creates or updates):
        result.assumptions.append(
            f"{name}: item size {size.typical} B estimated from its attributes (declare item_size)"
        )
    markers = len(entity.unique) + (1 if entity.idempotency_key else 0)
    declared_tx = written_in_transactions(design, name)
    factor = 2 if markers or declared_tx else 1  # TransactWriteItems: 2x
    base = result.targets[entity.table]
    _add_items(base, items, size.typical)
    base.write_units += creates * factor * (write_units(size.typical) + markers * write_units(MARKER_BYTES))
    if entity.unique:  # the runtime reads the item (consistently) to place its markers
        base.read_units += creates * read_units(size.typical, "strong")
    # One marker item per constraint per item, stored at a marker's size (a key and its owner), not
    # the entity's: pricing them at the item size overstated storage by the item/marker ratio.
    _add_items(base, items * markers, MARKER_BYTES)
    changes = update.changed(design, entity, volume) if updates else set()
    moved = [u for u in entity.unique if changes & set(u)]
    update_factor = 2 if moved or declared_tx else 1
    # An update reads the current item first (consistent GetItem), writes it back, and swaps a marker
    # (delete the old, put the new) for each unique constraint whose values change.
    base.read_units += updates * read_units(size.typical, "strong")
    base.write_units += (
        updates * update_factor * (write_units(size.typical) + 2 * len(moved) * write_units(MARKER_BYTES))
    )
    if updates:
        result.assumptions.append(update.describe(name, volume, changes, moved))
    for index in entity.indexes():
        if index not in table.indexes:
            continue
        share = analysis.membership(design, name, index)
        entry = index_entry_size(design, name, index)
        target = result.targets[f"{entity.table}/{index}"]
        _add_items(target, items * share, entry)
        target.write_units += creates * share * factor * write_units(entry)
        writes_per_update = update.index_writes(entity, table.indexes[index], changes)
        target.write_units += updates * share * update_factor * writes_per_update * write_units(entry)
    if table.stream:
        result.stream_records[entity.table] = result.stream_records.get(entity.table, 0.0) + creates + updates
    ttl_attr = entity.attributes.get(table.ttl or "")
    if ttl_attr is not None:
        problem = analysis.ttl_unit_problem(ttl_attr)
        if problem:  # DynamoDB ignores it: nothing expires, storage grows by every create
            grows = creates * (size.typical + OVERHEAD) / 1024**3
            result.assumptions.append(
                f"{name}: TTL attribute {table.ttl} {problem}, so nothing expires: no TTL deletes, and "
                f"storage grows by {creates:,.0f} items ({grows:,.3g} GB, plus index entries) a month"
            )
            result.storage_growth[entity.table] = result.storage_growth.get(entity.table, 0.0) + grows
            return
        # In a steady state TTL deletes as many items as are created (free of write units).
        result.ttl_deletes[entity.table] = result.ttl_deletes.get(entity.table, 0.0) + creates
        if table.stream:
            result.stream_records[entity.table] += creates


def written_in_transactions(design: Design, entity: str) -> bool:
    """True when the design says an entity is written with TransactWriteItems beyond its markers.

    Read from ``transactional: true`` on the entity's volumes, or from the lint configuration's
    ``transactional: [Entity, ...]`` (which ``tablewright.lint.runner.load_design`` merges from the
    sidecar): the sensor API's readings and their processed-batch marker are put in one transaction.
    """
    volume = design.volumes.entities.get(entity)
    declared = design.lint.get("transactional") if isinstance(design.lint, dict) else None
    return bool(volume and volume.transactional) or (isinstance(declared, list) and entity in declared)


def _add_items(target: Target, items: float, size: float) -> None:
    total = target.items + items
    if total:
        target.entry_bytes = (target.entry_bytes * target.items + size * items) / total
    target.items = total


def consistency_of(design: Design, pattern: AccessPattern, table: str) -> str:
    """``eventual``, ``strong`` or ``transactional``: how a pattern's reads are charged."""
    served = pattern.served
    if served.op == "transact_get":
        return "transactional"
    index = design.tables[table].indexes.get(served.index or "")
    if served.consistent and (index is None or index.kind == "local"):
        return "strong"
    return "eventual"  # a GSI read is always eventually consistent


def _pattern(design: Design, pattern: AccessPattern, result: Estimate) -> None:
    table = analysis.pattern_table(design, pattern)
    if table is None or table not in design.tables:
        return
    volume = design.volumes.patterns.get(pattern.name)
    calls = (volume.reads_per_second if volume else 0.0) * SECONDS_PER_MONTH
    served = pattern.served
    key = f"{table}/{served.index}" if served.index and served.op in ("query", "scan") else table
    target = result.targets.get(key, result.targets[table])
    rows = analysis.rows_read(design, pattern)
    consistency = consistency_of(design, pattern, table)
    entity = served.via or pattern.returns[0]
    size = (
        index_entry_size(design, entity, target.index)
        if target.index
        else entity_size(design, entity).typical
    )
    if served.op == "scan":
        size = target.entry_bytes or size
    per_call = _UNITS[served.op](rows.items, size, consistency)
    if served.op in ("query", "scan") and served.page_size:
        per_call = paged_units(rows.items, size, consistency, served.page_size)
    if (rows.assumed or rows.upper_bound) and calls:
        result.assumptions.append(f"pattern {pattern.name}: {rows.why}")
    cost = PatternCost(
        pattern.name, target.name, served.op, calls, rows.items, per_call, consistency, rows.assumed
    )
    if rows.upper_bound:
        typical = min(rows.items, analysis.DEFAULT_QUERY_ITEMS)
        cost.typical_units_per_call = (
            paged_units(typical, size, consistency, served.page_size)
            if served.page_size
            else _UNITS[served.op](typical, size, consistency)
        )
    result.patterns.append(cost)
    target.read_units += cost.read_units


def _query_units(items: float, size: float, consistency: str) -> float:
    # Query and Scan sum the sizes of everything read, then round up to 4 KB once.
    return read_units(max(1, round(items * size)), consistency)


def paged_units(items: float, size: float, consistency: str, page_size: int) -> float:
    """Read units of a Query/Scan that reads ``items`` in pages of ``page_size``: DynamoDB rounds
    every page up to 4 KB on its own (3 pages of one 100-byte item are 3 x 0.5, not 0.5)."""
    full, rest = divmod(max(1.0, items), page_size)
    units = full * read_units(max(1, round(page_size * size)), consistency)
    if rest > 1e-9:
        units += read_units(max(1, round(rest * size)), consistency)
    return units


def _per_item_units(items: float, size: float, consistency: str) -> float:
    return max(1.0, items) * read_units(round(size), consistency)


_UNITS = {
    "get": _per_item_units,
    "batch_get": _per_item_units,
    "transact_get": _per_item_units,
    "query": _query_units,
    "scan": _query_units,
}


def _partition_load(design: Design, target: Target, result: Estimate) -> None:
    """Peak units per second on the busiest key value, where the key's cardinality is known."""
    peak = design.volumes.peak_factor
    wcu = rcu = None
    for name in analysis.entities_in(design, target.table, target.index):
        load = key_write_load(design, name, target.index)
        if load is not None:
            wcu = (wcu or 0.0) + load
    for cost in result.patterns:
        if cost.target != target.name or not cost.calls:
            continue
        pattern = design.patterns[cost.name]
        card = analysis.partition_cardinality(design, pattern)
        values = 1 if analysis.literal_partition(pattern) else (card.values if card else None)
        if values is None:
            continue
        rcu = (rcu or 0.0) + peak * (cost.calls / SECONDS_PER_MONTH) * cost.units_per_call / values
    target.partition_wcu, target.partition_rcu = wcu, rcu


def key_write_load(design: Design, entity: str, index: str | None) -> float | None:
    """Peak write units per second one entity puts on its busiest key value of the table
    (``index=None``) or an index: writes x peak x units / live key values. None when the entity
    declares no volumes or its key's cardinality is unknown."""
    ent = design.entities[entity]
    entry = ent.keys.get(index or "table")
    volume = design.volumes.entities.get(entity)
    if entry is None or volume is None:
        return None
    busiest = analysis.busiest_share(design, entity, entry.pk)
    if busiest is None:
        return None
    size = index_entry_size(design, entity, index) if index else entity_size(design, entity).typical
    share = analysis.membership(design, entity, index)
    peak = design.volumes.peak_factor
    # A write in TransactWriteItems consumes twice the units on its partition too.
    factor = 2 if ent.unique or ent.idempotency_key or written_in_transactions(design, entity) else 1
    return peak * volume.writes_per_second * share * factor * write_units(size) * busiest
