"""Capacity a design consumes per month, per table and per index, from its patterns and volumes.

Writes: each entity write costs its item size rounded up to 1 KB on the table, and again on every
index the item lands in (sized on the index entry, scaled by how many items a sparse ``when`` keeps);
writes guarded by unique/idempotency markers are transactional (2x) and add a marker put each.
Reads: each pattern call costs what DynamoDB charges for its op (GetItem per item, Query summed then
rounded once, Scan everything stored where it scans: a table's items and markers, an index's
entries), eventual 0.5 / strong 1 / transactional 2 per 4 KB. TTL deletes are free. Storage adds 100
bytes per item and per index entry. Peak = average x ``peak_factor``; the peak per-partition load is
judged per key value (loads on different constant keys do not add up).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tablewright.design.model import AccessPattern, Design
from tablewright.design.templates import TemplateValueError
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
    # Per partition key (template source, or a literal value a pattern binds): peak (WCU, RCU) on
    # its busiest value, counting every load that can land on the same value.
    key_loads: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
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
    # Average bytes of an item the pattern reads: a Scan's is the average of what it scans (items,
    # markers, or an index's projected entries), so items_per_call x item_bytes is what a call reads.
    item_bytes: float = 0.0

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


@dataclass(frozen=True)
class EntityWrites:
    """What an entity's volumes write per second, and how: creates and updates, each in a
    TransactWriteItems (2x, facts B) or not, the attributes updates change and the unique
    constraints whose markers they swap."""

    creates: float
    updates: float
    create_factor: int
    update_factor: int
    changes: frozenset[str]
    moved: tuple[tuple[str, ...], ...]
    markers: int


def entity_writes(design: Design, name: str) -> EntityWrites:
    """The write rates and factors of one entity, from its volumes and declarations."""
    entity = design.entities[name]
    volume = design.volumes.entities.get(name)
    creates = volume.writes_per_second if volume else 0.0
    updates = volume.updates_per_second if volume else 0.0
    markers = analysis.markers_per_item(entity)
    declared_tx = written_in_transactions(design, name)
    changes = frozenset(update.changed(design, entity, volume)) if updates else frozenset()
    moved = tuple(tuple(u) for u in entity.unique if changes & set(u))
    return EntityWrites(
        creates,
        updates,
        2 if markers or declared_tx else 1,
        2 if moved or declared_tx else 1,
        changes,
        moved,
        markers,
    )


def item_write_units(design: Design, name: str, index: str | None, writes: EntityWrites) -> float:
    """Write units per second an entity's creates and updates consume on its items in the table
    (``index=None``) or on their entries in an index (scaled by membership); markers excluded."""
    if index is None:
        units = write_units(entity_size(design, name).typical)
        return units * (writes.creates * writes.create_factor + writes.updates * writes.update_factor)
    entity = design.entities[name]
    units = write_units(index_entry_size(design, name, index))
    share = analysis.membership(design, name, index)
    per_update = update.index_writes(
        design, entity, design.tables[entity.table].indexes[index], set(writes.changes)
    )
    return units * (
        writes.creates * share * writes.create_factor + writes.updates * writes.update_factor * per_update
    )


def marker_write_units(writes: EntityWrites) -> float:
    """Write units per second of marker items: one put per marker per create, and a swap (delete the
    old, put the new) per unique constraint an update changes. Markers live under their own keys."""
    marker = write_units(MARKER_BYTES)
    swaps = 2 * len(writes.moved) * writes.updates * writes.update_factor
    return marker * (writes.markers * writes.creates * writes.create_factor + swaps)


def marker_writes(writes: EntityWrites) -> float:
    """Marker items put or deleted per second: each is an item of the table, so each is a stream record."""
    return writes.markers * writes.creates + 2 * len(writes.moved) * writes.updates


def read_before_write_units(design: Design, name: str, writes: EntityWrites) -> float:
    """Read units per second of the strongly consistent GetItem the runtime makes on the item's own
    key before every update (to merge and re-validate). A create makes none, ``unique`` constraints
    or not: it is one conditional write (a TransactWriteItems with the markers), and the runtime
    reads only after it fails, to say why, which the estimate does not price."""
    return writes.updates * read_units(entity_size(design, name).typical, "strong")


def _entity(design: Design, name: str, result: Estimate) -> None:
    entity = design.entities[name]
    table = design.tables.get(entity.table)
    if table is None:
        return
    volume = design.volumes.entities.get(name)
    items = volume.items if volume else 0
    writes = entity_writes(design, name)
    creates, updates = writes.creates * SECONDS_PER_MONTH, writes.updates * SECONDS_PER_MONTH
    size = entity_size(design, name)
    if size.source == "attributes" and (items or creates or updates):
        result.assumptions.append(
            f"{name}: item size {size.typical} B estimated from its attributes (declare item_size)"
        )
    base = result.targets[entity.table]
    _add_items(base, items, size.typical)
    # One marker item per constraint per item, stored at a marker's size (a key and its owner), not
    # the entity's: pricing them at the item size overstated storage by the item/marker ratio.
    _add_items(base, items * writes.markers, MARKER_BYTES)
    item_units = item_write_units(design, name, None, writes)
    base.write_units += SECONDS_PER_MONTH * (item_units + marker_write_units(writes))
    base.read_units += SECONDS_PER_MONTH * read_before_write_units(design, name, writes)
    if updates:
        result.assumptions.append(update.describe(name, volume, set(writes.changes), list(writes.moved)))
    for index in entity.indexes():
        if index not in table.indexes:
            continue
        target = result.targets[f"{entity.table}/{index}"]
        share = analysis.membership(design, name, index)
        _add_items(target, items * share, index_entry_size(design, name, index))
        target.write_units += SECONDS_PER_MONTH * item_write_units(design, name, index, writes)
    if table.stream:
        markers = marker_writes(writes) * SECONDS_PER_MONTH
        records = creates + updates + markers
        result.stream_records[entity.table] = result.stream_records.get(entity.table, 0.0) + records
    _ttl(design, name, creates, result)


def _ttl(design: Design, name: str, creates: float, result: Estimate) -> None:
    """TTL deletes (free) of an entity's items, or, when DynamoDB ignores its TTL attribute, the
    storage that grows instead."""
    entity = design.entities[name]
    table = design.tables[entity.table]
    ttl_attr = entity.attributes.get(table.ttl or "")
    if ttl_attr is None:
        return
    problem = analysis.ttl_unit_problem(ttl_attr, entity)
    if problem:  # DynamoDB ignores it: nothing expires, storage grows by every create
        grows = creates * (entity_size(design, name).typical + OVERHEAD) / 1024**3
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
    if volume is not None and volume.writes_per_second:
        result.assumptions.append(_pattern_writes_ignored(pattern, volume.writes_per_second))
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
        pattern.name,
        target.name,
        served.op,
        calls,
        rows.items,
        per_call,
        consistency,
        rows.assumed,
        item_bytes=size,
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


def _pattern_writes_ignored(pattern: AccessPattern, rate: float) -> str:
    """Every op a pattern can serve (get, query, scan, batch_get, transact_get) reads: writes are
    the entities' volumes (creates, updates), so a pattern's ``writes`` prices nothing."""
    entity = pattern.served.via or (pattern.returns[0] if pattern.returns else "<Entity>")
    return (
        f"pattern {pattern.name}: writes {rate:,.4g}/s not priced: an access pattern only reads "
        f"({pattern.served.op}); declare writes as volumes.entities.{entity}.writes (creates) or "
        "updates"
    )


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


@dataclass(frozen=True)
class KeyLoad:
    """Peak units per second one entity's writes (with the reads before them) or one pattern's reads
    put on the busiest value of a partition key.

    ``key`` is the partition template's source, or the one value a constant template or a literal
    binding gives (``exact``); ``prefix`` is its literal text before the first field (the whole value
    when exact), which decides whether two loads can land on the same value.
    """

    key: str
    exact: bool
    prefix: str
    wcu: float | None = None
    rcu: float | None = None

    def may_share_value(self, other: KeyLoad) -> bool:
        """True when both loads can land on one key value: two literal values only when equal, a
        template whenever its leading literal text fits the other's (``ALPHA`` and ``BETA`` never
        meet; ``USER#{id}`` meets ``USER#{id}`` and ``USER#42``; ``{kind}`` meets anything)."""
        if self.exact and other.exact:
            return self.prefix == other.prefix
        if self.exact or other.exact:
            value, template = (self, other) if self.exact else (other, self)
            return value.prefix.startswith(template.prefix)
        return self.prefix.startswith(other.prefix) or other.prefix.startswith(self.prefix)


def _partition_load(design: Design, target: Target, result: Estimate) -> None:
    """Peak units per second on the busiest key value, where the key's cardinality is known. Loads
    add up only where they can land on the same value (facts C: 1,000 WCU / 3,000 RCU per partition
    key value): entities on different constant keys are different partitions."""
    loads = _entity_loads(design, target) + _pattern_loads(design, target, result)
    for load in loads:
        sharing = [other for other in loads if other is load or load.may_share_value(other)]
        target.key_loads[load.key] = (
            _sum_known([o.wcu for o in sharing]),
            _sum_known([o.rcu for o in sharing]),
        )
    target.partition_wcu = _max_known([wcu for wcu, _ in target.key_loads.values()])
    target.partition_rcu = _max_known([rcu for _, rcu in target.key_loads.values()])


def _sum_known(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _max_known(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None


def _entity_loads(design: Design, target: Target) -> list[KeyLoad]:
    """Each entity's peak writes on its busiest key value of the target, and on the table the strong
    reads the runtime makes on the same key before updates."""
    loads = []
    for name in analysis.entities_in(design, target.table, target.index):
        pk = design.entities[name].keys[target.index or "table"].pk
        wcu = key_write_load(design, name, target.index)
        if wcu is None:
            continue
        rcu = None
        if target.index is None:
            busiest = analysis.busiest_share(design, name, pk)
            reads = read_before_write_units(design, name, entity_writes(design, name))
            rcu = design.volumes.peak_factor * reads * busiest if reads and busiest else None
        loads.append(KeyLoad(pk.source, pk.is_constant, pk.render_prefix({}), wcu, rcu))
    return loads


def _pattern_loads(design: Design, target: Target, result: Estimate) -> list[KeyLoad]:
    """Each pattern's peak reads on its busiest key value: all on one value when it binds the whole
    partition key to literals, else spread over the key's live values."""
    peak = design.volumes.peak_factor
    loads = []
    for cost in result.patterns:
        if cost.target != target.name or not cost.calls:
            continue
        pattern = design.patterns[cost.name]
        entry, literal = pattern.served.entity_key, analysis.literal_partition(pattern)
        card = analysis.partition_cardinality(design, pattern)
        values = 1 if literal else (card.values if card else None)
        if values is None or entry is None:
            continue
        rcu = peak * (cost.calls / SECONDS_PER_MONTH) * cost.units_per_call / values
        value = _literal_value(pattern) if literal else None
        if value is not None:
            loads.append(KeyLoad(value, True, value, None, rcu))
        else:
            loads.append(
                KeyLoad(entry.pk.source, entry.pk.is_constant, entry.pk.render_prefix({}), None, rcu)
            )
    return loads


def _literal_value(pattern: AccessPattern) -> str | None:
    """The one partition key value a pattern's literal bindings compose, when it can be rendered."""
    entry = pattern.served.entity_key
    if entry is None:
        return None
    try:
        value = entry.pk.render(pattern.served.partition)
    except (TemplateValueError, ValueError, TypeError):
        return None
    return None if value is None else str(value)


def key_write_load(design: Design, entity: str, index: str | None) -> float | None:
    """Peak write units per second one entity puts on its busiest key value of the table
    (``index=None``) or an index: (creates + updates) x peak x units x the busiest value's share;
    marker items are written under their own keys and are not counted. None when the entity
    declares no volumes or its key's cardinality is unknown."""
    entry = design.entities[entity].keys.get(index or "table")
    if entry is None or entity not in design.volumes.entities:
        return None
    busiest = analysis.busiest_share(design, entity, entry.pk)
    if busiest is None:
        return None
    units = item_write_units(design, entity, index, entity_writes(design, entity))
    return design.volumes.peak_factor * units * busiest
