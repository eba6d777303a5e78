"""Binding values: literal, parameter, list, map and set nodes -> DynamoDB wire attribute values.

Parameters arrive already in wire form (``{"S": "x"}``) and are taken as they are; the engine's own
validation of Item, Key and ExpressionAttributeValues then applies to them unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import PARAMETER_COUNT, invalid
from .nodes import VALUE_NODES, BagExpr, ListExpr, Literal, MapExpr, Node, Param

# The set type a bag becomes, by the scalar type of its members.
_SET_OF = {"S": "SS", "N": "NS", "B": "BS"}


def check_parameter_count(expected: int, given: list | None) -> None:
    """DynamoDB refuses a request whose parameter count differs from the statement's ``?`` count."""
    if expected != len(given or ()):
        raise invalid(PARAMETER_COUNT)


def is_value(node: Node) -> bool:
    """True when ``node`` denotes a value (as opposed to a path, a call or a condition)."""
    return isinstance(node, VALUE_NODES)


def bind(node: Node, params: list[dict]) -> dict[str, Any]:
    """The wire attribute value of a value node, with ``?`` taken from ``params``."""
    binder = _BINDERS.get(type(node))
    if binder is None:
        raise invalid(f"Unsupported data type: {type(node).__name__} in a value position")
    return binder(node, params)


def _literal(node: Literal, params: list[dict]) -> dict:
    if node.value is None:
        raise invalid("MISSING must be compared using IS operator")
    return node.value


def _param(node: Param, params: list[dict]) -> dict:
    if node.index >= len(params):
        raise invalid(PARAMETER_COUNT)
    return params[node.index]


def _list(node: ListExpr, params: list[dict]) -> dict:
    return {"L": [bind(item, params) for item in node.items]}


def _map(node: MapExpr, params: list[dict]) -> dict:
    result: dict[str, Any] = {}
    for key, value in node.pairs:
        if key in result:
            raise invalid(f"Duplicate keys in tuple. Key: {key} under item")
        result[key] = bind(value, params)
    return {"M": result}


def _bag(node: BagExpr, params: list[dict]) -> dict:
    if not node.items:
        raise invalid("Empty bags are not supported")
    members = [bind(item, params) for item in node.items]
    kinds = {next(iter(member)) for member in members}
    if len(kinds) != 1 or next(iter(kinds)) not in _SET_OF:
        raise invalid(
            "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags"
        )
    kind = kinds.pop()
    values = [member[kind] for member in members]
    if len(set(values)) != len(values):
        raise invalid("Input collection contains duplicates")
    return {_SET_OF[kind]: values}


_BINDERS: dict[type, Callable[[Any, list[dict]], dict]] = {
    Literal: _literal,
    Param: _param,
    ListExpr: _list,
    MapExpr: _map,
    BagExpr: _bag,
}
