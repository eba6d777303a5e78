"""TTL rules (TW5xx): TTL attributes DynamoDB will never act on, and reads that see expired items."""

from __future__ import annotations

from collections.abc import Iterator

from tablewright.design.model import AccessPattern, Attribute

from ..context import Context, pattern_path
from ..registry import Hit, rule

EPOCH_MS_FLOOR = 10**11  # a number this large is milliseconds (year 5138 in seconds)
# Sort conditions that bound a read from below: expired (old) items are reachable only if asked for.
LOWER_BOUNDED = {"gt", "ge", "between", "eq", "begins_with"}


def _unit_problem(attr: Attribute) -> str | None:
    """Why a TTL attribute is not epoch seconds, or None when it is (or cannot be told)."""
    if attr.computed is not None and attr.computed.kind == "ttl":
        return None  # computed TTLs are always written in epoch seconds
    if attr.type != "number":
        return f"is a {attr.type}, not a Number"
    if attr.format == "epoch_ms":
        return "holds epoch milliseconds (~1.7e12: a date tens of thousands of years away)"
    if attr.format in ("rfc3339", "date"):
        return f"is declared {attr.format}"
    for bound in (attr.min, attr.max):
        if bound is not None and abs(bound) >= EPOCH_MS_FLOOR:
            return f"has bound {bound}, a value in milliseconds"
    return None


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
            problem = _unit_problem(attr) if attr else None
            if problem:
                yield Hit(
                    ("entities", entity.name, "attributes", table.ttl),
                    f"TTL attribute {table.ttl} of {entity.name} (table {tname}) {problem}: items never expire",
                )


def _lower_bounded(pattern: AccessPattern) -> bool:
    sort = pattern.served.sort
    return sort is not None and sort.op in LOWER_BOUNDED


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
        bounded = _lower_bounded(pattern)
        reach = "if a caller asks for an old window" if bounded else "whenever they exist"
        yield Hit(
            pattern_path(pattern.name, "served"),
            f"pattern {pattern.name} reads table {table.name} (TTL on {table.ttl}) without a filter on {table.ttl}: "
            f"expired, not yet deleted items are returned {reach}",
            severity="info" if bounded else None,
        )
