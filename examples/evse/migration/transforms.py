"""The ADR-006 transforms: one legacy item in, the new items out. Deterministic (they read only the
legacy source and the already-migrated registry), so a resumed or repeated copy writes exactly the
same items (writes are puts/SETs by the new keys).

Every new item is checked against ``../design.yaml`` before it is written. A legacy row that cannot
become a valid item (bad JSON, an event type outside the enum, a value out of range, an incomplete
OTA session, a payload naming an attribute the migration derives, a device missing from the
registry) is not written to the new tables: it goes, as it was, with the reason, to
``<legacy table>-rejects``, so the report counts it and nothing is lost when the legacy table is
deleted. Two legacy UUIDs with one SC-ID stop the copy (``ScIdCollision``): merging two chargers
is never a fix to apply silently.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Collection
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from boto3.dynamodb.types import TypeDeserializer
from evse_ids import sc_id, to_mt
from legacy import AGGREGATES, REGISTRY, SENTINELS
from legacy import EVENTS as LEGACY_EVENTS

from tablewright.design import load
from tablewright.migrate import Merge, MigrationError, Put

EVENTS = "evse-events"
DEVICES = "evse-devices"
DAILY_STATS = "evse-daily-stats"
DEVICE_STATE = "evse-device-state"
MOUNTAIN = ZoneInfo("America/Denver")
HOUR_MS = 3_600_000
MAX_COLLISION_OFFSET_MS = 1000  # the design's bound on collision_offset_ms
DESIGN = load(Path(__file__).resolve().parent.parent / "design.yaml")
# The new design's Unix-ms instants (epoch_ms: 2000-01-01 to 2100-01-01), which legacy instants must fit.
_EPOCH_MS = DESIGN.entities["Event"].attributes["timestamp"]
# Attributes the migration derives from the legacy key and type: a payload may not set them.
DERIVED = (
    "device_id",
    "timestamp_mt",
    "wireless_device_id",
    "timestamp",
    "event_type",
    "collision_offset_ms",
)
_DESERIALIZER = TypeDeserializer()


def rejects(table: str) -> str:
    """The table keeping the rows of legacy ``table`` that could not be migrated (key ``source_key``)."""
    return f"{table}-rejects"


class Rejected(ValueError):
    """A legacy row that cannot become a valid new item; the message says why."""


class ScIdCollision(MigrationError):
    """Two legacy wireless UUIDs derive one SC-ID: migrating both would merge two chargers."""


def _reject(table: str, key: str, item: dict[str, Any], reason: object) -> Put:
    return Put(rejects(table), {"source_key": key, "reason": str(reason), "item": item})


def _violations(entity: str, values: dict[str, Any], *, partial: bool = False) -> str:
    """The design's verdict on ``values`` as one sentence ('' when valid); ``partial`` checks only the
    attributes given (a Merge sets some attributes of an item other rows complete)."""
    found = DESIGN.entities[entity]
    if partial:
        problems = [
            f"{path}: {message}"
            for name, value in values.items()
            if name in found.attributes
            for path, _, message in found.attributes[name].validate(value)
        ]
    else:
        problems = [f"{v.attribute}: {v.message}" for v in found.validate(values)]
    return "; ".join(problems)


# Registered UUID per SC-ID, cached per copy (one Lookup per copy or verification pass).
_REGISTERED: weakref.WeakKeyDictionary[Any, dict[str, str | None]] = weakref.WeakKeyDictionary()


def _registered_uuid(source: Any, device_id: str) -> str | None:
    """The wireless UUID evse-devices (migrated first) holds for an SC-ID, or None. A dry run has
    no evse-devices yet: it reads the legacy registry, keyed by the same SC-ID."""
    cache = _REGISTERED.setdefault(source, {})
    if device_id not in cache:
        found = None
        for table in (DEVICES, REGISTRY):
            try:
                request = {"TableName": table, "Key": {"device_id": {"S": device_id}}, "ConsistentRead": True}
                found = source.client.get_item(**request).get("Item")
                break
            except source.client.exceptions.ResourceNotFoundException:
                continue
        cache[device_id] = _DESERIALIZER.deserialize(found["wireless_device_id"]) if found else None
    return cache[device_id]


def _owned_device(source: Any, uuid: Any) -> str:
    """The SC-ID of a legacy row's UUID, checked against the registry.

    Raises ``ScIdCollision`` when the registry holds another UUID under that SC-ID, ``Rejected``
    when the SC-ID is not registered (an unregistered device's rows could merge with a colliding
    one's unnoticed; kept aside instead).
    """
    if (
        not isinstance(uuid, str)
        or not DESIGN.entities["Device"].attributes["wireless_device_id"].validate(uuid) == []
    ):
        raise Rejected(f"wireless_device_id {uuid!r} is not a UUID")
    device_id = sc_id(uuid)
    holder = _registered_uuid(source, device_id)
    if holder is None:
        raise Rejected(f"SC-ID {device_id} of wireless device {uuid} is not in {REGISTRY}")
    if holder != uuid:
        raise ScIdCollision(
            f"legacy wireless devices {holder} and {uuid} both derive SC-ID {device_id} (the 4-byte "
            "SHA-256 prefixes collide); stopped before merging two chargers: resolve the collision "
            "(ADR-006 Decision 2: a longer SC-ID) and run the migration again"
        )
    return device_id


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


# A complete OTA session names both versions and its start; a finished one also its completion.
_OTA_REQUIRED = {"in_progress": ("from_version", "to_version", "started_ms")}
_OTA_REQUIRED["success"] = _OTA_REQUIRED["failed"] = (*_OTA_REQUIRED["in_progress"], "completed_ms")


def _ota_problem(item: dict[str, Any]) -> str:
    status = item.get("status")
    if status not in _OTA_REQUIRED:
        return f"ota sentinel: status {status!r} is not one of {', '.join(_OTA_REQUIRED)}"
    missing = [name for name in _OTA_REQUIRED[status] if item.get(name) is None]
    return f"ota sentinel ({status}) is incomplete: no {', '.join(missing)}" if missing else ""


def sentinel_state(item: dict[str, Any]) -> Merge:
    """A sentinel item (timestamp 0/-1/-2/-3) as attributes of the device's one state item.

    Raises ``Rejected`` for an incomplete OTA session or a value the design refuses.
    """
    kind = SENTINELS[int(item["timestamp"])]
    device = item["wireless_device_id"]
    if kind == "ota" and (problem := _ota_problem(item)):
        raise Rejected(problem)
    state: dict[str, Any] = {"device_id": sc_id(device), "wireless_device_id": device, "version": 1}
    try:
        for legacy, (name, convert) in _SENTINEL_FIELDS[kind].items():
            if legacy in item:
                state[name] = convert(item[legacy])
    except (TypeError, ValueError, ArithmeticError) as error:
        raise Rejected(f"{kind} sentinel: {error}") from None
    if kind == "scheduler" and "last_event_ms" in state:
        state["last_event_mt"] = to_mt(state["last_event_ms"])
    if kind == "ota":  # the firmware a device runs follows from its last OTA session
        state["firmware_version"] = (
            state["ota_to_version"] if state.get("ota_status") == "success" else state["ota_from_version"]
        )
    for group, attribute in _GROUP_TIMES.get(kind, ()):
        if attribute in state:  # when the group last changed, for late uplinks (evse/state.py)
            state[f"{group}_updated_ms"] = int(item[_GROUP_SOURCES[attribute]])
    if problem := _violations("DeviceState", state, partial=True):
        raise Rejected(f"{kind} sentinel: {problem}")
    return Merge(DEVICE_STATE, state)


# Sentinel kind -> the state groups it sets and the new attribute whose legacy instant dates them.
_GROUP_TIMES: dict[str, tuple[tuple[str, str], ...]] = {
    "scheduler": (("scheduler", "scheduler_updated_mt"), ("telemetry", "last_event_ms")),
    "ota": (("ota", "ota_started_mt"), ("ota", "ota_completed_mt")),  # the later one wins
    "time_sync": (("time_sync", "time_sync_mt"),),
}
_GROUP_SOURCES = {
    "scheduler_updated_mt": "updated_ms",
    "last_event_ms": "last_uplink_ms",
    "ota_completed_mt": "completed_ms",
    "ota_started_mt": "started_ms",
    "time_sync_mt": "synced_ms",
}


def _payload(item: dict[str, Any]) -> dict[str, Any]:
    """The event's ``data`` JSON string as attributes (numbers exact); ``Rejected`` when it is not a
    JSON object or names an attribute the migration derives from the legacy key and type."""
    if not isinstance(item.get("data"), str):
        raise Rejected("no data: the payload JSON string is missing")
    try:
        payload = json.loads(item["data"], parse_float=Decimal)
    except json.JSONDecodeError as error:
        raise Rejected(f"data is not JSON: {error}") from None
    if not isinstance(payload, dict):
        raise Rejected(f"data is JSON {type(payload).__name__}, not an object")
    taken = [name for name in DERIVED if name in payload]
    if taken:
        raise Rejected(
            f"data sets {', '.join(taken)}, which the migration derives from the legacy key and type"
        )
    return payload


def _legacy_ms(value: Any, name: str, *, sentinels: Collection[int] = ()) -> int:
    """A legacy instant (Unix ms) as the new design's ``epoch_ms`` attributes take it, or Rejected: a
    fraction (``int`` would round it into another row's key, or a sentinel's) or a year outside
    2000-2100 (beyond 9999 no calendar places it at all). ``sentinels`` pass as they are."""
    try:
        whole = isinstance(value, int | Decimal) and not isinstance(value, bool) and value == int(value)
    except (ValueError, OverflowError):  # NaN, Infinity
        whole = False
    if not whole:
        raise Rejected(f"{name} {value!r} is not a whole number of milliseconds")
    ms = int(value)
    if ms not in sentinels and (problems := [message for _, _, message in _EPOCH_MS.validate(ms)]):
        raise Rejected(f"{name}: {'; '.join(problems)}")
    return ms


def _event(item: dict[str, Any], source: Any) -> list[Any]:
    device_id = _owned_device(source, item["wireless_device_id"])
    instant = _legacy_ms(item.get("timestamp"), "timestamp", sentinels=SENTINELS)
    if instant in SENTINELS:
        return [sentinel_state(item)]
    payload = _payload(item)
    offset = _placement(item, source)
    ms = instant + offset
    new = {
        **payload,
        "device_id": device_id,
        "timestamp_mt": to_mt(ms),
        "wireless_device_id": item["wireless_device_id"],  # kept for IoT Wireless API calls
        "timestamp": ms,
        "event_type": item.get("type"),
    }
    if offset:
        new["collision_offset_ms"] = offset
    if problem := _violations("Event", new):
        raise Rejected(problem)
    return [Put(EVENTS, new)]


def event(item: dict[str, Any], source: Any) -> list[Any]:
    """A legacy events-table item: a sentinel folds into evse-device-state, an event is re-keyed;
    a row that cannot be migrated goes to the rejects table."""
    try:
        return _event(item, source)
    except Rejected as reason:
        return [
            _reject(LEGACY_EVENTS, f"{item.get('wireless_device_id')}#{item.get('timestamp')}", item, reason)
        ]


def _registry(item: dict[str, Any]) -> dict[str, Any]:
    new = {k: v for k, v in item.items() if k != "fw_version"}
    if "fw_version" in item:
        new["firmware_version"] = item["fw_version"]
    new["version"] = 1
    if item.get("device_id") != sc_id(str(item.get("wireless_device_id"))):
        raise Rejected(
            f"device_id {item.get('device_id')!r} is not the SC-ID of {item.get('wireless_device_id')!r}"
        )
    if problem := _violations("Device", new):
        raise Rejected(problem)
    return new


def registry(item: dict[str, Any]) -> dict[str, Any] | list[Any]:
    """device-registry -> evse-devices: ``fw_version`` renamed, a version for optimistic locking."""
    try:
        return _registry(item)
    except Rejected as reason:
        return [_reject(REGISTRY, str(item.get("device_id")), item, reason)]


def _wall_clock_hours(day: str) -> int:
    start = datetime.combine(date.fromisoformat(day), datetime.min.time(), MOUNTAIN)
    end = datetime.combine(date.fromisoformat(day) + timedelta(days=1), datetime.min.time(), MOUNTAIN)
    return int((end.timestamp() - start.timestamp()) // 3600)


def _aggregates(item: dict[str, Any], source: Any) -> dict[str, Any]:
    device_id = _owned_device(source, item["wireless_device_id"])
    try:
        by_type = json.loads(item["by_type"])
        new = {
            "device_id": device_id,
            "date": item["date"],
            "event_count": item["count"],
            "type_counts": by_type,
            "energy_wh": item["energy_wh"],
            "max_current_a": item["max_current_a"],
            "interlock_trips": item["interlocks"],
            "first_event_mt": to_mt(_legacy_ms(item["first_ts"], "first_ts")),
            "last_event_mt": to_mt(_legacy_ms(item["last_ts"], "last_ts")),
            "wall_clock_hours": _wall_clock_hours(item["date"]),
        }
    except json.JSONDecodeError as error:
        raise Rejected(f"by_type is not JSON: {error}") from None
    except KeyError as error:
        raise Rejected(f"no {error.args[0]}") from None
    except (TypeError, ValueError) as error:
        raise Rejected(str(error)) from None
    if problem := _violations("DailyStats", new):
        raise Rejected(problem)
    return new


def aggregates(item: dict[str, Any], source: Any) -> dict[str, Any] | list[Any]:
    """daily-aggregates -> evse-daily-stats: re-keyed by SC-ID, renamed counters, JSON string -> map."""
    try:
        return _aggregates(item, source)
    except Rejected as reason:
        key = f"{item.get('wireless_device_id')}#{item.get('date')}"
        return [_reject(AGGREGATES, key, item, reason)]
