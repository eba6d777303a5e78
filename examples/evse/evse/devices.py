"""The device registry (evse-devices): registration that refuses SC-ID collisions.

The SC-ID is 32 bits of SHA-256 (Decision 2). At the ADR's 1,000 devices the chance that two UUIDs
share one is about 1 in 8,600; at the "10K+" the ADR mentions it is about 1.2% (``ids``). A shared
SC-ID would merge two chargers' timelines and state, so registration is a conditional create:
the first UUID keeps the SC-ID, the second is refused by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from tablewright.runtime import ConflictError, Record, Runtime

from .ids import sc_id
from .ingest import ScIdCollisionError


def register_device(rt: Runtime, values: Mapping[str, object], *, now: datetime | None = None) -> Record:
    """Create the registry entry for a wireless device; registering it again returns the entry.

    Raises ``ScIdCollisionError`` when another UUID already holds the SC-ID.
    """
    uuid = str(values["wireless_device_id"])
    device_id = sc_id(uuid)
    existing = rt.get("Device", device_id=device_id)
    if existing is None:
        try:
            # rt.put is a create guarded by attribute_not_exists on the key: the SC-ID itself is
            # the uniqueness that matters.
            result = rt.put("Device", values, now=now)
            assert result.record is not None
            return result.record
        except ConflictError:
            existing = rt.get("Device", device_id=device_id)  # a concurrent registration won
    assert existing is not None
    if existing["wireless_device_id"] != uuid:
        raise ScIdCollisionError(
            f"SC-ID {device_id} of wireless device {uuid} is already registered to wireless device "
            f"{existing['wireless_device_id']}: the 4-byte SHA-256 prefixes collide"
        )
    return existing
