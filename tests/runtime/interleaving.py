"""A real client with another writer's step slipped in: the window between the runtime's read and its
write, where concurrent writers meet. Not a mock: every call still reaches the real engine."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

WRITES = ("put_item", "update_item", "delete_item", "transact_write_items")


class BeforeWrite:
    """Runs ``between`` once, just before the first call of one of ``methods`` is sent."""

    def __init__(self, client: Any, between: Callable[[], object], methods: Iterable[str] = WRITES) -> None:
        self._client, self._between, self._methods = client, between, frozenset(methods)

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if name in self._methods and self._between:
            between, self._between = self._between, None

            def write(**request: Any) -> Any:
                between()
                return attribute(**request)

            return write
        return attribute
