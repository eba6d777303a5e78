"""Caller conditions: a design predicate over an entity's natural attributes -> a ConditionExpression.

``rt.update(..., condition="balance >= :amount", condition_params={"amount": 5})`` and the
transaction helpers take conditions in the same predicate language as ``means.where`` and
``served.filter``. Natural attributes are stored under their own names, so the predicate renders
with the filter renderer unchanged; what this module adds is checking the condition against the
entity before any write, turning ``datetime`` parameters into the format of the attribute they are
compared with, and explaining a failed condition from the stored item.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from ..design.model import Entity
from ..design.predicates import Node, Param, Path, Predicate, PredicateError
from ..design.timeutil import epoch_ms, epoch_s, format_rfc3339
from ..design.validators import Violation
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
    if problems:
        raise _invalid(entity, "; ".join(problems) + f" (condition {predicate.text!r})")
    formats = _param_formats(entity, predicate)
    stored = {
        name: _DATETIME_AS.get(formats.get(name), format_rfc3339)(value)
        if isinstance(value, datetime)
        else value
        for name, value in params.items()
    }
    return Condition(entity.name, predicate, stored)


def _invalid(entity: Entity, message: str) -> ValidationError:
    return ValidationError(entity.name, [Violation(entity.name, "(condition)", "condition", message)])


def _param_formats(entity: Entity, predicate: Predicate) -> dict[str, str | None]:
    """Parameter name -> format of the top-level attribute it is compared with in the predicate."""
    found: dict[str, str | None] = {}

    def walk(node: object) -> None:
        if not isinstance(node, Node):
            return
        paths = [a for a in node.args if isinstance(a, Path)]
        if paths:
            attr = entity.attributes.get(paths[0].text.split(".")[0].split("[")[0])
            for arg in node.args:
                if isinstance(arg, Param):
                    found.setdefault(arg.name, attr.format if attr else None)
        for arg in node.args:
            walk(arg)

    walk(predicate.tree)
    return found
