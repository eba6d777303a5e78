"""``tablewright cost PATH...``: estimate the monthly bill of designs (text, JSON or Markdown)."""

from __future__ import annotations

import sys

import click
import orjson

from .errors import CommandError


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True
)
@click.option(
    "--prices",
    "prices_path",
    type=click.Path(exists=True, dir_okay=False),
    help="A prices file of the shipped shape.",
)
@click.option(
    "--measure",
    is_flag=True,
    help="Also run every pattern on the embedded engine and show measured read units.",
)
def cost(paths: tuple[str, ...], fmt: str, prices_path: str | None, measure: bool) -> None:
    """Estimate read/write units, storage and the monthly bill, on-demand and provisioned."""
    from tablewright.cost import build, load_prices

    prices = load_prices(prices_path)
    reports = []
    from tablewright.design.files import design_files

    # tablewright.lint's loader tolerates a `lint:` section until the design schema knows it.
    from tablewright.lint.runner import load_design

    for path in design_files(paths):
        # A design that does not load is reported by the cli's error rules (cli/errors.py): exit 2.
        design = load_design(path)
        measured = None
        if measure:
            # Needs the engine: imported only for --measure.
            from tablewright.cost.measure import MeasureError, measure_design

            try:
                measured = measure_design(design, path)
            except MeasureError as exc:  # the engine refuses the design or its sample data
                raise CommandError(f"{path}: {exc}") from None
        reports.append(build(design, prices, measured))
    if fmt == "json":
        payload = reports[0] if len(reports) == 1 else reports
        sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
    elif fmt == "markdown":
        from tablewright.cost.report import to_markdown

        click.echo("\n".join(to_markdown(r) for r in reports), nl=False)
    else:
        from rich.console import Console

        from tablewright.cost.report import render_text

        console = Console()
        if not console.is_terminal:
            console = Console(width=max(console.width, 160))  # files and pipes get whole tables
        for report in reports:
            render_text(report, console)
