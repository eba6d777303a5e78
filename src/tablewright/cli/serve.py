"""``tablewright serve``: the embedded engine behind DynamoDB's HTTP JSON protocol."""

from __future__ import annotations

import errno
import functools
import logging
import sys

import click

# Lines that work pasted on a machine with no AWS configuration at all: explicit region and
# credentials, because every SDK refuses to sign without some (any pair is accepted without --auth).
_HOW_TO_CONNECT = """\
  shell   : export AWS_ACCESS_KEY_ID={key} AWS_SECRET_ACCESS_KEY={secret} AWS_DEFAULT_REGION=us-east-1
  AWS CLI : aws dynamodb list-tables --endpoint-url {url} --region us-east-1
  boto3   : boto3.client("dynamodb", endpoint_url="{url}", region_name="us-east-1", aws_access_key_id="{key}", aws_secret_access_key="{secret}")
  JS SDK  : new DynamoDBClient({{ endpoint: "{url}", region: "us-east-1", credentials: {{ accessKeyId: "{key}", secretAccessKey: "{secret}" }} }})"""

# Binding failures a user can cause, as sentences (the port and host are filled in).
_BIND_ERRORS = {
    errno.EADDRINUSE: "port {port} on {host} is already in use (another server is listening there); "
    "choose another with --port, or --port 0 for a free one",
    errno.EACCES: "not allowed to listen on port {port} on {host} (ports below 1024 need privileges); "
    "choose another with --port",
    errno.EADDRNOTAVAIL: "cannot listen on {host}: it is not an address of this machine; check --host",
}
_OPERATIONAL_FAILURE = 3  # the project's exit status for environment failures (docs/cli.md)


def _engine_class():
    # Imported here so `tablewright --help` does not load the engine.
    from tablewright.engine import Engine

    return Engine


def _fail(message: str) -> None:
    click.echo(f"tablewright serve: error: {message}", err=True)
    sys.exit(_OPERATIONAL_FAILURE)


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
@click.option(
    "--region",
    "regions",
    multiple=True,
    help="With --auth: a region signatures may be scoped to (repeat for several); any if omitted.",
)
@click.option(
    "--max-connections",
    default=512,
    show_default=True,
    type=click.IntRange(1),
    help="Open connections at most; at the limit the longest-idle one is closed for a new client.",
)
@click.option(
    "--max-buffered-mb",
    default=128,
    show_default=True,
    type=click.IntRange(17),
    help="Request bodies held in memory across all connections at once, in MiB (503 beyond).",
)
@click.option(
    "--request-timeout",
    default=30.0,
    show_default=True,
    type=click.FloatRange(0.1),
    help="Seconds a request may take to arrive in full (408 after).",
)
@click.option(
    "--idle-timeout",
    default=60.0,
    show_default=True,
    type=click.FloatRange(0.1),
    help="Seconds an idle keep-alive connection stays open.",
)
@click.option(
    "--lock-timeout",
    default=5.0,
    show_default=True,
    type=click.FloatRange(0.0),
    help="Seconds a write waits for another process's lock on --db; then a retryable ThrottlingException.",
)
@click.option(
    "--ttl-interval",
    default=60.0,
    show_default=True,
    type=click.FloatRange(0.1),
    help="Seconds between deletions of items whose TTL has passed.",
)
@click.option("--no-ttl", is_flag=True, help="Never delete expired items (TTL settings are still stored).")
@click.option(
    "--poll-us",
    default=100,
    show_default=True,
    type=click.IntRange(0, 10_000),
    help="Microseconds to poll for a client's next request after answering, before sleeping (0: never).",
)
def serve(
    db: str | None,
    host: str,
    port: int,
    auth: str | None,
    regions: tuple[str, ...],
    max_connections: int,
    max_buffered_mb: int,
    request_timeout: float,
    idle_timeout: float,
    lock_timeout: float,
    ttl_interval: float,
    no_ttl: bool,
    poll_us: int = 100,
    read_only: bool = False,
) -> None:
    """Serve DynamoDB's API on HTTP, backed by the embedded engine.

    Stops on SIGINT or SIGTERM after finishing requests in flight, then closes the database.
    Limits and their flags: docs/server.md.
    """
    from tablewright.server import AuthFileError, check_port, load_credentials, run

    credentials = None
    if auth is not None:
        try:
            credentials = load_credentials(auth)
        except AuthFileError as exc:
            raise click.BadParameter(str(exc), param_hint="--auth") from None
    if read_only and db is None:
        raise click.UsageError("--read-only needs --db FILE (an in-memory database starts empty)")
    if regions and credentials is None:
        raise click.BadParameter(
            "only means something with --auth (no signature is checked without it)", param_hint="--region"
        )
    # Internal errors are logged with their traceback and request id (the client gets only the id).
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        check_port(host, port)  # before the engine creates a database file nobody will serve
    except OSError as exc:
        _bind_failed(exc, host, port)
    engine = _engine_class()(
        db, ttl_interval=None if no_ttl else ttl_interval, lock_timeout=lock_timeout, read_only=read_only
    )

    def ready(url: str) -> None:
        store = f"file {db}" if db else "in memory (nothing is kept after exit)"
        store += ", read-only" if read_only else ""
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
            scope = f"; regions {', '.join(regions)}" if regions else "; any region"
            click.echo(f"  auth    : SigV4 required; {len(credentials)} access key(s) from {auth}{scope}")
        ttl = "off (--no-ttl)" if no_ttl else f"expired items deleted every {ttl_interval:g} s"
        click.echo(f"  ttl     : {ttl}")
        click.echo("Press Ctrl+C to stop.", nl=True)

    try:
        run(
            functools.partial(engine.handle, encoded=True),  # stored items go out as they are
            host=host,
            port=port,
            credentials=credentials,
            regions=regions or None,
            on_ready=ready,
            on_close=engine.close,
            try_now=functools.partial(engine.try_handle, encoded=True),
            max_connections=max_connections,
            max_buffered=max_buffered_mb * 1024 * 1024,
            request_timeout=request_timeout,
            idle_timeout=idle_timeout,
            write_queue_timeout=lock_timeout,
            poll=poll_us / 1e6,
        )
    except OSError as exc:
        _bind_failed(exc, host, port)
    click.echo("tablewright serve: stopped; database closed.")


def _bind_failed(exc: OSError, host: str, port: int) -> None:
    sentence = _BIND_ERRORS.get(exc.errno)
    if sentence is not None:
        _fail(sentence.format(host=host, port=port))
    _fail(f"cannot listen on {host} port {port}: {exc.strerror or exc}")
