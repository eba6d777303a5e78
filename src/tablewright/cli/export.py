"""``tablewright export DESIGN --to FORMAT``: a design as CloudFormation, Terraform, CreateTable JSON,
a NoSQL Workbench model or a Markdown document."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from tablewright.export import FORMATS


@click.command()
@click.argument("design_path", metavar="DESIGN", type=click.Path(exists=True, dir_okay=False))
@click.option("--to", "fmt", required=True, type=click.Choice(list(FORMATS)), help="Output format.")
@click.option(
    "--out",
    "out",
    type=click.Path(),
    help="Write to this file (create-table: a folder, one file per request).",
)
def export(design_path: str, fmt: str, out: str | None) -> None:
    """Export DESIGN to another format (stdout unless --out). Exit 2 when the design does not load."""
    from tablewright.design import DesignError, load
    from tablewright.export import export as run_export

    try:
        design = load(design_path)
    except DesignError as error:
        click.echo(str(error), err=True)
        sys.exit(2)
    if fmt == "create-table" and out:
        # One file per request, ready for `aws dynamodb create-table --cli-input-json file://...`.
        from tablewright.export.create_table import export as requests

        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        for table, calls in requests(design).items():
            for operation, request in calls.items():
                (folder / f"{table}.{operation}.json").write_text(
                    json.dumps(request, indent=2) + "\n", encoding="utf-8"
                )
        return
    from tablewright.export.pipelines import PipelineError

    try:
        text = run_export(design, fmt, design_path=design_path)
    except PipelineError as error:
        click.echo(f"tablewright export: error: {error}", err=True)
        sys.exit(2)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
