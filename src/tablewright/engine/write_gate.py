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

Turns (:class:`_Queue`): once writers of different processes got in each other's way, each write
request first waits for its process's turn, so that no more processes write at once than there are cores.
"""

from __future__ import annotations

import mmap
import os
import struct
import threading
import time
import weakref
from collections.abc import Callable

try:
    import fcntl
except (
    ImportError
):  # pragma: no cover - Windows: threads of one process still queue; processes use SQLite's wait
    fcntl = None  # type: ignore[assignment]

SIDECAR_SUFFIX = "-twlock"
# Seconds a writer retries the gate before it sleeps until it is free. A write holds the gate for tens of
# microseconds, mostly on another core (few writers run at once, see _Queue), and sleeping and being
# woken costs about as long; on one core spinning would only keep the holder from running.
_SPIN = 0.0002 if (os.cpu_count() or 1) > 1 else 0.0

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
        # Admission (see _Queue): on while writers of this file were seen waiting for each other lately.
        self.crowded = False
        self._crowded_until = 0.0
        self._admitting = threading.Lock()  # one thread of this process at a time holds a place in the queue
        self._queue: _Queue | None | bool = False

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
                if file.contended:
                    file.contended = False
                    self._crowd()
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

    def _crowd(self) -> None:
        """Writers of another process were in the way: queue for admission for a while."""
        self._crowded_until = time.monotonic() + _CROWDED_FOR
        self.crowded = True

    def admit(self, timeout: float) -> _Lease | None:
        """Wait (at most ``timeout`` seconds) for admission to write: a turn among the few processes, as
        many as there are cores, that write this file at once (see :class:`_Queue`).

        Return the turn to give to :meth:`leave`, or None where there is no queue (the writer goes on
        without one). Raises :class:`GateBusy` when the queue did not move in time.
        """
        queue = self._queue
        if queue is False:
            with _gates_lock:
                if self._queue is False:
                    file = self._file_lock_unlocked()
                    self._queue = _Queue.open(file.fd) if file is not None else None
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

    def leave(self, lease: _Lease | None, *, hand_on: bool = False) -> None:
        """End a write admitted by :meth:`admit` (the turn may go on for this process's next write;
        ``hand_on``: not so, the next process goes on now, as this one has other work to do first)."""
        if lease is not None:
            self._queue.leave(lease, hand_on=hand_on)  # type: ignore[union-attr]

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


class GateBusy(Exception):
    """The write gate was not free in time (the storage turns it into SQLite's busy error)."""


class _FileLock:
    """An exclusive ``flock`` on an open sidecar file, with a timeout (see the module's docstring)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self.fd = fd
        self.contended = False  # the last acquire found another process holding the lock
        self._waiter: _Waiter | None = None
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
            waiter = self._waiter = _Waiter(self._fd, _flock_wait, _flock_release)
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


# ------------------------------------------------------------------------------------------ admission

# Seconds writers keep queueing for admission after they last saw each other (an uncontended writer
# never queues: its write costs no more than the gate's own lock).
_CROWDED_FOR = 1.0
# Queue places are bytes 1 .. _PLACES of the sidecar, locked with fcntl record locks (byte 0 guards
# the ticket counter, the sidecar's first 8 bytes). More places than writers can ever wait at once.
_PLACES = 4096
# Seconds a waiter waits before it looks whether the process ahead of it is between writes.
_IDLE = 0.01
_COUNTER = struct.Struct("=Q")
# A process's turn lasts long enough to make its hand-over cheap beside its writes, and short enough
# that the processes queued behind it wait about _WAIT seconds (see _Queue._turn), within these bounds.
_WAIT = 0.0025
_TURN_MIN = 0.0005
_TURN_MAX = 0.01


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        return os.cpu_count() or 1


if fcntl is not None:
    # Open-file-description locks belong to the open sidecar, not to the process (Linux); elsewhere
    # POSIX record locks, which are the process's: the same here, as each process opens the sidecar once.
    _SETLK = getattr(fcntl, "F_OFD_SETLK", fcntl.F_SETLK)
    _SETLKW = getattr(fcntl, "F_OFD_SETLKW", fcntl.F_SETLKW)
    _OFD = hasattr(fcntl, "F_OFD_SETLK")


def _record(kind: int, offset: int) -> bytes:
    """A ``struct flock`` for one byte at ``offset`` (l_pid 0, as open-file-description locks need)."""
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, offset, 1, 0)


def _lock(fd: int, offset: int, *, wait: bool) -> bool:
    try:
        fcntl.fcntl(fd, _SETLKW if wait else _SETLK, _record(fcntl.F_WRLCK, offset))
    except (BlockingIOError, PermissionError):  # EAGAIN or EACCES: another open file holds it
        return False
    return True


def _unlock(fd: int, offset: int) -> None:
    fcntl.fcntl(fd, _SETLK, _record(fcntl.F_UNLCK, offset))


def _wait_for_place(fd: int, offset: int) -> bool:
    return _lock(fd, offset, wait=True)


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


class _Lease:
    """A process's turn in the queue: its place, when it ends, and how many of its writes run in it."""

    __slots__ = ("place", "ends", "calls", "over")

    def __init__(self, place: int, ends: float) -> None:
        self.place = place
        self.ends = ends
        self.calls = 0
        self.over = False


class _Queue:
    """Turns for the processes writing one file, in order of arrival, at most as many at once as there
    are cores.

    Why: with more writing processes than cores, the scheduler preempts a writer in the middle of a
    write, and that write then waits a time slice or more (milliseconds, ``p99``), while a writer
    preempted holding the gate makes every other writer wait too. Here the processes beyond the cores
    sleep until it is their turn, so the ones writing keep their cores. A turn is some milliseconds of
    writes rather than one write: a hand-over (one process sleeping, another waking) costs as much CPU
    as a few small writes; its length is chosen so that the processes queued behind wait about 2.5 ms.

    How, robust to a process that dies anywhere: a process takes a ticket (a counter in the sidecar's
    first bytes, changed under a record lock on byte 0), locks its ticket's place (a byte of the
    sidecar), and has its turn once the process ``cores`` tickets before it has unlocked its place. So
    there are ``cores`` chains, each one process after another, and each waiter is woken alone by the
    one unlock it waits for (``flock`` wakes every waiter). The kernel drops a dead process's locks, so
    the queue moves past it. A process keeps its place between writes until its turn is over; one that
    stops writing keeps it until its next write, so a waiter that finds it idle (a byte per place in
    the sidecar says whether its holder is inside a write) after ``_IDLE`` seconds goes on without it.
    Turns are advisory: the gate and SQLite's lock still exclude writers.
    """

    def __init__(self, fd: int, shared: mmap.mmap) -> None:
        self._fd = fd
        self._shared = shared  # the ticket counter, then one "inside a write" byte per place
        self._width = _cores()
        self._state = threading.Lock()  # guards the lease
        self._lease: _Lease | None = None
        # Threads that wait for places. One still blocked for a place given up earlier (its holder went
        # idle) cannot serve another wait, so there are as many as such places at once, usually one.
        self._waiters: list[_Waiter] = []

    @classmethod
    def open(cls, fd: int) -> _Queue | None:
        """The queue on an open sidecar, or None where the sidecar cannot hold it (opened read-only)."""
        size = _COUNTER.size + _PLACES
        try:
            if os.fstat(fd).st_size < size:
                os.ftruncate(fd, size)  # no race: every writer of the file makes it this size
            shared = mmap.mmap(fd, size)
        except (OSError, ValueError):
            return None
        return cls(fd, shared)

    def admit(self, timeout: float, admitting: threading.Lock) -> tuple[_Lease | None, bool]:
        """This process's current turn, or a new one after waiting for it; and whether it waited."""
        with self._state:
            lease = self._lease
            if lease is not None and time.monotonic() < lease.ends:
                return self._join(lease), False
        started = time.monotonic()
        if not admitting.acquire(timeout=max(timeout, 0.0)):  # one thread of the process queues
            raise GateBusy(f"other threads held the database's write queue for {timeout:g} s")
        try:
            with self._state:  # another thread of this process may have got a turn meanwhile
                lease = self._lease
                if lease is not None and time.monotonic() < lease.ends:
                    return self._join(lease), False
            place, waited = self._enter(max(0.0, timeout - (time.monotonic() - started)))
            if place is None:
                return None, waited
            lease = _Lease(place, time.monotonic() + self._turn(place))
            with self._state:
                self._lease = lease
                return self._join(lease), waited
        finally:
            admitting.release()

    def _turn(self, place: int) -> float:
        """Seconds of writes for a turn starting now: the processes queued behind this one wait about
        ``queued / cores`` turns, so a turn is as long as keeps that near ``_WAIT``."""
        (issued,) = _COUNTER.unpack_from(self._shared)
        queued = (issued - place) % _PLACES  # tickets taken after this process's own (place - 1)
        return min(_TURN_MAX, max(_TURN_MIN, _WAIT * self._width / max(queued, self._width)))

    def _join(self, lease: _Lease) -> _Lease:
        lease.calls += 1
        self._shared[_COUNTER.size + lease.place - 1] = 1
        return lease

    def leave(self, lease: _Lease, *, hand_on: bool = False) -> None:
        """One write of ``lease`` is done. The place is kept even when the turn is over: the next write
        gives it up only once it has its own ticket, right before it sleeps, so that the process woken
        by the hand-over does not take the core from a write still running (a process that stops
        writing is passed by the one behind it, see :meth:`_enter`)."""
        with self._state:
            lease.calls -= 1
            if not lease.calls:
                if hand_on or self._lease is not lease:  # or a newer turn of this process replaced it
                    self._end(lease)
                else:
                    self._shared[_COUNTER.size + lease.place - 1] = 0  # idle until its next write

    def _end(self, lease: _Lease) -> None:
        """Give up the lease's place (with the state held)."""
        if not lease.over:
            lease.over = True
            if self._lease is lease:
                self._lease = None
            _unlock(self._fd, lease.place)

    def _enter(self, timeout: float) -> tuple[int | None, bool]:
        """Take a ticket and wait for its turn: its place (None when no place could be had: then the
        writer goes on without one) and whether it waited."""
        fd = self._fd
        _lock(fd, 0, wait=True)  # held for two memory accesses and a lock that never waits
        try:
            (ticket,) = _COUNTER.unpack_from(self._shared)
            _COUNTER.pack_into(self._shared, 0, ticket + 1)
            mine = 1 + ticket % _PLACES
            if not _lock(fd, mine, wait=False):  # more writers than places: go without one
                return None, False
        finally:
            _unlock(fd, 0)
        self._shared[_COUNTER.size + mine - 1] = 1  # waiting counts as busy: not to be passed
        with self._state:  # the turn this process had is over: hand it on
            previous = self._lease
            if previous is not None and not previous.calls:
                self._end(previous)
        ahead = 1 + (ticket - self._width) % _PLACES
        if _lock(fd, ahead, wait=False):
            _unlock(fd, ahead)
            return mine, False
        waiter = next((waiter for waiter in self._waiters if not waiter.busy), None)
        if waiter is None:
            waiter = _Waiter(fd, _wait_for_place, _unlock)
            self._waiters.append(waiter)
        deadline = time.monotonic() + timeout
        waiter.start(ahead)
        while True:
            left = deadline - time.monotonic()
            if waiter.granted(min(left, _IDLE)):
                _unlock(fd, ahead)
                return mine, True
            if not self._shared[_COUNTER.size + ahead - 1]:  # its holder is between writes
                waiter.abandon()
                return mine, True
            if left <= _IDLE:
                waiter.abandon()
                _unlock(fd, mine)  # the writers behind this one move up
                raise GateBusy(f"other writers held the database's write queue for {timeout:g} s")


class _Waiter:
    """A thread that makes the blocking lock call for a writer waiting in the queue with a timeout (a
    blocking ``fcntl`` can neither be given a timeout nor be interrupted). It lives as long as the
    process, so a wait costs two thread switches rather than a thread's start."""

    def __init__(self, fd: int, lock: Callable[[int, int], bool], unlock: Callable[[int, int], None]) -> None:
        self._fd = fd
        self._lock = lock  # (fd, place): blocks until it has the place (False: gave up on an error)
        self._unlock = unlock
        self._job = threading.Lock()
        self._job.acquire()  # released to hand the thread a place to wait for
        self._done = threading.Lock()
        self._done.acquire()  # released when the place is locked for the writer
        self._state = threading.Lock()
        self._place = 0
        self._abandoned = False
        self.busy = False  # blocked for a writer, possibly one that gave up
        threading.Thread(target=self._serve, name="tablewright-write-queue", daemon=True).start()

    def start(self, place: int) -> None:
        """Have the thread lock ``place`` (only when it is not :attr:`busy`)."""
        self.busy = True
        self._place = place
        self._job.release()

    def granted(self, timeout: float) -> bool:
        """Whether the thread locked the place within ``timeout`` seconds (if not, it goes on waiting:
        ask again, or :meth:`abandon` the place)."""
        return self._done.acquire(timeout=max(timeout, 0.0))

    def abandon(self) -> None:
        """The writer goes on without the place: unlock it whenever the thread gets it."""
        with self._state:
            if self._done.acquire(blocking=False):  # got it meanwhile
                self._unlock(self._fd, self._place)
            elif self.busy:
                self._abandoned = True

    def adopt(self) -> bool:
        """Take over a wait given up earlier, if the thread is still in it (then ask :meth:`granted`)."""
        with self._state:
            if self.busy:
                self._abandoned = False
                return True
            return False

    def _serve(self) -> None:
        while True:
            self._job.acquire()
            place = self._place
            try:
                got = self._lock(self._fd, place)
            except OSError:  # pragma: no cover - ENOLCK and the like: the writer goes on as if it had it
                got = False
            with self._state:
                self.busy = False
                if self._abandoned:
                    self._abandoned = False
                    if got:
                        self._unlock(self._fd, place)
                else:
                    self._done.release()
