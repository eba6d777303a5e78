"""tablewright: executable DynamoDB designs.

``tablewright.connect()`` gives a boto3 DynamoDB client served by the embedded engine (in memory, or
``connect("app.db")`` in one SQLite file), or by any endpoint (``connect(endpoint_url=...)``).

The names below are imported on first use, so that ``import tablewright.design`` (a pure model used by
lint, cost and export) does not load boto3 and the engine.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "connect": "tablewright.client",
    "resource": "tablewright.client",
    "engine_of": "tablewright.client",
    "Engine": "tablewright.engine",
    "DynamoDBError": "tablewright.engine",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tablewright' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
