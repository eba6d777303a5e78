"""``tablewright import FILE --from FORMAT``: a design file from a NoSQL Workbench model, a
CloudFormation or SAM template, a Serverless Framework file, Terraform (a file or a folder),
CreateTable requests (``export --to create-table``), or (``--from endpoint``) the tables of a live
endpoint."""

from __future__ import annotations

from pathlib import Path

import click

from tablewright.imports import FORMATS

from .errors import CommandError

_FORMATS = [*FORMATS, "endpoint"]


def _located(source: str, error: Exception) -> str:
    """The error naming the source once (most importers already start their message with it)."""
    text = str(error)
    return text if text.startswith(source) else f"{source}: {text}"


def _recognised(source: str | None, endpoint: str | None) -> str:
    """The ``--from`` format FILE's contents show (endpoint when only --endpoint/--db is given)."""
    from tablewright.design.foreign import format_of_path

    if source is None:
        if endpoint:
            return "endpoint"
        raise click.UsageError(
            "give FILE (a model, template or Terraform folder), or --endpoint URL / --db FILE"
        )
    if not Path(source).exists():
        raise CommandError(f"{source}: no such file")
    found = format_of_path(source)
    if found is None:
        raise click.UsageError(
            f"cannot tell what {source} is (no NoSQL Workbench DataModel, CloudFormation/SAM Resources, "
            f"Serverless service, Terraform block or CreateTable request in it): name it with "
            f"--from {'|'.join(FORMATS)}"
        )
    click.echo(f"tablewright import: reading {source} as {found[1]}", err=True)
    return found[0]


@click.command(name="import")
@click.argument("source", metavar="FILE", required=False, type=click.Path())
@click.option(
    "--from",
    "fmt",
    type=click.Choice(_FORMATS),
    help="What FILE is (default: recognised from its contents; endpoint: no FILE).",
)
@click.option("--endpoint", "endpoint_url", metavar="URL", help="--from endpoint: the DynamoDB endpoint.")
@click.option(
    "--db", type=click.Path(dir_okay=False), help="--from endpoint: an embedded engine's SQLite file instead."
)
@click.option("--table", "tables", multiple=True, help="--from endpoint: only these tables (repeatable).")
@click.option("--name", default=None, help="The design's name (default: the file's stem).")
@click.option("--out", type=click.Path(dir_okay=False), help="Write the design here (default: stdout).")
def import_(
    source: str | None,
    fmt: str | None,
    endpoint_url: str | None,
    db: str | None,
    tables: tuple[str, ...],
    name: str | None,
    out: str | None,
) -> None:
    """Write a design file (YAML) for FILE: tables and indexes complete, entities and access patterns
    as a commented skeleton to fill in. With --out, sample items go to <stem>.generate.py beside it.
    What the source declares and the design cannot hold is listed on stderr and as a comment in the
    design. ``--db`` is opened read-only: importing never writes to it. Exit 2 on an unreadable input,
    3 when the endpoint cannot be reached or refuses a call."""
    from tablewright.imports import read, result

    if fmt is None:
        fmt = _recognised(source, endpoint_url or db)
    if fmt == "endpoint":
        if source:
            raise click.UsageError("--from endpoint takes no FILE: give --endpoint URL or --db FILE")
        if not (db or endpoint_url):
            raise click.UsageError("--from endpoint needs --endpoint URL or --db FILE")
        import tablewright
        from tablewright.imports.endpoint import import_tables

        client = tablewright.connect(db, endpoint_url=endpoint_url, read_only=db is not None)
        found = import_tables(client, list(tables) or None, name or "imported")
        if not found.tables:
            raise CommandError(f"{endpoint_url or db}: no tables to import (ListTables is empty)")
        try:
            imported = result(found, source=endpoint_url or db)
        except ValueError as error:
            raise CommandError(str(error)) from None
    else:
        if not source:
            raise click.UsageError(f"--from {fmt} needs a FILE")
        path = Path(source)
        if not path.exists():
            raise CommandError(f"{source}: no such file")
        if path.is_dir() and fmt != "terraform":
            raise CommandError(f"{source}: a folder (only --from terraform reads a folder of .tf files)")
        try:
            imported = result(read(path, fmt), name, source=source)
        except (ValueError, KeyError) as error:
            raise CommandError(_located(source, error)) from None
    for warning in imported.warnings:
        click.echo(f"tablewright import: warning: {warning}", err=True)
    for note in imported.notes:
        click.echo(f"tablewright import: not carried: {note}", err=True)
    if out:
        Path(out).write_text(imported.design, encoding="utf-8")
        if imported.generator:
            Path(out).with_name(f"{Path(out).stem}.generate.py").write_text(
                imported.generator, encoding="utf-8"
            )
    else:
        click.echo(imported.design, nl=False)
        if imported.generator:
            click.echo("tablewright import: warning: sample items are written only with --out", err=True)
