"""Crash safety: acknowledged writes survive SIGKILL, transactions are never half-applied.

A child process (support/crash_child.py) writes to a SQLite file through the Engine - single PutItems,
BatchWriteItems and TransactWriteItems that move money between accounts and write an audit item - and
prints each write before and after the call. The parent kills it with SIGKILL after a random number of
acknowledgements, reopens the file with a fresh Engine and checks every invariant; then it starts the
next round on the same file, so recovery itself is also crashed into.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tablewright.engine import Engine

from .support.workload import (
    ACCOUNTS,
    AUDIT_PK,
    INDEX_KEYS,
    INITIAL_BALANCE,
    TABLE,
    TABLE_DEFINITION,
    check_bank,
    create_bank,
    read_all,
)

CHILD = Path(__file__).parent / "support" / "crash_child.py"
ROUNDS_PER_FILE = 3
WATCHDOG_SECONDS = 120  # only to turn a hung child into a failure instead of a hung suite


@dataclass
class History:
    """What one child said: acknowledged writes, declined transfers and the write in flight at the kill."""

    acked: set[tuple[str, str]] = field(default_factory=set)
    declined: set[tuple[str, str]] = field(default_factory=set)
    in_flight: set[tuple[str, str]] = field(default_factory=set)

    def feed(self, line: str) -> None:
        parts = line.split()
        if parts[0] == ">":
            self.in_flight = {(parts[1], parts[2])}
        elif parts[0] == "x":
            self.declined.add((parts[1], parts[2]))
            self.in_flight = set()
        else:
            self.acked.add((parts[0], parts[1]))
            self.in_flight = set()


def run_child(path: Path, seed: int, run: int, kill_after: int) -> History:
    """Start a writer, SIGKILL it once it acknowledged ``kill_after`` writes, return what it said."""
    proc = subprocess.Popen(
        [sys.executable, str(CHILD), str(path), str(seed), str(run)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(WATCHDOG_SECONDS, proc.kill)
    watchdog.start()
    history = History()
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first == "READY\n", (
            f"child did not start: {first!r} {proc.stderr.read() if proc.stderr else ''}"
        )
        acks = 0
        while acks < kill_after:
            line = proc.stdout.readline()
            assert line.endswith("\n"), f"child stopped early: {proc.stderr.read() if proc.stderr else ''}"
            history.feed(line)
            acks += not line.startswith(">")
        os.kill(proc.pid, signal.SIGKILL)
        # Lines the child flushed before it died are still in the pipe; a torn last line is not an ack.
        rest = proc.stdout.read()
        for line in rest.splitlines(keepends=True):
            if line.endswith("\n"):
                history.feed(line)
        proc.wait()
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert proc.returncode == -signal.SIGKILL
    return history


def check_writes(items: list[dict], histories: dict[int, History]) -> None:
    """Acknowledged writes are present; nothing is present that was neither acknowledged nor in flight."""
    present: set[tuple[str, str]] = set()
    for item in items:
        pk, sk = item["pk"]["S"], item["sk"]["S"]
        if pk.startswith("put#"):
            present.add(("P", f"{pk[4:]}/{int(sk)}"))
        elif pk.startswith("batch#"):
            present.add(("B", f"{pk[6:]}/{int(sk.split(':')[0])}"))
        elif pk == AUDIT_PK:
            present.add(("T", sk))
    acked, possible, declined = set(), set(), set()
    for run, history in histories.items():
        for group, target in (
            (history.acked, acked),
            (history.in_flight, possible),
            (history.declined, declined),
        ):
            for kind, ident in group:
                target.add((kind, ident if kind == "T" else f"{run}/{ident}"))
    assert acked - present == set(), "acknowledged writes lost"
    assert present - acked - possible == set(), "writes present that were never acknowledged nor in flight"
    assert present & declined == set(), "a declined transfer left its audit item"


def check_counts_and_indexes(engine: Engine, items: list[dict]) -> None:
    """DescribeTable's counts match a Scan, and each GSI holds exactly the items with its key."""
    table = engine.describe_table({"TableName": TABLE})["Table"]
    assert table["ItemCount"] == len(items)
    keys = [(item["pk"]["S"], item["sk"]["S"]) for item in items]
    assert len(set(keys)) == len(keys), "a Scan returned an item twice"
    described = {index["IndexName"]: index["ItemCount"] for index in table["GlobalSecondaryIndexes"]}
    for index, (hash_name, range_name) in INDEX_KEYS.items():
        members = [item for item in items if hash_name in item and range_name in item]
        entries = read_all(engine, "Scan", {"TableName": TABLE, "IndexName": index})
        assert described[index] == len(members) == len(entries), index
        for item in members:
            found = read_all(
                engine,
                "Query",
                {
                    "TableName": TABLE,
                    "IndexName": index,
                    "KeyConditionExpression": "#h = :h AND #r = :r",
                    "ExpressionAttributeNames": {"#h": hash_name, "#r": range_name},
                    "ExpressionAttributeValues": {":h": item[hash_name], ":r": item[range_name]},
                },
            )
            key = {name: item[name] for name in ("pk", "sk")}
            matches = [f for f in found if {name: f[name] for name in ("pk", "sk")} == key]
            assert len(matches) == 1, f"{index} has no entry for {key}"
            if index == "by_seq":  # projection ALL: the entry reads back as the whole item
                assert matches[0] == item


def verify(path: Path, histories: dict[int, History]) -> None:
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with Engine(str(path)) as engine:
        items = read_all(engine, "Scan", {"TableName": TABLE})
        check_writes(items, histories)
        check_bank(items, ACCOUNTS, INITIAL_BALANCE)
        check_counts_and_indexes(engine, items)


@pytest.mark.parametrize("seed", [11, 22, 33])
def test_sigkill_keeps_acknowledged_writes_and_whole_transactions(tmp_path: Path, seed: int) -> None:
    path = tmp_path / "bank.db"
    with Engine(str(path)) as engine:
        create_bank(engine, ACCOUNTS, INITIAL_BALANCE)
    rng = random.Random(seed)
    histories: dict[int, History] = {}
    acknowledged = 0
    for run in range(ROUNDS_PER_FILE):
        # Sometimes right after opening (recovery path), sometimes deep into a burst of writes.
        kill_after = rng.choice([0, rng.randrange(1, 30), rng.randrange(30, 300)])
        histories[run] = run_child(path, rng.randrange(2**31), run, kill_after)
        acknowledged += len(histories[run].acked)
        verify(path, histories)
    assert acknowledged > 0, "the children never acknowledged a write: the test checked nothing"


def test_first_request_on_reopened_file_sees_its_tables(tmp_path: Path) -> None:
    """Regression: a fresh Engine used to know no tables until its first transaction loaded the catalog."""
    path = str(tmp_path / "reopen.db")
    with Engine(path) as engine:
        engine.create_table(TABLE_DEFINITION)
    with Engine(path) as engine:
        engine.put_item({"TableName": TABLE, "Item": {"pk": {"S": "a"}, "sk": {"S": "b"}}})
        assert engine.get_item({"TableName": TABLE, "Key": {"pk": {"S": "a"}, "sk": {"S": "b"}}})["Item"]
