"""Compiles a model shape into a tree of small closures that check a wire value against it.

Each shape becomes a :class:`Node` once per service: its JSON type test, its own constraints, and an
``inner`` closure that checks what it contains (structure members, list members, map entries). Which
closure a shape gets is chosen by tables keyed on the shape's type, never by operation, so the whole
API is covered by the model's data. Checks append violations to a list and raise SerializationException
at once on a wrong JSON type, as DynamoDB parses before it validates.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..types import check_wire_json
from .messages import NOT_NULL, Violation, bracket, serialization_error
from .rules import Rules, rules_for

Inner = Callable[[Any, str, list[Violation]], None]
MemberCheck = Callable[[Any, str, str, list[Violation]], None]

# Attribute values are validated by the engine's types module with DynamoDB's own messages; here they
# (and the maps and lists made of them) are only required to be JSON objects, to keep requests fast.
OPAQUE = frozenset({"AttributeValue"})

# Members typed TableArn take a table name or an ARN. The model only bounds the ARN (1-1024), but
# DynamoDB still holds a plain name to the TableName rules (3-255, [a-zA-Z0-9_.-]+).
NAME_OR_ARN = {"TableArn": "TableName"}

_INT_RANGE = {"integer": (-(2**31), 2**31 - 1), "long": (-(2**63), 2**63 - 1)}
_PASSED_LIMIT = 4096  # strings remembered per member as valid (bounded: clients may send ever-new ones)


def _plain_string(value: Any) -> bool:
    """Whether ``value`` is ``{"S": str}`` or ``{"N": str}`` (a non-empty str): most attribute values
    are, and their JSON types are right by construction, so :func:`check_wire_json` can skip them."""
    return value.__class__ is dict and len(value) == 1 and (value.get("S") or value.get("N")).__class__ is str


def _attribute_value_json(value: Any, path: str, errors: list[Violation]) -> None:
    if not _plain_string(value):
        check_wire_json(value)


def _attribute_values_json(value: list[Any], path: str, errors: list[Violation]) -> None:
    for each in value:
        if not _plain_string(each):
            check_wire_json(each)


def _attribute_map_json(value: dict[str, Any], path: str, errors: list[Violation]) -> None:
    # The test of _plain_string written out: this loop runs over every attribute of every written item.
    for each in value.values():
        if (
            each.__class__ is not dict
            or len(each) != 1
            or (each.get("S") or each.get("N")).__class__ is not str
        ):
            check_wire_json(each)


def _number(value: Any) -> bool:
    return value.__class__ in (int, float)


def _blob(value: Any) -> bool:
    if value.__class__ is not str:
        return False
    try:
        binascii.a2b_base64(value, strict_mode=True)
    except binascii.Error:
        return False
    return True


def _integer(kind: str) -> Callable[[Any], bool]:
    low, high = _INT_RANGE[kind]

    def ok(value: Any) -> bool:
        if value.__class__ is float and value.is_integer():
            value = int(value)
        return value.__class__ is int and low <= value <= high

    return ok


# The JSON-type test per shape type. bool is an int subclass in Python, hence exact class tests.
def _string(value: Any) -> bool:
    """A str that UTF-8 can carry: an in-process caller can pass a lone surrogate, which JSON cannot
    (isascii() is O(1) on CPython's compact strings, so most strings cost nothing more)."""
    if value.__class__ is not str:
        return False
    if value.isascii():
        return True
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True


_TYPE_OK: dict[str, Callable[[Any], bool]] = {
    "string": _string,
    "blob": _blob,
    "boolean": lambda v: v.__class__ is bool,
    "integer": _integer("integer"),
    "long": _integer("long"),
    "double": _number,
    "timestamp": _number,  # the JSON protocol sends timestamps as epoch seconds
    "list": lambda v: isinstance(v, list),
    "map": lambda v: isinstance(v, dict),
    "structure": lambda v: isinstance(v, dict),
}


def _type_reason(kind: str, value: Any) -> str:
    """Why a value of the right JSON family still failed the type test, for the message."""
    if kind in _INT_RANGE and value.__class__ in (int, float):
        return f"{value} is not a whole number in the range of {kind}"
    if kind == "blob" and value.__class__ is str:
        return "is not valid base64"
    if kind == "string" and value.__class__ is str:
        return "is not valid UTF-8 (it holds a lone surrogate)"
    return ""


@dataclass(slots=True)
class Node:
    """A compiled shape: type test, own constraints, contents check, and its check as a member."""

    kind: str
    type_ok: Callable[[Any], bool]
    rules: Rules | None
    inner: Inner | None
    as_member: MemberCheck


def _fail_type(node_kind: str, value: Any, path: str) -> Exception:
    return serialization_error(node_kind, value, path, _type_reason(node_kind, value))


def _member_check(
    kind: str, type_ok: Callable[[Any], bool], rules: Rules | None, inner: Inner | None
) -> MemberCheck:
    """The check of a value in a structure member: each failed constraint is its own violation."""
    if rules is None and inner is None:

        def check(value: Any, parent: str, seg: str, errors: list[Violation]) -> None:
            if not type_ok(value):
                raise _fail_type(kind, value, parent + seg)

    elif rules is None:
        assert inner is not None

        def check(value: Any, parent: str, seg: str, errors: list[Violation]) -> None:
            if not type_ok(value):
                raise _fail_type(kind, value, parent + seg)
            inner(value, parent + seg, errors)

    elif kind == "string" and inner is None:
        passed: set[str] = set()  # strings that passed before (table names recur on every request)

        def check(value: Any, parent: str, seg: str, errors: list[Violation]) -> None:
            if value.__class__ is str and value in passed:
                return
            if not type_ok(value):
                raise _fail_type(kind, value, parent + seg)
            failed = rules.failures(value)
            if failed:
                path = parent + seg
                errors.extend((value, path, text) for text in failed)
            elif len(passed) < _PASSED_LIMIT:
                passed.add(value)

    else:

        def check(value: Any, parent: str, seg: str, errors: list[Violation]) -> None:
            if not type_ok(value):
                raise _fail_type(kind, value, parent + seg)
            failed = rules.failures(value)
            if failed:
                path = parent + seg
                errors.extend((value, path, text) for text in failed)
            if inner is not None:
                inner(value, parent + seg, errors)

    return check


class Compiler:
    """Compiles the shapes of one service model, each shape once."""

    def __init__(self, shapes: dict[str, dict[str, Any]]) -> None:
        self.shapes = shapes
        self.nodes: dict[str, Node] = {}
        self._inners = {"structure": self._structure, "list": self._list, "map": self._map}

    def node(self, name: str) -> Node:
        """The compiled node of shape ``name``."""
        node = self.nodes.get(name)
        if node is None:
            node = self.nodes[name] = self._compile(name)
        return node

    def _compile(self, name: str) -> Node:
        shape = self.shapes[name]
        kind = shape["type"]
        names = NAME_OR_ARN.get(name)
        rules = rules_for(shape, rules_for(self.shapes[names]) if names else None)
        build = self._inners.get(kind)
        if name in OPAQUE:
            inner: Inner | None = _attribute_value_json
        else:
            inner = build(shape) if build is not None else None
        type_ok = _TYPE_OK[kind]
        return Node(kind, type_ok, rules, inner, _member_check(kind, type_ok, rules, inner))

    def structure(self, shape: dict[str, Any]) -> Inner:
        """The contents check of a structure shape given as its definition (which need not be one of
        the model's: validation.structure_validator compiles shapes with members left out)."""
        return self._structure(shape)

    def _structure(self, shape: dict[str, Any]) -> Inner:
        members = {
            wire: (self.node(ref["shape"]).as_member, wire[:1].lower() + wire[1:])
            for wire, ref in shape["members"].items()
        }
        required = tuple((wire, wire[:1].lower() + wire[1:]) for wire in shape.get("required", ()))

        def inner(value: dict[str, Any], path: str, errors: list[Violation]) -> None:
            prefix = path + "." if path else ""
            # Unknown members are ignored and null counts as absent, as DynamoDB's parser does.
            nulls = None
            for key, item in value.items():
                entry = members.get(key)
                if entry is None:
                    continue
                if item is None:
                    nulls = [key] if nulls is None else [*nulls, key]
                else:
                    entry[0](item, prefix, entry[1], errors)
            for wire, seg in required:
                if value.get(wire) is None:
                    errors.append((None, prefix + seg, NOT_NULL))
            if nulls is not None:
                # Absent for the operations too, so none of them has to tell null from missing.
                for key in nulls:
                    del value[key]

        return inner

    def _list(self, shape: dict[str, Any]) -> Inner | None:
        member_name = shape["member"]["shape"]
        if member_name in OPAQUE:
            return _attribute_values_json
        member = self.node(member_name)
        if member.inner is not None:
            as_member = member.as_member

            def nested(value: list[Any], path: str, errors: list[Violation]) -> None:
                prefix = path + "."
                for i, item in enumerate(value, 1):
                    if item is None:
                        errors.append((None, f"{prefix}{i}.member", NOT_NULL))
                    else:
                        as_member(item, prefix, f"{i}.member", errors)

            return nested
        return self._simple_members(member)

    def _simple_members(self, member: Node) -> Inner:
        """List members of a simple type: type-checked one by one, constraints reported once for all."""
        kind, type_ok, rules = member.kind, member.type_ok, member.rules

        def simple(value: list[Any], path: str, errors: list[Violation]) -> None:
            bad = None
            for i, item in enumerate(value, 1):
                if not type_ok(item):
                    raise _fail_type(kind, item, f"{path}.{i}.member")
                if bad is None and rules is not None and rules.failures(item):
                    bad = item
            if bad is not None:
                assert rules is not None
                errors.append((value, path, bracket("Member must satisfy constraint", rules.texts_for(bad))))

        return simple

    def _map(self, shape: dict[str, Any]) -> Inner | None:
        if shape["value"]["shape"] in OPAQUE:
            return _attribute_map_json
        key_rules = self.node(shape["key"]["shape"]).rules
        val = self.node(shape["value"]["shape"])
        val_kind, val_ok, val_rules, val_inner = val.kind, val.type_ok, val.rules, val.inner

        def inner(value: dict[str, Any], path: str, errors: list[Violation]) -> None:
            bad_key = bad_value = None
            for key, item in value.items():
                if not _string(key):  # JSON's keys are strings; an in-process caller's may be anything
                    raise _fail_type("string", key, f"{path} (a key)")
                if bad_key is None and key_rules is not None and key_rules.failures(key):
                    bad_key = key
                where = f"{path}.{key}.member"
                if item is None:
                    errors.append((None, where, NOT_NULL))
                    continue
                if not val_ok(item):
                    raise _fail_type(val_kind, item, where)
                if bad_value is None and val_rules is not None and val_rules.failures(item):
                    bad_value = item
                if val_inner is not None:
                    val_inner(item, where, errors)
            if bad_key is not None:
                assert key_rules is not None
                errors.append(
                    (value, path, bracket("Map keys must satisfy constraint", key_rules.texts_for(bad_key)))
                )
            if bad_value is not None:
                assert val_rules is not None
                errors.append(
                    (
                        value,
                        path,
                        bracket("Map value must satisfy constraint", val_rules.texts_for(bad_value)),
                    )
                )

        return inner
