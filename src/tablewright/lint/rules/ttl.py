"""TTL rules (TW5xx): TTL attributes DynamoDB will never act on, and reads that see expired items."""

from __future__ import annotations

from collections.abc import Iterator

from tablewright.cost import analysis
from tablewright.design.issues import suggest
from tablewright.design.model import AccessPattern, Entity

from ..context import Context, pattern_path
from ..registry import Hit, rule
from .projection import unprojected

# Sort conditions that bound a read from below: expired (old) items are reachable only if asked for.
LOWER_BOUNDED = {"gt", "ge", "between", "eq", "begins_with"}


@rule(
    "TW501",
    "ttl-not-epoch-seconds",
    "ttl",
    "error",
    "A TTL attribute does not hold a Number of epoch seconds.",
    "DynamoDB's TTL reads only a top-level Number in epoch seconds; a string, a date, or milliseconds "
    "(a date tens of thousands of years away) is ignored and the item never expires: storage grows "
    "forever and the retention promise is broken.",
    "Store epoch seconds: computed: {ttl: {from: <timestamp>, unit: ms, retention: 30d}} converts for you "
    "(an IoT rule writes floor(timestamp() / 1000) + 2592000).",
)
def ttl_unit(ctx: Context) -> Iterator[Hit]:
    for tname, table in ctx.design.tables.items():
        if not table.ttl:
            continue
        for entity in ctx.design.entities_in(tname):
            attr = entity.attributes.get(table.ttl)
            problem = analysis.ttl_unit_problem(attr, entity) if attr else None
            if problem:
                yield Hit(
                    ("entities", entity.name, "attributes", table.ttl),
                    f"TTL attribute {table.ttl} of {entity.name} (table {tname}) {problem}: items never expire",
                )


def _lower_bounded(pattern: AccessPattern, entity: Entity) -> str | None:
    sort = pattern.served.sort
    return "if a caller asks for an old window" if sort is not None and sort.op in LOWER_BOUNDED else None


def _one_item(pattern: AccessPattern, entity: Entity) -> str | None:
    # The only item at its key: a newer write would replace it (and its expiry time).
    served, entry = pattern.served, pattern.served.entity_key
    single = (
        served.op == "get"
        or (served.op == "query" and served.index is None and entry is not None and entry.sk is None)
        or analysis.unique_lookup(entity, pattern) is not None
    )
    return "only as the one item at its key, when nothing newer replaced it" if single else None


def _newest_first(pattern: AccessPattern, entity: Entity) -> str | None:
    # Items expire oldest first, so newest-first with a limit reaches an expired one only when
    # fewer than `limit` live items exist (the latest reading of a device that went quiet).
    served, entry, limit = pattern.served, pattern.served.entity_key, pattern.means.limit
    if served.op != "query" or served.forward or not limit or entry is None or entry.sk is None:
        return None
    fields = entry.sk.fields
    attr = entity.attributes.get(fields[0]) if fields else None
    timed = attr is not None and (
        attr.format in analysis.TIME_FORMATS
        or (attr.computed is not None and attr.computed.kind in ("created_at", "updated_at"))
    )
    if not timed:
        return None
    newer = "no newer live item exists" if limit == 1 else f"fewer than {limit} newer live items exist"
    return f"only when {newer} (newest first, limit {limit})"


def _dated_partition(pattern: AccessPattern, entity: Entity) -> str | None:
    # A date-bucketed partition holds one period: its items expire together, and only a caller who
    # asks for a period past the retention gets them.
    entry = pattern.served.entity_key
    if entry is None:
        return None
    card = analysis.key_cardinality(entity, entry.pk)
    return (
        "only if a caller asks for a period past the retention"
        if card.kind == "time" and card.known
        else None
    )


# Reads that reach an expired item only in a corner the caller chooses (info); any other read meets
# them beside live items (warning). Checked in order; the first that applies names the reach.
NARROW_READS = (_lower_bounded, _one_item, _newest_first, _dated_partition)


@rule(
    "TW502",
    "reads-expired-items",
    "ttl",
    "warning",
    "A pattern on a TTL table does not filter out expired items.",
    "TTL deletes expired items in the background, typically within a few days, and until then reads "
    "still return them. A pattern that must not see expired data needs a filter on the TTL attribute.",
    "Add served.filter: '<ttl> > :now' (and a now parameter), or accept and document the lag.",
)
def reads_expired(ctx: Context) -> Iterator[Hit]:
    design = ctx.design
    for pattern in design.patterns.values():
        entity = design.entities.get(pattern.served.via or (pattern.returns[0] if pattern.returns else ""))
        table = design.tables.get(entity.table) if entity else None
        if entity is None or table is None or not table.ttl or table.ttl not in entity.attributes:
            continue
        served_filter = pattern.served.filter
        if served_filter is not None and table.ttl in served_filter.attributes:
            continue
        narrow = next((r for r in (check(pattern, entity) for check in NARROW_READS) if r), None)
        # A filter on an attribute the GSI does not project keeps nothing (TW207): never suggest it.
        hidden = bool(unprojected(design, pattern, {table.ttl}))
        fix = (
            f"Index {pattern.served.index} does not project {table.ttl}, so a filter on it would return nothing: "
            f"project it (projection: {{include: [{table.ttl}]}}) and then filter, or accept and document the lag."
            if hidden
            else None
        )
        yield Hit(
            pattern_path(pattern.name, "served"),
            f"pattern {pattern.name} reads table {table.name} (TTL on {table.ttl}) without a filter on {table.ttl}: "
            f"expired, not yet deleted items are returned {narrow or 'whenever they exist'}",
            fix=fix,
            severity="info" if narrow else None,
        )


def _stores(ctx: Context, entity: Entity, name: str) -> bool:
    """Whether the design makes ``entity``'s items hold attribute ``name``: declared, its discriminator,
    or a key attribute of the table or of an index it has a key on (written by its templates)."""
    if name in entity.attributes or name == entity.entity_type_attribute:
        return True
    return any(
        key is not None and key.name == name
        for placement in ctx.placements()
        if placement.entity is entity
        for key in placement.table.key_schema(placement.key_name)
    )


def _spelling(name: str) -> str:
    """A name without its case convention: expiresAt, expires_at and Expires-At are one name."""
    return name.casefold().replace("_", "").replace("-", "")


@rule(
    "TW503",
    "ttl-attribute-undeclared",
    "ttl",
    "warning",
    "A table's TTL attribute is not an attribute of any entity in the table.",
    "DynamoDB deletes an item only when it holds the table's TTL attribute by that exact name. When no "
    "entity declares it (`ttl: expiresAt` while the entity stores `expires_at`), nothing the design "
    "writes ever expires: storage grows forever and the retention promise is broken.",
    "Declare the TTL attribute (a number of epoch seconds; computed: {ttl: {...}} fills it) on the "
    "entities that expire, or point the table's ttl at the attribute they already store.",
)
def ttl_attribute_undeclared(ctx: Context) -> Iterator[Hit]:
    for tname, table in ctx.design.tables.items():
        entities = ctx.design.entities_in(tname)
        if not table.ttl or not entities or any(_stores(ctx, e, table.ttl) for e in entities):
            continue
        declared = {name: e.name for e in entities for name in e.attributes}
        alike = [n for n in declared if _spelling(n) == _spelling(table.ttl)]
        # Grade by evidence: entities that refuse undeclared attributes cannot hold it, and the same
        # name in another case convention is a slip; otherwise the application may write it outside
        # the design (additional_attributes is allowed by default), which the design cannot show.
        severity: str | None = None  # the rule's own: warning
        if all(not e.additional_attributes for e in entities):
            reach = "no entity can store it (additional_attributes: false): no item ever expires"
        elif alike:
            owner = declared[alike[0]]
            reach = f"{owner} declares {alike[0]}: items expire only if written outside the design"
        else:
            reach = "items expire only if the application writes it outside the design"
            severity = "info"
        closest = suggest(table.ttl, declared)
        yield Hit(
            ("tables", tname, "ttl"),
            f"table {tname} expires items on {table.ttl}, which no entity of it declares; {reach}"
            + (f" ({closest})" if closest else ""),
            severity=severity,
        )
