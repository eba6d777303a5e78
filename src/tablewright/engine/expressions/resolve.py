"""Placeholder resolution and document-path navigation against one request and one item.

A :class:`Scope` binds an expression's kind to a request's ExpressionAttributeNames/Values; values
are validated (and normalised) by ``types.validate_value`` the first time they are used.
"""

from __future__ import annotations

from typing import Any

from ..errors import ValidationException
from ..types import AttributeValue, Item, validate_value
from .messages import invalid_expression, render_path
from .nodes import Path, PathExpr


def invalid_value(key: str, error: ValidationException) -> ValidationException:
    """DynamoDB's wrapper for a bad entry of ExpressionAttributeValues."""
    return ValidationException(
        f"ExpressionAttributeValues contains invalid value: {error.message} for key {key}"
    )


class Scope:
    """The request side of evaluation: resolves ``#name`` and ``:value`` placeholders for one expression."""

    def __init__(self, kind: str, names: dict[str, str] | None, values: dict[str, Any] | None) -> None:
        self.kind = kind
        self.names = names or {}
        self.values = values or {}
        self._checked: dict[str, AttributeValue] = {}

    def name(self, placeholder: str) -> str:
        try:
            return self.names[placeholder]
        except KeyError:
            raise invalid_expression(
                self.kind,
                f"An expression attribute name used in the document path is not defined; attribute name: {placeholder}",
            ) from None

    def value(self, placeholder: str) -> AttributeValue:
        checked = self._checked.get(placeholder)
        if checked is not None:
            return checked
        if placeholder not in self.values:
            raise invalid_expression(
                self.kind,
                f"An expression attribute value used in expression is not defined; attribute value: {placeholder}",
            )
        try:
            checked = validate_value(self.values[placeholder])
        except ValidationException as error:
            raise invalid_value(placeholder, error) from None
        self._checked[placeholder] = checked
        return checked

    def path(self, expr: PathExpr) -> Path:
        """The path with ``#name`` placeholders replaced by the names they stand for."""
        return tuple(self.name(e) if isinstance(e, str) and e.startswith("#") else e for e in expr.elements)


def get_path(item: Item, path: Path) -> AttributeValue | None:
    """The value at ``path`` in ``item``, or None when any step is missing or of the wrong type."""
    value: AttributeValue | None = item.get(path[0])  # type: ignore[arg-type]
    for element in path[1:]:
        if value is None:
            return None
        if isinstance(element, int):
            elements = value.get("L")
            value = elements[element] if elements is not None and element < len(elements) else None
        else:
            members = value.get("M")
            value = members.get(element) if members is not None else None
    return value


def check_overlaps(paths: list[Path], kind: str) -> None:
    """DynamoDB's rule that no two paths of one expression may overlap (one a prefix of the other)
    or conflict (the same prefix used once as a map and once as a list)."""
    for i, first in enumerate(paths):
        for second in paths[i + 1 :]:
            shared = 0
            while shared < min(len(first), len(second)) and first[shared] == second[shared]:
                shared += 1
            if shared == min(len(first), len(second)):
                problem = "overlap"
            elif isinstance(first[shared], int) != isinstance(second[shared], int):
                problem = "conflict"
            else:
                continue
            raise invalid_expression(
                kind,
                f"Two document paths {problem} with each other; must remove or rewrite one of these paths; "
                f"path one: {render_path(first)}, path two: {render_path(second)}",
            )


def clone(value: Any) -> Any:
    """A deep copy of wire-form data (dicts, lists, scalars): several times faster than copy.deepcopy,
    which matters because every update copies the item it starts from."""
    if isinstance(value, dict):
        return {key: clone(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [clone(inner) for inner in value]
    return value
