"""``tablewright check PATH...``: run every access pattern of a design both ways and compare.

The run itself is ``tablewright.runtime.check``; this module parses options, shows progress on
stderr (so piped output and ``--format json`` stay clean) and prints the reports.
Exit status: 0 every run passed, 1 a failure or mismatch, 2 a design that does not load or bad
arguments, 3 the endpoint cannot be used (unreachable, or holds tables the check would create).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import click
import orjson
from botocore.exceptions import BotoCoreError, ClientError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

from ..runtime.check import CheckOptions, TablesExistError, check_designs, summarize
from ..runtime.samples import find_examples
from .types import SCALE

_STYLE = {"pass": "green", "fail": "red", "invalid": "red", "skipped": "yellow"}
_TABLE_NAME = re.compile(r"^[A-Za-z0-9_.-]*$")
_DETAILS_SHOWN = 20  # missing/extra keys listed per failing run; --format json lists all


def _fail(message: str, code: int) -> None:
    click.echo(f"tablewright check: error: {message}", err=True)
    sys.exit(code)


def _params_text(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def _print_report(console: Console, report: dict[str, Any]) -> None:
    head = f"[bold]{report['name']}[/bold] ({report['design']}): "
    console.print(head + f"[{_STYLE[report['status']]}]{report['status']}[/]", soft_wrap=True)
    if report.get("table_prefix"):
        console.print(f"tables on the endpoint under the prefix {report['table_prefix']}", markup=False)
    if report.get("error"):
        console.print(report["error"], markup=False, highlight=False, soft_wrap=True)
    if not report["patterns"]:
        return
    table = RichTable(show_header=True, header_style="bold")
    for column in ("pattern", "params", "status", "read", "returned", "RCU", "ms", "detail"):
        numeric = column in ("read", "returned", "RCU", "ms")
        table.add_column(column, justify="right" if numeric else "left", overflow="fold")
    for row in report["patterns"]:
        table.add_row(
            row["pattern"],
            _params_text(row.get("params", {})),
            f"[{_STYLE[row['status']]}]{row['status']}[/]",
            str(row.get("items_read", "")),
            str(row.get("items_returned", "")),
            f"{row['consumed_capacity']:.1f}" if "consumed_capacity" in row else "",
            f"{row['latency_ms']:.1f}" if "latency_ms" in row else "",
            row.get("detail") or row.get("reason", ""),
        )
    console.print(table)
    for row in report["patterns"]:
        if row["status"] == "fail" and ("missing" in row or "extra" in row):
            _print_failure(console, row)
    for problem in report.get("cleanup_errors", []):
        console.print(f"could not remove table {problem}", markup=False, soft_wrap=True)


def _print_failure(console: Console, row: dict[str, Any]) -> None:
    """The whole story of one failing run, one line per fact, never cut to the terminal's width."""
    console.print(
        f"FAIL {row['pattern']}({_params_text(row['params'])}): {row['detail']}", markup=False, soft_wrap=True
    )
    for label in ("missing", "extra"):
        keys = row.get(label) or []
        for key in keys[:_DETAILS_SHOWN]:
            console.print(
                f"  {label}: {orjson.dumps(key, default=str).decode()}", markup=False, soft_wrap=True
            )
        if len(keys) > _DETAILS_SHOWN:
            console.print(f"  ... {len(keys) - _DETAILS_SHOWN} more {label} (--format json lists all)")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _print_summary(console: Console, reports: list[dict[str, Any]]) -> None:
    total = summarize(reports)
    skipped = f", {total['skipped']} skipped" if total["skipped"] else ""
    style = "red" if total["failures"] else "green"
    console.print(
        f"checked {_count(total['designs'], 'design')}: {_count(total['patterns'], 'pattern')}, "
        f"{_count(total['runs'], 'run')}, [{style}]{_count(total['failures'], 'failure')}[/]{skipped}, "
        f"{total['items_loaded']} items loaded in {total['seconds']:.2f} s",
        soft_wrap=True,
    )


class _ProgressBars:
    """Progress on stderr, one task per design and stage, naming the design."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[tuple[str, str], Any] = {}

    def __call__(self, design: str, stage: str, done: int, total: int) -> None:
        key = (design, stage)
        if key not in self.tasks:
            for earlier in self.tasks.values():  # one bar at a time: the stage under way
                self.progress.update(earlier, visible=False)
            self.tasks[key] = self.progress.add_task(f"{design}: {stage}", total=total)
        self.progress.update(self.tasks[key], completed=done, total=total)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--endpoint", "endpoint", default=None, help="DynamoDB endpoint URL instead of a fresh embedded engine."
)
@click.option(
    "--table-prefix",
    default=None,
    help="With --endpoint: prefix for the tables the check creates (default: unique per run).",
)
@click.option("--keep", is_flag=True, help="With --endpoint: leave the tables (and their data) afterwards.")
@click.option(
    "--reuse-tables",
    is_flag=True,
    help="With --endpoint: write into tables of the same name that already exist.",
)
@click.option("--scale", default=1.0, show_default=True, type=SCALE, help="Sample data size multiplier.")
@click.option("--seed", default=1, show_default=True, help="Sample data random seed.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def check(
    paths: tuple[Path, ...],
    endpoint: str | None,
    table_prefix: str | None,
    keep: bool,
    reuse_tables: bool,
    scale: float,
    seed: int,
    fmt: str,
) -> None:
    """Validate designs, load sample data and check every access pattern's served against means.

    PATH is a design file, a folder with design.yaml, or a folder of those. Exit status: 0 all
    passed, 1 a failure, 2 a design that does not load, 3 the endpoint cannot be used.
    """
    if endpoint is None and (table_prefix is not None or keep or reuse_tables):
        raise click.UsageError("--table-prefix, --keep and --reuse-tables go with --endpoint")
    if table_prefix is not None and not _TABLE_NAME.match(table_prefix):
        raise click.BadParameter("letters, digits, '_', '-' and '.' only", param_hint="--table-prefix")
    if endpoint is not None and not re.match(r"^https?://[^/\s]+", endpoint):
        raise click.BadParameter(f"{endpoint!r} is not an http(s) URL", param_hint="--endpoint")
    examples = find_examples(list(paths))  # at least one: a folder without designs is an error there
    options = CheckOptions(endpoint, seed, scale, table_prefix, keep, reuse_tables)
    errors = Console(stderr=True)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
        disable=not errors.is_terminal,
    )
    try:
        with progress:
            reports = check_designs(examples, options, _ProgressBars(progress))
    except TablesExistError as exc:
        _fail(str(exc), 3)
    except (BotoCoreError, ClientError) as exc:
        _fail(f"endpoint {endpoint}: {exc}", 3)
    if fmt == "json":
        sys.stdout.write(
            orjson.dumps({"designs": reports}, default=repr, option=orjson.OPT_INDENT_2).decode() + "\n"
        )
    else:
        out = Console()
        if not out.is_terminal:  # piped: as wide as the lines are, so nothing is folded or cut
            out = Console(width=10_000, no_color=True)
        for report in reports:
            _print_report(out, report)
        _print_summary(out, reports)
    statuses = {r["status"] for r in reports}
    if "invalid" in statuses:
        sys.exit(2)
    if "fail" in statuses:
        sys.exit(1)
