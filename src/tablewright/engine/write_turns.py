"""Turns for the processes writing one database file (see :class:`TurnQueue`): once writers of
different processes get in each other's way at the write gate (write_gate.py), each write request first
waits for its process's turn, so that no more processes write at once than there are cores.

The sidecar's layout: a ticket counter (8 bytes), one "inside a write" byte per place, then one futex
word per place (4 bytes each, where futexes are to be had, see futex.py).
"""

from __future__ import annotations

import mmap
import os
import struct
import threading
import time

from . import futex
from .lock_waiter import LockWaiter

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no turns; processes use SQLite's wait
    fcntl = None  # type: ignore[assignment]


class GateBusy(Exception):
    """The write gate or the turn queue was not free in time (the storage turns it into SQLite's busy
    error)."""


# Queue places are bytes 1 .. _PLACES of the sidecar, locked with fcntl record locks (byte 0 guards
# the ticket counter, the sidecar's first 8 bytes). More places than writers can ever wait at once.
_PLACES = 4096
# Seconds a waiter waits before it looks whether the process ahead of it is between writes.
_IDLE = 0.01
_COUNTER = struct.Struct("=Q")
# Where the futex words begin: a place's holder changes its word and wakes it when it gives the place up.
_WORDS = _COUNTER.size + _PLACES
# A process's turn lasts long enough to make its hand-over cheap beside its writes, and short enough
# that the processes queued behind it wait about _WAIT seconds (see TurnQueue._turn), within these bounds.
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


def claim(fd: int, offset: int) -> bool:
    """Lock the byte at ``offset`` of the open sidecar ``fd``, unless another open file holds it."""
    return _lock(fd, offset, wait=False)


def give_up(fd: int, offset: int) -> None:
    """Unlock a byte locked by :func:`claim`."""
    _unlock(fd, offset)


def _wait_for_place(fd: int, offset: int) -> bool:
    return _lock(fd, offset, wait=True)


class Lease:
    """A process's turn in the queue: its place, when it ends, and how many of its writes run in it."""

    __slots__ = ("place", "ends", "calls", "over")

    def __init__(self, place: int, ends: float) -> None:
        self.place = place
        self.ends = ends
        self.calls = 0
        self.over = False


class TurnQueue:
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
    one hand-over it waits for: it sleeps on the place's futex word, which the holder changes and wakes
    after unlocking (where there are no futexes, a thread of the waiter blocks in the lock instead). The
    kernel drops a dead process's locks, and a sleeper tries the lock again every ``_IDLE`` seconds, so
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
        self._lease: Lease | None = None
        # Threads that wait for places. One still blocked for a place given up earlier (its holder went
        # idle) cannot serve another wait, so there are as many as such places at once, usually one.
        self._waiters: list[LockWaiter] = []
        # Where futexes are to be had, a waiter sleeps on its place's word instead (one wake-up a turn).
        self._words: memoryview | None = None
        self._first_word = 0
        if futex.AVAILABLE:
            self._words = memoryview(shared)[_WORDS:].cast("I")
            self._first_word = futex.address(shared, _WORDS)

    @classmethod
    def open(cls, fd: int) -> TurnQueue | None:
        """The queue on an open sidecar, or None where the sidecar cannot hold it (opened read-only)."""
        size = _WORDS + 4 * _PLACES
        try:
            if os.fstat(fd).st_size < size:
                os.ftruncate(fd, size)  # no race: every writer of the file makes it this size
            shared = mmap.mmap(fd, size)
        except (OSError, ValueError):
            return None
        return cls(fd, shared)

    def admit(self, timeout: float, admitting: threading.Lock) -> tuple[Lease | None, bool]:
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
            lease = Lease(place, time.monotonic() + self._turn(place))
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

    def _join(self, lease: Lease) -> Lease:
        lease.calls += 1
        self._shared[_COUNTER.size + lease.place - 1] = 1
        return lease

    def leave(self, lease: Lease) -> None:
        """One write of ``lease`` is done. The place is kept even when the turn is over: the next write
        gives it up only once it has its own ticket, right before it sleeps, so that the process woken
        by the hand-over does not take the core from a write still running (a process that stops
        writing is passed by the one behind it, see :meth:`_enter`)."""
        with self._state:
            lease.calls -= 1
            if not lease.calls:
                if self._lease is not lease:  # a newer turn of this process replaced it
                    self._end(lease)
                else:
                    self._shared[_COUNTER.size + lease.place - 1] = 0  # idle until its next write

    def _end(self, lease: Lease) -> None:
        """Give up the lease's place (with the state held)."""
        if not lease.over:
            lease.over = True
            if self._lease is lease:
                self._lease = None
            _unlock(self._fd, lease.place)
            words = self._words
            if words is not None:  # after the unlock: a waiter that saw the old word finds the place free
                index = lease.place - 1
                words[index] = (words[index] + 1) & 0xFFFFFFFF
                futex.wake(self._first_word + 4 * index)

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
        if self._words is not None:
            self._sleep_for(ahead, mine, timeout)
            return mine, True
        waiter = next((waiter for waiter in self._waiters if not waiter.busy), None)
        if waiter is None:
            waiter = LockWaiter(fd, _wait_for_place, _unlock, owner=self)
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
                raise self._timed_out(mine, timeout)

    def _timed_out(self, mine: int, timeout: float) -> GateBusy:
        """Give up place ``mine``, so that the writers behind this one move up: the error of a wait for a
        turn that ran out of time."""
        _unlock(self._fd, mine)
        return GateBusy(f"other writers held the database's write queue for {timeout:g} s")

    def _sleep_for(self, ahead: int, mine: int, timeout: float) -> None:
        """Sleep on the futex word of place ``ahead`` until its holder gives the place up, is found
        between writes after ``_IDLE`` seconds without a wake-up, or has died (its lock is tried again
        after every wait); GateBusy after ``timeout`` seconds."""
        fd = self._fd
        words = self._words
        assert words is not None
        index = ahead - 1
        word = self._first_word + 4 * index
        deadline = time.monotonic() + timeout
        while True:
            seen = words[index]  # before the lock is tried: its holder changes the word after unlocking
            if _lock(fd, ahead, wait=False):
                _unlock(fd, ahead)
                return
            slept = time.monotonic()
            if slept >= deadline:
                raise self._timed_out(mine, timeout)
            futex.wait(word, seen, min(deadline - slept, _IDLE))
            quiet = words[index] == seen and time.monotonic() - slept >= _IDLE
            if quiet and not self._shared[_COUNTER.size + index]:  # its holder is between writes
                return
