"""``tablewright explore [DESIGN...]``: a web page over a design's data (see docs/explore.md)."""

from __future__ import annotations

import errno
from pathlib import Path

import click

from .types import SCALE


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--db", "db", default=None, metavar="FILE", help="An existing SQLite database of the embedded engine."
)
@click.option(
    "--endpoint", default=None, metavar="URL", help="A DynamoDB endpoint (AWS, tablewright serve, ...)."
)
@click.option(
    "--port",
    default=8765,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on (0: any free port).",
)
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback by default)."
)
@click.option("--write", "writable", is_flag=True, help="Allow creating, editing and deleting items.")
@click.option(
    "--seed", default=1, show_default=True, help="Sample data random seed (without --db/--endpoint)."
)
@click.option("--scale", default=1.0, show_default=True, type=SCALE, help="Sample data size multiplier.")
def explore(
    paths: tuple[Path, ...],
    db: str | None,
    endpoint: str | None,
    port: int,
    host: str,
    writable: bool,
    seed: int,
    scale: float,
) -> None:
    """Browse tables, entities, access patterns and the design's views in a web page."""
    from tablewright.explore import ExploreError, create_app, open_explorer
    from tablewright.explore.server import serve

    from .errors import ENVIRONMENT, INPUT, CommandError

    if db is not None and endpoint is not None:
        raise CommandError("give --db or --endpoint, not both", INPUT)
    try:
        explorer = open_explorer(
            list(paths), db=db, endpoint=endpoint, writable=writable, seed=seed, scale=scale
        )
    except ExploreError as exc:
        raise CommandError(str(exc), exc.exit_code) from None
    app = create_app(explorer, allowed_hosts={host})
    try:
        serve(app, host, port, writable)
    except OSError as exc:
        if exc.errno in (errno.EADDRINUSE, errno.EACCES, errno.EADDRNOTAVAIL):
            raise CommandError(f"cannot listen on {host}:{port}: {exc.strerror}", ENVIRONMENT) from None
        raise
