"""PartiQL for the engine: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.

The pipeline follows sqlglot: ``lexer`` (text -> tokens) -> ``parser``/``statements`` (tokens -> the
frozen dataclasses of ``nodes``, by dispatch tables; cached by statement text) -> planners (``reads``,
``writes``; with ``keys`` for WHERE analysis and ``writer`` for expression text) that generate ordinary
engine requests (GetItem, Query, Scan, PutItem, UpdateItem, DeleteItem, TransactWriteItems,
TransactGetItems). The operations in ``tablewright.engine.ops.partiql`` run those requests through
``Engine.handle``, so every data-plane rule applies unchanged. See docs/partiql.md.
"""

from __future__ import annotations

from .errors import DuplicateItemException
from .reads import ReadPlan, plan_select
from .statements import parse
from .values import check_parameter_count
from .writes import WritePlan, plan_write

__all__ = [
    "DuplicateItemException",
    "ReadPlan",
    "WritePlan",
    "check_parameter_count",
    "parse",
    "plan_select",
    "plan_write",
]
