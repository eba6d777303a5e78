"""Start the sensor API: ``python examples/sensor-api/serve.py --db sensor.db`` (README, "Run it").

Tables live in the embedded engine (``--db FILE``, or in memory without it) or behind a DynamoDB
endpoint (``--endpoint URL``: Amazon DynamoDB, ``tablewright serve``). The pepper comes from
``API_KEY_PEPPER`` or a secret file (``--pepper-file`` / ``API_KEY_PEPPER_FILE``); the admin token
from ``SENSOR_API_ADMIN_TOKEN`` or ``--admin-token-file`` / ``SENSOR_API_ADMIN_TOKEN_FILE``.
Exit codes follow the project: 2 for unusable input (missing secret, bad argument), 3 for the
environment (port in use, endpoint unreachable, database locked).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path

import uvicorn
from botocore.exceptions import BotoCoreError, ClientError
from sensor_api import DESIGN, api_keys
from sensor_api.http import BODY_SECONDS
from sensor_api.service import Settings, create_app
from sensor_api.workers import STOP_SIGNALS, hold_stop_signals, run_workers

from tablewright import connect, engine_of
from tablewright.cli.errors import describe
from tablewright.design import load
from tablewright.runtime import Runtime

ADMIN_VARIABLE = "SENSOR_API_ADMIN_TOKEN"
ADMIN_FILE_VARIABLE = "SENSOR_API_ADMIN_TOKEN_FILE"
PROGRAM = "sensor-api serve"
SWITCH_INTERVAL = 0.001  # seconds


def fail(code: int, message: str) -> None:
    print(f"{PROGRAM}: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def admin_token(path: str | None) -> str:
    path = path or os.environ.get(ADMIN_FILE_VARIABLE) or None
    if path is not None:
        try:
            value = Path(path).read_text(encoding="utf-8").strip()
        except OSError as error:
            fail(2, f"admin token file {path}: {error.strerror or error}")
    else:
        value = os.environ.get(ADMIN_VARIABLE, "").strip()
    if len(value) < 16:
        fail(2, f"set {ADMIN_VARIABLE} (or --admin-token-file) to a secret of at least 16 characters")
    return value


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__.split("\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--db", help="SQLite file of the embedded engine (in memory if neither is given)")
    where.add_argument("--endpoint", help="DynamoDB endpoint URL (Amazon DynamoDB, tablewright serve)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")
    parser.add_argument("--port", type=int, default=8080, help="port; 0 picks a free one (default 8080)")
    parser.add_argument(
        "--workers",
        type=int,
        help="processes serving requests (default: one per core with --db or --endpoint; 1 in memory)",
    )
    parser.add_argument("--pepper-file", help="file holding the API key pepper (else API_KEY_PEPPER)")
    parser.add_argument("--admin-token-file", help=f"file holding the admin token (else {ADMIN_VARIABLE})")
    parser.add_argument("--rate", type=float, default=50.0, help="requests/s per API key (0: no limit)")
    parser.add_argument("--burst", type=int, default=100, help="requests one key may send at once")
    parser.add_argument(
        "--body-timeout",
        type=float,
        default=BODY_SECONDS,
        help=f"seconds a request body has to arrive whole (default {BODY_SECONDS:g})",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port {args.port} is not a port (0-65535)")
    if not 0 < args.body_timeout <= 3600:  # nan and inf are refused too
        parser.error(f"--body-timeout {args.body_timeout} is not a number of seconds from 0 to 3600")
    if args.endpoint and not args.endpoint.startswith(("http://", "https://")):
        parser.error(f"--endpoint {args.endpoint!r} is not an http(s) URL")
    shared = bool(args.db or args.endpoint)
    if args.workers is None:
        args.workers = len(os.sched_getaffinity(0)) if shared and hasattr(os, "sched_getaffinity") else 1
    elif not 1 <= args.workers <= 64:
        parser.error(f"--workers {args.workers} is not a number of processes from 1 to 64")
    elif args.workers > 1 and not shared:
        parser.error(
            "--workers above 1 needs --db or --endpoint: in memory each worker would have tables of its own"
        )
    elif args.workers > 1 and not hasattr(os, "fork"):
        parser.error("--workers above 1 needs a system with fork()")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    try:
        pepper = api_keys.load_pepper(args.pepper_file)
    except api_keys.PepperMissingError as error:
        fail(2, str(error))
    settings = Settings(
        pepper=pepper,
        admin_token=admin_token(args.admin_token_file),
        rate=args.rate,
        burst=args.burst,
        body_seconds=args.body_timeout,
    )
    # Cursors are signed: a secret derived from the pepper keeps them valid across restarts and
    # processes of one deployment, and useless to anyone without the pepper.
    secret = hashlib.sha256(b"sensor-api cursors\0" + pepper.encode()).digest()
    rt, close = open_tables(args, secret)
    try:
        sock = socket.create_server((args.host, args.port))
    except OSError as error:
        fail(3, f"cannot listen on {args.host}:{args.port}: {error.strerror or error}")
    host, port = sock.getsockname()[:2]
    store = args.endpoint or (f"file {args.db}" if args.db else "memory (nothing kept after exit)")
    workers = f", {args.workers} workers" if args.workers > 1 else ""
    if args.workers > 1:
        close()  # each worker opens its own: no SQLite connection or engine thread crosses a fork
    freeze_startup()  # before forking, so that the workers share these pages rather than copy them
    held = hold_stop_signals()
    print(f"sensor-api: listening on http://{host}:{port}  (tables: {store}{workers})", flush=True)
    if args.workers == 1:
        serve(rt, settings, sock, held)
        return
    work = lambda: serve_worker(args, settings, secret, sock)  # noqa: E731
    raise SystemExit(run_workers(args.workers, work, held))


def serve_worker(args: argparse.Namespace, settings: Settings, secret: bytes, sock: socket.socket) -> None:
    """One worker process: its own runtime on the tables, then :func:`serve`."""
    rt, _close = open_tables(args, secret)
    freeze_startup()
    serve(rt, settings, sock)


def open_tables(args: argparse.Namespace, secret: bytes) -> tuple[Runtime, Callable[[], None]]:
    """A runtime on the service's tables (created if missing) and what closes its connection."""
    try:
        if args.endpoint:
            client = connect(endpoint_url=args.endpoint)
            close = client.close
        else:
            client = connect(args.db)
            close = engine_of(client).close
        rt = Runtime(load(DESIGN), client, secret=secret)
        rt.create_tables()
    except (ClientError, BotoCoreError, OSError) as error:
        fail(3, f"cannot open the tables at {args.endpoint or args.db or 'memory'}: {error}")
    except Exception as error:  # a file that is no database, a folder, ...: as the project says it
        known = describe(error)
        if known is None:
            raise
        fail(known[0], known[1])
    return rt, close


def freeze_startup() -> None:
    """Put what startup loaded (the design, the runtime, botocore's models: ~90,000 objects, which
    live as long as the process) out of the garbage collector's reach: a full collection then walks
    only what requests left behind, a few ms instead of 30-50 ms with every request in flight stopped
    (the ingest p99, docs/benchmarks.md). Done before the service says it listens, so that a stop
    signal from then on never lands inside a collection's callbacks, where Python drops it."""
    gc.collect()
    gc.freeze()


def serve(rt: Runtime, settings: Settings, sock: socket.socket, held: list[int] | None = None) -> None:
    """Answer requests on ``sock`` until SIGINT or SIGTERM (one process, or one worker); at once
    when ``held`` (:func:`~sensor_api.workers.hold_stop_signals`) says one came already."""
    server = uvicorn.Server(uvicorn.Config(create_app(rt, settings), log_level="warning", access_log=False))
    # Until uvicorn installs its handlers (and after, when it hands back the signals it caught), a
    # stop signal asks the server to end, as uvicorn's own handler does.
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda _signum, _frame: setattr(server, "should_exit", True))
    server.should_exit = server.should_exit or bool(held)  # not undoing one the handler just took
    # A thread that let the interpreter go for SQLite or the network gets it back within 1 ms rather
    # than Python's default 5 ms: a request in its write transaction is not held up behind another
    # request's validation while every other writer waits for it.
    sys.setswitchinterval(SWITCH_INTERVAL)
    server.run(sockets=[sock])


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # Ctrl-C before the server (or the workers) took over SIGINT
        fail(130, "interrupted")
