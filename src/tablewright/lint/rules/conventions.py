"""Convention rules (TW7xx): the design's own team rules, checked as lint rules.

The design loader checks the same conventions (``tablewright.design.conventions.RULES``); a breach
the design grades ``error`` stops the load, one graded ``warning`` reaches lint and is reported here
with a stable id so it can be switched off or re-graded like any rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from tablewright.cost import analysis
from tablewright.design.conventions import RULES as CONVENTION_RULES

from ..context import Context
from ..registry import Hit, rule

CONVENTION_IDS: dict[str, str] = {
    "attribute_case": "TW701",
    "entity_type_case": "TW702",
    "key_names": "TW703",
    "id_prefix": "TW704",
    "required_attributes": "TW705",
    "version_on_update": "TW706",
    "timestamps": "TW707",
}
_WHY = "The team's conventions (the design's conventions: section) say so; consistency is what lets code and people rely on them."


def _checker(name: str) -> Callable[[Context], Iterator[Hit]]:
    def check(ctx: Context) -> Iterator[Hit]:
        severity = ctx.design.conventions.severity_of(name)
        for path, message, hint in CONVENTION_RULES[name](ctx.design):
            yield Hit(tuple(path), f"convention {name}: {message}", fix=hint or None, severity=severity)

    return check


for _name, _id in CONVENTION_IDS.items():
    rule(
        _id,
        _name.replace("_", "-"),
        "conventions",
        "warning",
        f"The design's convention {_name} is broken.",
        _WHY,
        "Follow the convention, or change it in conventions: if the team agrees.",
    )(_checker(_name))


def _team(ctx: Context, key: str) -> object:
    return dict(ctx.options.get("conventions", {})).get(key)  # type: ignore[call-overload]


@rule(
    "TW708",
    "key-template-convention",
    "conventions",
    "warning",
    "A key template does not have the shape the team's conventions require.",
    "Team conventions on key shapes (the Nexus checklist: 'GSI1PK includes year', 'GSI3 uses "
    "TYPE#STATUS#SORT') keep every entity queryable by the same patterns.",
    "Write the template in the required shape, or change lint.conventions.key_templates if the team agrees.",
)
def key_template_convention(ctx: Context) -> Iterator[Hit]:
    required = _team(ctx, "key_templates") or {}
    for placement in ctx.placements():
        roles = required.get(placement.key_name) or required.get(
            placement.table_name if placement.index is None else ""
        )  # type: ignore[union-attr]
        for role, pattern in (roles or {}).items():
            template = placement.key.pk if role == "pk" else placement.key.sk
            if template is not None and not re.search(str(pattern), template.source):
                yield Hit(
                    (*placement.path, role),
                    f"{placement.label}: {role} {template.source!r} of {placement.entity.name} does not match "
                    f"the convention {pattern!r}",
                )


@rule(
    "TW709",
    "pagination-convention",
    "conventions",
    "warning",
    "A pattern can return more items than the team allows without a limit.",
    "Team conventions such as Nexus's 'queries that may return >100 items MUST implement pagination' "
    "keep latency and cost bounded.",
    "Give the pattern a limit (means.limit) and page with a cursor.",
)
def pagination_convention(ctx: Context) -> Iterator[Hit]:
    most = _team(ctx, "max_items_without_limit")
    if not most:
        return
    for pattern in ctx.design.patterns.values():
        if pattern.served.op not in ("query", "scan") or pattern.means.limit:
            continue
        rows = analysis.rows_read(ctx.design, pattern)
        if not rows.assumed and rows.items > most:  # type: ignore[operator]
            count = f"{rows.items:,.0f}"
            yield Hit(
                ("patterns", pattern.name),
                f"pattern {pattern.name} can return {count} items with no limit (convention: at most {most})",
            )


@rule(
    "TW710",
    "scan-convention",
    "conventions",
    "warning",
    "A pattern is served by a Scan where the team's conventions forbid scans.",
    "Teams forbid scans (Nexus: 'Queries use GSI (not Scan on base table)') because a Scan's cost grows "
    "with the table.",
    "Serve the pattern with a Query on the table or a GSI.",
)
def scan_convention(ctx: Context) -> Iterator[Hit]:
    if _team(ctx, "scans") != "forbidden":
        return
    for pattern in ctx.design.patterns.values():
        if pattern.served.op == "scan":
            yield Hit(
                ("patterns", pattern.name, "served"),
                f"pattern {pattern.name} is a Scan (convention: scans forbidden)",
            )
