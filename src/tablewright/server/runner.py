"""Running the server: in the foreground with signal handling (the CLI), or on a thread (tests, embedding).

Shutdown order is what keeps acknowledged writes: stop accepting, let requests already arriving
finish and flush their responses, and only then call ``on_close`` (which closes the engine, so
SQLite checkpoints its WAL). A write is acknowledged only after the engine returned from it.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import threading
from collections.abc import Callable, Collection
from typing import Any

from tablewright.server.http import HttpServer
from tablewright.server.protocol import DynamoDBProtocol, Handler
from tablewright.server.sigv4 import Verifier


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop's loop when installed (measured in docs/benchmarks.md), else asyncio's.

    ``TABLEWRIGHT_EVENT_LOOP=asyncio`` forces asyncio's own loop (for comparison, or to debug).
    """
    if os.environ.get("TABLEWRIGHT_EVENT_LOOP") == "asyncio":
        return asyncio.new_event_loop()
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def _http_server(
    handler: Handler,
    credentials: dict[str, str] | None,
    regions: Collection[str] | None,
    options: dict[str, Any],
) -> HttpServer:
    verifier = Verifier(credentials, regions=regions) if credentials is not None else None
    try_now = options.pop("try_now", None)
    return HttpServer(DynamoDBProtocol(handler, verifier, try_now), **options)


def url_for(host: str, port: int) -> str:
    """The endpoint URL clients are given (IPv6 hosts bracketed)."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def run(
    handler: Handler,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    credentials: dict[str, str] | None = None,
    regions: Collection[str] | None = None,
    on_ready: Callable[[str], None] | None = None,
    on_close: Callable[[], None] | None = None,
    grace: float = 10.0,
    **options: Any,
) -> None:
    """Serve until SIGINT or SIGTERM, then shut down gracefully and call ``on_close``.

    ``regions`` limits the regions a SigV4 credential scope may name (None: any). ``try_now=``
    ``engine.try_handle`` lets one-transaction requests run on the event loop unless they would
    wait for a lock. Other ``options`` go to :class:`HttpServer` (limits and timeouts). Binding
    errors (a port in use) raise OSError.
    """

    async def main() -> None:
        server = _http_server(handler, credentials, regions, options)
        bound_host, bound_port = await server.start(host, port)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        # The process lives for serving: what startup loaded (botocore's service model, the engine's
        # catalog) is frozen out of the collector's reach, so a full collection walks only what
        # requests left behind, not the ~30,000 long-lived objects with every request stopped meanwhile.
        gc.collect()
        gc.freeze()
        if on_ready is not None:
            on_ready(url_for(bound_host, bound_port))
        await stop.wait()
        await server.shutdown(grace)

    loop = new_event_loop()
    try:
        loop.run_until_complete(main())
    finally:
        try:
            if on_close is not None:
                on_close()
        finally:
            loop.close()


class ServerThread:
    """A server on a background thread; ``with ServerThread(engine.handle) as server: server.url``.

    The handler runs on the server's thread, so it must tolerate being called from a thread
    other than the one that created it.
    """

    def __init__(
        self,
        handler: Handler,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        credentials: dict[str, str] | None = None,
        regions: Collection[str] | None = None,
        **options: Any,
    ) -> None:
        self.server = _http_server(handler, credentials, regions, options)
        self.host, self.port = host, port
        self.url = ""
        self._loop = new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tablewright-server", daemon=True)

    def start(self) -> ServerThread:
        """Bind and start serving; returns once the port is open."""
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self.server.start(self.host, self.port), self._loop)
        bound_host, self.port = future.result(timeout=30)
        self.url = url_for(bound_host, self.port)
        return self

    def stop(self, grace: float = 10.0) -> None:
        """Shut down gracefully and join the thread."""
        if not self._thread.is_alive():
            return
        asyncio.run_coroutine_threadsafe(self.server.shutdown(grace), self._loop).result(timeout=grace + 30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def check_port(host: str, port: int) -> None:
    """Raise the OSError that binding ``host``:``port`` would raise (a port in use, an address not
    on this machine), before anything is opened for serving on it — so ``tablewright serve --db
    new.db`` on a busy port leaves no database file behind. Binds each address as the event loop
    will (``SO_REUSEADDR``) and lets go at once; port 0 always binds."""
    if port == 0:
        return
    loop = asyncio.new_event_loop()
    try:
        server = loop.run_until_complete(loop.create_server(asyncio.Protocol, host, port))
        server.close()
        loop.run_until_complete(server.wait_closed())
    finally:
        loop.close()
