"""Verification of a copy: the source run through the transform again, compared with the target tables.

Per target table: the count and the order-independent checksum (``checksum.Digest``) of the items the
transform produces (puts; merges folded per key, as the writes fold them) against those of a scan of
the table. On a mismatch a second pass names up to ``detail`` differing keys.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from .checksum import Digest, item_hash
from .io import KeySchemas, bind_transform, outputs
from .parallel import scan_parallel
from .steps import Copy, Item, Merge


@dataclass
class Verification:
    """The verdict of one copy: per table expected/actual digests and, on failure, example keys."""

    ok: bool
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    differences: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "tables": self.tables, "differences": self.differences}


class _Expected:
    """What a copy should have written, accumulated from the segment threads."""

    def __init__(self, keys: KeySchemas, remember: bool) -> None:
        self.keys = keys
        self.remember = remember  # keep key -> hash for the difference pass
        self.digests: dict[str, Digest] = {}
        self.hashes: dict[str, dict[tuple, int]] = {}
        self.merged: dict[str, dict[tuple, Item]] = {}
        self._lock = threading.Lock()

    def add(self, writes: list[Any]) -> None:
        with self._lock:
            for w in writes:
                self.digests.setdefault(w.table, Digest())
                key = self.keys.key_of(w.table, w.item)
                if isinstance(w, Merge):
                    self.merged.setdefault(w.table, {}).setdefault(key, {}).update(w.item)
                    continue
                self.digests[w.table].add(w.item)
                if self.remember:
                    self.hashes.setdefault(w.table, {})[key] = item_hash(w.item)

    def finish(self) -> None:
        for table, items in self.merged.items():
            for key, item in items.items():
                self.digests[table].add(item)
                if self.remember:
                    self.hashes.setdefault(table, {})[key] = item_hash(item)


def _expected(
    client: Any, step: Copy, keys: KeySchemas, segments: int, page_size: int, remember: bool
) -> _Expected:
    expected = _Expected(keys, remember)
    transform = bind_transform(client, step.source, step.transform)

    def handle(_: int, items: list[Item]) -> int:
        for item in items:
            expected.add(outputs(transform(item), step.target))
        return len(items)

    scan_parallel(client, step.source, handle, segments=segments, page_size=page_size)
    expected.finish()
    expected.digests.setdefault(step.target, Digest())
    return expected


def _actual(
    client: Any, table: str, keys: KeySchemas, segments: int, page_size: int, remember: bool
) -> tuple[Digest, dict]:
    digest, hashes, lock = Digest(), {}, threading.Lock()

    def handle(_: int, items: list[Item]) -> int:
        with lock:
            for item in items:
                digest.add(item)
                if remember:
                    hashes[keys.key_of(table, item)] = item_hash(item)
        return len(items)

    scan_parallel(client, table, handle, segments=segments, page_size=page_size)
    return digest, hashes


def verify_copy(
    client: Any, step: Copy, *, segments: int = 4, page_size: int = 500, detail: int = 10
) -> Verification:
    """Compare the target tables of a copy with its source under the transform."""
    keys = KeySchemas(client)
    expected = _expected(client, step, keys, segments, page_size, remember=False)
    verdict = Verification(ok=True)
    failed: list[str] = []
    for table, want in expected.digests.items():
        got, _ = _actual(client, table, keys, segments, page_size, remember=False)
        same = (want.count, want.total) == (got.count, got.total)
        verdict.tables[table] = {"expected": want.as_dict(), "actual": got.as_dict(), "ok": same}
        if not same:
            verdict.ok = False
            failed.append(table)
    if failed and detail:
        verdict.differences = _differences(client, step, keys, failed, segments, page_size, detail)
    return verdict


def _differences(
    client: Any, step: Copy, keys: KeySchemas, tables: list[str], segments: int, page_size: int, limit: int
) -> list[dict]:
    # Only on failure: this pass holds a hash per item in memory.
    expected = _expected(client, step, keys, segments, page_size, remember=True)
    found: list[dict[str, Any]] = []
    for table in tables:
        want = expected.hashes.get(table, {})
        _, got = _actual(client, table, keys, segments, page_size, remember=True)
        for key in sorted(set(want) | set(got)):
            problem = (
                "missing"
                if key not in got
                else "unexpected"
                if key not in want
                else "different"
                if want[key] != got[key]
                else None
            )
            if problem:
                found.append({"table": table, "key": list(key), "problem": problem})
                if len(found) >= limit:
                    return found
        if want and len(want) != expected.digests[table].count:
            found.append(
                {"table": table, "key": None, "problem": "the transform gives several items the same key"}
            )
    return found
