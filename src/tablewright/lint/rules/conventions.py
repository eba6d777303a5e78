"""Convention rules (TW7xx): the design's own team rules, checked as lint rules.

The design loader checks the same conventions (``tablewright.design.conventions.RULES``); a breach
the design grades ``error`` stops the load, one graded ``warning`` reaches lint and is reported here
with a stable id so it can be switched off or re-graded like any rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

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
