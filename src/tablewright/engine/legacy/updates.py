"""Legacy AttributeUpdates rewritten as UpdateExpression text.

Each Action maps to one clause of the update expression through :data:`ACTIONS`:

* ``PUT`` (the default) sets the attribute: ``SET a = :v``.
* ``ADD`` adds a number or set elements (``ADD a :v``, which also creates the attribute and the item);
  a list value is appended to the existing list, as the legacy API documents:
  ``SET a = list_append(if_not_exists(a, :empty), :v)``.
* ``DELETE`` without a Value removes the attribute (``REMOVE a``); with a set value it removes those
  elements (``DELETE a :v``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ValidationException
from ..types import AttributeValue, invalid, validate_value
from .placeholders import Placeholders

_SETS = frozenset({"SS", "NS", "BS"})
_ADDABLE = _SETS | {"N", "L"}
_CLAUSE_ORDER = ("SET", "REMOVE", "ADD", "DELETE")

Clause = tuple[str, str]  # (clause keyword, one action of it)


def _put(name: str, value: AttributeValue | None, placeholders: Placeholders) -> Clause:
    return "SET", f"{name} = {placeholders.value(value)}"


def _add(name: str, value: AttributeValue | None, placeholders: Placeholders) -> Clause:
    (kind,) = value  # type: ignore[misc]  # a value is present: checked by the caller
    if kind not in _ADDABLE:
        raise invalid(f"ADD action is not supported for the type {kind}")
    if kind == "L":
        empty = placeholders.value({"L": []})
        return "SET", f"{name} = list_append(if_not_exists({name}, {empty}), {placeholders.value(value)})"
    return "ADD", f"{name} {placeholders.value(value)}"


def _delete(name: str, value: AttributeValue | None, placeholders: Placeholders) -> Clause:
    if value is None:
        return "REMOVE", name
    (kind,) = value
    if kind not in _SETS:
        raise invalid(f"DELETE action with value is not supported for the type {kind}")
    return "DELETE", f"{name} {placeholders.value(value)}"


ACTIONS: dict[str, Callable[[str, AttributeValue | None, Placeholders], Clause]] = {
    "PUT": _put,
    "ADD": _add,
    "DELETE": _delete,
}


def attribute_updates(updates: dict[str, Any], placeholders: Placeholders) -> str | None:
    """An AttributeUpdates map as UpdateExpression text (None for an empty map)."""
    clauses: dict[str, list[str]] = {keyword: [] for keyword in _CLAUSE_ORDER}
    for attribute, update in updates.items():
        update = update if isinstance(update, dict) else {}
        action_name = update.get("Action") or "PUT"
        action = ACTIONS.get(action_name)
        if action is None:
            raise ValidationException(
                f"Unknown Action {action_name!r} for attribute {attribute}; expected one of {', '.join(ACTIONS)}"
            )
        raw = update.get("Value")
        value = validate_value(raw) if raw is not None else None
        if value is None and action_name != "DELETE":
            raise invalid("Only DELETE action is allowed when no attribute value is specified")
        keyword, text = action(placeholders.name(attribute), value, placeholders)
        clauses[keyword].append(text)
    text = " ".join(f"{keyword} {', '.join(parts)}" for keyword, parts in clauses.items() if parts)
    return text or None
