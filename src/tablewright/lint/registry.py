"""The rule table: every lint rule is a row keyed by its stable id (``TW101``).

A rule is data (id, name, family, default severity, why it matters, how to fix it) plus a check
function over a ``Context`` that yields ``Hit`` objects: where (a path in the design document) and
what. The runner turns hits into located ``Finding`` objects and applies the design's overrides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .context import Context

SEVERITIES: dict[str, int] = {"info": 0, "warning": 1, "error": 2}
FAMILIES = ("design", "keys", "indexes", "patterns", "limits", "ttl", "time", "conventions")


@dataclass(frozen=True)
class Hit:
    """One breach found by a check: a document path, a message and optional overrides.

    ``severity`` overrides the rule's default where the evidence grades it (e.g. a collision
    probability); ``fix`` replaces the generic fix with a specific one.
    """

    path: tuple[object, ...]
    message: str
    fix: str | None = None
    severity: str | None = None


Check = Callable[["Context"], Iterable[Hit]]


@dataclass(frozen=True)
class Rule:
    """A lint rule: stable id, short name, family, default severity, rationale, fix and check."""

    id: str
    name: str
    family: str
    severity: str
    summary: str
    why: str
    fix: str
    check: Check


RULES: dict[str, Rule] = {}


def rule(
    id: str, name: str, family: str, severity: str, summary: str, why: str, fix: str
) -> Callable[[Check], Check]:
    """Register a check function as rule ``id``; ids and names must be unique."""
    if family not in FAMILIES or severity not in SEVERITIES:
        raise ValueError(f"rule {id}: bad family {family!r} or severity {severity!r}")

    def register(check: Check) -> Check:
        if id in RULES or any(r.name == name for r in RULES.values()):
            raise ValueError(f"rule {id} ({name}) is registered twice")
        RULES[id] = Rule(id, name, family, severity, summary, why, fix, check)
        return check

    return register


def resolve(key: str) -> str:
    """A rule id from an id or a rule name (``TW203`` or ``unused-index``); KeyError names the choices."""
    upper = key.upper()
    if upper in RULES:
        return upper
    for found in RULES.values():
        if found.name == key:
            return found.id
    raise KeyError(f"unknown lint rule {key!r}; rules are {', '.join(sorted(RULES))} (or their names)")
