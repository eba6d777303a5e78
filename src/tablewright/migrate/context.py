"""What every step executor gets: the client, the checkpoint state, the plan and the run's settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.console import Console

from .state import State
from .steps import Plan


class MigrationError(Exception):
    """A step cannot run or did not verify; the message names the step and what is wrong."""


class PlanFunctionError(MigrationError):
    """A function of the plan (a transform, a backfill's function) raised: the step fails, and the
    message names the function, its error and the item, since the bug is in the plan's code."""


@dataclass
class Context:
    client: Any
    plan: Plan
    state: State
    console: Console | None = None
    segments: int = 4
    page_size: int = 250
    sample: int = 3  # dry run: before/after examples per step
