"""``tablewright migrate``: migrations as code over any DynamoDB client.

A plan is a list of steps (``CreateTable``, ``CreateIndex``, ``Copy``, ``Backfill``, ``Rename``,
``DeleteTable``); ``run_plan(client, plan, state=...)`` runs it with parallel segmented scans,
batched idempotent writes, per-segment checkpoints (resumable after a kill at any moment, bound to
one target and plan version) and a verification of every copy. See docs/migrate.md.
"""

from .context import MigrationError
from .load import Load, RowSource, SqliteRows
from .loader import load_plan
from .runner import Report, run_plan
from .state import CorruptProgress
from .steps import Backfill, Copy, CreateIndex, CreateTable, DeleteTable, Merge, Plan, Put, Rename
from .target import ProgressMismatch, Target, default_state_path, plan_hash
from .verify import Verification, verify_copy

__all__ = [
    "Backfill",
    "Copy",
    "CorruptProgress",
    "CreateIndex",
    "CreateTable",
    "DeleteTable",
    "Load",
    "Merge",
    "MigrationError",
    "Plan",
    "ProgressMismatch",
    "Put",
    "Rename",
    "RowSource",
    "SqliteRows",
    "Report",
    "Target",
    "Verification",
    "default_state_path",
    "load_plan",
    "plan_hash",
    "run_plan",
    "verify_copy",
]
