"""What a plan would change, without changing anything (``PREVIEWS``: step type -> function).

Reads only: DescribeTable and Scan. Copies and backfills run their transform over the whole source
to give exact counts per target table and a few before/after samples.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from . import tables
from .context import Context
from .io import bind_transform, guarded, outputs
from .load import Load, preview_load
from .parallel import scan_parallel
from .steps import Backfill, Copy, CreateIndex, CreateTable, DeleteTable, Item, Merge


def _create_table(ctx: Context, step: CreateTable) -> dict[str, Any]:
    there = tables.exists(ctx.client, step.table)
    return {"table": step.table, "result": "exists: left as it is" if there else "would create"}


def _create_index(ctx: Context, step: CreateIndex) -> dict[str, Any]:
    name = step.index["IndexName"]
    if not tables.exists(ctx.client, step.table):
        return {
            "table": step.table,
            "index": name,
            "result": "would create (table created by an earlier step)",
        }
    existing = ctx.client.describe_table(TableName=step.table)["Table"].get("GlobalSecondaryIndexes", [])
    there = any(i["IndexName"] == name for i in existing)
    return {"table": step.table, "index": name, "result": "exists" if there else "would create"}


class _Tally:
    def __init__(self, sample: int) -> None:
        self.lock = threading.Lock()
        self.read = 0
        self.dropped = 0
        self.writes: dict[str, dict[str, int]] = {}
        self.samples: list[dict[str, Any]] = []
        self.sample = sample


def _copy(ctx: Context, step: Copy) -> dict[str, Any]:
    result: dict[str, Any] = {"source": step.source, "target": step.target}
    if not tables.exists(ctx.client, step.source):
        return {**result, "result": "source does not exist (yet)"}
    tally = _Tally(ctx.sample)
    transform = bind_transform(ctx.client, step.source, step.transform)

    def handle(_: int, items: list[Item]) -> int:
        for item in items:
            writes = outputs(transform(item), step.target)
            with tally.lock:
                tally.read += 1
                tally.dropped += not writes
                for w in writes:
                    kind = "merges" if isinstance(w, Merge) else "puts"
                    counts = tally.writes.setdefault(w.table, {"puts": 0, "merges": 0})
                    counts[kind] += 1
                if len(tally.samples) < tally.sample:
                    after = [
                        {"table": w.table, "kind": type(w).__name__.lower(), "item": w.item} for w in writes
                    ]
                    tally.samples.append({"before": item, "after": after})
        return 0

    scan_parallel(ctx.client, step.source, handle, segments=ctx.segments, page_size=ctx.page_size)
    result.update(source_items=tally.read, dropped=tally.dropped, writes=tally.writes, samples=tally.samples)
    if step.delete_source:
        result["then"] = f"delete {step.source} once verified"
    return result


def _backfill(ctx: Context, step: Backfill) -> dict[str, Any]:
    tally = _Tally(ctx.sample)
    if not tables.exists(ctx.client, step.table):
        return {"table": step.table, "result": "table does not exist (yet)"}
    function = guarded(step.function, "backfill function", step.function)

    def handle(_: int, items: list[Item]) -> int:
        for item in items:
            value = None if step.only_missing and step.attribute in item else function(item)
            with tally.lock:
                tally.read += 1
                if value is not None:
                    tally.writes.setdefault(step.table, {"updates": 0})["updates"] += 1
                    if len(tally.samples) < tally.sample:
                        tally.samples.append({"before": item, "after": {**item, step.attribute: value}})
        return 0

    scan_parallel(ctx.client, step.table, handle, segments=ctx.segments, page_size=ctx.page_size)
    return {
        "table": step.table,
        "attribute": step.attribute,
        "items": tally.read,
        "writes": tally.writes,
        "samples": tally.samples,
    }


def _delete_table(ctx: Context, step: DeleteTable) -> dict[str, Any]:
    if not tables.exists(ctx.client, step.table):
        return {"table": step.table, "result": "absent"}
    count = tables.item_count(ctx.client, step.table)
    guarded = [c.id for c in ctx.plan.copies_from(step.table)]
    note = f" after {', '.join(guarded)} verified" if guarded else ""
    return {"table": step.table, "items": count, "result": f"would delete{note}"}


PREVIEWS: dict[type, Callable[[Context, Any], dict[str, Any]]] = {
    CreateTable: _create_table,
    CreateIndex: _create_index,
    Copy: _copy,
    Backfill: _backfill,
    DeleteTable: _delete_table,
    Load: preview_load,
}
