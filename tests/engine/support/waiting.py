"""Waiting for another process or thread to get somewhere, without a sleep of a guessed length."""

from __future__ import annotations

import time
from collections.abc import Callable


def eventually(condition: Callable[[], bool], what: str = "the other process did not get there") -> None:
    """Wait until ``condition()`` (another process's or thread's progress; the limit only ends a broken
    test)."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)
