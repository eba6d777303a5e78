"""Human output: findings grouped by file, each with where, what, why and how to fix (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from .findings import Report

STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def render_text(report: Report, console: Console, *, explain: bool = True) -> None:
    """Print the report; ``explain`` adds the why/fix lines under each finding."""
    for finding in report.findings:
        style = STYLES[finding.severity]
        console.print(
            f"{escape(finding.location)}: [{style}]{finding.severity}[/{style}] "
            f"[bold]{finding.rule}[/bold] {escape(finding.message)} [dim]({finding.name})[/dim]",
            highlight=False,
            soft_wrap=True,
            emoji=False,  # "design.yaml:100:5" must not become "design.yaml💯5"
        )
        if explain:
            console.print(
                f"    [dim]why:[/dim] {escape(finding.why)}", highlight=False, soft_wrap=True, emoji=False
            )
            console.print(
                f"    [dim]fix:[/dim] {escape(finding.fix)}", highlight=False, soft_wrap=True, emoji=False
            )
    counts = report.counts()
    files = len(report.files)
    summary = ", ".join(
        f"{n} {k}{'s' if n != 1 and k != 'info' else ''}" for k, n in reversed(list(counts.items()))
    )
    console.print(f"{files} file{'s' if files != 1 else ''} checked: {summary}", highlight=False, emoji=False)
