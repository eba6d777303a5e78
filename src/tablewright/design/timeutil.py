"""Timestamp coercion shared by key templates, validators and predicates.

DynamoDB has no date type: designs store instants as RFC 3339 strings or epoch numbers. These helpers
turn any of those (or a ``datetime``) into an aware UTC ``datetime`` and back, so every part of the
design model agrees on one interpretation.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

# fullmatch with ASCII digits: "...Z\n" or Unicode digits are not timestamps.
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})", re.ASCII
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Epoch units a numeric timestamp may be declared in, as multipliers to seconds.
EPOCH_UNITS: dict[str, int] = {"epoch_s": 1, "s": 1, "epoch_ms": 1000, "ms": 1000}


def parse_rfc3339(text: str) -> datetime:
    """Parse an RFC 3339 timestamp (``Z`` or an offset) into an aware UTC datetime.

    Raises ``ValueError`` naming the text when it is not RFC 3339.
    """
    match = _RFC3339.fullmatch(text)
    if not match:
        raise ValueError(f"{text!r} is not an RFC 3339 timestamp (YYYY-MM-DDTHH:MM:SS[.fff]Z)")
    frac = match.group(7) or ""
    # Python's fromisoformat wants 0, 3 or 6 fraction digits; normalise to microseconds.
    micro = (frac[1:] + "000000")[:6] if frac else "000000"
    zone = match.group(8).upper()
    base = f"{text[: match.start(7) if frac else match.start(8)]}.{micro}"
    offset = "+00:00" if zone == "Z" else zone
    return datetime.fromisoformat(base.replace("t", "T") + offset).astimezone(UTC)


def to_datetime(value: object, unit: str | None = None) -> datetime:
    """Coerce ``value`` to an aware datetime.

    ``datetime`` values keep their zone (naive means UTC); strings are parsed as RFC 3339; numbers are
    epoch values in ``unit`` (``epoch_ms``/``ms`` or ``epoch_s``/``s``), which must be given because a
    bare number is ambiguous.
    """
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, str):
        return parse_rfc3339(value)
    if isinstance(value, int | Decimal | float) and not isinstance(value, bool):
        if unit not in EPOCH_UNITS:
            raise ValueError(
                f"number {value} used as a timestamp but its unit is unknown: declare format epoch_ms or epoch_s"
            )
        # Integer microseconds avoid float rounding (1704067800123 ms must stay .123).
        micros = int(Decimal(str(value)) * 1_000_000 / EPOCH_UNITS[unit])
        return _EPOCH + timedelta(microseconds=micros)
    raise ValueError(f"{value!r} ({type(value).__name__}) is not a timestamp")


def format_rfc3339(moment: datetime, *, millis: bool = False) -> str:
    """Format an instant as RFC 3339 UTC with a ``Z`` suffix (seconds, or milliseconds)."""
    utc = to_datetime(moment).astimezone(UTC)
    text = _seconds_text(utc)
    return f"{text}.{utc.microsecond // 1000:03d}Z" if millis else f"{text}Z"


def _seconds_text(utc: datetime) -> str:
    # Not strftime: its %Y writes year 1 as "1" on glibc, which is no RFC 3339 and sorts wrongly.
    return f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"


def epoch_ms(moment: datetime) -> int:
    """Milliseconds since the Unix epoch, exact for microsecond datetimes."""
    delta = to_datetime(moment) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def epoch_s(moment: datetime) -> int:
    """Whole seconds since the Unix epoch (DynamoDB TTL's unit)."""
    return epoch_ms(moment) // 1000


# Timestamp precisions an rfc3339 attribute may declare, as digits after the seconds.
PRECISIONS: dict[str, int] = {"s": 0, "ms": 3, "us": 6}
_UTC_TEXT = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z", re.ASCII)


class PrecisionError(ValueError):
    """A timestamp has more precision than its attribute declares, and dropping digits is not allowed."""


def normalise_rfc3339(text: str, precision: str, *, truncate: bool = False) -> str:
    """``text`` (RFC 3339 UTC, ``Z``) with exactly the fraction digits of ``precision``.

    Missing digits are zeros (lossless); extra digits that are all zeros are dropped (lossless);
    other extra digits are dropped only with ``truncate``, else ``PrecisionError``. One precision per
    attribute means one spelling per instant: ``...00Z`` sorts after ``...00.000Z`` and before
    ``...00.500Z``, so mixed spellings put items outside string ranges that contain them. Text that
    is not RFC 3339 UTC is returned unchanged (the format rule reports it).
    """
    match = _UTC_TEXT.fullmatch(text)
    if match is None:
        return text
    digits = PRECISIONS[precision]
    whole, fraction = match.group(1), match.group(2) or ""
    extra = fraction[digits:]
    if extra.strip("0") and not truncate:
        raise PrecisionError(
            f"{text!r} has {len(fraction)} fraction digits but the attribute's precision is "
            f"{precision} ({digits} digits); declare a finer precision, or truncate: true to drop them"
        )
    kept = fraction[:digits].ljust(digits, "0")
    return f"{whole}.{kept}Z" if digits else f"{whole}Z"


def format_with_precision(moment: datetime, precision: str | None) -> str:
    """An instant as RFC 3339 UTC with the fraction digits of ``precision`` (seconds when None)."""
    utc = to_datetime(moment).astimezone(UTC)
    digits = PRECISIONS.get(precision or "s", 0)
    if not digits:
        return f"{_seconds_text(utc)}Z"
    return f"{_seconds_text(utc)}." + f"{utc.microsecond:06d}"[:digits] + "Z"
