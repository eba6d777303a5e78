"""Running a plan: each step through its executor (or its preview in a dry run), resuming from the
checkpoint state, stopping at the first failure. Returns a ``Report``."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError
from rich.console import Console

from .context import Context, MigrationError
from .dryrun import PREVIEWS
from .execute import EXECUTORS
from .state import State
from .steps import Plan


@dataclass
class Report:
    """What a run did (or, dry, would do), step by step."""

    plan: str
    dry_run: bool
    steps: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(s["status"] != "failed" for s in self.steps)

    def as_dict(self) -> dict[str, Any]:
        return {"plan": self.plan, "dry_run": self.dry_run, "ok": self.ok, "steps": self.steps}


def run_plan(
    client: Any,
    plan: Plan,
    *,
    state: str | Path | None = None,
    dry_run: bool = False,
    console: Console | None = None,
    segments: int = 4,
    page_size: int = 250,
    sample: int = 3,
) -> Report:
    """Run (or preview) every step of ``plan`` over ``client``.

    ``state`` is the checkpoint file: steps it records as done are skipped and an interrupted copy
    resumes per segment. A dry run reads only and writes no state.
    """
    ctx = Context(client, plan, State(None if dry_run else state), console, segments, page_size, sample)
    report = Report(plan.name, dry_run)
    for step in plan.steps:
        entry: dict[str, Any] = {"id": step.id, "kind": type(step).__name__}
        recorded = ctx.state.step(step.id)
        if not dry_run and recorded.get("status") == "done":
            report.steps.append({**entry, "status": "already done", **recorded.get("result", {})})
            continue
        started = time.monotonic()
        try:
            table = PREVIEWS if dry_run else EXECUTORS
            result = table[type(step)](ctx, step)
        except (MigrationError, ClientError, ValueError, KeyError, TypeError) as error:
            report.steps.append({**entry, "status": "failed", "error": str(error)})
            break
        entry.update(
            status="preview" if dry_run else "done", seconds=round(time.monotonic() - started, 3), **result
        )
        if not dry_run:
            ctx.state.update(step.id, status="done", result=result)
        report.steps.append(entry)
    return report
