"""Query's expressions, parsed and bound once per request shape rather than once per request.

Applications send the same Query again and again with other values: the same key condition text,
names map and placeholders. Parsing the expressions, checking every placeholder is defined and used,
and binding the key condition to the key's attributes (which placeholder holds the partition value,
which the range bounds) depend only on that shape, and cost more than reading ten items. So the
first request of a shape runs the general code (with every one of DynamoDB's checks, in its order);
a later request of the same shape reuses what it decided and redoes only what depends on the
values: their validation, the BETWEEN bounds' order. The shape includes each value's type, so the
type checks against the key schema and the operators come out the same.

A request with a FilterExpression is not planned (its filter's scope is bound to the values); the
caller runs the general code for it.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .. import expressions as ex
from ..actions import Expressions
from ..expressions.conditions import check_bounds
from ..expressions.keys import KIND
from ..types import validate_item

# Whether two payloads of a key type are in DynamoDB's order: strings by code point (UTF-8's byte
# order), numbers by value, binary by bytes.
_IN_ORDER: dict[str, Callable[[str, str], bool]] = {
    "S": lambda low, high: low <= high,
    "N": lambda low, high: Decimal(low) <= Decimal(high),
    "B": lambda low, high: base64.b64decode(low) <= base64.b64decode(high),
}
MAX_PLANS = 1024  # distinct shapes remembered; beyond that the cache starts again


@dataclass(frozen=True, slots=True)
class _Plan:
    """What a request shape decided: its parsed expressions and which placeholder feeds which key part."""

    projection: Any
    key_condition: Any
    hash_values: tuple[str, ...]
    range_prefix: tuple[str, ...]
    range_op: str | None
    range_values: tuple[str, ...]


_plans: dict[tuple, _Plan] = {}


def forget() -> None:
    """Drop every plan (the next request of each shape runs the general code again)."""
    _plans.clear()


def planned() -> int:
    """How many request shapes have a plan."""
    return len(_plans)


def _shape(request: dict, hash_names: tuple[str, ...], range_names: tuple[str, ...]) -> tuple | None:
    """The part of a request its plan depends on; None if it cannot be planned (or is malformed)."""
    if "FilterExpression" in request:
        return None
    names = request.get("ExpressionAttributeNames")
    values = request.get("ExpressionAttributeValues")
    if type(values) is not dict or (names is not None and type(names) is not dict):
        return None
    shape = (
        request["KeyConditionExpression"],
        request.get("ProjectionExpression"),
        tuple(names.items()) if names else names,
        tuple([(p, tuple(v) if type(v) is dict else None) for p, v in values.items()]),
        hash_names,
        range_names,
    )
    try:
        hash(shape)
    except TypeError:  # a malformed request (a list where a string belongs): the general code words it
        return None
    return shape


def bind(expr: Any, names: dict | None, hash_names: tuple[str, ...], range_names: tuple[str, ...]) -> tuple:
    """Which placeholders a resolved key condition took its values from (as resolve_key_conditions did)."""
    by_key = {(names or {}).get(part.name, part.name): part for part in expr.parts}
    hashes = tuple(by_key[name].values[0].name for name in hash_names)
    ranged = [by_key[name] for name in range_names if name in by_key]
    if not ranged:
        return hashes, (), None, ()
    prefix = tuple(part.values[0].name for part in ranged[:-1])
    return hashes, prefix, ranged[-1].op, tuple(value.name for value in ranged[-1].values)


def _in_order(low: dict, high: dict) -> bool:
    """Whether BETWEEN bounds are of one key type and in order (False: let the general check word it)."""
    for kind, lower in low.items():
        upper = high.get(kind)
        in_order = _IN_ORDER.get(kind)
        return upper is not None and in_order is not None and in_order(lower, upper)
    return False


def key_condition(
    request: dict, hash_names: tuple[str, ...], range_names: tuple[str, ...]
) -> tuple[Expressions, ex.KeyConditions]:
    """A Query request's parsed expressions and its key condition bound to the key's attributes."""
    shape = _shape(request, hash_names, range_names)
    plan = _plans.get(shape) if shape is not None else None
    if plan is None:
        expressions = Expressions.parse(
            request,
            condition="FilterExpression",
            projection="ProjectionExpression",
            key_condition="KeyConditionExpression",
        )
        condition = ex.resolve_key_conditions(
            expressions.key_condition, expressions.names, expressions.values, hash_names, range_names
        )
        if shape is not None:
            if len(_plans) >= MAX_PLANS:
                _plans.clear()
            bound = bind(expressions.key_condition, expressions.names, hash_names, range_names)
            _plans[shape] = _Plan(expressions.projection, expressions.key_condition, *bound)
        return expressions, condition
    names = request.get("ExpressionAttributeNames")
    # Validated here as the general code does first; each value is then taken as it is (the general
    # code's second check of each value, by Scope.value, cannot fail on a validated value).
    values = validate_item(request["ExpressionAttributeValues"], "ExpressionAttributeValues")
    condition = ex.KeyConditions(
        tuple(values[name] for name in plan.hash_values),
        tuple(values[name] for name in plan.range_prefix),
        plan.range_op,
        tuple(values[name] for name in plan.range_values),
    )
    if plan.range_op == "BETWEEN" and not _in_order(*condition.range_values):
        check_bounds(*condition.range_values, KIND)  # DynamoDB's error, worded by the general code
    expressions = Expressions(names, values, projection=plan.projection, key_condition=plan.key_condition)
    return expressions, condition
