"""Condition and filter evaluation: an AST node and an item -> True/False, by DynamoDB's rules.

Each node type and each function has its evaluator in a table. A missing attribute is not an error:
it makes comparisons false. Values of different types never compare (false, not an error), except
that a value placeholder of a type an operator can never take is rejected, as DynamoDB rejects it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..types import TYPES, AttributeValue, Item, compare, decode_binary, equal, parse_number, value_size
from .messages import incorrect_operand, invalid_expression, render_path, render_value
from .nodes import (
    And,
    Between,
    Call,
    Compare,
    Condition,
    ConditionExpr,
    In,
    Not,
    Operand,
    Or,
    PathExpr,
    ValueRef,
)
from .resolve import Scope, get_path

ORDERINGS: dict[str, Callable[[int], bool]] = {
    "<": lambda c: c < 0,
    "<=": lambda c: c <= 0,
    ">": lambda c: c > 0,
    ">=": lambda c: c >= 0,
}
_SCALARS = frozenset({"S", "N", "B"})


def evaluate_condition(
    expr: ConditionExpr,
    item: Item,
    names: dict[str, str] | None = None,
    values: dict[str, Any] | None = None,
) -> bool:
    """Whether ``item`` (``{}`` for a missing item) satisfies the condition.

    The request-level checks of :func:`check_condition` run first, so a bad placeholder is an error
    even when short-circuiting would never reach it.
    """
    return evaluate_in_scope(expr, item, check_condition(expr, names, values))


def evaluate_in_scope(expr: ConditionExpr, item: Item, scope: Scope) -> bool:
    """Evaluate against a scope already checked by :func:`check_condition`: the per-item fast path
    for Query/Scan filters, which need the request-level checks only once."""
    return _check(expr.root, item, scope)


def check_condition(
    expr: ConditionExpr, names: dict[str, str] | None = None, values: dict[str, Any] | None = None
) -> Scope:
    """Resolve every placeholder and reject operand types DynamoDB rejects before reading any item."""
    scope = Scope(expr.kind, names, values)
    if expr.root is not None:
        _static(expr.root, scope)
    return scope


def _check(node: Condition | None, item: Item, scope: Scope) -> bool:
    return node is None or _CONDITIONS[type(node)](node, item, scope)


# ------------------------------------------------------------------------------------------- operands


def operand_value(node: Operand, item: Item, scope: Scope) -> AttributeValue | None:
    """The value an operand stands for, or None when it names a missing attribute."""
    if isinstance(node, PathExpr):
        return get_path(item, scope.path(node))
    if isinstance(node, ValueRef):
        return scope.value(node.name)
    if isinstance(node, Call) and node.name == "size":
        return _size(node, item, scope)
    raise invalid_expression(scope.kind, f"Invalid operand; operand: {node}")  # parser never builds this


def _size(node: Call, item: Item, scope: Scope) -> AttributeValue | None:
    value = operand_value(node.args[0], item, scope)
    if value is None:
        return None
    ((kind, payload),) = value.items()
    measure = _SIZES.get(kind)
    return {"N": str(measure(payload))} if measure else None


# String and binary sizes are in bytes (UTF-8 for strings); collections count their elements.
_SIZES: dict[str, Callable[[Any], int]] = {
    "S": lambda p: value_size({"S": p}),
    "B": lambda p: len(decode_binary(p)),
    **{kind: len for kind in ("SS", "NS", "BS", "M", "L")},
}


def static_scalar(node: Operand, operator: str, scope: Scope) -> None:
    """Reject a value placeholder that an ordering operator could never compare (a set, map, list...)."""
    if isinstance(node, ValueRef):
        value = scope.value(node.name)
        if next(iter(value)) not in _SCALARS:
            raise incorrect_operand(scope.kind, operator, value)


def check_bounds(low: AttributeValue, high: AttributeValue, kind: str) -> None:
    """DynamoDB rejects ``BETWEEN`` bounds of two types, or of one type in the wrong order."""
    if next(iter(low)) != next(iter(high)):
        problem = "requires same data type for lower and upper bounds"
    elif (compare(low, high) or 0) > 0:
        problem = "requires upper bound to be greater than or equal to lower bound"
    else:
        return
    raise invalid_expression(
        kind,
        f"The BETWEEN operator {problem}; "
        f"lower bound operand: AttributeValue: {render_value(low)}, "
        f"upper bound operand: AttributeValue: {render_value(high)}",
    )


# ----------------------------------------------------------------------------------------- conditions


def _compare(node: Compare, item: Item, scope: Scope) -> bool:
    left, right = operand_value(node.left, item, scope), operand_value(node.right, item, scope)
    if node.op == "<>":
        # Decision: a missing attribute is "not equal" to any value (DynamoDB's NE behaviour).
        return left is None or right is None or not equal(left, right)
    if left is None or right is None:
        return False
    if node.op == "=":
        return equal(left, right)
    order = compare(left, right)
    return order is not None and ORDERINGS[node.op](order)


def _between(node: Between, item: Item, scope: Scope) -> bool:
    value = operand_value(node.operand, item, scope)
    low, high = operand_value(node.low, item, scope), operand_value(node.high, item, scope)
    if value is None or low is None or high is None:
        return False
    above, below = compare(value, low), compare(value, high)
    return above is not None and below is not None and above >= 0 and below <= 0


def _in(node: In, item: Item, scope: Scope) -> bool:
    value = operand_value(node.operand, item, scope)
    if value is None:
        return False
    return any(
        (option := operand_value(o, item, scope)) is not None and equal(value, option) for o in node.options
    )


def _call(node: Call, item: Item, scope: Scope) -> bool:
    return _FUNCTIONS[node.name](node, item, scope)


def _attribute_exists(node: Call, item: Item, scope: Scope) -> bool:
    return operand_value(node.args[0], item, scope) is not None


def _attribute_type(node: Call, item: Item, scope: Scope) -> bool:
    wanted = operand_value(node.args[1], item, scope)
    value = operand_value(node.args[0], item, scope)
    return value is not None and wanted is not None and wanted.get("S") in value


def _begins_with(node: Call, item: Item, scope: Scope) -> bool:
    prefix = operand_value(node.args[1], item, scope)
    value = operand_value(node.args[0], item, scope)
    if value is None or prefix is None or next(iter(value)) != next(iter(prefix)):
        return False
    if "S" in value:
        return value["S"].startswith(prefix["S"])
    return decode_binary(value["B"]).startswith(decode_binary(prefix["B"]))


def _contains(node: Call, item: Item, scope: Scope) -> bool:
    value = operand_value(node.args[0], item, scope)
    wanted = operand_value(node.args[1], item, scope)
    if value is None or wanted is None:
        return False
    ((kind, payload),) = value.items()
    ((wanted_kind, wanted_payload),) = wanted.items()
    if kind == "S":
        return wanted_kind == "S" and wanted_payload in payload
    if kind == "B":
        return wanted_kind == "B" and decode_binary(wanted_payload) in decode_binary(payload)
    if kind in ("SS", "NS", "BS"):
        if wanted_kind != kind[0]:
            return False
        if kind == "NS":
            return parse_number(wanted_payload) in {parse_number(n) for n in payload}
        return wanted_payload in payload
    if kind == "L":
        return any(equal(element, wanted) for element in payload)
    return False


_FUNCTIONS: dict[str, Callable[[Call, Item, Scope], bool]] = {
    "attribute_exists": _attribute_exists,
    "attribute_not_exists": lambda n, i, s: not _attribute_exists(n, i, s),
    "attribute_type": _attribute_type,
    "begins_with": _begins_with,
    "contains": _contains,
}

_CONDITIONS: dict[type, Callable[[Any, Item, Scope], bool]] = {
    Compare: _compare,
    Between: _between,
    In: _in,
    And: lambda n, i, s: _check(n.left, i, s) and _check(n.right, i, s),
    Or: lambda n, i, s: _check(n.left, i, s) or _check(n.right, i, s),
    Not: lambda n, i, s: not _check(n.operand, i, s),
    Call: _call,
}


# ------------------------------------------------------------------------------------- static checks


def _static(node: Condition | Operand, scope: Scope) -> None:
    """Walk the whole tree once: resolve placeholders and apply DynamoDB's request-time type checks."""
    if isinstance(node, PathExpr):
        scope.path(node)
    elif isinstance(node, ValueRef):
        scope.value(node.name)
    elif isinstance(node, Compare):
        _static(node.left, scope)
        _static(node.right, scope)
        if node.op in ORDERINGS:
            static_scalar(node.left, node.op, scope)
            static_scalar(node.right, node.op, scope)
    elif isinstance(node, Between):
        for operand in (node.operand, node.low, node.high):
            _static(operand, scope)
            static_scalar(operand, "BETWEEN", scope)
        if isinstance(node.low, ValueRef) and isinstance(node.high, ValueRef):
            check_bounds(scope.value(node.low.name), scope.value(node.high.name), scope.kind)
    elif isinstance(node, In):
        for operand in (node.operand, *node.options):
            _static(operand, scope)
    elif isinstance(node, And | Or):
        _static(node.left, scope)
        _static(node.right, scope)
    elif isinstance(node, Not):
        _static(node.operand, scope)
    elif isinstance(node, Call):
        for arg in node.args:
            _static(arg, scope)
        _static_distinct(node, scope)
        for position, arg in enumerate(node.args):
            check = _STATIC_CALLS.get((node.name, position))
            if check is not None and isinstance(arg, ValueRef):
                check(scope.value(arg.name), scope)


def _static_distinct(node: Call, scope: Scope) -> None:
    """DynamoDB rejects a function given the same document path twice (``contains(a, a)``)."""
    first = node.args[0]
    if not isinstance(first, PathExpr):
        return
    path = scope.path(first)
    if any(isinstance(other, PathExpr) and scope.path(other) == path for other in node.args[1:]):
        raise invalid_expression(
            scope.kind,
            "The first operand must be distinct from the remaining operands for this operator or function; "
            f"operator: {node.name}, first operand: {render_path(path)}",
        )


def _static_prefix(value: AttributeValue, scope: Scope) -> None:
    if next(iter(value)) not in ("S", "B"):
        raise incorrect_operand(scope.kind, "begins_with", value)


def _static_sized(value: AttributeValue, scope: Scope) -> None:
    if next(iter(value)) not in _SIZES:
        raise incorrect_operand(scope.kind, "size", value)


def _static_type_name(value: AttributeValue, scope: Scope) -> None:
    if "S" not in value:
        raise incorrect_operand(scope.kind, "attribute_type", value)
    if value["S"] not in TYPES:
        raise invalid_expression(
            scope.kind,
            f"Invalid attribute type name found; type: {value['S']}, valid types: {{ B,NULL,SS,BOOL,L,BS,N,NS,S,M }}",
        )


# Request-time checks of a value placeholder, by (function, operand position).
_STATIC_CALLS: dict[tuple[str, int], Callable[[AttributeValue, Scope], None]] = {
    ("begins_with", 0): _static_prefix,
    ("begins_with", 1): _static_prefix,
    ("attribute_type", 1): _static_type_name,
    ("size", 0): _static_sized,
}
