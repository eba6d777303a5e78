"""UpdateExpression application: an update AST and an item -> a new item, by DynamoDB's rules.

Every right-hand side and every ADD/DELETE operand is computed against the item as it was before the
update (DynamoDB evaluates all actions against the original item), then written into a copy. REMOVEs
run last, in descending path order, so that the indexes of ``REMOVE l[0], l[2]`` both refer to the
original list and a SET of ``l[1]`` in the same expression still lands on the original element 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ValidationException
from ..types import AttributeValue, Item, add_numbers, invalid, parse_number
from .messages import (
    INCORRECT_DATA_TYPE,
    INVALID_UPDATE_PATH,
    LEGACY_TYPE_MISMATCH,
    LEGACY_VALUE_PREFIX,
    MISSING_ATTRIBUTE,
    incorrect_operand,
)
from .nodes import Action, Arith, Call, Operand, Path, PathExpr, UpdateExpr, ValueRef
from .resolve import Scope, check_overlaps, clone, get_path

_SETS = ("SS", "NS", "BS")
_REMOVED = object()  # marks an action whose effect is to remove its path (DELETE emptying a set)


def apply_update(
    expr: UpdateExpr,
    item: Item,
    names: dict[str, str] | None = None,
    values: dict[str, Any] | None = None,
    key_names: tuple[str, ...] = (),
) -> Item:
    """The item after the update; ``item`` itself (``{}`` for a new item) is never modified.

    ``key_names`` are the table's key attributes: ADD or DELETE on one is refused before its operand
    is looked at, as DynamoDB refuses it (SET and REMOVE are checked by the caller on the result).
    """
    scope = Scope(expr.kind, names, values)
    targets = [scope.path(action.path) for action in expr.actions]
    check_overlaps(targets, expr.kind)
    for action, path in zip(expr.actions, targets):
        if action.clause in ("ADD", "DELETE") and len(path) == 1 and path[0] in key_names:
            raise invalid(f"Cannot update attribute {path[0]}. This attribute is part of the key")
    results = [_ACTIONS[a.clause](a, path, item, scope) for a, path in zip(expr.actions, targets)]
    new = clone(item)
    removals: list[Path] = []
    writes: list[tuple[Path, Any]] = []
    for path, result in zip(targets, results):
        if result is _REMOVED:
            removals.append(path)
        else:
            writes.append((path, result))
    # Indexes past the end of a list append in index order, not in the order written.
    for path, result in sorted(writes, key=lambda write: _removal_order(write[0])):
        _write(new, path, clone(result))
    for path in sorted(removals, key=_removal_order, reverse=True):
        _remove(new, path)
    return new


def updated_paths(expr: UpdateExpr, names: dict[str, str] | None = None) -> list[Path]:
    """The top-level attributes the update touches, as one-element paths in first-touched order.

    ReturnValues UPDATED_OLD/UPDATED_NEW return these attributes.
    """
    scope = Scope(expr.kind, names, None)
    seen: dict[str | int, None] = {}
    for action in expr.actions:
        seen.setdefault(scope.path(action.path)[0], None)
    return [(name,) for name in seen]


def _removal_order(path: Path) -> tuple:
    # Only the order of indexes within one list matters (removals: higher first, so lower ones stay
    # valid; appends: lower first); the tags keep ints and strs from being compared with each other.
    return tuple((1, e, "") if isinstance(e, int) else (0, 0, e) for e in path)


# ----------------------------------------------------------------------------------------- actions


def _set(action: Action, path: Path, item: Item, scope: Scope) -> AttributeValue:
    return _operand(action.value, item, scope)  # type: ignore[arg-type]


def _remove_action(action: Action, path: Path, item: Item, scope: Scope) -> object:
    return _REMOVED


def _add(action: Action, path: Path, item: Item, scope: Scope) -> AttributeValue:
    value = scope.value(action.value.name)  # type: ignore[union-attr]
    ((kind, payload),) = value.items()
    if kind != "N" and kind not in _SETS:
        raise incorrect_operand(scope.kind, "ADD", value)
    current = get_path(item, path)
    if current is None:
        return value
    if kind not in current:
        raise _mismatch(action.value)  # type: ignore[arg-type]
    if kind == "N":
        return {"N": add_numbers(current["N"], payload)}
    return {kind: _union(kind, current[kind], payload)}


def _delete(action: Action, path: Path, item: Item, scope: Scope) -> object:
    value = scope.value(action.value.name)  # type: ignore[union-attr]
    ((kind, payload),) = value.items()
    if kind not in _SETS:
        raise incorrect_operand(scope.kind, "DELETE", value)
    current = get_path(item, path)
    if current is None:
        return _REMOVED  # removing a missing attribute is a no-op, as DELETE on it is
    if kind not in current:
        raise _mismatch(action.value)  # type: ignore[arg-type]
    unwanted = {_member_key(kind, m) for m in payload}
    remaining = [m for m in current[kind] if _member_key(kind, m) not in unwanted]
    return {kind: remaining} if remaining else _REMOVED


def _mismatch(*operands: Operand) -> ValidationException:
    """An operand whose type does not fit the attribute: legacy AttributeUpdates has its own words."""
    legacy = any(isinstance(o, ValueRef) and o.name.startswith(LEGACY_VALUE_PREFIX) for o in operands)
    return ValidationException(LEGACY_TYPE_MISMATCH if legacy else INCORRECT_DATA_TYPE)


_ACTIONS: dict[str, Callable[[Action, Path, Item, Scope], Any]] = {
    "SET": _set,
    "REMOVE": _remove_action,
    "ADD": _add,
    "DELETE": _delete,
}


def _member_key(kind: str, member: str) -> Any:
    # Number set members compare by value ("1.0" is "1"); strings and binaries by their text.
    return parse_number(member) if kind == "NS" else member


def _union(kind: str, current: list[str], extra: list[str]) -> list[str]:
    seen = {_member_key(kind, m) for m in current}
    merged = list(current)
    for member in extra:
        if _member_key(kind, member) not in seen:
            seen.add(_member_key(kind, member))
            merged.append(member)
    return merged


# ------------------------------------------------------------------------------------ SET operands


def _operand(node: Operand, item: Item, scope: Scope) -> AttributeValue:
    """The value of a SET right-hand side; a missing attribute here is an error, unlike in conditions."""
    if isinstance(node, ValueRef):
        return scope.value(node.name)
    if isinstance(node, PathExpr):
        value = get_path(item, scope.path(node))
        if value is None:
            raise ValidationException(MISSING_ATTRIBUTE)
        return value
    if isinstance(node, Arith):
        return _arith(node, item, scope)
    return _UPDATE_FUNCTIONS[node.name](node, item, scope)


def _typed(node: Operand, item: Item, scope: Scope, kind: str, operator: str) -> AttributeValue:
    """An operand that must be of ``kind``: a wrong literal is a request error, a wrong attribute a data one."""
    value = _operand(node, item, scope)
    if kind not in value:
        if isinstance(node, ValueRef):
            raise incorrect_operand(scope.kind, operator, value)
        raise ValidationException(INCORRECT_DATA_TYPE)
    return value


def _literals_first(operands: tuple[Operand, ...], scope: Scope, kind: str, operator: str) -> None:
    # DynamoDB rejects a literal of the wrong type before it looks at the item.
    for operand in operands:
        if isinstance(operand, ValueRef) and kind not in scope.value(operand.name):
            raise incorrect_operand(scope.kind, operator, scope.value(operand.name))


def _arith(node: Arith, item: Item, scope: Scope) -> AttributeValue:
    _literals_first((node.left, node.right), scope, "N", node.op)
    left = _typed(node.left, item, scope, "N", node.op)
    right = _typed(node.right, item, scope, "N", node.op)
    return {"N": add_numbers(left["N"], right["N"], subtract=node.op == "-")}


def _if_not_exists(node: Call, item: Item, scope: Scope) -> AttributeValue:
    current = get_path(item, scope.path(node.args[0]))  # type: ignore[arg-type]
    return current if current is not None else _operand(node.args[1], item, scope)


def _list_append(node: Call, item: Item, scope: Scope) -> AttributeValue:
    _literals_first(node.args, scope, "L", "list_append")
    try:
        first = _typed(node.args[0], item, scope, "L", "list_append")
        second = _typed(node.args[1], item, scope, "L", "list_append")
    except ValidationException as error:
        if error.message == INCORRECT_DATA_TYPE:  # legacy ADD of a list to an attribute of another type
            raise _mismatch(*node.args) from None
        raise
    return {"L": [*first["L"], *second["L"]]}


_UPDATE_FUNCTIONS: dict[str, Callable[[Call, Item, Scope], AttributeValue]] = {
    "if_not_exists": _if_not_exists,
    "list_append": _list_append,
}


# ------------------------------------------------------------------------------- writing into items


def _parent(item: Item, path: Path) -> AttributeValue | None:
    """The container holding the last element of ``path``, or None when it does not exist."""
    return get_path(item, path[:-1]) if len(path) > 1 else None


def _write(item: Item, path: Path, value: AttributeValue) -> None:
    if len(path) == 1:
        item[path[0]] = value  # type: ignore[index]
        return
    parent, last = _parent(item, path), path[-1]
    if isinstance(last, int) and parent is not None and "L" in parent:
        elements = parent["L"]
        # An index past the end appends, as DynamoDB does.
        if last < len(elements):
            elements[last] = value
        else:
            elements.append(value)
    elif isinstance(last, str) and parent is not None and "M" in parent:
        parent["M"][last] = value
    else:
        raise ValidationException(INVALID_UPDATE_PATH)


def _remove(item: Item, path: Path) -> None:
    if len(path) == 1:
        item.pop(path[0], None)  # type: ignore[arg-type]
        return
    parent, last = _parent(item, path), path[-1]
    if parent is None:  # "REMOVE c.c" without a c: invalid, as SET is (a missing leaf is no error)
        raise ValidationException(INVALID_UPDATE_PATH)
    if isinstance(last, int) and "L" in parent:
        if last < len(parent["L"]):
            del parent["L"][last]
    elif isinstance(last, str) and "M" in parent:
        parent["M"].pop(last, None)
    else:
        raise ValidationException(INVALID_UPDATE_PATH)
