"""What a read on a GSI can see: only projected attributes (TW207).

A GSI holds the table's keys, its own keys and the projected attributes; nothing else can be read
through it. A filter on anything else compares a missing attribute and keeps nothing, so the query
silently returns an empty page. (An LSI fetches the rest from the table, at a cost: not reported.)
"""

from __future__ import annotations

from collections.abc import Iterator

from tablewright.design.model import AccessPattern, Design, Index, Table

from ..context import Context, pattern_path
from ..registry import Hit, rule
from .patterns import sort_fields


def projected(table: Table, index: Index) -> set[str] | None:
    """Attribute names a GSI's items carry; None when it projects ALL (or is an LSI)."""
    if index.kind != "global" or index.projection.type == "ALL":
        return None
    names = {table.partition_key.name, index.partition_key.name}
    names |= {k.name for k in (table.sort_key, index.sort_key) if k is not None}
    if index.projection.type == "INCLUDE":
        names |= set(index.projection.attributes)
    return names


def read_index(design: Design, pattern: AccessPattern) -> tuple[Table, Index] | None:
    """The table and GSI a pattern reads, when it reads one."""
    served = pattern.served
    entity = design.entities.get(served.via or (pattern.returns[0] if pattern.returns else ""))
    table = design.tables.get(entity.table) if entity else None
    index = table.indexes.get(served.index or "") if table else None
    return (table, index) if table and index else None


def unprojected(design: Design, pattern: AccessPattern, names: set[str]) -> list[str]:
    """Which of ``names`` the GSI a pattern reads does not carry (empty: all visible, or no GSI)."""
    found = read_index(design, pattern)
    visible = projected(*found) if found else None
    return [] if visible is None else sorted(n for n in names if n not in visible)


@rule(
    "TW207",
    "filter-not-projected",
    "indexes",
    "error",
    "A pattern filters (or means to select) on an attribute its GSI does not project.",
    "A GSI holds only its keys, the table's keys and the projected attributes. A FilterExpression on any "
    "other attribute sees it missing on every item and keeps nothing: the query returns an empty result "
    "while matching items exist.",
    "Project the attribute (projection: {include: [...]}) or ALL, or move the condition into the index's "
    "key; do not rely on a filter the index cannot evaluate.",
)
def filter_not_projected(ctx: Context) -> Iterator[Hit]:
    for pattern in ctx.design.patterns.values():
        served = pattern.served
        if served.filter is not None:
            missing = unprojected(ctx.design, pattern, served.filter.attributes)
            if missing:
                yield Hit(
                    pattern_path(pattern.name, "served", "filter"),
                    f"pattern {pattern.name}: filter {served.filter.text!r} reads {', '.join(missing)}, which "
                    f"index {served.index} does not project: every item fails the filter and the query "
                    "returns nothing",
                )
            continue
        selected = _selected_outside_key(ctx.design, pattern)
        missing = unprojected(ctx.design, pattern, selected)
        if missing:
            yield Hit(
                pattern_path(pattern.name, "means", "where"),
                f"pattern {pattern.name} selects on {', '.join(missing)}, which index {served.index} neither keys "
                "nor projects: a filter on it would return nothing, and without one the pattern returns "
                "items its means excludes",
                fix=f"Project {', '.join(missing)} into {served.index} (or ALL) and filter on it, or key the "
                "index on it.",
            )


def _selected_outside_key(design: Design, pattern: AccessPattern) -> set[str]:
    """Attributes ``means.where`` selects on that the read key's templates do not hold (a computed
    key attribute holds the fields of its own template)."""
    entry = pattern.served.entity_key
    if pattern.means.where is None or entry is None:
        return set()
    entity = design.entities.get(pattern.served.via or (pattern.returns[0] if pattern.returns else ""))
    keyed = {*entry.pk.fields, *sort_fields(entity, entry.pk)}
    if entry.sk is not None:
        keyed |= {*entry.sk.fields, *sort_fields(entity, entry.sk)}
    return {a for a in pattern.means.where.attributes if a not in keyed}
