"""Concurrency: conditional writes and transactions from many threads and processes lose nothing.

Every contender increments one counter by read + ``SET n = n + :one`` guarded by ``n = :expected``,
retrying on ConditionalCheckFailedException. Each success reports the value it replaced; if two
successes ever replaced the same value an update was lost. The transaction tests move money between
four accounts with overlapping TransactWriteItems and check the bank's invariants afterwards.
The same checks run for threads on one file-backed engine, threads on one in-memory engine, and
separate processes on one file.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tablewright.engine import Engine

from .support.workload import (
    COUNTER_KEY,
    COUNTER_TABLE,
    TABLE,
    check_bank,
    create_bank,
    create_counter,
    increment,
    read_all,
    transfer,
)

CHILD = Path(__file__).parent / "support" / "concurrency_child.py"
WORKERS = 4
PER_WORKER = 40
BANK_ACCOUNTS = 4  # concurrency_child.py transfers among accounts 0-3
BANK_BALANCE = 100


@pytest.fixture(autouse=True)
def _switch_often():
    """Make the interpreter switch threads far more often, so threads really interleave inside requests."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(previous)


@pytest.fixture(params=["file", "memory"])
def engine(request: pytest.FixtureRequest, tmp_path: Path):
    """One engine shared by all threads of a test: file-backed (a connection per thread) or in-memory."""
    with Engine(str(tmp_path / "shared.db") if request.param == "file" else None) as shared:
        yield shared


def run_threads(work: Callable[[int], list]) -> list:
    """Run ``work(worker_number)`` on WORKERS threads started together; return all results, re-raising errors."""
    start = threading.Barrier(WORKERS)
    results: list[list] = [[] for _ in range(WORKERS)]
    errors: list[BaseException] = []

    def body(number: int) -> None:
        start.wait()
        try:
            results[number] = work(number)
        except BaseException as error:  # surfaced below: a thread's exception must fail the test
            errors.append(error)

    threads = [threading.Thread(target=body, args=(n,)) for n in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return [result for per_worker in results for result in per_worker]


def run_processes(path: Path, mode: str) -> list[str]:
    """Run WORKERS child processes on one file at once; return their output lines."""
    procs = [
        subprocess.Popen(
            [sys.executable, str(CHILD), str(path), mode, str(PER_WORKER), str(seed)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in range(1, WORKERS + 1)
    ]
    for proc in procs:
        assert proc.stdout is not None
        ready = proc.stdout.readline()
        assert ready == "READY\n", f"child did not start: {ready!r} {proc.communicate()[1]}"
    lines = []
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        lines.extend(out.splitlines())
    return lines


def assert_no_lost_update(engine: Engine, replaced: list[int]) -> None:
    final = engine.get_item({"TableName": COUNTER_TABLE, "Key": COUNTER_KEY, "ConsistentRead": True})["Item"]
    assert len(replaced) == WORKERS * PER_WORKER
    # Each success replaced a distinct value, and together they are exactly 0..total-1.
    assert sorted(replaced) == list(range(len(replaced))), "two conditional updates succeeded on one value"
    assert int(final["n"]["N"]) == len(replaced)


def test_threads_conditional_increments(engine: Engine) -> None:
    create_counter(engine)
    replaced = run_threads(
        lambda _: [increment(engine, COUNTER_TABLE, COUNTER_KEY) for _ in range(PER_WORKER)]
    )
    assert_no_lost_update(engine, replaced)


def test_processes_conditional_increments(tmp_path: Path) -> None:
    path = tmp_path / "counter.db"
    with Engine(str(path)) as engine:
        create_counter(engine)
    replaced = [int(line) for line in run_processes(path, "increment")]
    with Engine(str(path)) as engine:
        assert_no_lost_update(engine, replaced)


def check_transfers(engine: Engine, outcomes: list[str]) -> None:
    committed = {line.split()[1] for line in outcomes if line.startswith("T ")}
    assert len(outcomes) == WORKERS * PER_WORKER
    assert committed, "no transfer committed: the invariants were checked on an idle bank"
    items = read_all(engine, "Scan", {"TableName": TABLE})
    check_bank(items, BANK_ACCOUNTS, BANK_BALANCE)
    audits = {item["sk"]["S"] for item in items if item["pk"]["S"] == "audit"}
    assert audits == committed, "audit items differ from the transfers reported as committed"


def test_threads_overlapping_transactions(engine: Engine) -> None:
    create_bank(engine, BANK_ACCOUNTS, BANK_BALANCE)

    def work(number: int) -> list[str]:
        rng = random.Random(number)
        outcomes = []
        for i in range(PER_WORKER):
            source, target = rng.sample(range(BANK_ACCOUNTS), 2)
            tag = f"{number}:{i}"
            done = transfer(engine, tag, source, target, rng.randrange(1, 80))
            outcomes.append(("T " if done else "x ") + tag)
        return outcomes

    check_transfers(engine, run_threads(work))


def test_processes_overlapping_transactions(tmp_path: Path) -> None:
    path = tmp_path / "bank.db"
    with Engine(str(path)) as engine:
        create_bank(engine, BANK_ACCOUNTS, BANK_BALANCE)
    outcomes = run_processes(path, "transfer")
    with Engine(str(path)) as engine:
        check_transfers(engine, outcomes)
