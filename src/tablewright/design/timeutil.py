"""Timestamp coercion shared by key templates, validators and predicates.

DynamoDB has no date type: designs store instants as RFC 3339 strings or epoch numbers. These helpers
turn any of those (or a ``datetime``) into an aware UTC ``datetime`` and back, so every part of the
design model agrees on one interpretation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction

# fullmatch with ASCII digits: "...Z\n" or Unicode digits are not timestamps.
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})", re.ASCII
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# What a ``datetime`` holds, hence every instant a date filter or an RFC 3339 text can show.
_RANGE = "0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z"
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
    try:
        return datetime.fromisoformat(base.replace("t", "T") + offset).astimezone(UTC)
    except OverflowError:  # an offset moving 9999-12-31 or 0001-01-01 out of datetime's years
        raise ValueError(f"{text!r} is outside the instants a timestamp can hold ({_RANGE})") from None


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
        try:
            # Integer microseconds avoid float rounding (1704067800123 ms must stay .123).
            micros = int(Decimal(str(value)) * 1_000_000 / EPOCH_UNITS[unit])
            return _EPOCH + timedelta(microseconds=micros)
        except OverflowError:  # a valid number, but no datetime: refused like any other bad timestamp
            raise ValueError(
                f"{value} ({unit}) is outside the instants a timestamp can hold ({_RANGE})"
            ) from None
    raise ValueError(f"{value!r} ({type(value).__name__}) is not a timestamp")


def epoch_seconds_of(value: object, unit: str | None = None) -> int:
    """Whole epoch seconds (rounded down) of a timestamp, as ``epoch_s(to_datetime(value, unit))``.

    An epoch number is converted by exact arithmetic rather than through a ``datetime``: a TTL is a
    number and may lie beyond the year 9999 that a ``datetime`` ends at (``9999-12-31T23:59:59Z`` plus
    a day, or an epoch value given in the wrong unit, which then fails where a date is rendered).
    """
    if type(value) is int and unit in EPOCH_UNITS:
        # Fast path: an int's floor division is the exact quotient rounded down, no Fraction needed.
        return value // EPOCH_UNITS[unit]
    if isinstance(value, int | Decimal | float) and not isinstance(value, bool) and unit in EPOCH_UNITS:
        return math.floor(Fraction(str(value)) / EPOCH_UNITS[unit])
    return epoch_s(to_datetime(value, unit))


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


def exact_precision(moment: datetime) -> str:
    """The coarsest precision that spells ``moment`` without losing a digit (``s``, ``ms`` or ``us``)."""
    if moment.microsecond == 0:
        return "s"
    return "ms" if moment.microsecond % 1000 == 0 else "us"


def format_exact(moment: datetime) -> str:
    """An instant as RFC 3339 UTC with every digit it has: ``...00Z``, ``...00.500Z``, ``...00.123456Z``."""
    return format_with_precision(moment, exact_precision(moment))


def format_with_precision(moment: datetime, precision: str | None) -> str:
    """An instant as RFC 3339 UTC with the fraction digits of ``precision`` (seconds when None)."""
    return format_with_digits(moment, PRECISIONS.get(precision or "s", 0))


def format_with_digits(moment: datetime, digits: int) -> str:
    """An instant as RFC 3339 UTC with ``digits`` fraction digits (digits past microseconds are 0)."""
    utc = to_datetime(moment).astimezone(UTC)
    if not digits:
        return f"{_seconds_text(utc)}Z"
    return f"{_seconds_text(utc)}." + f"{utc.microsecond:06d}".ljust(digits, "0")[:digits] + "Z"


def instants_as_text(values: Mapping[str, object], names: Collection[str]) -> Mapping[str, object]:
    """``values`` with the ``datetime`` of each of ``names`` spelled as RFC 3339 with all its digits.

    For key composition: a key template gives text its attribute's precision (refusing finer digits
    unless it truncates), so a datetime spelled in full is held to the same rule as a string.
    """
    instants = {n: v for n, v in values.items() if n in names and isinstance(v, datetime)}
    return {**values, **{n: format_exact(v) for n, v in instants.items()}} if instants else values
