"""WAL upkeep (engine/wal_upkeep.py): checkpoints and WAL syncs run on a thread of their own, one process
at a time, at the thresholds the module names, also in a forked child; writes through the engine keep the
WAL short without a writer doing it."""

from __future__ import annotations

import gc
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablewright.engine import Engine
from tablewright.engine.wal_upkeep import (
    CHECKPOINT_FRAMES,
    CROWDED_CHECKPOINT_FRAMES,
    SYNC_FRAMES,
    WalUpkeep,
)
from tablewright.engine.write_gate import gate_for

from .support.tables import file_with_table, keyed_table
from .support.waiting import eventually

TABLE = keyed_table("items", "pk", "S")
PAGE = 4096
THREAD_NAME = "tablewright-wal-upkeep"


def put(pk: str) -> dict:
    return {"TableName": "items", "Item": {"pk": {"S": pk}}}


def wal_frames(database: Path) -> tuple[int, int]:
    """``(mxFrame, nBackfill)`` of the wal-index header in ``-shm`` (sqlite.org/walformat.html, 2.1)."""
    header = Path(f"{database}-shm").read_bytes()[:100]
    return int.from_bytes(header[16:20], sys.byteorder), int.from_bytes(header[96:100], sys.byteorder)


def wal_pages_pending(database: Path) -> int:
    last, backfilled = wal_frames(database)
    return last - backfilled


def upkeep_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == THREAD_NAME}


# ------------------------------------------------------------------------- the upkeep on its own


@pytest.fixture
def wal_file(tmp_path: Path) -> Iterator[tuple[Path, sqlite3.Connection]]:
    """A WAL database that SQLite never checkpoints by itself, and a connection writing it."""
    path = tmp_path / "plain.db"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE pages (n INTEGER PRIMARY KEY, body BLOB)")
    yield path, writer
    writer.close()


def append_frames(writer: sqlite3.Connection, path: Path, pending: int) -> None:
    """Commit page-sized rows, one per transaction, until ``pending`` frames wait in the WAL."""
    number = 0
    while wal_pages_pending(path) < pending:
        number += 1
        writer.execute("INSERT OR REPLACE INTO pages VALUES (?, ?)", (number % 50, os.urandom(PAGE // 2)))


def upkeep_of(path: Path) -> WalUpkeep:
    return WalUpkeep(str(path), gate_for(str(path)))


def look(upkeep: WalUpkeep, *, crowded: bool) -> None:
    """The commits after which a writer looks at the WAL, with the file's writers crowded or not."""
    gate_for(upkeep.path).crowded = crowded
    for _ in range(4):
        upkeep.after_commit()


def test_frames_appended_unsynced_are_synced_without_a_checkpoint(wal_file) -> None:
    path, writer = wal_file
    upkeep = upkeep_of(path)
    try:
        append_frames(writer, path, SYNC_FRAMES - 20)
        look(upkeep, crowded=False)
        append_frames(writer, path, SYNC_FRAMES + 1)
        look(upkeep, crowded=False)
        eventually(lambda: upkeep.syncs == 1, "the WAL was not synced")
        assert upkeep.checkpoints == 0
        assert wal_pages_pending(path) > SYNC_FRAMES, "a sync copies nothing into the database"
        append_frames(writer, path, wal_pages_pending(path) + SYNC_FRAMES - 20)
        look(upkeep, crowded=False)  # fewer than SYNC_FRAMES since the sync: nothing to do
    finally:
        upkeep.close()  # waits for the thread, so whatever it did is done
    assert (upkeep.syncs, upkeep.checkpoints) == (1, 0)


def test_a_checkpoint_is_due_at_its_threshold_and_later_while_crowded(wal_file) -> None:
    path, writer = wal_file
    upkeep = upkeep_of(path)
    try:
        append_frames(writer, path, CHECKPOINT_FRAMES + 10)
        look(upkeep, crowded=True)  # crowded writers wait for 4,000 pages: only a sync now
        eventually(lambda: upkeep.syncs == 1)
        assert upkeep.checkpoints == 0 and wal_pages_pending(path) >= CHECKPOINT_FRAMES
        look(upkeep, crowded=False)
        eventually(lambda: upkeep.checkpoints == 1, "no checkpoint past its threshold")
        assert wal_pages_pending(path) == 0
        append_frames(writer, path, CROWDED_CHECKPOINT_FRAMES)
        look(upkeep, crowded=True)
        eventually(lambda: upkeep.checkpoints == 2, "no checkpoint past the crowded threshold")
    finally:
        upkeep.close()


def test_closing_ends_the_thread_and_a_closed_upkeep_starts_none(wal_file) -> None:
    path, writer = wal_file
    before = upkeep_threads()
    upkeep = upkeep_of(path)
    append_frames(writer, path, SYNC_FRAMES + 1)
    look(upkeep, crowded=False)
    started = upkeep_threads() - before
    assert len(started) == 1
    upkeep.close()
    assert not any(thread.is_alive() for thread in started)
    append_frames(writer, path, CHECKPOINT_FRAMES + 1)
    look(upkeep, crowded=False)
    assert upkeep_threads() - before == set() and upkeep.checkpoints == 0


def test_a_file_without_a_wal_index_is_left_alone(tmp_path: Path) -> None:
    before = upkeep_threads()
    upkeep = upkeep_of(tmp_path / "missing.db")
    look(upkeep, crowded=False)
    assert upkeep_threads() - before == set()
    upkeep.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_forked_child_gets_an_upkeep_thread_of_its_own(wal_file) -> None:
    path, writer = wal_file
    upkeep = upkeep_of(path)
    append_frames(writer, path, SYNC_FRAMES + 1)
    look(upkeep, crowded=False)  # the parent's thread, which the child does not inherit
    eventually(lambda: upkeep.syncs == 1)
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child, which reports through its exit status
        status = 1
        try:
            own = sqlite3.connect(path, isolation_level=None)
            own.execute("PRAGMA wal_autocheckpoint=0")
            append_frames(own, path, CHECKPOINT_FRAMES + 10)
            look(upkeep, crowded=False)
            eventually(lambda: upkeep.checkpoints == 1)
            status = 0 if wal_pages_pending(path) == 0 else 2
        finally:
            os._exit(status)
    _, status = os.waitpid(child, 0)
    upkeep.close()
    assert os.waitstatus_to_exitcode(status) == 0, "the child's writes were not checkpointed"
    assert upkeep.checkpoints == 0, "the parent's thread did the child's work"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_child_forked_while_a_thread_held_the_upkeeps_lock_still_gets_its_thread(wal_file) -> None:
    path, _ = wal_file
    upkeep = upkeep_of(path)
    # The lock is private; holding it from outside is the only way to fork at that moment every time
    # (in use another thread holds it for microseconds, in _wake, _frames or close).
    with upkeep._lock:
        child = os.fork()
        if child == 0:  # pragma: no cover - runs in the child, which reports through its exit status
            status = 1
            try:
                own = sqlite3.connect(path, isolation_level=None)
                own.execute("PRAGMA wal_autocheckpoint=0")
                append_frames(own, path, CHECKPOINT_FRAMES + 10)
                look(upkeep, crowded=False)
                eventually(lambda: upkeep.checkpoints == 1)
                status = 0
            finally:
                os._exit(status)
    deadline = time.monotonic() + 20
    while (done := os.waitpid(child, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        pytest.fail("the child hung on the lock its parent's thread held at the fork")
    upkeep.close()
    assert os.waitstatus_to_exitcode(done[1]) == 0, "the child's writes were not checkpointed"


# ------------------------------------------------------------------------- through the engine


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return file_with_table(tmp_path / "gate.db", TABLE)


def test_writes_keep_the_wal_short_and_closing_stops_the_thread(database) -> None:
    before = upkeep_threads()
    with Engine(str(database)) as engine:
        restarts, highest, previous = 0, 0, 0
        for number in range(8_000):
            engine.handle("PutItem", put(f"k{number}"))
            last, _ = wal_frames(database)
            restarts += last < previous  # the WAL was reused from its start: everything was copied
            highest, previous = max(highest, last), last
        started = upkeep_threads() - before
        assert len(started) == 1, "no upkeep thread, or one per write"
    assert not any(thread.is_alive() for thread in started), "the thread outlived its engine"
    assert restarts >= 2, "the WAL was never checkpointed and reused"
    # SQLite's own checkpoint in COMMIT is set to 8,000 pages: the upkeep's come long before.
    assert highest < 3 * CHECKPOINT_FRAMES


def test_an_engine_dropped_without_close_leaves_no_upkeep_thread(database) -> None:
    before = upkeep_threads()
    engine = Engine(str(database))
    for number in range(2_000):  # past SYNC_FRAMES: the thread starts
        engine.handle("PutItem", put(f"k{number}"))
    started = upkeep_threads() - before
    assert len(started) == 1
    del engine
    gc.collect()
    eventually(lambda: not any(thread.is_alive() for thread in started), "the thread outlived its engine")


# Claims the right to checkpoint the file (after a write, which opens the sidecar) until stdin closes.
HOLD_CHECKPOINT = """
import sys
from tablewright.engine import Engine
from tablewright.engine.write_gate import gate_for
with Engine(sys.argv[1]) as engine:
    engine.handle("PutItem", {"TableName": "items", "Item": {"pk": {"S": "holder"}}})
    print("claimed" if gate_for(sys.argv[1]).claim_checkpoint() else "refused", flush=True)
    sys.stdin.read()
"""


def write_until_pending(engine: Engine, database: Path, pages: int) -> None:
    number = 0
    while wal_pages_pending(database) < pages:
        number += 1
        engine.handle("PutItem", put(f"k{number}"))
        assert number < 50_000, "the WAL did not grow"


def talking_child(script: str, database: Path, first_line: str) -> subprocess.Popen:
    """A child running ``script`` on ``database``, returned once it printed ``first_line``."""
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(database)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout.readline().strip() == first_line  # type: ignore[union-attr]
    return child


def test_only_one_process_checkpoints_at_a_time(database) -> None:
    holder = talking_child(HOLD_CHECKPOINT, database, "claimed")
    try:
        with Engine(str(database)) as engine:
            write_until_pending(engine, database, 1200)  # past 950: this process would checkpoint now
            for number in range(40):
                engine.handle("PutItem", put(f"more{number}"))
            assert wal_pages_pending(database) >= 1200, "it checkpointed while another process had the claim"
            holder.stdin.close()  # type: ignore[union-attr]
            holder.wait(timeout=30)
            writes = iter(range(10**6))  # the claim is free again: a look after a write checkpoints

            def checkpointed() -> bool:
                engine.handle("PutItem", put(f"after{next(writes)}"))
                return wal_pages_pending(database) < 100

            eventually(checkpointed, "no checkpoint once the claim was free")
            eventually(gate_for(str(database)).claim_checkpoint, "the checkpoint kept its claim")
            gate_for(str(database)).checkpoint_done()
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait(timeout=30)


# Writes new items in a loop until stdin closes (another process in the way of the test's writes).
KEEP_WRITING = """
import sys, threading
from tablewright.engine import Engine
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
with Engine(sys.argv[1]) as engine:
    number = 0
    print("writing", flush=True)
    while not stop.is_set():
        number += 1
        engine.handle("PutItem", {"TableName": "items", "Item": {"pk": {"S": f"other{number}"}}})
"""


def test_writers_in_each_others_way_checkpoint_less_often(database) -> None:
    other = talking_child(KEEP_WRITING, database, "writing")
    try:
        with Engine(str(database)) as engine:
            highest, checkpointed = 0, False
            for number in range(60_000):
                engine.handle("PutItem", put(f"k{number}"))
                pending = wal_pages_pending(database)
                checkpointed = highest > 1500 and pending < highest // 2
                if checkpointed:
                    break
                highest = max(highest, pending)
            assert checkpointed, f"no checkpoint while two processes wrote (highest pending {highest})"
            assert 2000 < highest < 8100, "crowded writers checkpoint at 4,000 pages, not at 950 nor later"
    finally:
        other.stdin.close()  # type: ignore[union-attr]
        other.wait(timeout=30)
