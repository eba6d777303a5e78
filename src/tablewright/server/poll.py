"""A short poll of the connections before the event loop sleeps, for clients that send their next
request at once.

Why: a server asleep between requests is woken by the kernel when the next one arrives. On
loopback that is an interrupt sent to the server's core and, in a virtual machine, an exit to the
hypervisor and back; on the 2-core VM of docs/benchmarks.md the wake-up costs more than answering a
GetItem. A client sending requests one after another (a test suite, a script, a load generator on
one connection) then waits mostly for the server to wake up. Polling for a short while after
answering turns the wake-up into a check, as Linux's ``busy_poll`` does for network devices and
its ``haltpoll`` idle driver for virtual CPUs.

The poll is bounded and backs off, so that an idle or slow client costs next to nothing: it never
lasts longer than the window, and a poll that times out (nothing came) skips the next turn's poll,
two after a second one in a row, and so on up to ``MAX_SKIPPED``; one that finds a request starts
over. A client slower than the window thus costs one window per ``MAX_SKIPPED`` answers. (Deciding by
how soon a request came after the loop slept does not work: that gap includes the wake-up itself.)
The poll does not yield its core between checks: a client sharing the core was woken by the
answer and the scheduler lets it run first, while a poll that yielded to a busy neighbour would lose
the core for a whole time slice and be woken no sooner than a sleeping loop. Linux only
(``epoll``); elsewhere the loop sleeps as usual.
"""

from __future__ import annotations

import select
import time
from contextlib import suppress

# The window `tablewright serve` polls for (--poll-us): longer than a load generator's or a compiled
# client's turnaround, shorter than a wake-up costs on the benchmark VM.
DEFAULT_WINDOW = 100e-6
MAX_SKIPPED = 64  # turns without a poll after timed-out polls in a row (doubling up to this)


class IdlePoller:
    """The sockets to watch, and how many turns to let pass before polling again.

    ``window``: seconds to poll for (0 turns polling off). The event loop's owner calls
    :meth:`watch`/:meth:`forget` as sockets open and close and :meth:`poll` at the end of a turn
    that answered something.
    """

    def __init__(self, window: float) -> None:
        self.window = window
        self._epoll = select.epoll() if window > 0 and hasattr(select, "epoll") else None
        self._owners: dict[int, object] = {}
        self._skip = 0  # turns left without a poll
        self._backoff = 1  # turns to skip after the next poll that times out
        # What the polls did, for the curious and for tests: found input, timed out, were skipped.
        self.found = self.timed_out = self.skipped = 0

    @property
    def enabled(self) -> bool:
        return self._epoll is not None

    def watch(self, fd: int, owner: object) -> None:
        """Count input on ``fd`` as a reason to stop polling."""
        if self._epoll is None:
            return
        try:
            self._epoll.register(fd, select.EPOLLIN)
        except FileExistsError:  # a closed socket's number reused before its owner forgot it
            self._epoll.modify(fd, select.EPOLLIN)
        self._owners[fd] = owner

    def forget(self, fd: int, owner: object) -> None:
        """Stop watching ``fd``, unless another owner has taken its number meanwhile."""
        if self._owners.get(fd) is owner:
            del self._owners[fd]
            with suppress(OSError):  # closing the socket may have removed it already
                self._epoll.unregister(fd)

    def poll(self) -> None:
        """Return when a watched socket has input, or after the window (or at once, backing off)."""
        if self._skip:
            self._skip -= 1
            self.skipped += 1
            return
        ready = self._epoll.poll
        clock = time.perf_counter
        end = clock() + self.window
        while not ready(0):
            if clock() > end:
                self._skip = self._backoff
                self._backoff = min(2 * self._backoff, MAX_SKIPPED)
                self.timed_out += 1
                return
        self._backoff = 1
        self.found += 1

    def close(self) -> None:
        if self._epoll is not None:
            self._epoll.close()
            self._owners.clear()
