"""The text view prints user text (file names, messages quoting the design) exactly as written:
no emoji codes (``:100:``) and no rich markup (``[bold]``) taken from it."""

from __future__ import annotations

import io

from rich.console import Console

from tablewright.lint.findings import Finding, Report
from tablewright.lint.text import render_text


def _render(finding: Finding) -> str:
    out = io.StringIO()
    render_text(Report([finding.file], [finding]), Console(file=out, width=300, color_system=None))
    return out.getvalue()


def _finding(file: str, line: int, column: int, message: str) -> Finding:
    return Finding(
        "TW302", "filter-discards-most", "warning", file, line, column, message, "why :fire:", "fix [x]"
    )


def test_a_finding_at_line_100_keeps_its_location() -> None:
    out = _render(_finding("design.yaml", 100, 5, "pattern p"))
    assert "design.yaml:100:5: warning TW302 pattern p" in out
    assert "\U0001f4af" not in out  # rich's :100: emoji


def test_emoji_codes_and_markup_in_user_text_print_verbatim() -> None:
    out = _render(
        _finding("[bold]odd:smile:.yaml", 7, 1, "filter 'tag = \":thumbs_up:\"' keeps [red]1[/red]")
    )
    assert "[bold]odd:smile:.yaml:7:1:" in out
    assert "filter 'tag = \":thumbs_up:\"' keeps [red]1[/red]" in out
    assert "why :fire:" in out and "fix [x]" in out
    assert "\U0001f604" not in out and "\U0001f44d" not in out
