"""The runtime's own cost on the write path: ``python bench/runtime_write_bench.py`` (``--quick``).

Three calls, each made for 11 items (a sensor batch: 10 readings and the batch's marker), on the
example designs' entities:

* **compose** - ``rt.compose`` of each item (validation, defaults, computed values, keys);
* **put** - ``rt.put`` of each item (one conditional PutItem each);
* **transact** - one ``rt.transact`` of the 11 ``rt.tx_put``s (one TransactWriteItems).

Printed is microseconds per item of the runtime's share only: the time the engine spends in
``engine.handle`` is measured around it and taken off, so a faster or slower engine does not
move these figures. Each figure is the median of short slices (fresh items
each, made before the slice's clock starts) with the fastest and slowest slice beside it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tablewright.runtime import Runtime  # noqa: E402

ITEMS_PER_CALL = 11
NOW = datetime(2026, 1, 15, 12, 0, 0, tzinfo=UTC)
MAC = "AA:BB:CC:DD:EE:FF"


class TimedEngine:
    """The engine behind ``rt.data``, with the seconds spent in ``handle`` added up."""

    def __init__(self, engine: Any) -> None:
        self.engine, self.seconds = engine, 0.0

    def handle(self, operation: str, request: dict) -> dict:
        start = time.perf_counter()
        try:
            return self.engine.handle(operation, request)
        finally:
            self.seconds += time.perf_counter() - start

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


# ------------------------------------------------------------------------------------ workloads
def sensor_batch(number: int) -> list[tuple[str, dict]]:
    """Ten readings of one batch and its ProcessedBatch marker, every key new for ``number``."""
    batch = f"{MAC}_{number}"
    base = 1_768_478_400_000 + number * 10_000
    readings = [
        (
            "Reading",
            {
                "timestamp_ms": base + i,
                "sensors": {"bme280_temp_c": Decimal("21.5") + i, "humidity_pct": 40 + i},
                "sensor_status": {"bme280": "ok"},
                "hardware_id": MAC,
                "batch_id": batch,
                "boot_id": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
                "firmware_version": "1.0.16",
            },
        )
        for i in range(10)
    ]
    marker = ("ProcessedBatch", {"batch_id": batch, "hardware_id": MAC, "readings_digest": "ab" * 32})
    return [*readings, marker]


def woms_batch(number: int) -> list[tuple[str, dict]]:
    """Six plants (five index keys, defaults, a unique constraint) and five alerts (a TTL from an
    RFC 3339 time, a unique constraint) of the woms example, every key new for ``number``."""
    plants = [
        (
            "Plant",
            {
                "plant_id": number * 10 + i + 1,
                "org_id": 1,
                "vendor_id": 2,
                "vendor_plant_id": f"vp-{number}-{i}",
                "name": f"Plant {number}-{i}",
                "network_status": "NORMAL",
                "latitude": Decimal("47.3769"),
                "longitude": Decimal("8.5417"),
                "capacity_kw": Decimal("125.5"),
            },
        )
        for i in range(6)
    ]
    moment = NOW - timedelta(seconds=number)
    alerts = [
        (
            "Alert",
            {
                "plant_id": 1,
                "alert_id": f"7c9e6679-7425-40de-944b-{number:08d}{i:04d}",
                "vendor_id": 2,
                "vendor_plant_id": "vp-1",
                "vendor_alert_id": f"va-{number}-{i}",
                "alert_time": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "severity": "CRITICAL",
                "status": "ACTIVE",
                "message": "inverter offline",
            },
        )
        for i in range(5)
    ]
    return [*plants, *alerts]


WORKLOADS: dict[str, tuple[Path, Callable[[int], list[tuple[str, dict]]]]] = {
    "sensor-api": (ROOT / "examples/sensor-api/design.yaml", sensor_batch),
    "woms": (ROOT / "examples/woms/design.yaml", woms_batch),
}


# ------------------------------------------------------------------------------------ calls
def compose_call(rt: Runtime, batch: list[tuple[str, dict]]) -> None:
    for entity, values in batch:
        rt.compose(entity, values, now=NOW)


def put_call(rt: Runtime, batch: list[tuple[str, dict]]) -> None:
    for entity, values in batch:
        rt.put(entity, values, now=NOW)


def transact_call(rt: Runtime, batch: list[tuple[str, dict]]) -> None:
    rt.transact([rt.tx_put(entity, values) for entity, values in batch], now=NOW)


CALLS: dict[str, Callable[[Runtime, list[tuple[str, dict]]], None]] = {
    "compose": compose_call,
    "put": put_call,
    "transact": transact_call,
}


def measure(workload: str, calls_per_slice: int, slices: int) -> dict[str, list[float]]:
    """Per call kind, µs of runtime per item of each slice (after one unrecorded warm-up slice)."""
    design, make = WORKLOADS[workload]
    # The in-memory engine: a database file brings the engine's WAL upkeep thread, whose turns on
    # the GIL would land between engine calls and be counted as the runtime's.
    rt = Runtime.open(design)
    rt.create_tables()
    timed = TimedEngine(rt.data.engine)
    rt.data.engine = timed
    figures: dict[str, list[float]] = {name: [] for name in CALLS}
    number = 0
    for round_ in range(slices + 1):
        for name, call in CALLS.items():
            batches = [make(number + i) for i in range(calls_per_slice)]
            number += calls_per_slice
            timed.seconds = 0.0
            start = time.perf_counter()
            for batch in batches:
                call(rt, batch)
            elapsed = time.perf_counter() - start - timed.seconds
            if round_:
                figures[name].append(elapsed / (calls_per_slice * ITEMS_PER_CALL) * 1e6)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: few, short slices")
    parser.add_argument("--workload", choices=[*WORKLOADS, "all"], default="all")
    args = parser.parse_args()
    calls, slices = (3, 5) if args.quick else (20, 25)
    names = list(WORKLOADS) if args.workload == "all" else [args.workload]
    print(f"runtime's share, µs per item ({ITEMS_PER_CALL} items per call, {calls} calls per slice)")
    for workload in names:
        for name, values in measure(workload, calls, slices).items():
            print(
                f"{workload:11s} {name:9s} {statistics.median(values):8.1f} µs/item  "
                f"(min {min(values):.1f}, max {max(values):.1f}, {len(values)} slices)"
            )


if __name__ == "__main__":
    main()
