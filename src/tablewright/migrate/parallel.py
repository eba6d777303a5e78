"""Parallel segmented scans: one thread per segment (``TotalSegments``), each with its own page loop.

With a ``State`` each segment checkpoints its ``LastEvaluatedKey`` after ``handle`` returned for a
page (i.e. after the page's writes completed), and a resumed run starts each unfinished segment from
its checkpoint.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .io import scan_pages, start_key
from .progress import Bar
from .state import State
from .steps import Item


def scan_parallel(
    client: Any,
    table: str,
    handle: Callable[[int, list[Item]], int],
    *,
    segments: int,
    page_size: int,
    bar: Bar | None = None,
    state: State | None = None,
    step_id: str | None = None,
) -> int:
    """Run ``handle(segment, items)`` over every page of ``table``; returns the sum of what it returned.

    ``handle`` is called concurrently from ``segments`` threads (one per segment) and must be safe so.
    """
    cursors: dict[str, Any] = {}
    if state is not None and step_id is not None:
        recorded = state.step(step_id)
        segments = recorded.get("segments", segments)  # a resumed scan keeps its segmentation
        cursors = recorded.get("cursors", {})
        state.update(step_id, segments=segments)

    def run(segment: int) -> int:
        cursor = cursors.get(str(segment), {})
        if cursor.get("done"):
            return 0
        total = 0
        for items, last in scan_pages(
            client, table, segment, segments, start_key(cursor.get("key")), page_size
        ):
            written = handle(segment, items)
            total += written
            if state is not None and step_id is not None:
                state.checkpoint(step_id, segment, last, last is None, written)
            if bar is not None:
                bar.advance(len(items))
        return total

    with ThreadPoolExecutor(max_workers=segments, thread_name_prefix=f"scan-{table}") as pool:
        futures = [pool.submit(run, segment) for segment in range(segments)]
        return sum(f.result() for f in futures)
