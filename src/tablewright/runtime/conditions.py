"""Caller conditions: a design predicate over an entity's natural attributes -> a ConditionExpression.

``rt.update(..., condition="balance >= :amount", condition_params={"amount": 5})`` and the
transaction helpers take conditions in the same predicate language as ``means.where`` and
``served.filter``. Natural attributes are stored under their own names, so the predicate renders
with the filter renderer unchanged; what this module adds is checking the condition against the
entity before any write, turning ``datetime`` parameters into the format of the attribute they are
compared with, and explaining a failed condition from the stored item.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from ..design.model import Attribute, Entity
from ..design.predicates import Node, Param, Path, Predicate, PredicateError
from ..design.timeutil import epoch_ms, epoch_s, format_exact, normalise_rfc3339
from ..design.validators import Violation, number_problem
from .errors import ValidationError
from .expressions import Placeholders, filter_expression

# How a datetime parameter is stored, by the format of the attribute it is compared with.
_DATETIME_AS: dict[str | None, Callable[[datetime], object]] = {
    "epoch_ms": epoch_ms,
    "epoch_s": epoch_s,
}


@dataclass(frozen=True)
class Condition:
    """A caller's condition on one entity, parameters already in their stored representation."""

    entity: str
    predicate: Predicate
    params: dict[str, object] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The condition as the caller wrote it."""
        return self.predicate.text

    def render(self, ph: Placeholders) -> str:
        """The ConditionExpression text, names and values added to ``ph``."""
        return filter_expression(self.predicate, self.params, ph)

    def holds(self, values: Mapping[str, object] | None) -> bool:
        """The condition evaluated over natural values (None: no item) the way DynamoDB does."""
        return self.predicate.evaluate(values or {}, self.params)

    def explain(self, values: Mapping[str, object] | None) -> str:
        """Why the condition is false for ``values``: the attributes it reads, as stored."""
        if values is None:
            return "the item does not exist"
        shown = ", ".join(
            f"{name}={values[name]!r}" if name in values else f"{name} is absent"
            for name in sorted(self.predicate.attributes)
        )
        return f"the stored item has {shown}"


def condition_of(
    entity: Entity, condition: str | Predicate | None, params: Mapping[str, object] | None
) -> Condition | None:
    """Parse and check a caller's condition; ``ValidationError`` (before any write) when it is unusable."""
    if condition is None:
        return None
    params = dict(params or {})
    try:
        predicate = condition if isinstance(condition, Predicate) else Predicate(condition)
    except PredicateError as exc:
        raise _invalid(entity, f"condition does not parse: {exc}") from None
    problems = [f"parameter :{name} is not given" for name in sorted(predicate.params - set(params))]
    if not entity.additional_attributes:
        known = set(entity.attributes) | {entity.entity_type_attribute or ""}
        problems += [
            f"{name} is not an attribute of {entity.name}" for name in sorted(predicate.attributes - known)
        ]
    attributes = _param_attributes(entity, predicate)
    stored: dict[str, object] = {}
    for name, value in params.items():
        try:
            stored[name] = _as_stored(attributes.get(name), value)
        except ValueError as exc:  # a number DynamoDB cannot hold, digits finer than the precision
            problems.append(f"parameter :{name}: {exc}")
    if problems:
        raise _invalid(entity, "; ".join(problems) + f" (condition {predicate.text!r})")
    return Condition(entity.name, predicate, stored)


def _as_stored(attr: Attribute | None, value: object) -> object:
    """A parameter as the attribute it is compared with stores values: a datetime in its format, and
    an instant in its precision (DynamoDB compares the strings: ``...00Z`` is not ``...00.000Z``).
    A datetime compared with text of no declared format is RFC 3339 UTC with every digit it has."""
    fmt = attr.format if attr else None
    if (
        isinstance(value, int | Decimal)
        and not isinstance(value, bool)
        and (problem := number_problem(value))
    ):
        raise ValueError(problem)
    if isinstance(value, datetime):
        if fmt in _DATETIME_AS:
            return _DATETIME_AS[fmt](value)
        # Every digit it has: the attribute's precision below takes it (or refuses finer digits);
        # text compared with an attribute of no format keeps the fraction rather than lose it.
        value = format_exact(value)
    if fmt == "rfc3339" and isinstance(value, str):
        _refuse_other_spelling(attr, value)  # type: ignore[arg-type]
        if attr.precision:  # type: ignore[union-attr]
            return normalise_rfc3339(value, attr.precision, truncate=attr.truncate)  # type: ignore[union-attr]
    return value


# A date, a time to the second and a zone, however written: ``T``/``t``/space, ``Z``/``z``, ``+02:00``,
# ``+0200``, ``+02``.
_WHOLE_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d(:?\d\d)?)")


def _refuse_other_spelling(attr: Attribute, text: str) -> None:
    """Refuse a whole timestamp spelled otherwise than the attribute stores it (an offset, a lower
    case ``t`` or ``z``, a space): DynamoDB compares it as text with the stored ``...Z`` strings, so
    ``at = '2025-01-15T14:00:00+02:00'`` failed for the item at that instant and ``<`` answered wrong.
    A prefix (``begins_with(at, :day)`` with ``2025-01-15``) is no timestamp and is left alone."""
    if not _WHOLE_TIMESTAMP.fullmatch(text):
        return
    problems = [message for _, rule, message in attr.validate(text) if rule == "format"]
    if problems:
        raise ValueError(f"{problems[0]}; give a datetime or the UTC text the attribute stores")


def _invalid(entity: Entity, message: str) -> ValidationError:
    return ValidationError(entity.name, [Violation(entity.name, "(condition)", "condition", message)])


def _param_attributes(entity: Entity, predicate: Predicate) -> dict[str, Attribute | None]:
    """Parameter name -> the top-level attribute it is compared with in the predicate."""
    found: dict[str, Attribute | None] = {}

    def walk(node: object) -> None:
        if not isinstance(node, Node):
            return
        paths = [a for a in node.args if isinstance(a, Path)]
        if paths:
            attr = entity.attributes.get(paths[0].text.split(".")[0].split("[")[0])
            for arg in node.args:
                if isinstance(arg, Param):
                    found.setdefault(arg.name, attr)
        for arg in node.args:
            walk(arg)

    walk(predicate.tree)
    return found
