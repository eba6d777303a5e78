"""Several worker processes on one listening socket (``serve.py --workers N``), pre-forked.

The document's backend is serverless: every request may run in another Lambda instance, so many
run at once. One Python process runs one request's Python at a time (the interpreter lock): on the
embedded engine a process of the service is saturated near 80 batches of 10 readings a second on
this project's 2-core machine, below the document's peak. Workers are separate processes
accepting from the one socket the parent bound; the database file is shared the way the engine
shares it between processes (docs/storage.md in the project), so nothing else changes.

The parent opens nothing but the socket before forking (the tables were created and their engine
closed before, so no SQLite connection or engine thread crosses a fork). It forwards SIGINT and
SIGTERM to the workers, each of which finishes its requests in flight and exits. A worker that ends
on its own (a crash, the database gone) ends the service: the others are stopped and the parent
exits with that worker's status, for the supervisor (systemd, a container runtime) to restart it
whole, rather than running on with fewer workers unnoticed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def hold_stop_signals() -> list[int]:
    """From now on, SIGINT and SIGTERM are noted in the list returned, until a server or
    :func:`run_workers` takes them over and looks at it.

    For the moment between "listening" and that: Python's own SIGINT handler raises
    KeyboardInterrupt wherever the interpreter is, and one raised inside a weakref callback or a
    ``__del__`` is dropped ("Exception ignored in ..."), after which the service would serve on.
    """
    held: list[int] = []
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda signum, _frame: held.append(signum))
    return held


def run_workers(count: int, work: Callable[[], None], held: list[int] | None = None) -> int:
    """Run ``work`` in ``count`` forked processes until all end; the status to exit with.

    0 when every worker ended because it was asked to (a stop signal reached the parent, or came
    before, as ``held`` by :func:`hold_stop_signals` shows), else the status of the first worker
    that ended on its own (a signal's number plus 128, as a shell says it).
    """
    # Both before the handler exists: a signal may come the moment it does.
    stopping = False
    children: dict[int, int] = {}

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            _signal(pid, signal.SIGTERM)  # SIGTERM whatever came: a second SIGINT forces uvicorn out

    previous = {sig: signal.signal(sig, stop) for sig in STOP_SIGNALS}
    stopping = stopping or bool(held)  # one held until now, or one the handler just took
    try:
        for number in range(count):
            if stopping:  # a stop signal came while the first workers were forked
                break
            # Stop signals wait while forking: a child must never run the parent's handler (it would
            # signal its siblings and serve on), and the parent must know the child it signals.
            signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
            try:
                pid = os.fork()
                if pid == 0:
                    _child(work)
                children[pid] = number
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        status = 0
        while children:
            try:
                pid, wait_status = os.wait()
            except ChildProcessError:
                break
            except InterruptedError:
                continue
            children.pop(pid, None)
            if not stopping:
                status = _exit_status(wait_status)
                print(
                    f"sensor-api serve: error: worker {pid} ended ({_said(wait_status)}); stopping the others",
                    file=sys.stderr,
                    flush=True,
                )
                stop(signal.SIGTERM, None)
        return status
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _child(work: Callable[[], None]) -> None:
    """A worker: the default signal handlers back (uvicorn installs its own; a stop signal that came
    meanwhile ends the worker as it unblocks), ``work``, then out without running the parent's exit
    handlers a second time."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    code = 0
    try:
        work()
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 1
    except KeyboardInterrupt:
        code = 0
    except BaseException:  # noqa: BLE001 - the traceback goes to the log, the status to the parent
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.kill(pid, sig)


def _exit_status(wait_status: int) -> int:
    if os.WIFSIGNALED(wait_status):
        return 128 + os.WTERMSIG(wait_status)
    return os.WEXITSTATUS(wait_status) or 1  # ending on its own is never success


def _said(wait_status: int) -> str:
    if os.WIFSIGNALED(wait_status):
        return f"killed by {signal.Signals(os.WTERMSIG(wait_status)).name}"
    return f"exit status {os.WEXITSTATUS(wait_status)}"
