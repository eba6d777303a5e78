"""``tablewright lint PATH...``: review designs; exit 0 clean/info, 1 findings, 2 unusable input."""

from __future__ import annotations

import sys

import click
import orjson

from tablewright.lint import RULES, LintConfig, LintConfigError, lint_paths
from tablewright.lint.registry import SEVERITIES
from tablewright.lint.sarif import to_sarif
from tablewright.lint.text import render_text


def _config(disable: tuple[str, ...], severity: tuple[str, ...]) -> LintConfig:
    # Spaces around the separators are how people write lists ("TW502, TW303", "TW502 = error").
    names = (d.strip() for item in disable for d in item.split(","))
    data: dict[str, object] = {"disable": [d for d in names if d]}
    levels: dict[str, str] = {}
    for item in severity:
        rule, sep, level = item.partition("=")
        if not sep:
            raise click.BadParameter(f"{item!r}: write RULE=LEVEL, e.g. TW304=error", param_hint="--severity")
        levels[rule.strip()] = level.strip()
    data["severity"] = levels
    try:
        return LintConfig.from_mapping(data)
    except LintConfigError as exc:
        raise click.BadParameter(str(exc)) from None


def _rules_table() -> str:
    return "\n".join(
        f"{r.id}  {r.severity:<7}  {r.name}: {r.summary}" for r in sorted(RULES.values(), key=lambda r: r.id)
    )


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True
)
@click.option("--disable", multiple=True, metavar="RULE[,RULE]", help="Switch rules off (ids or names).")
@click.option(
    "--severity", multiple=True, metavar="RULE=LEVEL", help=f"Re-grade a rule ({', '.join(SEVERITIES)})."
)
@click.option("--brief", is_flag=True, help="Text format: omit the why/fix lines.")
@click.option("--list-rules", is_flag=True, help="List every rule and exit.")
def lint(
    paths: tuple[str, ...],
    fmt: str,
    disable: tuple[str, ...],
    severity: tuple[str, ...],
    brief: bool,
    list_rules: bool,
) -> None:
    """Check design files against DynamoDB's limits, costs and the design's own conventions.

    Exit status: 0 clean (or info only), 1 findings (warnings or errors), 2 a design that does not
    load (docs/cli.md).
    """
    if list_rules:
        click.echo(_rules_table())
        return
    if not paths:
        raise click.UsageError("give at least one design file")
    from tablewright.design.files import design_files

    try:
        files = design_files(paths)
    except FileNotFoundError as exc:
        click.echo(f"tablewright lint: error: {exc}", err=True)
        sys.exit(2)
    report = lint_paths(list(files), _config(disable, severity))
    if fmt == "text":
        from rich.console import Console

        render_text(report, Console(), explain=not brief)
    elif fmt == "json":
        payload = {
            "files": report.files,
            "findings": [f.as_dict() for f in report.findings],
            "counts": report.counts(),
        }
        sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        sys.stdout.buffer.write(orjson.dumps(to_sarif(report), option=orjson.OPT_INDENT_2) + b"\n")
    sys.exit(report.exit_status)
