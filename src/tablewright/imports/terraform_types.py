"""Terraform type constraints applied to variable values, as Terraform applies them before use.

A variable declared ``type = object({ billing = optional(string, "PAY_PER_REQUEST") })`` with
``default = {}`` is, to every expression that reads it, ``{billing = "PAY_PER_REQUEST"}``: omitted
optional attributes take their default or null, attributes the type does not name are dropped, and
primitive values are converted (``"5"`` to a number 5, ``true`` to a string "true"). Without this,
``var.cfg.billing`` would be read as a missing attribute. A constraint is read from its syntax tree
into a converter; the constructors are dispatched by name.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from lark import Tree

from .hcl import Scope, Unresolved, evaluate, subtrees, text_of

Convert = Callable[[Any, str], Any]  # (value, where it is) -> the value as the type holds it


def _number(value: Any, where: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal | str):
        raise Unresolved(where, f"{value!r} is not a number")
    if isinstance(value, str):
        try:
            number = Decimal(value.strip())
        except InvalidOperation:
            raise Unresolved(where, f"{value!r} is not a number") from None
        return int(number) if number == number.to_integral_value() else number
    return value


def _string(value: Any, where: str) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | Decimal):
        return str(value)
    if not isinstance(value, str):
        raise Unresolved(where, f"{value!r} is not a string")
    return value


def _bool(value: Any, where: str) -> Any:
    if isinstance(value, str) and value in ("true", "false"):
        return value == "true"
    if not isinstance(value, bool):
        raise Unresolved(where, f"{value!r} is not a bool")
    return value


_PRIMITIVES: dict[str, Convert] = {
    "string": _string,
    "number": _number,
    "bool": _bool,
    "any": lambda value, _: value,
}


class _Optional:
    """``optional(T)`` or ``optional(T, default)``: only meaningful as an object attribute's type."""

    def __init__(self, convert: Convert, default: Any) -> None:
        self.convert, self.default = convert, default


def _object(arguments: list[Tree], scope: Scope) -> Convert:
    attributes: dict[str, Convert | _Optional] = {}
    for element in subtrees(_unwrapped(arguments[0])) if arguments else []:
        key_node, type_node = subtrees(element)
        attributes[text_of(key_node).strip().strip('"')] = _constraint(type_node, scope, optional_ok=True)

    def convert(value: Any, where: str) -> Any:
        if not isinstance(value, dict):
            raise Unresolved(where, f"{value!r} is not an object")
        out = {}
        for name, attribute in attributes.items():
            given = value.get(name)
            if isinstance(attribute, _Optional):
                # Null or absent takes the default (itself converted), as Terraform does.
                chosen = attribute.default if given is None else given
                out[name] = None if chosen is None else attribute.convert(chosen, f"{where}.{name}")
            elif name not in value:
                raise Unresolved(where, f"the attribute {name} is required by the variable's type")
            else:
                out[name] = None if given is None else attribute(given, f"{where}.{name}")
        return out

    return convert


def _element(arguments: list[Tree], scope: Scope) -> Convert:
    return _constraint(arguments[0], scope) if arguments else _PRIMITIVES["any"]


def _map(arguments: list[Tree], scope: Scope) -> Convert:
    element = _element(arguments, scope)

    def convert(value: Any, where: str) -> Any:
        if not isinstance(value, dict):
            raise Unresolved(where, f"{value!r} is not a map")
        return {k: None if v is None else element(v, f"{where}[{k!r}]") for k, v in value.items()}

    return convert


def _list(arguments: list[Tree], scope: Scope) -> Convert:
    element = _element(arguments, scope)

    def convert(value: Any, where: str) -> Any:
        if not isinstance(value, list | tuple):
            raise Unresolved(where, f"{value!r} is not a list")
        return [None if v is None else element(v, f"{where}[{i}]") for i, v in enumerate(value)]

    return convert


def _tuple(arguments: list[Tree], scope: Scope) -> Convert:
    elements = [_constraint(t, scope) for t in (subtrees(_unwrapped(arguments[0])) if arguments else [])]

    def convert(value: Any, where: str) -> Any:
        if not isinstance(value, list | tuple) or len(value) != len(elements):
            raise Unresolved(where, f"{value!r} is not a tuple of {len(elements)}")
        return [None if v is None else c(v, f"{where}[{i}]") for i, (c, v) in enumerate(zip(elements, value))]

    return convert


_CONSTRUCTORS: dict[str, Callable[[list[Tree], Scope], Convert]] = {
    "object": _object,
    "map": _map,
    "list": _list,
    "set": _list,  # a set's order is Terraform's; the values are what matters here
    "tuple": _tuple,
}


def _unwrapped(node: Tree) -> Tree:
    while node.data == "expr_term" and len(subtrees(node)) == 1:
        node = subtrees(node)[0]
    return node


def _constraint(node: Tree, scope: Scope, *, optional_ok: bool = False) -> Convert | _Optional:
    inner = _unwrapped(node)
    if inner.data == "identifier" and str(inner.children[0]) in _PRIMITIVES:
        return _PRIMITIVES[str(inner.children[0])]
    if inner.data == "string":  # Terraform 0.11's quoted types: "string", "list", "map"
        legacy = text_of(inner).strip().strip('"')
        if legacy in _PRIMITIVES:
            return _PRIMITIVES[legacy]
        if legacy in ("list", "map"):
            return _CONSTRUCTORS[legacy]([], scope)
    if inner.data == "function_call":
        name_node, *rest = subtrees(inner)
        name = str(name_node.children[0])
        arguments = subtrees(rest[0]) if rest else []
        if name == "optional" and optional_ok and arguments:
            default = evaluate(arguments[1], scope) if len(arguments) > 1 else None
            return _Optional(_constraint(arguments[0], scope), default)
        if name in _CONSTRUCTORS:
            return _CONSTRUCTORS[name](arguments, scope)
    raise Unresolved(node, "a type constraint not read at import")


def typed(value: Any, constraint: Tree, scope: Scope, name: str) -> Any:
    """``value`` as the variable ``name``'s ``type = constraint`` makes it (null stays null)."""
    convert = _constraint(constraint, scope)
    assert not isinstance(convert, _Optional)  # optional_ok is False at the top
    return None if value is None else convert(value, f"var.{name}")
