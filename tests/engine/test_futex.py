"""futex.py: a process sleeps on a word of a shared file mapping until another process changes the word
and wakes it, or until its timeout; a word that already changed is not waited for.

Real processes on a real mapped file. The write queue's own tests (test_write_gate.py) run its waits
both on futexes and on the waiter thread that platforms without futexes use.
"""

from __future__ import annotations

import mmap
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablewright.engine import futex

pytestmark = pytest.mark.skipif(not futex.AVAILABLE, reason="futexes are Linux's (x86_64, aarch64)")

# Sleeps on the word at byte 4 of the file while it holds 0 (looking again after early returns), for
# at most the given seconds; prints whether it was woken and after how long.
WAITER = """
import mmap, os, sys, time
from tablewright.engine import futex
shared = mmap.mmap(os.open(sys.argv[1], os.O_RDWR), 8)
word, limit = futex.address(shared, 4), float(sys.argv[2])
print("waiting", flush=True)
started = time.monotonic()
while shared[4:8] == bytes(4) and time.monotonic() - started < limit:
    futex.wait(word, 0, limit)
print("woken" if shared[4:8] != bytes(4) else "timed out", round(time.monotonic() - started, 3), flush=True)
"""


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[tuple[Path, mmap.mmap]]:
    path = tmp_path / "words"
    path.write_bytes(bytes(8))
    descriptor = os.open(path, os.O_RDWR)
    mapping = mmap.mmap(descriptor, 8)
    yield path, mapping
    mapping.close()
    os.close(descriptor)


def sleeper(path: Path, limit: float) -> subprocess.Popen:
    """A WAITER process, returned once it is about to sleep on the word."""
    waiter = subprocess.Popen(
        [sys.executable, "-c", WAITER, str(path), str(limit)], stdout=subprocess.PIPE, text=True
    )
    assert waiter.stdout.readline().strip() == "waiting"  # type: ignore[union-attr]
    return waiter


def test_a_process_sleeps_until_another_changes_the_word_and_wakes_it(shared) -> None:
    path, mapping = shared
    waiter = sleeper(path, 60)
    try:
        time.sleep(0.3)  # long enough to be asleep in the kernel
        assert waiter.poll() is None, "the waiter did not wait"
        mapping[4:8] = (1).to_bytes(4, sys.byteorder)
        futex.wake(futex.address(mapping, 4))
        outcome, seconds = waiter.stdout.readline().split()  # type: ignore[union-attr]
    finally:
        waiter.kill()
        waiter.wait(timeout=30)
    assert outcome == "woken"
    assert float(seconds) < 30, "woken by its 60 s timeout, not by the wake"


def test_one_wake_wakes_every_sleeper(shared) -> None:
    path, mapping = shared
    waiters = [sleeper(path, 60) for _ in range(2)]
    try:
        time.sleep(0.3)
        mapping[4:8] = (1).to_bytes(4, sys.byteorder)
        futex.wake(futex.address(mapping, 4))
        answers = [waiter.stdout.readline().split() for waiter in waiters]  # type: ignore[union-attr]
    finally:
        for waiter in waiters:
            waiter.kill()
            waiter.wait(timeout=30)
    assert all(outcome == "woken" and float(seconds) < 30 for outcome, seconds in answers), answers


def test_a_change_without_a_wake_is_seen_at_the_timeout(shared) -> None:
    path, mapping = shared
    waiter = sleeper(path, 1)
    try:
        time.sleep(0.3)
        mapping[4:8] = (1).to_bytes(4, sys.byteorder)  # and no wake: the sleeper does not know yet
        outcome, seconds = waiter.stdout.readline().split()  # type: ignore[union-attr]
    finally:
        waiter.wait(timeout=30)
    assert outcome == "woken" and float(seconds) >= 1.0


def test_a_word_that_holds_something_else_is_not_waited_for(shared) -> None:
    _, mapping = shared
    mapping[4:8] = (7).to_bytes(4, sys.byteorder)
    started = time.monotonic()
    futex.wait(futex.address(mapping, 4), 6, 30)
    assert time.monotonic() - started < 15


def test_a_zero_word_is_not_waited_for_when_something_else_is_expected(shared) -> None:
    _, mapping = shared
    started = time.monotonic()
    futex.wait(futex.address(mapping, 4), 5, 30)
    assert time.monotonic() - started < 15


def test_a_wait_ends_at_its_timeout(shared) -> None:
    _, mapping = shared
    started = time.monotonic()
    futex.wait(futex.address(mapping, 4), 0, 0.2)
    assert time.monotonic() - started >= 0.2
    assert mapping[4:8] == bytes(4)


def test_the_mapping_stays_closable_after_addresses_were_taken(tmp_path: Path) -> None:
    path = tmp_path / "words"
    path.write_bytes(bytes(8))
    descriptor = os.open(path, os.O_RDWR)
    mapping = mmap.mmap(descriptor, 8)
    futex.address(mapping, 4)
    mapping.close()  # raises BufferError if an exported pointer were still alive
    os.close(descriptor)
