"""Running a plan: each step through its executor (or its preview in a dry run), resuming from the
checkpoint state, stopping at the first failure. Returns a ``Report``."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError, ParamValidationError
from rich.console import Console

from .context import Context, MigrationError
from .dryrun import PREVIEWS
from .execute import EXECUTORS
from .state import State
from .steps import Plan
from .target import Target, bind_progress, record_tables


@dataclass
class Report:
    """What a run did (or, dry, would do), step by step."""

    plan: str
    dry_run: bool
    steps: list[dict[str, Any]] = field(default_factory=list)
    target: str = ""
    progress: str | None = None  # the progress file, None when nothing is saved
    notice: str | None = None  # e.g. saved progress of an earlier database was discarded

    @property
    def ok(self) -> bool:
        return all(s["status"] != "failed" for s in self.steps)

    def as_dict(self) -> dict[str, Any]:
        return {
            "plan": self.plan,
            "dry_run": self.dry_run,
            "ok": self.ok,
            "target": self.target,
            "progress": self.progress,
            "notice": self.notice,
            "steps": self.steps,
        }


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
    resumes per segment. The file is bound to the client's target and the plan's content hash
    (``target.py``): ``ProgressMismatch`` when it belongs to another target or plan version, a fresh
    start (``Report.notice`` says so) when the target's tables were created again since. A dry run
    reads only and writes no state.
    """
    target = Target.of(client)
    progress = State(None if dry_run else state)
    notice = None if progress.path is None else bind_progress(progress, client, plan, target)
    if notice and console is not None:
        console.print(f"[yellow]{notice}[/yellow]", highlight=False)
    ctx = Context(client, plan, progress, console, segments, page_size, sample)
    report = Report(plan.name, dry_run, target=str(target), notice=notice)
    report.progress = None if progress.path is None else str(progress.path)
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
        except (MigrationError, ClientError, ParamValidationError, ValueError, KeyError, TypeError) as error:
            report.steps.append({**entry, "status": "failed", "error": str(error)})
            break
        entry.update(
            status="preview" if dry_run else "done", seconds=round(time.monotonic() - started, 3), **result
        )
        if not dry_run:
            ctx.state.update(step.id, status="done", result=result)
            if progress.path is not None:
                record_tables(progress, client, plan)
        report.steps.append(entry)
    return report
