"""WAL upkeep off the request path: a thread per writing store checkpoints the file and syncs its WAL.

Why: disk work used to land on single write requests, and through the write gate on every writer queued
behind them (measured with 8 processes writing one file, docs/storage.md):

* checkpoints (copy the WAL into the database, sync both: 5-80 ms on a busy disk), which a writer ran
  itself after its commit;
* the end of each WAL cycle. SQLite reuses the WAL from its start only once a checkpoint copied all of
  it, which with writers appending all the while happened only in SQLite's own checkpoint inside some
  writer's COMMIT, at 8,000 pages, under the write lock; the first write after the reuse then syncs the
  WAL's header, and with it every frame appended unsynced since the last checkpoint. Together 50-75 ms
  during which every writer of the file waited.

Here writers only look (every few commits, a read of the ``-shm`` file's header, no lock) and hand what
is due to this thread. It checkpoints while the writers go on, then copies what they appended meanwhile
holding the write gate (a few milliseconds: little is left), so that the next write reuses the WAL; and
between checkpoints it syncs the WAL whenever enough frames were appended unsynced, so that the header
sync on reuse has little left to write. None of this changes what is stored or when a commit is durable.
One process at a time does upkeep (the write gate's checkpoint claim).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import struct
import threading
import weakref

from .write_gate import GateBusy, WriteGate

__all__ = ["WalUpkeep"]

# Frames (pages) pending in the WAL before a checkpoint: about as often as SQLite's own (1,000), each
# checkpoint's sync costing much the same whatever it copies.
CHECKPOINT_FRAMES = 950
# While writers of other processes get in each other's way, 16 MB of WAL: each checkpoint's sync commits
# the file system's journal, and every other process's next write waits for that commit (ext4 journals
# the WAL's new modification time), so there the tail of every writer's latency follows the syncs.
CROWDED_CHECKPOINT_FRAMES = 4000
# Frames appended since the WAL was last synced before this thread syncs it (2 MB): about the most the
# header sync of a reused WAL has left to write.
SYNC_FRAMES = 512
# macOS and Windows have no fdatasync; fsync also writes the file's metadata, a little more work.
_sync_data = getattr(os, "fdatasync", os.fsync)
# Writers look at the WAL every 4th commit (a read of the -shm file's header, about a microsecond).
_LOOK_EVERY = 4
# Seconds the thread waits for the write gate to finish a cycle before leaving it to the next checkpoint.
_GATE_WAIT = 1.0

_upkeeps: weakref.WeakSet[WalUpkeep] = weakref.WeakSet()


def _forget_after_fork() -> None:
    """A forked child has none of its parent's threads: a lock one of them held at the fork would stay
    held in the child for ever, and the parent's thread is not there to wake."""
    for upkeep in list(_upkeeps):
        upkeep._lock = threading.Lock()
        upkeep._thread = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


class WalUpkeep:
    """Checkpoints and WAL syncs of one database file, done by a thread of this process.

    ``gate``: the file's write gate, held while a cycle is finished, and whose checkpoint claim keeps the
    upkeep to one process at a time. ``synchronous``: the store's setting, which the checkpoints' syncs
    follow. ``checkpoints`` and ``syncs`` count what this process's thread did.
    """

    def __init__(self, path: str, gate: WriteGate, *, synchronous: str = "NORMAL") -> None:
        self.path = path
        self._gate = gate
        self._synchronous = synchronous
        self.checkpoints = 0
        self.syncs = 0
        self._wal_index: int | None = None  # the -shm file, whose header says how far the WAL got
        self._commits = 0
        self._synced = 0  # the WAL's last frame known synced (by this process)
        self._checkpoint_due = False  # what the last writer to look found: a checkpoint, or a sync
        self._wanted = threading.Event()
        self._thread: threading.Thread | None = None
        self._closing = False
        self._lock = threading.Lock()
        _upkeeps.add(self)

    def after_commit(self) -> None:
        """Called by a writer after each commit (not holding the gate): every ``_LOOK_EVERY``th, hand
        the thread what is due, if anything."""
        self._commits += 1  # shared by threads: a lost count only moves a look
        if self._commits % _LOOK_EVERY:
            return
        frames = self._frames()
        if frames is None:
            return
        last, backfilled = frames
        if last < self._synced:  # the WAL was reused from its start (its header synced by SQLite)
            self._synced = 0
        # Crowded: writers of other processes are in each other's way (see CROWDED_CHECKPOINT_FRAMES).
        crowded = self._gate.crowded
        due = last - backfilled >= (CROWDED_CHECKPOINT_FRAMES if crowded else CHECKPOINT_FRAMES)
        if due or last - self._synced >= SYNC_FRAMES:
            self._checkpoint_due = due
            self._wake()

    def close(self) -> None:
        """Stop the thread once the work it is doing is done (the store is closing)."""
        with self._lock:
            self._closing = True
            thread, self._thread = self._thread, None
        self._wanted.set()
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            thread.join(timeout=10)
        with self._lock:  # after the thread, which reads it
            if self._wal_index is not None and self._wal_index >= 0:
                os.close(self._wal_index)
            self._wal_index = -1

    # ------------------------------------------------------------------------------------------ thread

    def _wake(self) -> None:
        if self._thread is None:  # none yet, or a forked child (see _forget_after_fork)
            with self._lock:
                if self._closing:
                    return
                if self._thread is None:
                    self._wanted = threading.Event()
                    self._thread = threading.Thread(
                        target=self._serve, args=(self._wanted,), name="tablewright-wal-upkeep", daemon=True
                    )
                    self._thread.start()
        self._wanted.set()

    def _serve(self, wanted: threading.Event) -> None:
        conn: sqlite3.Connection | None = None
        wal = -1
        try:
            while True:
                wanted.wait()
                wanted.clear()
                if self._closing:
                    return
                if conn is None:
                    conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                    conn.execute(f"PRAGMA synchronous={self._synchronous}")
                    wal = _open(f"{self.path}-wal")
                frames = self._frames()
                if frames is not None and self._gate.claim_checkpoint():
                    try:
                        self._upkeep(conn, wal, *frames)
                    finally:
                        self._gate.checkpoint_done()
        except (sqlite3.Error, OSError):
            return  # the file went or cannot be opened: SQLite's own checkpoints in COMMIT take over
        finally:
            if conn is not None:
                conn.close()
            if wal >= 0:
                os.close(wal)

    def _upkeep(self, conn: sqlite3.Connection, wal: int, last: int, backfilled: int) -> None:
        if self._checkpoint_due and last > backfilled:
            self._checkpoint_due = False
            self._checkpoint(conn)  # the bulk, while the writers go on
            frames = self._frames()
            if frames is not None and frames[0] > frames[1]:
                self._finish_cycle(conn)
            self._synced = last
        elif wal >= 0 and last > self._synced:
            _sync_data(wal)
            self.syncs += 1
            self._synced = last

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        # PASSIVE: never waits for readers or writers (copies what they allow); syncs the WAL first.
        with contextlib.suppress(sqlite3.OperationalError):
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            self.checkpoints += 1

    def _finish_cycle(self, conn: sqlite3.Connection) -> None:
        """Copy the frames written during the checkpoint with the gate held, so that the whole WAL is in
        the database and the next write starts it over (without it, the WAL grows to SQLite's 8,000
        pages and a writer's COMMIT does this)."""
        try:
            self._gate.acquire(_GATE_WAIT)
        except GateBusy:
            return
        try:
            self._checkpoint(conn)
        finally:
            self._gate.release()

    def _frames(self) -> tuple[int, int] | None:
        """``(mxFrame, nBackfill)`` of the wal-index header (https://sqlite.org/walformat.html, 2.1:
        native byte order, at bytes 16 and 96 of ``-shm``), read without SQLite's locks: a heuristic.
        None where the file cannot be read."""
        if self._wal_index is None:
            with self._lock:
                if self._wal_index is None:
                    self._wal_index = _open(f"{self.path}-shm")
        if self._wal_index < 0:
            return None
        try:
            header = os.pread(self._wal_index, 100, 0)
        except OSError:
            return None
        if len(header) < 100:
            return None
        return struct.unpack_from("=I", header, 16)[0], struct.unpack_from("=I", header, 96)[0]


def _open(path: str) -> int:
    try:
        return os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return -1
