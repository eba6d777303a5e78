"""Reading queries: the latest reading and a time range over the composite ``ts_batch`` key.

The range runs from ``"{from_ms:013}#"`` to the greatest sort key starting ``"{to_ms:013}#"``
(composed by the design from ``timestamp_ms`` alone): every batch_id sorts between them, so readings
at exactly ``from_ms`` and exactly ``to_ms`` are included whatever their batch.
"""

from __future__ import annotations

from tablewright.runtime import Page, Record, Runtime


def latest_reading(rt: Runtime, hardware_id: str) -> Record | None:
    """The newest reading of a device (Limit 1, newest first), or None."""
    page = rt.run("latest_reading", hardware_id=hardware_id)
    return page.items[0] if page.items else None


def readings_between(
    rt: Runtime,
    hardware_id: str,
    from_ms: int,
    to_ms: int,
    *,
    limit: int | None = None,
    cursor: str | None = None,
) -> Page:
    """Readings with from_ms <= timestamp_ms <= to_ms, oldest first."""
    if from_ms > to_ms:
        # DynamoDB rejects BETWEEN with a lower bound above the upper one; name the bounds instead.
        raise ValueError(f"readings_between: from_ms {from_ms} is after to_ms {to_ms}")
    return rt.run(
        "readings_time_range",
        hardware_id=hardware_id,
        from_ms=from_ms,
        to_ms=to_ms,
        limit=limit,
        cursor=cursor,
    )
