"""``tablewright migrate``: migrations as code over any DynamoDB client.

A plan is a list of steps (``CreateTable``, ``CreateIndex``, ``Copy``, ``Backfill``, ``Rename``,
``DeleteTable``); ``run_plan(client, plan, state=...)`` runs it with parallel segmented scans,
batched idempotent writes, per-segment checkpoints (resumable after a kill at any moment) and a
verification of every copy. See docs/migrate.md.
"""

from .context import MigrationError
from .load import Load, RowSource, SqliteRows
from .loader import load_plan
from .runner import Report, run_plan
from .steps import Backfill, Copy, CreateIndex, CreateTable, DeleteTable, Merge, Plan, Put, Rename
from .verify import Verification, verify_copy

__all__ = [
    "Backfill",
    "Copy",
    "CreateIndex",
    "CreateTable",
    "DeleteTable",
    "Load",
    "Merge",
    "MigrationError",
    "Plan",
    "Put",
    "Rename",
    "RowSource",
    "SqliteRows",
    "Report",
    "Verification",
    "load_plan",
    "run_plan",
    "verify_copy",
]
