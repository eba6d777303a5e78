"""Uplink ingestion: append the event and overwrite the device's state item, in one transaction.

ADR-006 Decision 5: "Single item per device, overwritten on each uplink" and "the events table
becomes a pure append-only log". Read together, one uplink is one ``rt.transact`` (one
TransactWriteItems):

1. ``tx_check`` evse-devices: the SC-ID is registered *to this wireless UUID*. The SC-ID is a 32-bit
   hash, so two UUIDs can share one; this check keeps a colliding device out of another's partition.
2. ``tx_put`` the event (a create): append-only, never an overwrite.
3. the new state item: ``tx_put`` (a create) for a device's first event, else ``tx_replace`` under its
   version (optimistic locking), when the event changes it: a late delivery never rolls the state
   back, but still sets what no newer event of its group set (``state.apply_event``).

A refused event put means the key is taken. The stored event tells which case it is:

* the same event (same instant, type and payload): IoT Wireless delivered it twice -> ``duplicate``;
* another event on the same wall-clock millisecond (the repeated fall-back hour, or two events of
  one instant): this one is moved 1 ms later and retried, recording ``collision_offset_ms``. The ADR
  accepts wall-clock *order* in that hour; silently losing an event would be a different trade-off.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from tablewright.runtime import ConflictError, Record, Runtime, RuntimeFailure

from .state import apply_event

MAX_ATTEMPTS = 20  # collisions and version races together
MAX_COLLISION_OFFSET_MS = 1000  # the design's bound on collision_offset_ms
# How far an uplink's network Timestamp may be ahead of the ingest clock (README): clocks of two AWS
# services differ by far less; an event from further ahead would stay the newest of its state group
# until real time caught up, and every real uplink until then would count as late.
MAX_AHEAD_MS = 5 * 60 * 1000
# Attributes that say where an event is stored, not what it is: ignored when spotting a redelivery.
PLACEMENT = ("timestamp", "timestamp_mt", "collision_offset_ms", "device_id")
CHECK, EVENT, STATE = 0, 1, 2  # operation positions in the transaction


class UnknownDeviceError(LookupError):
    """An uplink for an SC-ID that is not in evse-devices."""


class ScIdCollisionError(RuntimeError):
    """Two wireless UUIDs hash to one SC-ID; the second cannot use the first one's partition."""


class FutureEventError(ValueError):
    """An uplink whose network Timestamp is more than ``MAX_AHEAD_MS`` ahead of the ingest clock."""


@dataclass
class IngestResult:
    """``status``: ``appended`` or ``duplicate``; ``state_updated`` is False when the state did not change."""

    status: str
    event: Record
    state_updated: bool
    collision_offset_ms: int = 0
    attempts: int = 1


def ingest_uplink(rt: Runtime, values: Mapping[str, object], *, now: datetime | None = None) -> IngestResult:
    """Validate one event (every rule, before any write) and store it with the state it implies."""
    moment = now or datetime.now(UTC)
    original = dict(values)
    event = rt.compose("Event", original, now=moment)  # ValidationError listing every broken rule
    ahead_ms = int(event["timestamp"]) - round(moment.timestamp() * 1000)  # type: ignore[call-overload]
    if ahead_ms > MAX_AHEAD_MS:
        raise FutureEventError(
            f"uplink of {event['device_id']} at {event['timestamp_mt']} (Mountain Time) is "
            f"{ahead_ms / 60_000:.1f} minutes ahead of the ingest clock ({moment.isoformat()}); more than "
            f"{MAX_AHEAD_MS // 60_000} minutes ahead is refused, so that it cannot stay the device's newest state"
        )
    offset = 0
    for attempt in range(1, MAX_ATTEMPTS + 1):
        device_id = str(event["device_id"])
        state = rt.get("DeviceState", device_id=device_id)
        current = {k: v for k, v in (state or {}).items() if k != "version"}
        next_state = apply_event(state, event)
        changes_state = state is None or next_state != current  # a late event may change nothing
        operations = [
            rt.tx_check(
                "Device",
                {"device_id": device_id},
                "wireless_device_id = :uuid",
                condition_params={"uuid": event["wireless_device_id"]},
            ),
            rt.tx_put("Event", _placed(original, offset)),
        ]
        if changes_state:
            version = int(state["version"]) if state is not None else None  # type: ignore[call-overload]
            operations.append(
                rt.tx_put("DeviceState", next_state)
                if version is None
                else rt.tx_replace("DeviceState", next_state, expected_version=version)
            )
        try:
            result = rt.transact(operations, now=moment)
        except RuntimeFailure as error:
            failed = getattr(error, "operation", None)
            if failed == CHECK:
                _raise_device_problem(rt, event)
            if failed == EVENT:
                stored = rt.get("Event", device_id=device_id, timestamp_mt=event["timestamp_mt"])
                if stored is not None and _same_event(stored, event):
                    return IngestResult("duplicate", stored, False, offset, attempt)
                offset += 1
                if offset > MAX_COLLISION_OFFSET_MS:
                    raise
                event = rt.compose("Event", _placed(original, offset), now=moment)
                continue
            if failed == STATE and isinstance(error, ConflictError):
                continue  # another uplink of this device changed the state: read it again, re-apply
            raise
        record = next(r for r in result.records if r.entity == "Event")
        return IngestResult("appended", record, changes_state, offset, attempt)
    raise RuntimeError(
        f"uplink {event['device_id']} at {event['timestamp_mt']}: not stored after {MAX_ATTEMPTS} attempts"
    )


def _placed(original: Mapping[str, object], offset: int) -> dict[str, object]:
    """The event moved ``offset`` ms later (offset 0: as sent)."""
    if not offset:
        return dict(original)
    return {**original, "timestamp": int(original["timestamp"]) + offset, "collision_offset_ms": offset}  # type: ignore[call-overload]


def _same_event(stored: Mapping[str, object], event: Mapping[str, object]) -> bool:
    """A redelivery: the stored event has this one's instant and every other attribute equal."""
    stored_instant = int(stored["timestamp"]) - int(stored.get("collision_offset_ms") or 0)  # type: ignore[call-overload]
    event_instant = int(event["timestamp"]) - int(event.get("collision_offset_ms") or 0)  # type: ignore[call-overload]
    if stored_instant != event_instant:
        return False
    strip = lambda values: {k: v for k, v in values.items() if k not in PLACEMENT}  # noqa: E731
    return strip(stored) == strip(event)


def _raise_device_problem(rt: Runtime, event: Mapping[str, object]) -> None:
    device = rt.get("Device", device_id=event["device_id"])
    if device is None:
        raise UnknownDeviceError(
            f"device {event['device_id']} (wireless device {event['wireless_device_id']}) is not "
            "registered in evse-devices; register it before ingesting its uplinks"
        )
    raise ScIdCollisionError(
        f"SC-ID {event['device_id']} belongs to wireless device {device['wireless_device_id']}, "
        f"not {event['wireless_device_id']}: the 4-byte SHA-256 prefixes collide"
    )
