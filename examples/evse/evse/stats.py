"""Daily statistics: one item per device per Mountain Time day, aggregated from that day's events.

The ADR names the table (``evse-daily-stats``, was ``daily-aggregates``) but not its contents or
how they are produced. Decision (README): key PK=device_id, SK=``YYYY-MM-DD`` in Mountain Time, the
same day the event keys show; the item is *recomputed* from the day's events (one Query of one
partition), so a re-run or a late event never double counts - unlike incrementing counters, which
are only right if every event is counted exactly once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal

from tablewright.runtime import Runtime

from .ids import day_range, wall_clock_hours

Values = dict[str, object]


def aggregate_day(device_id: str, day: str, events: Iterable[Mapping[str, object]]) -> Values:
    """The DailyStats values of ``device_id`` on Mountain Time ``day`` from that day's events."""
    type_counts: dict[str, int] = {}
    charging = trips = 0
    energy = Decimal(0)
    max_current = Decimal(0)
    stamps: list[str] = []
    for event in events:
        kind = str(event["event_type"])
        type_counts[kind] = type_counts.get(kind, 0) + 1
        stamps.append(str(event["timestamp_mt"]))
        if kind == "telemetry":
            charging += event.get("j1772_state") == "C"
            energy += Decimal(str(event.get("energy_wh") or 0))
            max_current = max(max_current, Decimal(str(event.get("current_a") or 0)))
        elif kind == "interlock" and event.get("interlock_tripped", True):
            trips += 1
    stats: Values = {
        "device_id": device_id,
        "date": day,
        "event_count": sum(type_counts.values()),
        "type_counts": type_counts,
        "charging_uplinks": charging,
        "energy_wh": energy,
        "max_current_a": max_current,
        "interlock_trips": trips,
        "wall_clock_hours": wall_clock_hours(day),
    }
    if stamps:
        stats["first_event_mt"], stats["last_event_mt"] = min(stamps), max(stamps)
    return stats


def refresh_daily_stats(rt: Runtime, device_id: str, day: str) -> Values:
    """Recompute and overwrite one device's statistics for one Mountain Time day.

    Reads the day through the ``device_timeline`` pattern (all pages), so the aggregation sees the
    same events a console user sees for that day, including the repeated fall-back hour.
    """
    start, end = day_range(day)
    events = rt.run("device_timeline", device_id=device_id, **{"from": start, "to": end}).items
    stats = aggregate_day(device_id, day, events)
    # A plain PutItem overwrites: the value is a pure function of the events, so the last writer
    # is right and no version check is needed.
    rt.put("DailyStats", stats)  # overwrite
    return stats
