"""The ADR-006 plan with a transform that SIGKILLs its own process at the N-th call (env TW_KILL_AT).

Used by test_resume.py as the plan of a subprocess: the kill lands mid-page, while the other segment
threads are inside their BatchWriteItem calls, like a real crash. Without TW_KILL_AT it is the plain
plan, so the resumed run computes exactly what an uninterrupted run does.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

MIGRATION = Path(__file__).resolve().parents[2] / "examples" / "evse" / "migration"
sys.path.insert(0, str(MIGRATION))

import plan as adr006  # noqa: E402

from tablewright.migrate import Copy, Plan  # noqa: E402

KILL_AT = int(os.environ.get("TW_KILL_AT", "0"))
_calls = {"n": 0}
_lock = threading.Lock()


def _killing(transform):
    def wrapped(item, source):
        with _lock:
            _calls["n"] += 1
            if KILL_AT and _calls["n"] >= KILL_AT:
                os.kill(os.getpid(), signal.SIGKILL)
        return transform(item, source)

    return wrapped


PLAN = Plan(
    [
        Copy(s.source, s.target, _killing(s.transform), s.delete_source, s.name) if s.id == "events" else s
        for s in adr006.PLAN.steps
    ],
    name="adr-006-killed",
)
