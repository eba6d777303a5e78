"""Design predicates and key conditions -> DynamoDB expressions with ``#name``/``:value`` placeholders.

Every attribute name and value goes through a placeholder, so reserved words (``timestamp``,
``status``, ``ttl``) and odd characters never break an expression. Operators are rendered from the
table ``_RENDER`` keyed by the predicate AST's node names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from ..design.model import KeyCondition
from ..design.predicates import Const, Node, Param, Path, Predicate, Size
from .wire import to_wire


class Placeholders:
    """Collects ``ExpressionAttributeNames`` and ``ExpressionAttributeValues`` for one request."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, dict] = {}
        self._by_name: dict[str, str] = {}

    def name(self, attribute: str) -> str:
        """``#nN`` for one attribute name (reused when the same name appears twice)."""
        if attribute not in self._by_name:
            token = f"#n{len(self._by_name)}"
            self._by_name[attribute] = token
            self.names[token] = attribute
        return self._by_name[attribute]

    def path(self, text: str) -> str:
        """A document path such as ``capabilities.features.tft_display`` or ``tags[0]``."""
        out: list[str] = []
        for piece in re.findall(r"[^.\[\]]+|\[\d+\]", text):
            if piece.startswith("["):
                out.append(piece)
            else:
                out.append(("." if out else "") + self.name(piece))
        return "".join(out)

    def value(self, value: object) -> str:
        """``:vN`` for one value."""
        token = f":v{len(self.values)}"
        self.values[token] = to_wire(value)
        return token

    def apply(self, request: dict) -> dict:
        """Add the collected placeholders to a request (only the non-empty maps)."""
        if self.names:
            request.setdefault("ExpressionAttributeNames", {}).update(self.names)
        if self.values:
            request.setdefault("ExpressionAttributeValues", {}).update(self.values)
        return request


Convert = Callable[[str, object], object]


def filter_expression(
    predicate: Predicate, params: Mapping[str, object], ph: Placeholders, convert: Convert | None = None
) -> str:
    """Render a predicate as a FilterExpression/ConditionExpression.

    ``convert(param_name, value)`` turns a parameter into its stored representation (a ``datetime``
    into an RFC 3339 string or epoch number) before it becomes a value placeholder.
    """
    return _Renderer(params, ph, convert or (lambda _n, v: v)).render(predicate.tree)


class _Renderer:
    def __init__(self, params: Mapping[str, object], ph: Placeholders, convert: Convert) -> None:
        self.params, self.ph, self.convert = params, ph, convert

    def render(self, node: object) -> str:
        assert isinstance(node, Node)
        return _RENDER[node.op](self, node.args)

    def operand(self, operand: object) -> str:
        if isinstance(operand, Path):
            return self.ph.path(operand.text)
        if isinstance(operand, Size):
            return f"size({self.ph.path(operand.path.text)})"
        if isinstance(operand, Const):
            return self.ph.value(operand.value)
        if isinstance(operand, Param):
            if operand.name not in self.params:
                raise KeyError(f"parameter :{operand.name} is not given")
            return self.ph.value(self.convert(operand.name, self.params[operand.name]))
        raise TypeError(f"not an operand: {operand!r}")


def _binary(symbol: str) -> Callable[[_Renderer, tuple], str]:
    return lambda r, a: f"{r.operand(a[0])} {symbol} {r.operand(a[1])}"


def _function(name: str) -> Callable[[_Renderer, tuple], str]:
    return lambda r, a: f"{name}({', '.join(r.operand(x) for x in a)})"


_RENDER: dict[str, Callable[[_Renderer, tuple], str]] = {
    "and": lambda r, a: f"({r.render(a[0])} AND {r.render(a[1])})",
    "or": lambda r, a: f"({r.render(a[0])} OR {r.render(a[1])})",
    "not": lambda r, a: f"(NOT {r.render(a[0])})",
    "eq": _binary("="),
    "ne": _binary("<>"),
    "lt": _binary("<"),
    "le": _binary("<="),
    "gt": _binary(">"),
    "ge": _binary(">="),
    "between": lambda r, a: f"{r.operand(a[0])} BETWEEN {r.operand(a[1])} AND {r.operand(a[2])}",
    "in": lambda r, a: f"{r.operand(a[0])} IN ({', '.join(r.operand(x) for x in a[1:])})",
    "begins_with": _function("begins_with"),
    "contains": _function("contains"),
    "exists": lambda r, a: f"attribute_exists({r.operand(a[0])})",
    "not_exists": lambda r, a: f"attribute_not_exists({r.operand(a[0])})",
}

_SORT_OPS: dict[str, Callable[[str, list[str]], str]] = {
    "eq": lambda n, v: f"{n} = {v[0]}",
    "lt": lambda n, v: f"{n} < {v[0]}",
    "le": lambda n, v: f"{n} <= {v[0]}",
    "gt": lambda n, v: f"{n} > {v[0]}",
    "ge": lambda n, v: f"{n} >= {v[0]}",
    "between": lambda n, v: f"{n} BETWEEN {v[0]} AND {v[1]}",
    "begins_with": lambda n, v: f"begins_with({n}, {v[0]})",
}


def key_condition_expression(condition: KeyCondition, ph: Placeholders) -> str:
    """A KeyConditionExpression for a composed key condition."""
    text = f"{ph.name(condition.partition_name)} = {ph.value(condition.partition_value)}"
    if condition.sort_name and condition.sort_op:
        values = [ph.value(v) for v in condition.sort_values]
        text += " AND " + _SORT_OPS[condition.sort_op](ph.name(condition.sort_name), values)
    return text
