"""What every benchmark here shares: interleaved slices, the median ratio and its spread, targets.

Why interleaved: on a shared machine, two systems measured minutes apart can differ twofold for reasons
that are not the code. Alternating them in short slices within one run lets both sides of a ratio see
the same machine. Each slice gives one ratio; the median of the ratios is the figure, and their spread
(lowest and highest slice, and the interquartile range) says how far to trust it. Never the best slice.

A benchmark module used by ``bench/run.py`` exposes ``section(quick: bool) -> Section``.
"""

from __future__ import annotations

import os
import platform
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

Slice = Callable[[], float]
"""Runs one short slice of work and returns what it measured (seconds per operation, usually)."""


@dataclass(frozen=True)
class Spread:
    """The median of a set of per-slice figures and how they spread."""

    median: float
    low: float
    high: float
    q1: float
    q3: float
    slices: int

    @classmethod
    def of(cls, values: list[float]) -> Spread:
        ordered = sorted(values)
        if len(ordered) >= 4:
            q1, _, q3 = statistics.quantiles(ordered, n=4)
        else:
            q1, q3 = ordered[0], ordered[-1]
        return cls(statistics.median(ordered), ordered[0], ordered[-1], q1, q3, len(ordered))

    def text(self, fmt: str = "{:.2f}") -> str:
        """``median (IQR q1–q3, all low–high, n slices)``."""
        f = fmt.format
        return (
            f"{f(self.median)} (IQR {f(self.q1)}–{f(self.q3)}, range {f(self.low)}–{f(self.high)}, "
            f"{self.slices} slices)"
        )


def interleave(systems: dict[str, Slice], rounds: int, warmup: int = 1) -> dict[str, list[float]]:
    """Run each system's slice in turn, ``rounds`` times (after ``warmup`` unrecorded rounds).

    The order rotates every round, so no system always runs right after the same other one.
    """
    names = list(systems)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for number in range(warmup + rounds):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            value = systems[name]()
            if number >= warmup:
                samples[name].append(value)
    return samples


def ratios(numerator: list[float], denominator: list[float]) -> Spread:
    """Per-slice ratios ``numerator[i] / denominator[i]`` of two interleaved systems."""
    return Spread.of([a / b for a, b in zip(numerator, denominator, strict=True)])


def per_op(step: Callable[[], object], count: int) -> float:
    """Seconds per call of ``step``, over ``count`` calls."""
    start = time.perf_counter()
    for _ in range(count):
        step()
    return (time.perf_counter() - start) / count


@dataclass(frozen=True)
class Target:
    """One of an issue's targets: what was measured against what was asked."""

    name: str
    measured: str  # the figure with its spread, for people
    met: bool


@dataclass
class Section:
    """A benchmark's part of docs/benchmarks.md: its Markdown body and the targets it judged."""

    title: str
    command: str
    body: str
    targets: list[Target] = field(default_factory=list)

    def markdown(self) -> str:
        lines = [f"## {self.title}", "", f"`{self.command}`", "", self.body.strip(), ""]
        if self.targets:
            lines += ["| target | measured (median, spread) | met |", "|---|---|---|"]
            lines += [f"| {t.name} | {t.measured} | {'yes' if t.met else '**no**'} |" for t in self.targets]
            lines.append("")
        return "\n".join(lines)


def machine() -> str:
    """Date, processor, cores, Python and load average, for the head of a results file."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return (
        f"{stamp}; {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}; load average {load}; "
        f"a 10M-step Python loop {python_loop_seconds():.2f} s, "
        f"a one-row SQLite commit {sqlite_commit_microseconds():.0f} µs"
    )


def python_loop_seconds(steps: int = 10_000_000) -> float:
    """Seconds of an empty Python loop of ``steps`` steps, the median of 3: how fast this machine runs
    right now. The VM's speed varies by 2x from one hour to the next, which moves every absolute
    figure and the ratios of Python-heavy against C-heavy code; this tells such hours apart."""
    times = []
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(steps):
            pass
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def sqlite_commit_microseconds(commits: int = 2_000) -> float:
    """Microseconds per one-row committed SQLite transaction (WAL, synchronous=NORMAL) in a temporary
    folder, the median of 3: the file system's speed right now (its write calls cost 3x more on some
    days than on others, which a Python loop does not show)."""
    times = []
    with tempfile.TemporaryDirectory() as folder:
        conn = sqlite3.connect(Path(folder) / "probe.db", isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)")
        for _ in range(3):
            started = time.perf_counter()
            for number in range(commits):
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("INSERT OR REPLACE INTO t VALUES (?, ?)", (number, b"x" * 200))
                conn.execute("COMMIT")
            times.append((time.perf_counter() - started) / commits * 1e6)
        conn.close()
    return statistics.median(times)
