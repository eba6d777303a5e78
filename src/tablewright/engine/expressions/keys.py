"""KeyConditionExpression: ``hash = :v`` optionally ``AND`` one range condition, in either order.

Parsing reuses the condition grammar and then checks the shape (so the messages match DynamoDB's);
resolution binds the placeholders and the table's key names into a :class:`KeyCondition` that the
query planner can use directly. The caller checks each value's type against the key schema.
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
# A comparison written value-first (":v < sk") means the mirrored comparison on the key.
_MIRRORED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True, slots=True)
class KeyCondition:
    """A resolved key condition: the hash key's value and at most one condition on the range key."""

    hash_value: AttributeValue
    range_op: str | None = None
    range_values: tuple[AttributeValue, ...] = ()


@functools.lru_cache(maxsize=4096)
def parse_key_condition(text: str, kind: str = KIND) -> KeyConditionExpr:
    """Parse a KeyConditionExpression and check it has the shape DynamoDB accepts."""
    parser = Parser(text, kind)
    root = parser.condition()
    parser.expect_end()
    conditions = _conjuncts(root, kind)
    if len(conditions) > 2:
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
    """Bind the expression to the table's (or index's) key names; DynamoDB's errors for anything else.

    Errors against the key schema carry no ``Invalid KeyConditionExpression:`` prefix, as in DynamoDB.
    """
    scope = Scope(expr.kind, names, values)
    by_key: dict[str, KeyPart] = {}
    for part in expr.parts:
        name = scope.name(part.name) if part.name.startswith("#") else part.name
        if name in by_key:
            raise invalid_expression(
                expr.kind, "KeyConditionExpressions must only contain one condition per key"
            )
        by_key[name] = part
    hash_part = by_key.pop(hash_name, None)
    if hash_part is None:
        raise ValidationException(f"Query condition missed key schema element: {hash_name}")
    if hash_part.op != "=":
        raise ValidationException("Query key condition not supported")
    hash_value = scope.value(hash_part.values[0].name)
    if not by_key:
        return KeyCondition(hash_value)
    if range_name is None:
        raise ValidationException("Query key condition not supported")
    range_part = by_key.get(range_name)
    if range_part is None:
        raise ValidationException(f"Query condition missed key schema element: {range_name}")
    range_values = tuple(scope.value(v.name) for v in range_part.values)
    for value in range_values:
        if next(iter(value)) not in ("S", "N", "B") or (
            range_part.op == "begins_with" and next(iter(value)) == "N"
        ):
            raise incorrect_operand(expr.kind, range_part.op, value)
    if range_part.op == "BETWEEN":
        check_bounds(range_values[0], range_values[1], expr.kind)
    return KeyCondition(hash_value, range_part.op, range_values)
