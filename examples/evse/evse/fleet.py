"""``EvseFleet``: the ADR's write path and read patterns over a Runtime, named as the dashboard uses them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from tablewright.runtime import Page, Record, Runtime

from .devices import register_device
from .ids import day_range, sc_id
from .ingest import IngestResult, ingest_uplink
from .stats import refresh_daily_stats

DESIGN = Path(__file__).resolve().parents[1] / "design.yaml"


class EvseFleet:
    """Registry, ingestion, timelines, type queries, daily statistics and the fleet overview."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    @classmethod
    def open(cls, db: str | None = None) -> EvseFleet:
        """An EvseFleet on a fresh in-memory engine (or the SQLite file ``db``), tables created."""
        rt = Runtime.open(DESIGN, db=db)
        rt.create_tables()
        return cls(rt)

    # ------------------------------------------------------------------------------------ writes
    def register(self, values: Mapping[str, object], *, now: datetime | None = None) -> Record:
        """Register a charger by its wireless UUID (see ``devices.register_device``)."""
        return register_device(self.rt, values, now=now)

    def ingest(self, event: Mapping[str, object], *, now: datetime | None = None) -> IngestResult:
        """Append one event and overwrite the device state, atomically (see ``ingest``)."""
        return ingest_uplink(self.rt, event, now=now)

    def refresh_daily_stats(self, device_id: str, day: str) -> dict[str, object]:
        """Recompute one device's statistics for one Mountain Time day from its events."""
        return refresh_daily_stats(self.rt, device_id, day)

    # ------------------------------------------------------------------------------------ reads
    def timeline(self, device_id: str, start_mt: str, end_mt: str) -> list[Record]:
        """Every event of a device with start <= timestamp_mt <= end, in sort-key (wall-clock) order."""
        _check_range(start_mt, end_mt)
        return self.rt.run("device_timeline", device_id=device_id, **{"from": start_mt, "to": end_mt}).items

    def day_timeline(self, device_id: str, day: str) -> list[Record]:
        """A device's whole Mountain Time day (23, 24 or 25 hours of events)."""
        return self.timeline(device_id, *day_range(day))

    def latest(self, device_id: str, limit: int = 20) -> list[Record]:
        """The newest ``limit`` events of a device, newest first."""
        return self.rt.run("latest_events", device_id=device_id, limit=limit).items

    def fleet_events(self, event_type: str, since_mt: str, limit: int = 50) -> list[Record]:
        """Events of one type across all devices since ``since_mt``, newest first (event-type-index)."""
        return self.rt.run("fleet_events_by_type", event_type=event_type, since=since_mt, limit=limit).items

    def device_events(self, device_id: str, event_type: str, start_mt: str, end_mt: str) -> Page:
        """One device's events of one type in a range: key range + FilterExpression (see ``stats``)."""
        _check_range(start_mt, end_mt)
        params = {"device_id": device_id, "event_type": event_type, "from": start_mt, "to": end_mt}
        return self.rt.run("device_events_by_type", params)

    def state(self, device_id: str) -> Record | None:
        """The device-state item of one device, or None before its first uplink."""
        page = self.rt.run("device_state", device_id=device_id)
        return page.items[0] if page.items else None

    def state_of_uuid(self, wireless_device_id: str) -> Record | None:
        """The device-state item of a wireless UUID, or None: no lookup table, the SC-ID is derived,
        and the item must name this UUID (another UUID with the same SC-ID is another charger)."""
        found = self.state(sc_id(wireless_device_id))
        return found if found is not None and found["wireless_device_id"] == wireless_device_id else None

    def fleet_overview(self) -> Page:
        """Every device's state in one Scan of evse-device-state (one item per device)."""
        return self.rt.run("fleet_overview")

    def daily_stats(self, device_id: str, first_day: str, last_day: str) -> list[Record]:
        """A device's daily statistics for the Mountain Time dates first_day..last_day."""
        _check_range(first_day, last_day)
        return self.rt.run("daily_stats", device_id=device_id, **{"from": first_day, "to": last_day}).items


def _check_range(start: str, end: str) -> None:
    # DynamoDB rejects BETWEEN with a lower bound above the upper one; name both bounds instead.
    if start > end:
        raise ValueError(f"range start {start!r} is after its end {end!r}")
