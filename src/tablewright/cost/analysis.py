"""What a design implies, computed from its declarations: key cardinality, filter selectivity, index
membership, items read per pattern. Shared by cost (to price) and lint (to judge).

Every estimate is conservative in the direction that keeps sound designs quiet: an unknown
selectivity is 1 (the filter is assumed to keep everything), an unknown cardinality is "high".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from math import prod

from tablewright.design.model import AccessPattern, Attribute, Computed, Design, Entity, KeyTemplate
from tablewright.design.predicates import Const, Node, Param, Path, Predicate

# Date-part filters put a timestamp into a time bucket: every write of the period hits one key.
BUCKET_FILTERS = {"year", "month", "date", "day", "hour"}
TIME_FORMATS = {"rfc3339", "epoch_ms", "epoch_s", "date"}
# A query with no limit on a partition of unknown size reads this many items (stated in the output).
DEFAULT_QUERY_ITEMS = 10
DEFAULT_BATCH_KEYS = 10


@dataclass(frozen=True)
class Cardinality:
    """How many distinct values a key template takes.

    ``kind`` is ``constant`` (one value), ``enum`` (a small declared set), ``time`` (a timestamp or
    a date bucket: all current writes share the current value) or ``high`` (unknown, assumed
    spread). ``values`` is the number of values live at once (None for ``high``).
    """

    kind: str
    values: int | None
    why: str

    @property
    def known(self) -> bool:
        """True when the number of live key values is known (not ``high``)."""
        return self.values is not None


def _field_cardinality(
    name: str, filters: tuple[str, ...], args: dict[str, str | None], entity: Entity
) -> Cardinality:
    attr = entity.attributes.get(name)
    if "shard" in filters:
        count = int(args.get("shard") or 10)
        return Cardinality("enum", count, f"{{{name}|shard:{count}}}")
    if "bool" in filters:
        return Cardinality("enum", 2, f"{{{name}|bool}}")
    if BUCKET_FILTERS & set(filters):
        part = next(f for f in filters if f in BUCKET_FILTERS)
        return Cardinality("time", 1, f"{name} bucketed by {part}")
    if attr is None:
        return Cardinality("high", None, name)
    if attr.enum:
        return Cardinality("enum", len(attr.enum), f"{name} has {len(attr.enum)} values")
    if attr.type == "boolean":
        return Cardinality("enum", 2, f"{name} is a boolean")
    if attr.format == "date":
        return Cardinality("time", 1, f"{name} is a calendar day")
    if attr.format in TIME_FORMATS or (attr.computed and attr.computed.kind in ("created_at", "updated_at")):
        return Cardinality("time", None, f"{name} is a timestamp")
    return Cardinality("high", None, name)


def key_cardinality(entity: Entity, template: KeyTemplate) -> Cardinality:
    """Cardinality of a key template over an entity's declared attributes."""
    if template.is_constant:
        return Cardinality("constant", 1, f"the literal {template.source!r}")
    parts = [
        _field_cardinality(
            f.name, tuple(c.name for c in f.filters), {c.name: c.arg for c in f.filters}, entity
        )
        for f in template.field_parts
    ]
    if any(p.kind == "high" for p in parts):
        return Cardinality("high", None, template.source)
    why = ", ".join(p.why for p in parts)
    if any(p.kind == "time" for p in parts):
        live = [p.values for p in parts if p.kind != "time"]
        # A raw timestamp is unique per write; a bucket is one live value per period.
        if any(p.kind == "time" and p.values is None for p in parts):
            return Cardinality("time", None, why)
        return Cardinality("time", prod(v for v in live if v is not None), why)
    return Cardinality("enum", prod(p.values for p in parts if p.values is not None), why)


def busiest_share(design: Design, entity: str, template: KeyTemplate) -> float | None:
    """The share of an entity's items on its busiest key value: the largest declared share of an
    enum field's values (``volumes ... shares: {status: {new: 0.7, ...}}``) when the key varies by
    that one field, else 1 / the key's values; None when the cardinality is unknown."""
    ent = design.entities[entity]
    card = key_cardinality(ent, template)
    if card.values is None:
        return None
    volume = design.volumes.entities.get(entity)
    varying = [f for f in template.field_parts if not f.filters]
    if card.kind == "enum" and volume is not None and len(template.field_parts) == 1 and varying:
        declared = volume.shares.get(varying[0].name)
        if isinstance(declared, dict) and declared:
            return max(float(v) for v in declared.values())
    return 1.0 / card.values


# ------------------------------------------------------------------------------------- selectivity


def _attr_of(design: Design, entities: tuple[str, ...], path: str) -> Attribute | None:
    top = path.split(".")[0].split("[")[0]
    for name in entities:
        entity = design.entities.get(name)
        if entity and top in entity.attributes:
            attr = entity.attributes[top]
            for piece in path.split(".")[1:]:
                attr = attr.attributes.get(piece) if attr else None  # type: ignore[assignment]
            return attr
    return None


def _domain(design: Design, entities: tuple[str, ...], args: tuple[object, ...]) -> int | None:
    """Number of values of the attribute compared against a literal or param, if declared."""
    paths = [a for a in args if isinstance(a, Path)]
    others = [a for a in args if isinstance(a, Const | Param)]
    if len(paths) != 1 or not others:
        return None
    attr = _attr_of(design, entities, paths[0].text)
    if attr is None:
        return None
    if attr.enum:
        return len(attr.enum)
    return 2 if attr.type == "boolean" else None


def selectivity(predicate: Predicate | None, design: Design, entities: tuple[str, ...]) -> float | None:
    """Fraction of items a predicate keeps, assuming enum values are equally common; None if unknown."""
    if predicate is None:
        return 1.0
    return _select(predicate.tree, design, entities)


def _select(node: object, design: Design, entities: tuple[str, ...]) -> float | None:
    if not isinstance(node, Node):
        return None
    rule = _SELECTIVITY.get(node.op)
    return rule(node, design, entities) if rule else None


def _known(value: float | None) -> float:
    return 1.0 if value is None else value


def _and(node: Node, design: Design, entities: tuple[str, ...]) -> float | None:
    parts = [_select(a, design, entities) for a in node.args]
    return None if all(p is None for p in parts) else prod(_known(p) for p in parts)


def _or(node: Node, design: Design, entities: tuple[str, ...]) -> float | None:
    parts = [_select(a, design, entities) for a in node.args]
    return None if any(p is None for p in parts) else min(1.0, sum(parts))  # type: ignore[arg-type]


def _not(node: Node, design: Design, entities: tuple[str, ...]) -> float | None:
    inner = _select(node.args[0], design, entities)
    return None if inner is None else 1.0 - inner


def declared_share(
    design: Design, entities: tuple[str, ...], attribute: str, value: object = None
) -> float | None:
    """The share the design's volumes declare for an optional attribute (``value`` None) or one of its
    enum values, over the entities' items (weighted by their declared item counts); None if undeclared."""
    shares, weights = [], []
    for name in entities:
        volume = design.volumes.entities.get(name)
        declared = volume.shares.get(attribute) if volume else None
        if isinstance(declared, dict):
            declared = declared.get(str(value)) if value is not None else None
        if not isinstance(declared, int | float) or isinstance(declared, bool):
            return None
        shares.append(float(declared))
        weights.append(max(1, volume.items) if volume else 1)
    return sum(s * w for s, w in zip(shares, weights, strict=True)) / sum(weights) if shares else None


def _literal_share(node: Node, design: Design, entities: tuple[str, ...]) -> float | None:
    """A declared share for ``attribute = 'literal'``."""
    paths = [a for a in node.args if isinstance(a, Path)]
    consts = [a for a in node.args if isinstance(a, Const)]
    if len(paths) != 1 or len(consts) != 1:
        return None
    return declared_share(design, entities, paths[0].text, consts[0].value)


def _eq(node: Node, design: Design, entities: tuple[str, ...]) -> float | None:
    share = _literal_share(node, design, entities)
    if share is not None:
        return share
    n = _domain(design, entities, node.args)
    return 1.0 / n if n else None


def _ne(node: Node, design: Design, entities: tuple[str, ...]) -> float | None:
    share = _literal_share(node, design, entities)
    if share is not None:
        return 1.0 - share
    n = _domain(design, entities, node.args)
    return 1.0 - 1.0 / n if n else None


def _in(node: Node, design: Design, entities: tuple[str, ...]) -> float | None:
    path, *values = node.args
    if isinstance(path, Path) and values and all(isinstance(v, Const) for v in values):
        shares = [declared_share(design, entities, path.text, v.value) for v in values]  # type: ignore[union-attr]
        if all(s is not None for s in shares):
            return min(1.0, sum(shares))  # type: ignore[arg-type]
    n = _domain(design, entities, node.args[:2])
    return min(1.0, (len(node.args) - 1) / n) if n else None


def _exists(node: Node, design: Design, entities: tuple[str, ...]) -> float | None:
    # Known when every item has the attribute (required, computed, or part of its table key), or
    # when the volumes declare the share of items that carry it (a sparse index's population).
    paths = [a for a in node.args if isinstance(a, Path)]
    if len(paths) != 1 or not entities:
        return None
    top = paths[0].text.split(".")[0].split("[")[0]
    if all(_always_present(design, name, top) for name in entities):
        return 1.0
    return declared_share(design, entities, top)


def _always_present(design: Design, entity_name: str, attribute: str) -> bool:
    entity = design.entities.get(entity_name)
    if entity is None:
        return False
    attr = entity.attributes.get(attribute)
    if attr is not None and (attr.required or attr.computed is not None):
        return True
    table = design.tables.get(entity.table)
    key = entity.keys.get("table")
    key_fields = set(key.pk.fields) | set(key.sk.fields if key.sk else ()) if key else set()
    key_names = {table.partition_key.name, table.sort_key.name if table.sort_key else ""} if table else set()
    return attribute in key_fields or attribute in key_names


_SELECTIVITY: dict[str, Callable[[Node, Design, tuple[str, ...]], float | None]] = {
    "and": _and,
    "exists": _exists,
    "or": _or,
    "not": _not,
    "eq": _eq,
    "ne": _ne,
    "in": _in,
}


def _conjuncts(node: object) -> list[object]:
    if isinstance(node, Node) and node.op == "and":
        return [part for arg in node.args for part in _conjuncts(arg)]
    return [node]


def scan_share(design: Design, pattern: AccessPattern) -> float | None:
    """Share of what a Scan reads (its table's items and unique markers, or its index's entries) that
    the pattern's ``means.where`` selects; None unless every condition's share is known (an unknown
    one may select few, so a rule must not assume it selects all)."""
    table = pattern_table(design, pattern)
    kept = _where_share(design, pattern)
    if table is None or kept is None:
        return None
    index = pattern.served.index
    scanned = entities_in(design, table, index)
    counts = {name: float(items_of(design, name)) for name in scanned}
    if not any(counts.values()):
        if any(name not in pattern.returns for name in scanned):
            return None  # other entities share the table in unknown numbers
        counts = dict.fromkeys(scanned, 1.0)  # only the pattern's own entities: weigh them alike
    wanted = kept * sum(count for name, count in counts.items() if name in pattern.returns)
    read = sum(count * scan_weight(design, name, index) for name, count in counts.items())
    return min(1.0, wanted / read) if read else None


def _where_share(design: Design, pattern: AccessPattern) -> float | None:
    """Share of the returned entities' items ``means.where`` keeps; None when any condition is unknown."""
    kept = 1.0
    where = pattern.means.where
    for part in _conjuncts(where.tree) if where is not None else []:
        share = _select(part, design, pattern.returns)
        if share is None:
            return None
        kept *= share
    return kept


# ------------------------------------------------------------------------------- index membership


def membership(design: Design, entity: str, index: str | None) -> float:
    """Fraction of an entity's items that land in an index (1 for the table; 0 if not keyed there)."""
    ent = design.entities[entity]
    entry = ent.keys.get(index or "table")
    if entry is None:
        return 0.0
    if entry.when is None:
        return 1.0
    return _known(selectivity(entry.when, design, (entity,)))


def markers_per_item(entity: Entity) -> int:
    """Marker items the runtime stores in the table beside each item: one per ``unique`` constraint
    and one for an ``idempotency_key`` (facts D.7: a marker item per unique value)."""
    return len(entity.unique) + (1 if entity.idempotency_key else 0)


def scan_weight(design: Design, entity: str, index: str | None) -> float:
    """Items a Scan reads per item of an entity: on an index the share of items it holds (a sparse
    ``when:`` keeps fewer); on the table the item and its markers, which are stored items too
    (facts B: a Scan is charged for every item evaluated)."""
    if index is not None:
        return membership(design, entity, index)
    return 1.0 + markers_per_item(design.entities[entity])


def scanned_items(design: Design, table: str, index: str | None) -> float:
    """Items one full Scan of a table (``index=None``) or of one of its indexes reads."""
    return sum(
        items_of(design, name) * scan_weight(design, name, index)
        for name in entities_in(design, table, index)
    )


def entities_in(design: Design, table: str, index: str | None) -> list[str]:
    """Entities of a table that have a key in the table (``index=None``) or in the index."""
    return [name for name, e in design.entities.items() if e.table == table and (index or "table") in e.keys]


def items_of(design: Design, entity: str) -> int:
    """Declared item count of an entity (0 when the design declares no volumes)."""
    volume = design.volumes.entities.get(entity)
    return volume.items if volume else 0


# ----------------------------------------------------------------------------------- pattern reads


def literal_partition(pattern: AccessPattern) -> bool:
    """True when every call of the pattern reads the same partition (literal bindings only)."""
    entry = pattern.served.entity_key
    if entry is None:
        return False
    bound = pattern.served.partition
    return all(
        f in bound and not (isinstance(bound[f], str) and str(bound[f]).startswith(":"))
        for f in entry.pk.fields
    )


def pattern_table(design: Design, pattern: AccessPattern) -> str | None:
    """The logical table a pattern reads, through the entity it is served via."""
    via = pattern.served.via or (pattern.returns[0] if pattern.returns else None)
    entity = design.entities.get(via or "")
    return entity.table if entity else None


def partition_cardinality(design: Design, pattern: AccessPattern) -> Cardinality | None:
    """Cardinality of the partition key a query/get pattern reads (None when it cannot tell)."""
    entry = pattern.served.entity_key
    via = pattern.served.via or (pattern.returns[0] if pattern.returns else None)
    entity = design.entities.get(via or "")
    if entry is None or entity is None:
        return None
    return key_cardinality(entity, entry.pk)


@dataclass(frozen=True)
class RowsRead:
    """Items a pattern reads per call (before any filter), and whether that is an assumption."""

    items: float
    assumed: bool
    why: str
    upper_bound: bool = False  # the pattern can read this many; a narrower range reads fewer


def unique_lookup(entity: Entity | None, pattern: AccessPattern) -> tuple[str, ...] | None:
    """The unique constraint that makes a query on an index a one-item lookup, or None.

    A query whose partition key (or whole key, with an ``eq`` sort condition) composes from the
    fields of one of the entity's ``unique`` constraints can match at most one item: the runtime's
    markers guarantee it, so it reads like a GetItem (WOMS ``account_by_email``).
    """
    served, entry = pattern.served, pattern.served.entity_key
    if served.op != "query" or entry is None or entity is None or not entity.unique:
        return None
    fixed = set(entry.pk.fields)
    if entry.sk is not None and served.sort is not None and served.sort.op == "eq":
        fixed |= set(entry.sk.fields)
    return next((tuple(u) for u in entity.unique if set(u) <= fixed), None)


def rows_read(design: Design, pattern: AccessPattern) -> RowsRead:
    """Items one call of a pattern reads, from its op, limit, filter selectivity and the volumes."""
    served = pattern.served
    table = pattern_table(design, pattern)
    if served.op == "get":
        return RowsRead(1, False, "GetItem reads one item")
    unique = unique_lookup(design.entities.get(served.via or (pattern.returns or ("",))[0]), pattern)
    if unique is not None:
        return RowsRead(1, False, f"one item: the key is unique ({', '.join(unique)})")
    if served.op == "transact_get":
        return RowsRead(max(1, len(served.items)), False, "one read per transaction item")
    if served.op == "batch_get":
        param = pattern.params.get((served.keys or "").lstrip(":"))
        count = param.max_length if param is not None and param.max_length else None
        return RowsRead(count or DEFAULT_BATCH_KEYS, count is None, "keys per batch")
    population = _partition_population(design, pattern, table)
    kept = selectivity(served.filter, design, pattern.returns) or 1.0
    if served.op == "scan":
        total = scanned_items(design, table or "", served.index)
        if pattern.means.limit:
            return RowsRead(
                min(total or float("inf"), pattern.means.limit / kept), False, "scan stops at the limit"
            )
        return RowsRead(total, not total, "a scan reads every item")
    if pattern.means.limit:
        wanted = pattern.means.limit / kept
        if served.page_size:
            # Each request reads a whole page of page_size items: round up to whole pages.
            wanted = math.ceil(wanted / served.page_size) * served.page_size
        if population is not None:
            return RowsRead(min(wanted, population), False, "limit over the partition")
        return RowsRead(wanted, False, f"limit {pattern.means.limit} / filter keeps {kept:.0%}")
    if population is not None:
        if served.sort is not None:
            # The range a caller asks for is unknown: price the whole partition, and say so.
            return RowsRead(
                population,
                False,
                f"up to its whole partition, {population:,.0f} items (sort range unknown)",
                True,
            )
        return RowsRead(population, False, "the whole partition")
    entry = served.entity_key
    if entry is not None and entry.sk is None:
        # No sort key: a table partition holds one item; a GSI's usually does (a lookup by id).
        return RowsRead(1, served.index is not None, "one item per key (no sort key)")
    return RowsRead(DEFAULT_QUERY_ITEMS, True, f"assumed {DEFAULT_QUERY_ITEMS} items per query")


def _partition_population(design: Design, pattern: AccessPattern, table: str | None) -> float | None:
    """Items in the partition a query reads, when the key's cardinality is known."""
    if table is None:
        return None
    card = partition_cardinality(design, pattern)
    if card is None or card.values is None or card.kind == "time":
        # A time-bucketed partition holds one period; its size is not derivable from totals.
        return None
    index = pattern.served.index
    total = sum(items_of(design, e) * membership(design, e, index) for e in entities_in(design, table, index))
    return total / card.values if total else None


EPOCH_MS_FLOOR = 10**11  # a number this large is milliseconds (year 5138 in seconds)
# The unit a computed TTL's ``unit`` (or its source's format) reads the source in, as a format.
TTL_SOURCE_UNITS = {"s": "epoch_s", "epoch_s": "epoch_s", "ms": "epoch_ms", "epoch_ms": "epoch_ms"}


def ttl_unit_problem(attr: Attribute, entity: Entity | None = None) -> str | None:
    """Why a TTL attribute is not epoch seconds, or None when it is (or cannot be told): DynamoDB
    ignores anything else, so such items never expire (facts C, TTL; lint TW501; cost prices no TTL
    deletes). ``entity`` lets a computed TTL be judged by the attribute it is computed from."""
    if attr.computed is not None and attr.computed.kind in ("ttl", "template"):
        return _computed_ttl_problem(attr.computed, entity)
    if attr.type != "number":
        return f"is a {attr.type}, not a Number"
    if attr.format == "epoch_ms":
        return "holds epoch milliseconds (~1.7e12: a date tens of thousands of years away)"
    if attr.format in ("rfc3339", "date"):
        return f"is declared {attr.format}"
    for bound in (attr.min, attr.max):
        if bound is not None and abs(bound) >= EPOCH_MS_FLOOR:
            return f"has bound {bound}, a value in milliseconds"
    if _milliseconds_sized(attr.default):
        return f"defaults to {attr.default}, a value in milliseconds"
    return None


def _milliseconds_sized(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and abs(value) >= EPOCH_MS_FLOOR


def _source_unit(attr: Attribute) -> str | None:
    """``epoch_ms``/``epoch_s`` when an attribute's values are epoch numbers of a known unit."""
    if attr.format in ("epoch_ms", "epoch_s"):
        return attr.format
    bounds = [b for b in (attr.min, attr.max) if b is not None]
    return "epoch_ms" if attr.type == "number" and any(_milliseconds_sized(b) for b in bounds) else None


def _computed_ttl_problem(computed: Computed, entity: Entity | None) -> str | None:
    """A computed TTL converts its source by the declared ``unit``: a unit that is not the source's
    makes milliseconds (or a 1970 date, over five years past) that DynamoDB ignores; a template
    stores its source as it is."""
    source = entity.attributes.get(computed.source or "") if entity is not None else None
    if computed.kind == "ttl" and source is not None:
        actual, declared = _source_unit(source), TTL_SOURCE_UNITS.get(computed.unit or "")
        if actual is not None and declared is not None and actual != declared:
            result = "milliseconds + retention" if actual == "epoch_ms" else "a date in 1970"
            return (
                f"is computed from {source.name} ({actual}) read as unit {computed.unit}: it holds {result}"
            )
    template = computed.template if computed.kind == "template" else None
    if template is not None and entity is not None:
        return _template_ttl_problem(template, entity)
    return None


def _template_ttl_problem(template: KeyTemplate, entity: Entity) -> str | None:
    if not template.is_bare_field:
        return f"is rendered from template {template.source!r}, which composes text, not a Number"
    (field,) = template.field_parts
    converted = [call.name for call in field.filters if call.name in ("epoch_s", "epoch_ms")]
    if converted and converted[-1] == "epoch_ms":
        return f"is rendered from template {template.source!r}: epoch milliseconds"
    source = entity.attributes.get(field.name)
    if source is None or converted or field.filters or field.spec:
        return None  # converted to seconds, or by a filter this check does not follow
    copied = ttl_unit_problem(source)
    return f"copies {source.name}, which {copied}" if copied else None
