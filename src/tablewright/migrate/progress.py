"""A rich progress bar (items, rate, ETA) shared by the segment threads; silent off a terminal."""

from __future__ import annotations

import threading
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(ProgressColumn):
    """Items per second."""

    def render(self, task: Task) -> Text:
        return Text(f"{task.speed:,.0f} items/s" if task.speed else "- items/s", style="progress.data.speed")


class Bar:
    """One task's progress; ``advance`` may be called from any thread."""

    def __init__(self, console: Console | None, description: str, total: int | None) -> None:
        self._progress: Progress | None = None
        self._lock = threading.Lock()
        if console is not None and console.is_terminal:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                RateColumn(),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=console,
                transient=False,
            )
            self._task = self._progress.add_task(description, total=total)

    def __enter__(self) -> Bar:
        if self._progress:
            self._progress.start()
        return self

    def __exit__(self, *_: Any) -> None:
        if self._progress:
            self._progress.stop()

    def advance(self, count: int) -> None:
        if self._progress:
            with self._lock:
                self._progress.advance(self._task, count)
