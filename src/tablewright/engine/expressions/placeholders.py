"""Placeholder bookkeeping across all expressions of one request, with DynamoDB's messages.

DynamoDB checks ExpressionAttributeNames/Values against the union of every expression in the request
(condition, filter, update, projection, key condition): each placeholder used must be defined, and
each one defined must be used somewhere.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ValidationException
from ..types import validate_value
from .messages import MAX_PLACEHOLDER_BYTES, invalid_expression
from .nodes import Expression
from .resolve import invalid_value

_KEY_SYNTAX = {
    "ExpressionAttributeNames": re.compile(r"#[A-Za-z0-9_]+"),
    "ExpressionAttributeValues": re.compile(r":[A-Za-z0-9_]+"),
}
# DynamoDB's too-long-key message: the names map reports the key's size, the values map does not.
_KEY_TOO_LONG = {
    "ExpressionAttributeNames": " size of key: {size}",
    "ExpressionAttributeValues": "",
}


def check_placeholders(
    exprs: list[Expression | None], names: dict[str, str] | None, values: dict[str, Any] | None
) -> None:
    """Raise DynamoDB's error for an empty map, a bad value, an undefined or an unused placeholder."""
    present = [e for e in exprs if e is not None]
    if names is not None and not names:
        raise ValidationException("ExpressionAttributeNames must not be empty")
    if values is not None and not values:
        raise ValidationException("ExpressionAttributeValues must not be empty")
    for mapping, what in ((names, "ExpressionAttributeNames"), (values, "ExpressionAttributeValues")):
        for key in sorted(mapping or {}):
            size = len(key.encode("utf-8"))
            # Length is checked before syntax, as DynamoDB does: a long key with a bad character
            # is reported as too long.
            if size > MAX_PLACEHOLDER_BYTES:
                raise ValidationException(
                    f"{what} contains invalid key: The expression attribute map contains a key that is "
                    f"too long;{_KEY_TOO_LONG[what].format(size=size)}"
                )
            if not _KEY_SYNTAX[what].fullmatch(key):
                raise ValidationException(f'{what} contains invalid key: Syntax error; key: "{key}"')
    for key, value in sorted((values or {}).items()):
        try:
            validate_value(value)
        except ValidationException as error:
            raise invalid_value(key, error) from None
    for expr in present:
        for name in sorted(expr.names_used - (names or {}).keys()):
            raise invalid_expression(
                expr.kind,
                f"An expression attribute name used in the document path is not defined; attribute name: {name}",
            )
        for value_name in sorted(expr.values_used - (values or {}).keys()):
            raise invalid_expression(
                expr.kind,
                f"An expression attribute value used in expression is not defined; attribute value: {value_name}",
            )
    used_names = frozenset().union(*(e.names_used for e in present))
    used_values = frozenset().union(*(e.values_used for e in present))
    unused_values = sorted((values or {}).keys() - used_values)
    if unused_values:
        raise ValidationException(
            f"Value provided in ExpressionAttributeValues unused in expressions: keys: {{{', '.join(unused_values)}}}"
        )
    unused_names = sorted((names or {}).keys() - used_names)
    if unused_names:
        raise ValidationException(
            f"Value provided in ExpressionAttributeNames unused in expressions: keys: {{{', '.join(unused_names)}}}"
        )
