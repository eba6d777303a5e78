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
    "A pattern filters on an attribute its GSI does not project.",
    "A GSI holds only its keys, the table's keys and the projected attributes. A FilterExpression on any "
    "other attribute sees it missing on every item and keeps nothing: the query returns an empty result "
    "while matching items exist.",
    "Project the attribute (projection: {include: [...]}) or ALL, or move the condition into the index's "
    "key; do not rely on a filter the index cannot evaluate.",
)
def filter_not_projected(ctx: Context) -> Iterator[Hit]:
    for pattern in ctx.design.patterns.values():
        served = pattern.served
        if served.filter is None:
            continue
        missing = unprojected(ctx.design, pattern, served.filter.attributes)
        if missing:
            index = served.index
            yield Hit(
                pattern_path(pattern.name, "served", "filter"),
                f"pattern {pattern.name}: filter {served.filter.text!r} reads {', '.join(missing)}, which index "
                f"{index} does not project: every item fails the filter and the query returns nothing",
            )
