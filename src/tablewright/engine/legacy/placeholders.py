"""Generated expression placeholders for translated legacy parameters.

A translated request carries its own ``#legacyN`` names and ``:legacyN`` values. DynamoDB forbids
mixing legacy and expression parameters, so the only caller-supplied maps a translation meets are
those of a Query that pairs legacy ``KeyConditions`` with a FilterExpression or ProjectionExpression
(which DynamoDB allows); generated keys skip any key the caller already uses.
"""

from __future__ import annotations

from typing import Any

from ..expressions.messages import LEGACY_VALUE_PREFIX

NAME_PREFIX = "#legacy"
VALUE_PREFIX = LEGACY_VALUE_PREFIX  # the update evaluator words its type errors by it


class Placeholders:
    """Allocates placeholders and collects the ExpressionAttributeNames/Values they stand for."""

    def __init__(self, names: dict[str, str] | None, values: dict[str, Any] | None) -> None:
        self.names: dict[str, str] = dict(names or {})
        self.values: dict[str, Any] = dict(values or {})
        self._by_attribute: dict[str, str] = {}
        self._next = {NAME_PREFIX: 0, VALUE_PREFIX: 0}

    def name(self, attribute: str) -> str:
        """The placeholder for a top-level attribute name (one per attribute, however often it is used)."""
        key = self._by_attribute.get(attribute)
        if key is None:
            key = self._fresh(NAME_PREFIX, self.names)
            self.names[key] = attribute
            self._by_attribute[attribute] = key
        return key

    def value(self, value: Any) -> str:
        """A new placeholder for one attribute value."""
        key = self._fresh(VALUE_PREFIX, self.values)
        self.values[key] = value
        return key

    def _fresh(self, prefix: str, taken: dict[str, Any]) -> str:
        while True:
            key = f"{prefix}{self._next[prefix]}"
            self._next[prefix] += 1
            if key not in taken:
                return key

    def store(self, request: dict[str, Any]) -> None:
        """Write the maps into a request; an empty map is left out (DynamoDB rejects empty maps)."""
        for field, mapping in (
            ("ExpressionAttributeNames", self.names),
            ("ExpressionAttributeValues", self.values),
        ):
            if mapping:
                request[field] = mapping
