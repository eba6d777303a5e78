"""``tablewright serve``: the embedded engine behind DynamoDB's HTTP JSON protocol."""

from __future__ import annotations

import click

# Lines that work pasted on a machine with no AWS configuration at all: explicit region and
# credentials, because every SDK refuses to sign without some (any pair is accepted without --auth).
_HOW_TO_CONNECT = """\
  shell   : export AWS_ACCESS_KEY_ID={key} AWS_SECRET_ACCESS_KEY={secret} AWS_DEFAULT_REGION=us-east-1
  AWS CLI : aws dynamodb list-tables --endpoint-url {url} --region us-east-1
  boto3   : boto3.client("dynamodb", endpoint_url="{url}", region_name="us-east-1", aws_access_key_id="{key}", aws_secret_access_key="{secret}")
  JS SDK  : new DynamoDBClient({{ endpoint: "{url}", region: "us-east-1", credentials: {{ accessKeyId: "{key}", secretAccessKey: "{secret}" }} }})"""


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
def serve(db: str | None, host: str, port: int, auth: str | None) -> None:
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
    engine = _engine_class()(db)

    def ready(url: str) -> None:
        store = f"file {db}" if db else "in memory (nothing is kept after exit)"
        click.echo(f"tablewright serve: DynamoDB API at {url}  (data: {store})")
        # Never print a secret from the auth file: name the key, leave a placeholder for its secret.
        key, secret = (
            (next(iter(credentials)), "REPLACE_WITH_ITS_SECRET") if credentials else ("local", "local")
        )
        click.echo(_HOW_TO_CONNECT.format(url=url, key=key, secret=secret))
        if credentials is None:
            click.echo(
                "  auth    : none - any access key id and secret are accepted (use --auth FILE to check SigV4)"
            )
        else:
            click.echo(f"  auth    : SigV4 required; {len(credentials)} access key(s) from {auth}")
        click.echo("Press Ctrl+C to stop.", nl=True)

    run(engine.handle, host=host, port=port, credentials=credentials, on_ready=ready, on_close=engine.close)
    click.echo("tablewright serve: stopped; database closed.")
