"""SC-IDs and Mountain Time sort keys: the two derivations ADR-006 puts into every key.

The design computes both with key templates (``design.yaml``); these functions are the same rules
in plain Python for code that needs them before an item exists (queries, day ranges, the sample
generator). The tests check that both give the same text.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

MOUNTAIN = ZoneInfo("America/Denver")  # Decision 3: "Mountain Time is the deployment timezone"
MT_FORMAT = "%Y-%m-%d %H:%M:%S"  # + ".mmm"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
SC_ID_BYTES = 4  # Decision 2: "first 4 bytes, hex-encoded"
# The days an event can fall on: the design bounds every event's `timestamp` (epoch_ms) to
# 2000-01-01..2100-01-01 UTC, so a day outside these holds no event, and year 1 or 9999 would
# overflow the date arithmetic of the jobs (the day before, the day after).
FIRST_DAY, LAST_DAY = date(2000, 1, 1), date(2099, 12, 31)


def sc_id(wireless_device_id: str) -> str:
    """``SC-`` + the first 4 bytes of SHA-256 of the UUID text, hex, upper case (``SC-A1B2C3D4``).

    The UUID is hashed as the text IoT Wireless returns (lower-case, hyphenated); a UUID written in
    upper case is another string and gives another SC-ID, so callers pass it as IoT Wireless does.
    """
    digest = hashlib.sha256(wireless_device_id.encode("utf-8")).digest()
    return "SC-" + digest[:SC_ID_BYTES].hex().upper()


def sc_id_collision_probability(devices: int) -> float:
    """Birthday bound for at least two of ``devices`` UUIDs sharing an SC-ID (32-bit space)."""
    space = 2 ** (8 * SC_ID_BYTES)
    p_distinct = 1.0
    for i in range(devices):
        p_distinct *= (space - i) / space
    return 1.0 - p_distinct


def instant(ms: int) -> datetime:
    """Unix milliseconds as an aware UTC datetime (exact: no float on the way)."""
    return _EPOCH + timedelta(milliseconds=ms)


def to_mt(ms: int) -> str:
    """Unix ms -> ``timestamp_mt`` text, ``YYYY-MM-DD HH:MM:SS.mmm`` on the Denver wall clock."""
    local = instant(ms).astimezone(MOUNTAIN)
    return f"{local.strftime(MT_FORMAT)}.{ms % 1000:03d}"


def mt_date(ms: int) -> str:
    """The Mountain Time calendar date (``YYYY-MM-DD``) of an instant: the daily-stats sort key."""
    return instant(ms).astimezone(MOUNTAIN).date().isoformat()


def parse_day(day: str) -> date:
    """A Mountain Time day written ``YYYY-MM-DD``, from ``FIRST_DAY`` to ``LAST_DAY``; ``ValueError``
    naming the text otherwise (``date.fromisoformat`` alone also takes ``20250115``)."""
    if not isinstance(day, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day, re.ASCII):
        raise ValueError(f"{day!r} is not a date (YYYY-MM-DD)")
    try:
        parsed = date.fromisoformat(day)
    except ValueError:
        raise ValueError(f"{day!r} is not a date (YYYY-MM-DD)") from None
    if not FIRST_DAY <= parsed <= LAST_DAY:
        raise ValueError(
            f"{day!r} is outside {FIRST_DAY}..{LAST_DAY}, the days an event can fall on "
            "(the design keeps event timestamps between 2000 and 2100)"
        )
    return parsed


def day_range(day: str) -> tuple[str, str]:
    """The first and last ``timestamp_mt`` of a Mountain Time day: a BETWEEN over one partition.

    Wall-clock strings make this exact on DST days too: the 25-hour fall-back day and the 23-hour
    spring-forward day are both everything that starts with ``day``.
    """
    parse_day(day)  # ValueError naming the text when it is not a day events can fall on
    return f"{day} 00:00:00.000", f"{day} 23:59:59.999"


def day_start_ms(day: str) -> int:
    """The instant a Mountain Time day begins (local midnight is never in a repeated hour)."""
    return from_mt(f"{parse_day(day).isoformat()} 00:00:00.000")


def wall_clock_hours(day: str) -> int:
    """How many real hours a Mountain Time day lasts: 24, or 23/25 on DST change days."""
    start = parse_day(day)
    midnight = datetime(start.year, start.month, start.day, tzinfo=MOUNTAIN)
    following = midnight + timedelta(days=1)  # wall-clock arithmetic: the next local midnight
    return round((following.astimezone(UTC) - midnight.astimezone(UTC)).total_seconds() / 3600)


def from_mt(text: str, *, fold: int = 0) -> int:
    """``timestamp_mt`` text -> Unix ms. In the repeated fall-back hour the text names two instants:
    ``fold=0`` is the first (MDT), ``fold=1`` the second (MST) - the key alone cannot tell them apart."""
    local = datetime.strptime(text, MT_FORMAT + ".%f").replace(tzinfo=MOUNTAIN, fold=fold)
    delta = local.astimezone(UTC) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
