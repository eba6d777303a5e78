"""The write gate: writers of one database file queue here before ``BEGIN IMMEDIATE`` instead of
sleep-polling SQLite's lock.

Why: SQLite's busy handler retries a taken lock after sleeping 1, 2, 5, 10, ... up to 100 ms. A waiter
sleeps through the moments the lock is free, and a writer that releases it and comes straight back takes
it again, so with several processes on one file p99 grew to 20 ms and single calls stalled for most of
a second. Here a writer waits where the operating system wakes it the moment the lock is free:

* within a process, a :class:`threading.Lock` per database file (shared by every engine on that file);
* across processes, ``flock`` on a sidecar file beside the database, ``<db>-twlock`` (created on the
  first write; see docs/storage.md). The lock goes with the process if it dies.

The gate is a queue in front of SQLite's write lock, not a replacement for it: ``BEGIN IMMEDIATE`` still
takes SQLite's lock, so a program that writes the file without the gate (the ``sqlite3`` shell, another
tool, an older tablewright) is still excluded by SQLite and waited for by its busy handler. Where the
sidecar cannot be created or opened (a read-only directory, a platform without ``fcntl``), writers of
different processes go back to SQLite's own waiting; nothing else changes.

Timeouts: a blocking ``flock`` or ``fcntl`` lock cannot be given one or be interrupted. So a writer first
tries without blocking (and retries for ``_SPIN`` seconds); then a lasting waiter thread (one per lock
and process) makes the blocking call while the writer waits with the remaining time. If the thread gets
the lock after the writer gave up, it lets it go at once, unless the next writer of this process has
taken that wait over. Only that thread ever blocks on the lock, so two blocking calls on one open file
never race (a second ``flock`` on the same open file would succeed as a mere conversion of the first).

Turns (:class:`~.write_turns.TurnQueue`, write_turns.py): once writers of different processes got in each other's way, each write
request first waits for its process's turn, so that no more processes write at once than there are cores.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import weakref

from .lock_waiter import LockWaiter
from .write_turns import GateBusy, Lease, TurnQueue, claim, give_up

try:
    import fcntl
except (
    ImportError
):  # pragma: no cover - Windows: threads of one process still queue; processes use SQLite's wait
    fcntl = None  # type: ignore[assignment]

__all__ = ["SIDECAR_SUFFIX", "GateBusy", "WriteGate", "gate_for"]

SIDECAR_SUFFIX = "-twlock"
# Seconds writers keep queueing for admission after they last saw each other (an uncontended writer
# never queues: its write costs no more than the gate's own lock).
_CROWDED_FOR = 1.0
# Seconds a writer retries the gate before it sleeps until it is free. A write holds the gate for tens of
# microseconds, mostly on another core (few writers run at once, see TurnQueue), and sleeping and being
# woken costs about as long; on one core spinning would only keep the holder from running.
_SPIN = 0.0002 if (os.cpu_count() or 1) > 1 else 0.0

# The sidecar byte whose record lock the one process checkpointing the file holds (past the turn
# queue's bytes; a record lock may lie beyond the end of a file).
_CHECKPOINTER = 1 << 20

_gates: weakref.WeakValueDictionary[str, WriteGate] = weakref.WeakValueDictionary()
_gates_lock = threading.Lock()


def _forget_after_fork() -> None:
    """A forked child shares its parent's open sidecar (and so its flock): each gate reopens its own."""
    for gate in list(_gates.values()):
        gate._threads = threading.Lock()
        gate._admitting = threading.Lock()
        gate._file = False
        gate._queue = False


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
        # Admission (see TurnQueue): on while writers of this file were seen waiting for each other lately.
        self.crowded = False
        self._crowded_until = 0.0
        self._admitting = threading.Lock()  # one thread of this process at a time holds a place in the queue
        self._queue: TurnQueue | None | bool = False

    def acquire(self, timeout: float | None) -> float:
        """Take the gate, waiting at most ``timeout`` seconds (``None``: not at all); return the seconds
        left of ``timeout`` (0.0 when it is ``None``) for the SQLite lock behind it.

        Raises :class:`GateBusy` when the gate is not free in time.
        """
        # The fast path, nobody else writing: two non-blocking takes and no clock read.
        if self._threads.acquire(blocking=False):
            remaining = 0.0 if timeout is None else timeout
        elif timeout is None:
            raise GateBusy("another thread of this process is writing the database")
        else:
            started = time.monotonic()
            if not self._threads.acquire(timeout=max(timeout, 0.0)):
                raise GateBusy(f"another thread held the database's write gate for {timeout:g} s")
            remaining = max(0.0, timeout - (time.monotonic() - started))
        try:
            file = self._file_lock()
            if file is not None and not file.take_now():
                started = time.monotonic()
                if not file.acquire(None if timeout is None else remaining):
                    raise GateBusy("another process is writing the database")
                if file.contended:
                    file.contended = False
                    self.crowd()
                if timeout is not None:
                    remaining = max(0.0, remaining - (time.monotonic() - started))
        except BaseException:
            self._threads.release()
            raise
        return remaining

    def take_now(self) -> bool:
        """Take the gate if it is free right now, neither waiting nor spinning: the usual case, without
        the clock reads and timeout arithmetic of :meth:`acquire`. False: call :meth:`acquire`."""
        if not self._threads.acquire(blocking=False):
            return False
        file = self._file if self._file is not False else self._file_lock()
        if file is None or file.take_now():  # type: ignore[union-attr]
            return True
        self._threads.release()
        return False

    def release(self) -> None:
        file = self._file
        try:
            if file:
                file.release()  # type: ignore[union-attr]
        finally:
            self._threads.release()

    def crowd(self) -> None:
        """Writers of another process were in the way: queue for admission for a while (the gate calls
        it when it had to wait; tests call it to take the crowded paths without a crowd)."""
        self._crowded_until = time.monotonic() + _CROWDED_FOR
        self.crowded = True

    def admit(self, timeout: float) -> Lease | None:
        """Wait (at most ``timeout`` seconds) for admission to write: a turn among the few processes, as
        many as there are cores, that write this file at once (see :class:`TurnQueue`).

        Return the turn to give to :meth:`leave`, or None where there is no queue (the writer goes on
        without one). Raises :class:`GateBusy` when the queue did not move in time.
        """
        queue = self._queue
        if queue is False:
            with _gates_lock:
                if self._queue is False:
                    file = self._file_lock_unlocked()
                    self._queue = TurnQueue.open(file.fd) if file is not None else None
            queue = self._queue
        if queue is None:
            return None
        lease, waited = queue.admit(timeout, self._admitting)  # type: ignore[union-attr]
        now = time.monotonic()
        if waited:
            self._crowded_until = now + _CROWDED_FOR
        elif now > self._crowded_until:
            self.crowded = False  # the last to queue until writers get in each other's way again
        return lease

    def leave(self, lease: Lease | None) -> None:
        """End a write admitted by :meth:`admit` (the turn may go on for this process's next write)."""
        if lease is not None:
            self._queue.leave(lease)  # type: ignore[union-attr]

    def claim_checkpoint(self) -> bool:
        """Whether this process is to do the file's WAL upkeep now (a checkpoint or a sync of the WAL,
        engine/wal_upkeep.py): no other process is at it. Then call :meth:`checkpoint_done` after. The
        upkeep threads of all processes see the same pages pending at once; one does the work."""
        file = self._file
        if not file:
            return True  # no sidecar: as many checkpoint attempts as before
        try:
            return claim(file.fd, _CHECKPOINTER)  # type: ignore[union-attr]
        except OSError:  # a sidecar opened read-only: no record locks on it
            return True

    def checkpoint_done(self) -> None:
        """Let another process do the upkeep again (after :meth:`claim_checkpoint` returned True)."""
        file = self._file
        if file:
            with contextlib.suppress(OSError):
                give_up(file.fd, _CHECKPOINTER)  # type: ignore[union-attr]

    def _file_lock(self) -> _FileLock | None:
        """The sidecar's lock, opened on the first write (called with the thread lock held)."""
        if self._file is False:
            with _gates_lock:  # a thread taking admission may open it at the same moment
                return self._file_lock_unlocked()
        return self._file  # type: ignore[return-value]

    def _file_lock_unlocked(self) -> _FileLock | None:
        if self._file is False:
            self._file = _FileLock.open(self.path + SIDECAR_SUFFIX)
        return self._file  # type: ignore[return-value]


class _FileLock:
    """An exclusive ``flock`` on an open sidecar file, with a timeout (see the module's docstring)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self.fd = fd
        self.contended = False  # the last acquire found another process holding the lock
        self._waiter: LockWaiter | None = None
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

    def take_now(self) -> bool:
        """Take the lock if it is free right now (no waiting, no spinning)."""
        waiter = self._waiter
        return (waiter is None or not waiter.busy) and _flock_now(self._fd)

    def acquire(self, timeout: float | None) -> bool:
        """Take the lock within ``timeout`` seconds (``None``: only if free now). One caller at a time:
        the gate's thread lock is held around this and :meth:`release`."""
        waiter = self._waiter
        # While the waiter thread is blocked in flock (for a writer that gave up), a flock here would
        # succeed as a conversion of the same open file's lock the moment the thread got it.
        if waiter is None or not waiter.busy:
            if _flock_now(self._fd):
                return True
            if timeout and _SPIN:  # the holder is most likely writing on another core right now
                deadline = time.perf_counter() + min(timeout, _SPIN)
                while time.perf_counter() < deadline:
                    if _flock_now(self._fd):
                        self.contended = True
                        return True
        self.contended = True
        if timeout is None or timeout <= 0:
            return False
        if waiter is None:
            waiter = self._waiter = LockWaiter(self._fd, _flock_wait, _flock_release, owner=self)
        if not waiter.adopt():  # no wait given up earlier to take over: start one
            if _flock_now(self._fd):
                return True
            waiter.start(0)
        if waiter.granted(timeout):
            return True
        waiter.abandon()
        return False

    def release(self) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_UN)


def _flock_now(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _flock_wait(fd: int, _: int) -> bool:
    fcntl.flock(fd, fcntl.LOCK_EX)
    return True


def _flock_release(fd: int, _: int) -> None:
    fcntl.flock(fd, fcntl.LOCK_UN)
