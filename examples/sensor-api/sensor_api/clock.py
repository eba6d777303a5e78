"""Time in the document's formats: RFC 3339 UTC to the second for metadata, epoch ms for readings."""

from __future__ import annotations

from datetime import UTC, datetime

from tablewright.design.timeutil import format_rfc3339


def utc_now(now: datetime | None = None) -> datetime:
    """``now`` (naive means UTC), or the current time; truncated to the second the document stores."""
    moment = now or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0)


def rfc3339(moment: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ``: one precision everywhere, so the strings sort as the instants do."""
    return format_rfc3339(moment)
