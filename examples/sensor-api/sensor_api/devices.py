"""Device registration and listing (table ``devices``, index ``gsi1``).

Registration is an upsert that keeps ``first_registered_at`` and ``confirmation_id`` from the first
registration and refreshes ``last_seen_at`` (and with it ``gsi1sk``, composed by the design),
``last_boot_id``, ``firmware_version`` and ``capabilities``. Every write carries the item's version,
so a registration racing another registration or a rename retries instead of overwriting it.
``last_seen_at`` never moves backwards (README D13), not even by a registration.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from tablewright.runtime import ConflictError, NotFoundError, Page, Record, Runtime

from .clock import rfc3339, utc_now

ATTEMPTS = 8  # optimistic retries; more means a device is being registered in a tight loop


@dataclass
class Registration:
    """The stored device and whether this call created it."""

    device: Record
    created: bool


def register_device(
    rt: Runtime,
    hardware_id: str,
    *,
    boot_id: str,
    firmware_version: str,
    capabilities: Mapping[str, object],
    now: datetime | None = None,
) -> Registration:
    """Register a device or refresh its registration; validation errors name the attribute."""
    moment = utc_now(now)
    fresh = {
        "last_seen_at": rfc3339(moment),
        "last_boot_id": boot_id,
        "firmware_version": firmware_version,
        "capabilities": dict(capabilities),
    }
    for _ in range(ATTEMPTS):
        current = rt.get("Device", hardware_id=hardware_id)
        try:
            if current is None:
                values = {"hardware_id": hardware_id, "confirmation_id": str(uuid.uuid4()), **fresh}
                result = rt.put("Device", values, now=moment)
                return Registration(result.record, True)  # type: ignore[arg-type]
            changes = {**fresh, "last_seen_at": _latest(current, fresh["last_seen_at"])}
            result = rt.update(
                "Device",
                {"hardware_id": hardware_id},
                changes,
                expected_version=current["version"],
                now=moment,
            )
            return Registration(result.record, False)  # type: ignore[arg-type]
        except ConflictError:
            continue  # someone else wrote first: re-read and apply on top of their write
    raise ConflictError(
        "Device", {"hardware_id": hardware_id}, "a quiet moment", f"{ATTEMPTS} concurrent writes"
    )


def _latest(current: Mapping[str, object], seen: str) -> str:
    """The later of the stored ``last_seen_at`` and this request's. The moment is taken when the
    request starts: by the time it writes (after a version conflict's retry, or a worker preempted
    in between), a batch handled by another worker may have stamped a later second, which writing
    our own moment would undo, and gsi1 would list the device as less recent than it is. The write
    is version-checked, so the stored value it is compared with is the one it replaces."""
    stored = str(current.get("last_seen_at") or "")
    return stored if stored > seen else seen  # RFC 3339 to the second sorts as the instants do


def set_friendly_name(rt: Runtime, hardware_id: str, friendly_name: str | None) -> Record:
    """Set (or, with None, remove) a device's friendly name; ``NotFoundError`` if not registered."""
    changes = {} if friendly_name is None else {"friendly_name": friendly_name}
    remove = ("friendly_name",) if friendly_name is None else ()
    for _ in range(ATTEMPTS):
        current = rt.get("Device", hardware_id=hardware_id)
        if current is None:
            raise NotFoundError(f"Device {hardware_id!r} is not registered")
        try:
            result = rt.update(
                "Device",
                {"hardware_id": hardware_id},
                changes,
                remove=remove,
                expected_version=current["version"],
            )
            return result.record  # type: ignore[return-value]
        except ConflictError:
            continue
    raise ConflictError(
        "Device", {"hardware_id": hardware_id}, "a quiet moment", f"{ATTEMPTS} concurrent writes"
    )


def devices_by_activity(rt: Runtime, *, limit: int | None = None, cursor: str | None = None) -> Page:
    """Devices, most recently seen first (gsi1); a Page with a cursor for the next page."""
    return rt.run("devices_by_activity", limit=limit, cursor=cursor)
