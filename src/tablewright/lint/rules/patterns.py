"""Access pattern rules (TW3xx): scans, wasteful filters, Limit with filters, oversize pages, patterns
the keys cannot serve."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from tablewright.cost import analysis
from tablewright.cost.sizes import entity_size, index_entry_size
from tablewright.design.model import AccessPattern
from tablewright.design.predicates import Node, Path

from ..context import Context, pattern_path
from ..registry import Hit, rule

FREQUENT = 1 / 3600  # a scan more often than hourly is on a frequent path
SMALL_TABLE_ITEMS = 1000  # below this (declared) a scan is one cheap page
# A scan whose means selects at least this share of the table reads what any index would hold, and
# the index would add a write per item write: the scan is the right tool (EVSE's fleet overview).
NEARLY_ALL = 0.9
DISCARD_SHARE = 0.5  # a filter that drops more than half of what it reads
PAGE_BYTES = 1024 * 1024


def _rate(ctx: Context, pattern: AccessPattern) -> str:
    rate = ctx.reads_per_second(pattern.name)
    if rate is None:
        return "no declared rate"
    for unit, seconds in (("s", 1), ("min", 60), ("hour", 3600), ("day", 86400)):
        if rate * seconds >= 1:
            return f"{rate * seconds:,.3g}/{unit}"
    return f"{rate * 86400 * 30.4:,.3g}/month"


def _equalities(pattern: AccessPattern) -> list[str]:
    """Attributes ``means.where`` tests for equality: candidates for a key."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, Node):
            if node.op == "eq":
                found.extend(a.text for a in node.args if isinstance(a, Path))
            if node.op in ("and", "eq"):
                for arg in node.args:
                    walk(arg)

    if pattern.means.where is not None:
        walk(pattern.means.where.tree)
    return found


def key_bound(pattern: AccessPattern) -> set[str]:
    """Attributes the key condition fixes to one value: every partition key field, and the sort key
    fields an ``eq``/``begins_with`` bound (or both ``between`` bounds alike) names."""
    served, entry = pattern.served, pattern.served.entity_key
    if entry is None or served.op not in ("get", "query"):
        return set()
    bound = set(entry.pk.fields)
    sort = served.sort
    if served.op == "get" and entry.sk is not None:
        bound |= set(entry.sk.fields)
    elif sort is not None and sort.op in ("eq", "begins_with"):
        bound |= {f for b in sort.bounds if isinstance(b, Mapping) for f in b}
    elif sort is not None and sort.op == "between" and len(sort.bounds) == 2:
        low, high = (b if isinstance(b, Mapping) else {} for b in sort.bounds)
        bound |= {f for f in low if f in high and low[f] == high[f]}
    return {f.lstrip(":") for f in bound}


def _filter_in_key(pattern: AccessPattern) -> bool:
    """True when the key condition already fixes every attribute the filter reads (the fix is in place)."""
    served = pattern.served
    return served.filter is not None and served.filter.attributes <= key_bound(pattern)


@rule(
    "TW301",
    "scan-on-frequent-path",
    "patterns",
    "warning",
    "A frequent access pattern is served by a Scan.",
    "A Scan reads (and is charged for) every item in the table, 1 MB per page, before any filter; its cost "
    "and latency grow with the table, not with the result.",
    "Serve the pattern with a Query: give it a key (a GSI on the attributes it selects by, sparse if only "
    "some items qualify).",
)
def scan_frequent(ctx: Context) -> Iterator[Hit]:
    for pattern in ctx.design.patterns.values():
        if pattern.served.op != "scan":
            continue
        rate = ctx.reads_per_second(pattern.name)
        table = analysis.pattern_table(ctx.design, pattern) or "?"
        index = pattern.served.index
        # What the Scan reads: the index's entries (a sparse index holds its share), or the table's
        # items with their unique markers.
        items = analysis.scanned_items(ctx.design, table, index)
        if rate is not None and (rate < FREQUENT or (items and items < SMALL_TABLE_ITEMS)):
            continue
        share = analysis.scan_share(ctx.design, pattern)
        if share is not None and share >= NEARLY_ALL:
            continue
        keys = _equalities(pattern)
        hint = f"; a GSI keyed on {', '.join(keys)} would serve it" if keys else ""
        size = f"{items:,.0f} items" if items else "size not declared"
        selects = f", selecting about {share:.0%} of it" if share is not None else ""
        scanned = f"index {index} of table {table}" if index else f"table {table}"
        yield Hit(
            pattern_path(pattern.name, "served"),
            f"pattern {pattern.name} scans {scanned} ({size}) at {_rate(ctx, pattern)}{selects}{hint}; "
            f"its reads cost {ctx.pattern_impact(pattern.name)}",
        )


@rule(
    "TW302",
    "filter-discards-most",
    "patterns",
    "warning",
    "A filter drops most of the items the request reads.",
    "A FilterExpression is applied after the read: DynamoDB charges for every item read, kept or not, "
    "and a page can come back nearly empty.",
    "Move the filtered attribute into the key: a composite sort key (TYPE#timestamp) or a GSI keyed on it.",
)
def filter_discards(ctx: Context) -> Iterator[Hit]:
    for pattern in ctx.design.patterns.values():
        served = pattern.served
        if served.filter is None or _filter_in_key(pattern):
            continue
        kept = analysis.selectivity(served.filter, ctx.design, pattern.returns)
        if kept is None or kept >= 1 - DISCARD_SHARE:
            continue
        yield Hit(
            pattern_path(pattern.name, "served", "filter"),
            f"pattern {pattern.name}: filter {served.filter.text!r} keeps about {kept:.0%} of what it reads "
            "(values assumed equally common): "
            + (f"~{1 / kept:.0f}x the reads per result" if kept else "every read is wasted")
            + f"; the discarded reads cost {ctx.pattern_impact(pattern.name, 1 - kept)}",
        )


@rule(
    "TW303",
    "limit-with-filter",
    "patterns",
    "warning",
    "A request combines Limit (page_size) with a filter.",
    "Limit caps the items DynamoDB reads, before the filter: a page can hold fewer matches than asked, or "
    "none, while more exist. Code that takes the first page (the van design's 'latest status', Limit=1 "
    "with a filter) returns nothing or the wrong item.",
    "Keep paging until means.limit matches are found (the runtime does), raise page_size, or put the "
    "filtered attribute into the key so no filter is needed.",
)
def limit_with_filter(ctx: Context) -> Iterator[Hit]:
    for pattern in ctx.design.patterns.values():
        served = pattern.served
        if served.filter is None or not served.page_size or _filter_in_key(pattern):
            continue
        kept = analysis.selectivity(served.filter, ctx.design, pattern.returns)
        wanted = pattern.means.limit or 1
        expected = served.page_size * kept if kept is not None else None
        if expected is not None and expected >= wanted:
            continue  # the fix (a page that holds the matches asked for; the runtime pages on) is in place
        short = expected is not None and expected < wanted
        detail = (
            f"a page of {served.page_size} holds ~{expected:.2g} matches for a limit of {wanted}"
            if expected is not None
            else f"a page of {served.page_size} may hold no match"
        )
        yield Hit(
            pattern_path(pattern.name, "served", "page_size"),
            f"pattern {pattern.name}: Limit {served.page_size} applies before filter {served.filter.text!r}; {detail}",
            severity="error" if short else None,
        )


@rule(
    "TW304",
    "unpaginated-large-result",
    "patterns",
    "warning",
    "A pattern without a limit can read more than 1 MB per call.",
    "Query and Scan return at most 1 MB per call (before filters) and a LastEvaluatedKey; a caller that "
    "does not follow it silently gets a partial result.",
    "Give the pattern a limit (means.limit) and page with a cursor, or narrow the key condition.",
)
def large_result(ctx: Context) -> Iterator[Hit]:
    for pattern in ctx.design.patterns.values():
        served = pattern.served
        if served.op not in ("query", "scan") or pattern.means.limit:
            continue
        rows = analysis.rows_read(ctx.design, pattern)
        if rows.assumed or not rows.items:
            continue
        total = rows.items * _item_bytes(ctx, pattern)
        if total > PAGE_BYTES:
            yield Hit(
                pattern_path(pattern.name),
                f"pattern {pattern.name} can read {rows.items:,.0f} items (~{total / PAGE_BYTES:,.1f} MB) per call and "
                f"has no limit: DynamoDB returns 1 MB per call; its reads cost "
                f"{ctx.pattern_impact(pattern.name)}",
            )


def _item_bytes(ctx: Context, pattern: AccessPattern) -> float:
    """Average bytes of an item the pattern reads, as cost prices it (a Scan's average covers the
    markers or the index entries it reads)."""
    cost = next((p for p in ctx.estimate.patterns if p.name == pattern.name), None)
    if cost is not None and cost.item_bytes:
        return cost.item_bytes
    served = pattern.served
    entity = served.via or pattern.returns[0]
    if served.index:
        return index_entry_size(ctx.design, entity, served.index)
    return entity_size(ctx.design, entity).typical


@rule(
    "TW305",
    "unservable-pattern",
    "patterns",
    "error",
    "A pattern's key cannot be composed from its parameters.",
    "A Query needs the whole partition key value and a GetItem the whole primary key; if a template field "
    "is neither a parameter nor bound to a literal, no request can be built.",
    "Add the missing parameter, bind the field in served.partition, or serve the pattern from an index "
    "whose key the parameters do compose.",
)
def unservable(ctx: Context) -> Iterator[Hit]:
    for pattern in ctx.design.patterns.values():
        served = pattern.served
        if served.op not in ("get", "query"):
            continue
        entry = served.entity_key
        if entry is None:
            yield Hit(
                pattern_path(pattern.name, "served"),
                f"pattern {pattern.name}: {served.via or pattern.returns[0]} has no key on "
                f"{served.index or 'the table'}",
            )
            continue
        missing = [f for f in entry.pk.fields if not _bindable(pattern, f)]
        role = "partition key"
        if not missing and served.op == "get" and entry.sk is not None:
            missing, role = [f for f in entry.sk.fields if not _bindable(pattern, f)], "sort key"
        if missing:
            yield Hit(
                pattern_path(pattern.name, "served"),
                f"pattern {pattern.name}: the {role} {(entry.pk if role == 'partition key' else entry.sk).source!r} "  # type: ignore[union-attr]
                f"needs {', '.join(missing)}, which is neither a parameter nor bound",
            )


def _bindable(pattern: AccessPattern, field: str) -> bool:
    bound = pattern.served.partition.get(field)
    if bound is not None:
        return not (isinstance(bound, str) and bound.startswith(":")) or bound[1:] in pattern.params
    return field in pattern.params


def sort_fields(entity: object, template: object) -> list[str]:
    """A sort key template's fields in order, a computed attribute's own template fields in its place
    (``{type_ts}`` computed as ``{type}#{ts}`` orders by type, then ts)."""
    fields: list[str] = []
    for name in getattr(template, "fields", ()):
        attr = getattr(entity, "attributes", {}).get(name)
        computed = attr.computed if attr is not None else None
        if computed is not None and computed.template is not None and name not in computed.template.fields:
            fields += computed.template.fields
        else:
            fields.append(name)
    return fields


def _unbound_lead(fields: list[str], bound: set[str], attribute: str) -> list[str]:
    """The sort fields from the first one the key condition leaves free: fields fixed to one value
    order nothing, the rest does."""
    while fields and fields[0] in bound and fields[0] != attribute:
        fields.pop(0)
    return fields


@rule(
    "TW306",
    "order-not-served",
    "patterns",
    "warning",
    "The order a pattern promises is not the order its key returns.",
    "DynamoDB returns a Query's items in sort key order only (ScanIndexForward picks the direction); a "
    "Scan returns them in no useful order. Any other order needs all items read and sorted by the caller.",
    "Put the ordering attribute in the sort key (or an index's), or set forward to match the direction.",
)
def order_not_served(ctx: Context) -> Iterator[Hit]:
    for pattern in ctx.design.patterns.values():
        order, served, entry = pattern.means.order, pattern.served, pattern.served.entity_key
        if order is None or served.op not in ("query", "scan") or entry is None:
            continue
        entity = ctx.design.entities.get(served.via or pattern.returns[0])
        bound = key_bound(pattern)
        # A computed sort attribute orders by itself and by its own fields: either reading serves.
        as_written = _unbound_lead(list(getattr(entry.sk, "fields", ())), bound, order.attribute)
        fields = _unbound_lead(sort_fields(entity, entry.sk) if entry.sk else [], bound, order.attribute)
        if as_written[:1] == [order.attribute]:
            fields = as_written
        if served.op == "scan" or not fields or fields[0] != order.attribute:
            where = (
                "a Scan" if served.op == "scan" else f"sort key {entry.sk.source if entry.sk else '(none)'!r}"
            )
            ahead = (
                f" (it orders by {fields[0]} first, which the key condition does not fix)"
                if order.attribute in fields
                else ""
            )
            yield Hit(
                pattern_path(pattern.name, "means", "order"),
                f"pattern {pattern.name} promises order by {order.attribute}, but {where} does not order by it{ahead}",
            )
        elif served.forward == order.descending:
            yield Hit(
                pattern_path(pattern.name, "served"),
                f"pattern {pattern.name} promises {order.attribute} {'desc' if order.descending else 'asc'} but "
                f"reads with forward: {str(served.forward).lower()}",
                severity="error",
            )
