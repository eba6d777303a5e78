"""The write gate: writers of one database file queue here before ``BEGIN IMMEDIATE`` instead of
sleep-polling SQLite's lock.

Why: SQLite's busy handler retries a taken lock after sleeping 1, 2, 5, 10, ... up to 100 ms. A waiter
sleeps through the moments the lock is free, and a writer that releases it and comes straight back takes
it again, so with several processes on one file p99 grew to 20 ms and single calls stalled for most of
a second. Here a writer waits where the operating system wakes it the moment the lock is free:

* within a process, a :class:`threading.Lock` per database file (shared by every engine on that file);
* across processes, ``flock`` on a sidecar file beside the database, ``<db>-twlock`` (created on the
  first write, empty, never read; see docs/storage.md). The lock goes with the process if it dies.

The gate is a queue in front of SQLite's write lock, not a replacement for it: ``BEGIN IMMEDIATE`` still
takes SQLite's lock, so a program that writes the file without the gate (the ``sqlite3`` shell, another
tool, an older tablewright) is still excluded by SQLite and waited for by its busy handler. Where the
sidecar cannot be created or opened (a read-only directory, a platform without ``fcntl``), writers of
different processes go back to SQLite's own waiting; nothing else changes.

Timeouts: a blocking ``flock`` cannot be given one or be interrupted. So a writer first tries it without
blocking; if another process holds it, a short-lived waiter thread makes the blocking call while the
writer waits on a condition with the remaining time. If the waiter gets the lock after the writer gave
up, it hands it to the next writer of this process that asks, or releases it at once if nobody does. At
most one waiter thread per file and process exists, so two blocking calls on one open file never race
(a second ``flock`` on the same open file would succeed as a mere conversion of the first).
"""

from __future__ import annotations

import os
import threading
import time
import weakref

try:
    import fcntl
except (
    ImportError
):  # pragma: no cover - Windows: threads of one process still queue; processes use SQLite's wait
    fcntl = None  # type: ignore[assignment]

SIDECAR_SUFFIX = "-twlock"

_gates: weakref.WeakValueDictionary[str, WriteGate] = weakref.WeakValueDictionary()
_gates_lock = threading.Lock()


def _forget_after_fork() -> None:
    """A forked child shares its parent's open sidecar (and so its flock): each gate reopens its own."""
    for gate in list(_gates.values()):
        gate._threads = threading.Lock()
        gate._file = False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def gate_for(path: str) -> WriteGate:
    """The one gate of this process for the database file at ``path`` (engines on one file share it)."""
    key = os.path.realpath(path)
    with _gates_lock:
        gate = _gates.get(key)
        if gate is None:
            gate = _gates[key] = WriteGate(key)
        return gate


class WriteGate:
    """Threads and processes writing one database file take this before ``BEGIN IMMEDIATE``."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._threads = (
            threading.Lock()
        )  # not reentrant: a nested write must not pass (SQLite would refuse it too)
        self._file: _FileLock | None | bool = False  # False: not opened yet; None: no cross-process lock

    def acquire(self, timeout: float | None) -> float:
        """Take the gate, waiting at most ``timeout`` seconds (``None``: not at all); return the seconds
        left of ``timeout`` (0.0 when it is ``None``) for the SQLite lock behind it.

        Raises :class:`GateBusy` when the gate is not free in time.
        """
        if timeout is None:
            if not self._threads.acquire(blocking=False):
                raise GateBusy("another thread of this process is writing the database")
            remaining = 0.0
        else:
            started = time.monotonic()
            if not self._threads.acquire(timeout=max(timeout, 0.0)):
                raise GateBusy(f"another thread held the database's write gate for {timeout:g} s")
            remaining = max(0.0, timeout - (time.monotonic() - started))
        try:
            file = self._file_lock()
            if file is not None:
                started = time.monotonic()
                if not file.acquire(None if timeout is None else remaining):
                    raise GateBusy("another process is writing the database")
                if timeout is not None:
                    remaining = max(0.0, remaining - (time.monotonic() - started))
        except BaseException:
            self._threads.release()
            raise
        return remaining

    def release(self) -> None:
        file = self._file
        try:
            if file:
                file.release()  # type: ignore[union-attr]
        finally:
            self._threads.release()

    def _file_lock(self) -> _FileLock | None:
        """The sidecar's lock, opened on the first write (called with the thread lock held)."""
        if self._file is False:
            self._file = _FileLock.open(self.path + SIDECAR_SUFFIX)
        return self._file  # type: ignore[return-value]


class GateBusy(Exception):
    """The write gate was not free in time (the storage turns it into SQLite's busy error)."""


class _FileLock:
    """An exclusive ``flock`` on an open sidecar file, with a timeout (see the module's docstring)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._state = threading.Condition()
        self._waiting = False  # a waiter thread is blocked in flock(LOCK_EX)
        self._granted = False  # the waiter got the lock; the next writer of this process takes it over
        self._wanted = False  # a writer of this process waits for the waiter
        weakref.finalize(self, os.close, fd)

    @classmethod
    def open(cls, path: str) -> _FileLock | None:
        """The sidecar's lock, or None where it cannot be had (then SQLite's own waiting serves)."""
        if fcntl is None:
            return None
        for flags in (os.O_RDWR | os.O_CREAT, os.O_RDONLY):  # flock needs no write access
            try:
                fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o666)
            except OSError:
                continue
            return cls(fd)
        return None

    def acquire(self, timeout: float | None) -> bool:
        """Take the lock within ``timeout`` seconds (``None``: only if free now). One caller at a time:
        the gate's thread lock is held around this and :meth:`release`."""
        if not self._waiting:  # the usual case, without the condition: no waiter thread can start meanwhile
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                pass
        with self._state:
            if self._granted:
                self._granted = False
                return True
            if not self._waiting:
                try:
                    fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return True
                except BlockingIOError:
                    pass
                if timeout is None or timeout <= 0:
                    return False
                self._waiting = True
                threading.Thread(target=self._wait, name="tablewright-write-gate", daemon=True).start()
            elif timeout is None or timeout <= 0:
                return False
            self._wanted = True
            try:
                if self._state.wait_for(lambda: self._granted, timeout):
                    self._granted = False
                    return True
                return False
            finally:
                self._wanted = False

    def _wait(self) -> None:
        """The waiter thread: block until the lock is ours, then hand it over or give it back."""
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        except OSError:  # pragma: no cover - flock on an open regular file fails only on EINTR/ENOLCK
            with self._state:
                self._waiting = False
            return
        with self._state:
            if self._wanted:
                self._granted = True
                self._state.notify_all()
            else:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            # Last: a caller that reads False without the condition finds the lock given or given back.
            self._waiting = False

    def release(self) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_UN)
