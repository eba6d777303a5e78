"""``tablewright import FILE --from FORMAT``: a design file from a NoSQL Workbench model, a
CloudFormation or SAM template, a Serverless Framework file, Terraform (a file or a folder), or
(``--from endpoint``) the tables of a live endpoint."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from tablewright.imports import FORMATS

_FORMATS = [*FORMATS, "endpoint"]


def _fail(message: str) -> NoReturn:
    click.echo(f"tablewright import: error: {message}", err=True)
    sys.exit(2)


@click.command(name="import")
@click.argument("source", metavar="FILE", required=False, type=click.Path())
@click.option(
    "--from", "fmt", required=True, type=click.Choice(_FORMATS), help="What FILE is (endpoint: no FILE)."
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
    fmt: str,
    endpoint_url: str | None,
    db: str | None,
    tables: tuple[str, ...],
    name: str | None,
    out: str | None,
) -> None:
    """Write a design file (YAML) for FILE: tables and indexes complete, entities and access patterns
    as a commented skeleton to fill in. What the source declares and the design cannot hold is
    listed on stderr and as a comment in the design. Exit 2 on an unreadable input."""
    from tablewright.imports import checked_yaml, read, to_yaml

    try:
        if fmt == "endpoint":
            if source:
                raise click.UsageError("--from endpoint takes no FILE: give --endpoint URL or --db FILE")
            import tablewright
            from tablewright.imports.endpoint import import_tables

            client = tablewright.connect(db, endpoint_url=endpoint_url)
            imported = import_tables(client, list(tables) or None, name or "imported")
            text = to_yaml(imported)
        else:
            if not source:
                raise click.UsageError(f"--from {fmt} needs a FILE")
            path = Path(source)
            if not path.exists():
                _fail(f"{source}: no such file")
            if path.is_dir() and fmt != "terraform":
                _fail(f"{source}: a folder (only --from terraform reads a folder of .tf files)")
            imported = read(path, fmt)
            if name:
                imported.name = name
            text = checked_yaml(imported, path)
    except (ValueError, KeyError, OSError) as error:
        _fail(str(error) if fmt != "endpoint" else f"{endpoint_url or db}: {error}")
    for note in imported.notes:
        click.echo(f"tablewright import: not carried: {note}", err=True)
    if out:
        Path(out).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
