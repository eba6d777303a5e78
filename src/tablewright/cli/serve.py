"""``tablewright serve``: the embedded engine behind DynamoDB's HTTP JSON protocol."""

from __future__ import annotations

import click

_HOW_TO_CONNECT = """\
  AWS CLI : aws dynamodb list-tables --endpoint-url {url}
  boto3   : boto3.client("dynamodb", endpoint_url="{url}")
  JS SDK  : new DynamoDBClient({{ endpoint: "{url}" }})"""


def _engine_class():
    # Imported here so `tablewright --help` does not load the engine.
    from tablewright.engine import Engine

    return Engine


@click.command()
@click.option(
    "--db",
    "db",
    type=click.Path(dir_okay=False),
    default=None,
    help="SQLite file to serve; in memory if omitted.",
)
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback unless told otherwise)."
)
@click.option(
    "--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port; 0 picks a free one."
)
@click.option(
    "--auth",
    "auth",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="YAML/JSON file of access keys; every request must then carry a valid SigV4 signature.",
)
@click.option(
    "--read-only",
    is_flag=True,
    help="Serve an existing --db file without ever writing to it; writes get AccessDeniedException.",
)
def serve(db: str | None, host: str, port: int, auth: str | None, read_only: bool = False) -> None:
    """Serve DynamoDB's API on HTTP, backed by the embedded engine.

    Stops on SIGINT or SIGTERM after finishing requests in flight, then closes the database.
    """
    from tablewright.server import AuthFileError, load_credentials, run

    credentials = None
    if auth is not None:
        try:
            credentials = load_credentials(auth)
        except AuthFileError as exc:
            raise click.BadParameter(str(exc), param_hint="--auth") from None
    if read_only and db is None:
        raise click.UsageError("--read-only needs --db FILE (an in-memory database starts empty)")
    engine = _engine_class()(db, read_only=read_only)

    def ready(url: str) -> None:
        store = f"file {db}" if db else "in memory (nothing is kept after exit)"
        store += ", read-only" if read_only else ""
        click.echo(f"tablewright serve: DynamoDB API at {url}  (data: {store})")
        click.echo(_HOW_TO_CONNECT.format(url=url))
        if credentials is None:
            click.echo(
                "  auth    : none - any access key id and secret are accepted (use --auth FILE to check SigV4)"
            )
        else:
            click.echo(f"  auth    : SigV4 required; {len(credentials)} access key(s) from {auth}")
        click.echo("Press Ctrl+C to stop.", nl=True)

    run(engine.handle, host=host, port=port, credentials=credentials, on_ready=ready, on_close=engine.close)
    click.echo("tablewright serve: stopped; database closed.")
