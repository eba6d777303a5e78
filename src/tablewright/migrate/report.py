"""A run's report for people (rich) and for programs (JSON)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from rich.console import Console
from rich.table import Table

from .runner import Report

_SUMMARY_FIELDS = (
    "table",
    "index",
    "source",
    "target",
    "attribute",
    "result",
    "source_items",
    "dropped",
    "writes",
    "items",
    "source_deleted",
    "error",
    "then",
)


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, bytes):
        import base64

        return base64.b64encode(value).decode()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def to_json(report: Report) -> str:
    """The report as JSON text (numbers as numbers, sets as sorted lists, bytes as base64)."""
    return json.dumps(report.as_dict(), indent=2, default=_json_default)


def _summary(step: dict[str, Any]) -> str:
    parts = []
    for name in _SUMMARY_FIELDS:
        if name in step:
            value = step[name]
            parts.append(
                f"{name}={json.dumps(value, default=_json_default) if isinstance(value, dict) else value}"
            )
    verification = step.get("verification")
    if verification:
        # Items per target table: a transform that routes rows elsewhere (rejects) shows them here.
        counts = ", ".join(
            f"{table}={found['actual']['count']}" for table, found in verification.get("tables", {}).items()
        )
        verdict = "verified" if verification.get("ok") else "VERIFICATION FAILED"
        parts.append(f"{verdict} ({counts})" if counts else verdict)
    return ", ".join(parts)


def render(report: Report, console: Console) -> None:
    """A table of steps, then (dry run) before/after samples as JSON."""
    title = (
        f"{'Dry run of' if report.dry_run else 'Migration'} {report.plan}: {'ok' if report.ok else 'FAILED'}"
    )
    table = Table(title=title, show_lines=False)
    for column in ("step", "status", "details"):
        table.add_column(column, overflow="fold")
    for step in report.steps:
        style = "red" if step["status"] == "failed" else None
        table.add_row(step["id"], step["status"], _summary(step), style=style)
    console.print(table)
    if not report.dry_run:
        saved = f"progress saved in {report.progress}" if report.progress else "no progress saved (in-memory)"
        console.print(f"Target: {report.target}; {saved}", highlight=False)
    for step in report.steps:
        for sample in step.get("samples", []):
            console.print(f"[bold]{step['id']}[/bold] sample")
            console.print_json(json.dumps(sample, default=_json_default))
