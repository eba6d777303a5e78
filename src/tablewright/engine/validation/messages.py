"""The text of validation errors: DynamoDB's sentence per violation, and its aggregation into one message.

A violation is a ``(value, path, constraint)`` triple; DynamoDB joins them as
``"2 validation errors detected: Value 'a' at 'tableName' failed to satisfy constraint: ...; Value ..."``.
Values print the way the Java service prints them: strings bare, lists ``[a, b]``, maps ``{k=v}``.
"""

from __future__ import annotations

from typing import Any

from ..errors import SerializationException, ValidationException

Violation = tuple[Any, str, str]

NOT_NULL = "Member must not be null"
_RENDER_LIMIT = 512  # a 100-item TransactItems must not turn into a megabyte of error message

# The JSON token DynamoDB names when a value has the wrong type ("NUMBER_VALUE cannot be converted to String").
_TOKEN = {str: "STRING_VALUE", int: "NUMBER_VALUE", float: "NUMBER_VALUE", bool: "BOOLEAN_VALUE"}
# Containers are reported by where they start, not by what they cannot become.
_START = {
    dict: "Start of structure or map found where not expected",
    list: "Start of list found where not expected",
}
_TARGET = {
    "string": "String",
    "blob": "Blob",
    "boolean": "Boolean",
    "integer": "Integer",
    "long": "Long",
    "double": "Double",
    "timestamp": "Timestamp",
    "list": "List",
    "map": "Map",
    "structure": "Structure",
}


def _where(path: str) -> str:
    return f"'{path}'" if path else "the top level of the request"


def serialization_error(kind: str, value: Any, path: str, reason: str = "") -> SerializationException:
    """A value of the wrong JSON type for a ``kind`` shape at ``path``, in DynamoDB's wording plus where."""
    text = _START.get(type(value))
    if text is None:
        token = _TOKEN.get(type(value), type(value).__name__)
        text = f"{token} {reason}" if reason else f"{token} cannot be converted to {_TARGET[kind]}"
    return SerializationException(f"{text} at {_where(path)}")


def _join(parts: Any, budget: list[int]) -> str:
    # Stop at the budget with one "..." instead of rendering (or eliding) every remaining part.
    out = []
    for part in parts:
        if budget[0] <= 0:
            out.append("...")
            break
        out.append(part())
    return ", ".join(out)


def _render(value: Any, budget: list[int]) -> str:
    if isinstance(value, str):
        text = value
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, dict):
        items = value.items()
        text = "{" + _join((lambda k=k, v=v: f"{k}={_render(v, budget)}" for k, v in items), budget) + "}"
    elif isinstance(value, list):
        text = "[" + _join((lambda v=v: _render(v, budget) for v in value), budget) + "]"
    else:
        text = str(value)
    budget[0] -= len(text)
    return text


def render(value: Any) -> str:
    """A value as DynamoDB quotes it in a message: ``null`` or ``'text'`` (long values cut short)."""
    if value is None:
        return "null"
    text = _render(value, [_RENDER_LIMIT])
    if len(text) > _RENDER_LIMIT:
        text = text[:_RENDER_LIMIT] + "..."
    return f"'{text}'"


def validation_error(violations: list[Violation]) -> ValidationException:
    """All violations of one request as the single ValidationException DynamoDB answers with."""
    count = len(violations)
    head = f"{count} validation error{'s' if count != 1 else ''} detected: "
    body = "; ".join(
        f"Value {render(value)} at '{path}' failed to satisfy constraint: {text}"
        for value, path, text in violations
    )
    return ValidationException(head + body)


def bracket(label: str, texts: tuple[str, ...]) -> str:
    """DynamoDB's form for constraints of map keys, map values and list members: ``label: [a, b]``."""
    return f"{label}: [{', '.join(texts)}]"
