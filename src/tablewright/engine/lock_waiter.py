"""A thread that makes blocking lock calls for writers that wait with a timeout (a blocking ``flock`` or
``fcntl`` can neither be given a timeout nor be interrupted): the write gate's ``flock`` and the turn
queue's record locks (write_gate.py, write_turns.py)."""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable


class LockWaiter:
    """A thread that makes the blocking lock call for a writer waiting in the queue with a timeout (a
    blocking ``fcntl`` can neither be given a timeout nor be interrupted). It serves every wait of its
    ``owner`` (the lock or queue it waits for), so a wait costs two thread switches rather than a
    thread's start; when the owner goes, it ends, once any blocking call it is in has returned. It locks through its own duplicate of ``fd``: the owner closes ``fd`` when it
    goes, possibly while the thread is still blocked, and the number may then name another open file,
    whose lock an unlock through it would drop. Locks belong to the open file (or the process), which the
    duplicate shares, so they are the owner's all the same."""

    def __init__(
        self,
        fd: int,
        lock: Callable[[int, int], bool],
        unlock: Callable[[int, int], None],
        *,
        owner: object,
    ) -> None:
        self._fd = os.dup(fd)
        self._lock = lock  # (fd, place): blocks until it has the place (False: gave up on an error)
        self._unlock = unlock
        self._job = threading.Lock()
        self._job.acquire()  # released to hand the thread a place to wait for
        self._done = threading.Lock()
        self._done.acquire()  # released when the place is locked for the writer
        self._state = threading.Lock()
        self._place = 0
        self._abandoned = False
        self._closing = False
        self.busy = False  # blocked for a writer, possibly one that gave up
        self._thread = threading.Thread(target=self._serve, name="tablewright-write-queue", daemon=True)
        self._thread.start()
        weakref.finalize(owner, self.close)

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

    def close(self) -> None:
        """End the thread: now if it is idle, else when its blocking call returns (it then unlocks what
        it got). Called when the owner goes."""
        if not self._thread.is_alive():  # a forked child's copy: the thread stayed in the parent
            os.close(self._fd)
            return
        with self._state:
            self._closing = True
            idle = not self.busy
        if idle:
            self._job.release()

    def _serve(self) -> None:
        while True:
            self._job.acquire()
            if self._closing:
                break
            place = self._place
            try:
                got = self._lock(self._fd, place)
            except OSError:  # pragma: no cover - ENOLCK and the like: the writer goes on as if it had it
                got = False
            with self._state:
                self.busy = False
                if self._abandoned or self._closing:
                    self._abandoned = False
                    if got:
                        self._unlock(self._fd, place)
                    if self._closing:
                        break
                else:
                    self._done.release()
        os.close(self._fd)
