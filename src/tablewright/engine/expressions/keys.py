"""KeyConditionExpression: ``hash = :v`` optionally ``AND`` one range condition, in either order.

A GSI with a multi-attribute key (up to four HASH and four RANGE attributes) takes an equality on
every HASH attribute and conditions on a left-to-right run of its RANGE attributes: equalities, of
which the last one named may instead be a range condition. Decisions: a gap or a range condition
before the last named RANGE attribute is reported, for the first RANGE attribute named after such a
one, as DynamoDB words it ("RANGE key attributes <a> must have equality conditions specified in the
query because a condition is present on key attribute <b>", as recorded against AWS by public test
suites); a missing HASH attribute or a non-equality on one reuses the single-key wording; a name that
is no key attribute reports the first RANGE attribute not named, or "Query key condition not
supported" when all are (as for single keys). Up to max(2, key attributes) conditions are accepted.

Parsing reuses the condition grammar and then checks the shape (so the messages match DynamoDB's);
resolution binds the placeholders and the key names into a :class:`KeyConditions` that the query
planner can use directly. The caller checks each value's type against the key schema.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ..errors import ValidationException
from ..types import AttributeValue
from .conditions import check_bounds
from .grammar import Parser
from .messages import incorrect_operand, invalid_expression
from .nodes import (
    And,
    Between,
    Call,
    Compare,
    Condition,
    KeyConditionExpr,
    KeyPart,
    Operand,
    PathExpr,
    ValueRef,
)
from .resolve import Scope

KIND = "KeyConditionExpression"
RANGE_OPERATORS = frozenset({"=", "<", "<=", ">", ">=", "BETWEEN", "begins_with"})
MAX_KEY_CONDITIONS = 8  # four HASH and four RANGE attributes of a multi-attribute GSI key
# A comparison written value-first (":v < sk") means the mirrored comparison on the key.
_MIRRORED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True, slots=True)
class KeyCondition:
    """A resolved key condition: the hash key's value and at most one condition on the range key."""

    hash_value: AttributeValue
    range_op: str | None = None
    range_values: tuple[AttributeValue, ...] = ()


@dataclass(frozen=True, slots=True)
class KeyConditions:
    """A resolved key condition for a key of any number of attributes.

    ``hash_values``: one per HASH attribute, in key-schema order. ``range_prefix``: equalities on the
    leading RANGE attributes; ``range_op``/``range_values``: the condition on the RANGE attribute that
    follows them (the last one named), ``None`` when no RANGE attribute is named.
    """

    hash_values: tuple[AttributeValue, ...]
    range_prefix: tuple[AttributeValue, ...] = ()
    range_op: str | None = None
    range_values: tuple[AttributeValue, ...] = ()


@functools.lru_cache(maxsize=4096)
def parse_key_condition(text: str, kind: str = KIND) -> KeyConditionExpr:
    """Parse a KeyConditionExpression and check it has the shape DynamoDB accepts."""
    parser = Parser(text, kind)
    root = parser.condition()
    parser.expect_end()
    conditions = _conjuncts(root, kind)
    if len(conditions) > MAX_KEY_CONDITIONS:
        raise invalid_expression(kind, "KeyConditionExpressions must only contain one condition per key")
    parts = tuple(_key_part(c, kind) for c in conditions)
    return KeyConditionExpr(kind, frozenset(parser.names), frozenset(parser.values), parts)


def _conjuncts(node: Condition, kind: str) -> list[Condition]:
    if isinstance(node, And):
        return _conjuncts(node.left, kind) + _conjuncts(node.right, kind)
    return [node]


def _key_part(node: Condition, kind: str) -> KeyPart:
    if isinstance(node, Compare) and node.op in _MIRRORED:
        if isinstance(node.left, ValueRef) and not isinstance(node.right, ValueRef):
            return KeyPart(_key_name(node.right, kind), _MIRRORED[node.op], (node.left,))
        return KeyPart(_key_name(node.left, kind), node.op, (_value(node.right, kind),))
    if isinstance(node, Between):
        return KeyPart(
            _key_name(node.operand, kind), "BETWEEN", (_value(node.low, kind), _value(node.high, kind))
        )
    if isinstance(node, Call) and node.name == "begins_with":
        return KeyPart(_key_name(node.args[0], kind), "begins_with", (_value(node.args[1], kind),))
    operator = node.op if isinstance(node, Compare) else node.name if isinstance(node, Call) else None
    operator = operator or type(node).__name__.upper()
    raise invalid_expression(kind, f"Invalid operator used in KeyConditionExpression: {operator}")


def _key_name(node: Operand, kind: str) -> str:
    if isinstance(node, ValueRef):
        raise invalid_expression(
            kind, "Invalid condition in KeyConditionExpression: No key attribute specified"
        )
    if not isinstance(node, PathExpr):
        raise invalid_expression(kind, f"Invalid operator used in KeyConditionExpression: {node.name}")  # type: ignore[union-attr]
    if len(node.elements) > 1:
        raise invalid_expression(kind, "KeyConditionExpressions cannot have conditions on nested attributes")
    return node.elements[0]  # type: ignore[return-value]


def _value(node: Operand, kind: str) -> ValueRef:
    if isinstance(node, ValueRef):
        return node
    raise invalid_expression(
        kind, "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
    )


def resolve_key_condition(
    expr: KeyConditionExpr,
    names: dict[str, str] | None,
    values: dict[str, Any] | None,
    hash_name: str,
    range_name: str | None,
) -> KeyCondition:
    """:func:`resolve_key_conditions` for a key of one HASH and at most one RANGE attribute."""
    resolved = resolve_key_conditions(expr, names, values, (hash_name,), (range_name,) if range_name else ())
    return KeyCondition(resolved.hash_values[0], resolved.range_op, resolved.range_values)


def resolve_key_conditions(
    expr: KeyConditionExpr,
    names: dict[str, str] | None,
    values: dict[str, Any] | None,
    hash_names: tuple[str, ...],
    range_names: tuple[str, ...],
) -> KeyConditions:
    """Bind the expression to a table's or index's key names; DynamoDB's errors for anything else.

    Errors against the key schema carry no ``Invalid KeyConditionExpression:`` prefix, as in DynamoDB.
    """
    scope = Scope(expr.kind, names, values)
    # Two conditions are always allowed (a hash-only key then reports the unsupported range condition).
    if len(expr.parts) > max(2, len(hash_names) + len(range_names)):
        raise invalid_expression(expr.kind, "KeyConditionExpressions must only contain one condition per key")
    by_key: dict[str, KeyPart] = {}
    for part in expr.parts:
        name = scope.name(part.name) if part.name.startswith("#") else part.name
        if name in by_key:
            raise invalid_expression(
                expr.kind, "KeyConditionExpressions must only contain one condition per key"
            )
        by_key[name] = part
    hash_values = []
    for hash_name in hash_names:
        hash_part = by_key.pop(hash_name, None)
        if len(hash_names) > 1 and (hash_part is None or hash_part.op != "="):
            # A multi-attribute partition key: DynamoDB names the rule, not the first offender.
            raise ValidationException(
                f"HASH key attributes {', '.join(hash_names)} must all have equality conditions "
                "specified in the query"
            )
        if hash_part is None:
            raise ValidationException(f"Query condition missed key schema element: {hash_name}")
        if hash_part.op != "=":
            raise ValidationException("Query key condition not supported")
        hash_values.append(scope.value(hash_part.values[0].name))
    if not by_key:
        return KeyConditions(tuple(hash_values))
    if not range_names:
        raise ValidationException("Query key condition not supported")
    if set(by_key) - set(range_names):
        missing = next((name for name in range_names if name not in by_key), None)
        if missing is None:
            raise ValidationException("Query key condition not supported")
        raise ValidationException(f"Query condition missed key schema element: {missing}")
    named = [name for name in range_names if name in by_key]
    _check_range_run(range_names, by_key)
    parts = [by_key[name] for name in named]
    resolved = [_range_values(part, scope, expr.kind) for part in parts]
    return KeyConditions(
        tuple(hash_values),
        tuple(values[0] for values in resolved[:-1]),
        parts[-1].op,
        resolved[-1],
    )


def _check_range_run(range_names: tuple[str, ...], by_key: dict[str, KeyPart]) -> None:
    """Every RANGE attribute before a named one must be named with ``=`` (no gap, range op last)."""
    for later_index, later in enumerate(range_names):
        if later not in by_key:
            continue
        for prior in range_names[:later_index]:
            part = by_key.get(prior)
            if part is None or part.op != "=":
                raise ValidationException(
                    f"RANGE key attributes {prior} must have equality conditions specified in the query "
                    f"because a condition is present on key attribute {later}"
                )


def _range_values(part: KeyPart, scope: Scope, kind: str) -> tuple[AttributeValue, ...]:
    """The bound values of one RANGE condition, checked against what its operator accepts."""
    range_values = tuple(scope.value(v.name) for v in part.values)
    for value in range_values:
        if next(iter(value)) not in ("S", "N", "B") or (
            part.op == "begins_with" and next(iter(value)) == "N"
        ):
            raise incorrect_operand(kind, part.op, value)
    if part.op == "BETWEEN":
        check_bounds(range_values[0], range_values[1], kind)
    return range_values
