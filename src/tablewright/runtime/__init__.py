"""The runtime: a design joined to any DynamoDB client (the embedded engine by default).

``Runtime.open("design.yaml")`` then ``rt.put("Task", {...})`` (create), ``rt.replace(...)``, ``rt.get(...)``,
``rt.update(...)``, ``rt.run("pattern", **params)``. See docs/runtime.md.
"""

from .core import Runtime
from .errors import (
    AlreadyExistsError,
    AmbiguousItemError,
    ConditionFailedError,
    ConflictError,
    ConventionError,
    CursorError,
    IdempotencyKeyReusedError,
    NotFoundError,
    PatternError,
    RuntimeFailure,
    TransactionTooLargeError,
    UniquenessError,
    ValidationError,
)
from .page import Page, Stats
from .transact import TxOp
from .wire import Record
from .writes import WriteResult

__all__ = [
    "AlreadyExistsError",
    "AmbiguousItemError",
    "ConditionFailedError",
    "ConflictError",
    "IdempotencyKeyReusedError",
    "ConventionError",
    "CursorError",
    "NotFoundError",
    "Page",
    "PatternError",
    "Record",
    "Runtime",
    "RuntimeFailure",
    "Stats",
    "TransactionTooLargeError",
    "TxOp",
    "UniquenessError",
    "ValidationError",
    "WriteResult",
]
