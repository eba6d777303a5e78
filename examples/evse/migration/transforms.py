"""The ADR-006 transforms: one legacy item in, the new items out. Pure and deterministic, so a
resumed or repeated copy writes exactly the same items (writes are puts/SETs by the new keys).
"""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from evse_ids import sc_id, to_mt
from legacy import SENTINELS

from tablewright.migrate import Merge, Put

EVENTS = "evse-events"
DEVICES = "evse-devices"
DAILY_STATS = "evse-daily-stats"
DEVICE_STATE = "evse-device-state"
MOUNTAIN = ZoneInfo("America/Denver")
HOUR_MS = 3_600_000
MAX_COLLISION_OFFSET_MS = 1000  # the design's bound on collision_offset_ms


def _repeated_hour_second_pass(ms: int) -> bool:
    """True for an instant in the second (MST) occurrence of the November fall-back hour."""
    local = datetime.fromtimestamp(ms / 1000, MOUNTAIN)
    return local.fold == 1


def _placement(item: dict[str, Any], source: Any) -> int:
    """The collision offset of an event, as ingestion assigns it (evse/ingest.py).

    Only an MST instant of the repeated hour can meet an earlier (MDT) event on the same wall-clock
    millisecond, one real hour before it; ingestion, running in time order, moves the later one 1 ms
    at a time. The legacy table is the record of which earlier events exist.
    """
    ms = int(item["timestamp"])
    if not _repeated_hour_second_pass(ms):
        return 0
    for offset in range(MAX_COLLISION_OFFSET_MS + 1):
        earlier = {"wireless_device_id": item["wireless_device_id"], "timestamp": ms - HOUR_MS + offset}
        if source.get(earlier) is None:
            return offset
    raise ValueError(
        f"event {item['wireless_device_id']} at {ms}: more than {MAX_COLLISION_OFFSET_MS} ms of collisions"
    )


def _mt(ms: Any) -> str:
    return to_mt(int(ms))


# Sentinel kind -> (legacy attribute -> (new attribute, converter)). The ``updated_ms``-style instants
# become Mountain Time text like every other timestamp of the new design.
_SENTINEL_FIELDS: dict[str, dict[str, tuple[str, Any]]] = {
    "scheduler": {
        "state": ("scheduler_state", str),
        "limit_a": ("scheduler_limit_a", int),
        "updated_ms": ("scheduler_updated_mt", _mt),
        "last_uplink_ms": ("last_event_ms", int),
        "last_type": ("last_event_type", str),
        "j1772": ("j1772_state", str),
    },
    "ota": {
        "status": ("ota_status", str),
        "from_version": ("ota_from_version", str),
        "to_version": ("ota_to_version", str),
        "started_ms": ("ota_started_mt", _mt),
        "completed_ms": ("ota_completed_mt", _mt),
    },
    "time_sync": {"synced_ms": ("time_sync_mt", _mt), "drift_ms": ("time_sync_drift_ms", int)},
    "divergence": {
        "active": ("divergence_active", bool),
        "since_ms": ("divergence_since_mt", _mt),
        "count": ("divergence_count", int),
    },
}


def sentinel_state(item: dict[str, Any]) -> Merge:
    """A sentinel item (timestamp 0/-1/-2/-3) as attributes of the device's one state item."""
    kind = SENTINELS[int(item["timestamp"])]
    device = item["wireless_device_id"]
    state: dict[str, Any] = {"device_id": sc_id(device), "wireless_device_id": device, "version": 1}
    for legacy, (name, convert) in _SENTINEL_FIELDS[kind].items():
        if legacy in item:
            state[name] = convert(item[legacy])
    if kind == "scheduler" and "last_event_ms" in state:
        state["last_event_mt"] = to_mt(state["last_event_ms"])
    if kind == "ota":  # the firmware a device runs follows from its last OTA session
        state["firmware_version"] = (
            state["ota_to_version"] if state.get("ota_status") == "success" else state["ota_from_version"]
        )
    return Merge(DEVICE_STATE, state)


def event(item: dict[str, Any], source: Any) -> list[Any]:
    """A legacy events-table item: a sentinel folds into evse-device-state, an event is re-keyed."""
    if int(item["timestamp"]) in SENTINELS:
        return [sentinel_state(item)]
    offset = _placement(item, source)
    ms = int(item["timestamp"]) + offset
    new = {
        "device_id": sc_id(item["wireless_device_id"]),
        "timestamp_mt": to_mt(ms),
        "wireless_device_id": item["wireless_device_id"],  # kept for IoT Wireless API calls
        "timestamp": ms,
        "event_type": item["type"],
        # the payload was a JSON string; its fields become attributes (numbers exact, as Decimal)
        **json.loads(item["data"], parse_float=Decimal),
    }
    if offset:
        new["collision_offset_ms"] = offset
    return [Put(EVENTS, new)]


def registry(item: dict[str, Any]) -> dict[str, Any]:
    """device-registry -> evse-devices: ``fw_version`` renamed, a version for optimistic locking."""
    new = {k: v for k, v in item.items() if k != "fw_version"}
    new["firmware_version"] = item["fw_version"]
    new["version"] = 1
    return new


def _wall_clock_hours(day: str) -> int:
    start = datetime.combine(date.fromisoformat(day), datetime.min.time(), MOUNTAIN)
    end = datetime.combine(date.fromisoformat(day) + timedelta(days=1), datetime.min.time(), MOUNTAIN)
    return int((end.timestamp() - start.timestamp()) // 3600)


def aggregates(item: dict[str, Any]) -> dict[str, Any]:
    """daily-aggregates -> evse-daily-stats: re-keyed by SC-ID, renamed counters, JSON string -> map."""
    by_type = json.loads(item["by_type"])
    return {
        "device_id": sc_id(item["wireless_device_id"]),
        "date": item["date"],
        "event_count": item["count"],
        "type_counts": by_type,
        "energy_wh": item["energy_wh"],
        "max_current_a": item["max_current_a"],
        "interlock_trips": item["interlocks"],
        "first_event_mt": to_mt(int(item["first_ts"])),
        "last_event_mt": to_mt(int(item["last_ts"])),
        "wall_clock_hours": _wall_clock_hours(item["date"]),
    }
