"""Durations, rates and sizes as written in design files, normalised to seconds, per-second and bytes."""

from __future__ import annotations

import math
import re
from decimal import Decimal

_MONTH = 730 * 3600  # AWS's (and infracost's) billing month, so cost figures line up.

# Every spelling of a unit of time a design may use (compared in lower case) -> seconds. Units are looked
# up whole, never by trimming letters: trimming once turned "ms" into "m" and read 10/ms as 10 a minute.
SECONDS_PER: dict[str, int] = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600),
    **dict.fromkeys(("d", "day", "days"), 86_400),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), 604_800),
    **dict.fromkeys(("mo", "month", "months"), _MONTH),
    **dict.fromkeys(("y", "yr", "yrs", "year", "years"), 365 * 86_400),
}
UNITS_OF_TIME = "s (sec, second), m (min, minute), h (hr, hour), d (day), w (week), month, y (year)"
# Durations are whole seconds (a TTL is epoch seconds), so a millisecond cannot be carried: refused.
_MILLISECONDS = frozenset({"ms", "msec", "msecs", "millisecond", "milliseconds"})
SIZE_UNITS: dict[str, int] = {"b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3}

_AMOUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")


def _unit_seconds(unit: str, value: object) -> int:
    """The seconds in one ``unit`` of time as written in ``value``; a ValueError names what is wrong.

    Case does not matter (``30D``, ``5/Min``), except that a capital ``M`` is refused: it reads as
    minutes, months or (before the slash of a rate) millions. ``ms`` is refused, not read as minutes.
    """
    if unit == "M":
        raise ValueError(
            f"{value!r}: 'M' is not a unit of time (minutes, months or millions?); write min or month "
            f"(units: {UNITS_OF_TIME})"
        )
    if unit.lower() in _MILLISECONDS:
        raise ValueError(
            f"{value!r}: milliseconds are not a unit here (durations and rates count whole seconds); "
            "use seconds: 5000ms is 5s, 10/ms is 10000/s"
        )
    if unit.lower() not in SECONDS_PER:
        raise ValueError(f"{value!r}: unknown unit of time {unit!r} (units: {UNITS_OF_TIME})")
    return SECONDS_PER[unit.lower()]


def parse_duration(value: object) -> int:
    """``30d``, ``12h``, ``90m``, ``45s``, ``1w``, ``1y`` or a number of seconds (``3600``, ``"3600"``)
    -> whole seconds, zero or more."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration such as 30d, 12h, 90m or a number of seconds")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{value!r} is not a duration: it cannot be negative")
        return value
    match = _AMOUNT.match(str(value))
    if not match:
        raise ValueError(f"{value!r} is not a duration such as 30d, 12h, 90m or a number of seconds")
    amount, unit = Decimal(match.group(1)), match.group(2)
    seconds = amount * (_unit_seconds(unit, value) if unit else 1)  # a bare number is seconds
    if seconds != seconds.to_integral_value():
        raise ValueError(f"{value!r} is not a whole number of seconds ({seconds} s)")
    return int(seconds)


def parse_rate(value: object) -> float:
    """``10/s``, ``5/min``, ``100/day``, ``1M/month`` style rates or a plain per-second number -> per second.

    Before the slash ``K`` is a thousand and ``M`` a million; after it comes a period, a unit of time with
    an optional count (``3/5min``), never zero.
    """
    if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        return _finite(float(value), value)
    text = str(value).strip().replace("_", "")
    count_text, slash, period = text.partition("/")
    multiplier = 1
    if count_text[-1:].upper() in ("K", "M"):
        multiplier = 1000 if count_text[-1].upper() == "K" else 1_000_000
        count_text = count_text[:-1]
    try:
        count = float(count_text) * multiplier
    except ValueError:
        raise ValueError(f"{value!r} is not a rate (write it as 10/s, 100/day or 1M/month)") from None
    if not slash:
        return _finite(count, value)
    match = _AMOUNT.match(period if period.strip()[:1].isdigit() else f"1{period}")
    if not match or not match.group(2):
        raise ValueError(
            f"{value!r} is not a rate: {period.strip()!r} after the slash is not a period such as s, min, "
            f"5min, day or month (units: {UNITS_OF_TIME})"
        )
    seconds = Decimal(match.group(1)) * _unit_seconds(match.group(2), value)
    if seconds <= 0:
        raise ValueError(f"{value!r} is not a rate: its period {period.strip()!r} must be longer than zero")
    return _finite(count / float(seconds), value)


def parse_factor(value: object) -> float:
    """A multiplier such as a peak factor: a finite number, zero or more."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ValueError(f"{value!r} is not a number") from None
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{value!r} must be a finite number, zero or more")
    return number


def _finite(number: float, value: object) -> float:
    """A rate or factor must be a number the estimates can count with (YAML's .inf and .nan are not)."""
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{value!r} is not a rate: it must be a finite number, zero or more")
    return number


def parse_size(value: object) -> int:
    """``600``, ``600B``, ``1.5KB`` (KB = 1024 bytes) -> bytes."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    match = _AMOUNT.match(str(value))
    if not match or match.group(2).lower() not in SIZE_UNITS | {"": 1}:
        raise ValueError(f"{value!r} is not a size (write 600 or 600B or 1.5KB)")
    return int(Decimal(match.group(1)) * SIZE_UNITS.get(match.group(2).lower(), 1))
