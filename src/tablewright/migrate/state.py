"""Checkpoint state: a JSON file rewritten atomically (write, fsync, rename) after every page.

A run killed at any moment finds either the previous or the new state, never a torn one. The state
records, per step, its status and, for scans, the last ``LastEvaluatedKey`` per segment whose page was
completely written; a resumed run restarts each segment there and re-writes at most one page, which is
harmless because every write is an idempotent put or SET by the target key.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any


class CorruptProgress(ValueError):
    """A progress file that is not one (not JSON, or not the shape this module writes)."""


class State:
    """Per-step state, shared by the segment threads (every change is saved under one lock).

    ``data["target"]`` binds the progress to one database and plan version (``target.py``).
    """

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        self._lock = threading.Lock()
        self.data: dict[str, Any] = {"steps": {}}
        if self.path and self.path.exists():
            try:
                self.data = json.loads(self.path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as error:
                raise CorruptProgress(f"progress file {self.path} is not valid JSON: {error}") from None
            if not isinstance(self.data, dict) or not isinstance(self.data.get("steps"), dict):
                raise CorruptProgress(f"progress file {self.path} is not a tablewright migrate progress file")

    def reset(self) -> None:
        """Forget every step (the progress belonged to another database)."""
        with self._lock:
            self.data = {"steps": {}}

    def bind(self, binding: dict[str, Any]) -> None:
        """Record which target and plan this progress belongs to, and save."""
        with self._lock:
            self.data["target"] = binding
            self._save()

    def step(self, step_id: str) -> dict[str, Any]:
        """A copy of the state of one step (empty when it has not started)."""
        with self._lock:
            return json.loads(json.dumps(self.data["steps"].get(step_id, {})))

    def update(self, step_id: str, **changes: Any) -> None:
        """Set top-level fields of a step's state and save."""
        with self._lock:
            self.data["steps"].setdefault(step_id, {}).update(changes)
            self._save()

    def checkpoint(
        self, step_id: str, segment: int, key: dict[str, Any] | None, done: bool, written: int
    ) -> None:
        """Record that every item of a segment up to ``key`` is written (``done``: the segment is finished)."""
        with self._lock:
            step = self.data["steps"].setdefault(step_id, {})
            cursor = step.setdefault("cursors", {}).setdefault(str(segment), {"written": 0})
            cursor.update(key=key, done=done, written=cursor["written"] + written)
            self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(self.data, handle, indent=1, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)
