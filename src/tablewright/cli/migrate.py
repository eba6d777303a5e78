"""``tablewright migrate PLAN``: run (or ``--dry-run``) a migration plan over any DynamoDB endpoint."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .errors import CommandError


@click.command()
@click.argument("plan_path", metavar="PLAN", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--endpoint", "endpoint_url", metavar="URL", help="A DynamoDB endpoint (default: the embedded engine)."
)
@click.option("--db", type=click.Path(dir_okay=False), help="The embedded engine's SQLite file.")
@click.option(
    "--read-only", is_flag=True, help="With --dry-run and --db: open the database without writing to it."
)
@click.option(
    "--dry-run", is_flag=True, help="Print what would change (counts, before/after samples); change nothing."
)
@click.option(
    "--state",
    "state_path",
    type=click.Path(dir_okay=False),
    help="Progress file [default: in the user cache folder, one per target and plan; none in memory].",
)
@click.option(
    "--segments",
    default=4,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Parallel scan segments (threads).",
)
@click.option(
    "--page-size",
    default=250,
    show_default=True,
    type=click.IntRange(1, 10000),
    help="Items per Scan page (Limit).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--report", "report_path", type=click.Path(dir_okay=False), help="Also write the JSON report here."
)
def migrate(
    plan_path: str,
    endpoint_url: str | None,
    db: str | None,
    read_only: bool,
    dry_run: bool,
    state_path: str | None,
    segments: int,
    page_size: int,
    fmt: str,
    report_path: str | None,
) -> None:
    """Run the migration PLAN (a .py exposing PLAN, or .yaml): create tables and indexes, copy with
    transforms, backfill, rename, delete. Resumable: re-run the same command after an interruption.

    Exit status: 0 done, 1 a step failed (e.g. verification), 2 bad plan or database file,
    3 endpoint unreachable or database unavailable (docs/cli.md).
    """
    from rich.console import Console

    import tablewright
    from tablewright.migrate import (
        CorruptProgress,
        ProgressMismatch,
        Target,
        default_state_path,
        load_plan,
        run_plan,
    )
    from tablewright.migrate.report import render, to_json

    if endpoint_url and db:
        raise click.UsageError("give --endpoint or --db, not both")
    if read_only and not (dry_run and db):
        raise click.UsageError("--read-only needs --dry-run and --db (a migration writes)")
    try:
        plan = load_plan(plan_path)
    except (ValueError, KeyError, ImportError, SyntaxError, OSError) as error:
        message = " ".join(str(error).split())
        named = message.startswith((str(plan_path), str(Path(plan_path).resolve())))
        raise CommandError(message if named else f"{plan_path}: {message}") from None
    if report_path:
        _check_writable(report_path)  # before the plan changes anything: not found out at the end
    client = tablewright.connect(db, endpoint_url=endpoint_url, read_only=read_only)
    state = state_path or default_state_path(Target.of(client), plan.name, plan_path)
    console = Console(stderr=True) if fmt == "json" else Console()
    try:
        report = run_plan(
            client,
            plan,
            state=state,
            dry_run=dry_run,
            console=console,
            segments=segments,
            page_size=page_size,
        )
    except (ProgressMismatch, CorruptProgress) as error:
        raise CommandError(str(error)) from None
    text = to_json(report)
    if report_path:
        Path(report_path).write_text(text + "\n", encoding="utf-8")
    if fmt == "json":
        click.echo(text)
    else:
        render(report, console)
    sys.exit(0 if report.ok else 1)


def _check_writable(path: str) -> None:
    """Refuse a report file that cannot be written (leaving nothing behind where there was nothing)."""
    report = Path(path)
    existed = report.exists()
    try:
        with report.open("a", encoding="utf-8"):
            pass
    except OSError as error:
        raise CommandError(f"--report {path}: {error.strerror or error}") from None
    if not existed:
        report.unlink()
