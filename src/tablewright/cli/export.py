"""``tablewright export DESIGN --to FORMAT``: a design as CloudFormation, Terraform, CreateTable JSON,
a NoSQL Workbench model or a Markdown document."""

from __future__ import annotations

import json
from pathlib import Path

import click

from tablewright.export import FORMATS

from .errors import CommandError


@click.command()
@click.argument("design_path", metavar="DESIGN", type=click.Path(exists=True))
@click.option("--to", "fmt", required=True, type=click.Choice(list(FORMATS)), help="Output format.")
@click.option(
    "--out",
    "out",
    type=click.Path(),
    help="Write to this file (create-table: a folder, one file per request).",
)
def export(design_path: str, fmt: str, out: str | None) -> None:
    """Export DESIGN (a design file or an example folder) to another format (stdout unless --out).
    Exit 2 when the design does not load or its sample data (samples:, generate.py) cannot be
    exported, 3 when --out cannot be written."""
    from tablewright.design import load
    from tablewright.design.files import design_files
    from tablewright.export import export as run_export
    from tablewright.export import losses
    from tablewright.export.output import make_folder, write_output

    if Path(design_path).is_dir():
        found = design_files([design_path])
        if len(found) != 1:
            raise CommandError(f"{design_path}: give one design file or example folder (found {len(found)})")
        design_path = str(found[0])
    design = load(design_path)
    for warning in losses(design, fmt):
        click.echo(f"tablewright export: warning: {warning}", err=True)
    if fmt == "create-table" and out:
        # One file per request, ready for `aws dynamodb create-table --cli-input-json file://...`.
        from tablewright.export.create_table import export as requests

        folder = Path(out)
        make_folder(folder, out)
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
        raise CommandError(str(error)) from None
    if out:
        write_output(out, text)
    else:
        click.echo(text, nl=False)
