"""Run the explorer's application on uvicorn, saying where it listens (the port may be chosen by the OS)."""

from __future__ import annotations

import asyncio
import socket
import sys
from typing import Any

import uvicorn


def serve(app: Any, host: str, port: int, writable: bool) -> None:
    """Listen on ``host:port`` until interrupted; prints the URL once the socket is bound.

    The socket is bound here rather than by uvicorn so that a busy port is an ``OSError`` the
    command can turn into its one-line error, and so that port 0 reports the port it got.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    mode = "writable (--write)" if writable else "read-only"
    print(f"tablewright explore: http://{shown}:{bound}/ ({mode}); Ctrl-C stops", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    try:
        asyncio.run(server.serve(sockets=[sock]))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
