"""Durations, rates and sizes as written in design files, normalised to seconds, per-second and bytes."""

from __future__ import annotations

import math
import re
from decimal import Decimal

# A month is 730 hours: AWS's (and infracost's) billing convention, so cost figures line up.
SECONDS_PER: dict[str, int] = {
    "s": 1,
    "sec": 1,
    "second": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "h": 3600,
    "hour": 3600,
    "d": 86_400,
    "day": 86_400,
    "w": 604_800,
    "week": 604_800,
    "month": 730 * 3600,
    "y": 365 * 86_400,
    "year": 365 * 86_400,
}
SIZE_UNITS: dict[str, int] = {"b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3}

_AMOUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")


def _split(text: str, what: str) -> tuple[Decimal, str]:
    match = _AMOUNT.match(text)
    if not match:
        raise ValueError(f"{text!r} is not a {what}")
    unit = match.group(2).lower()
    # Plurals ("days", "mins") name the same unit; a lone "s" is seconds.
    return Decimal(match.group(1)), unit.rstrip("s") if len(unit) > 1 else unit


def parse_duration(value: object) -> int:
    """``30d``, ``12h``, ``90m``, ``45s``, ``1w``, ``1y`` or a number of seconds -> whole seconds."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    amount, unit = _split(str(value), "duration such as 30d, 12h, 90m")
    if unit not in SECONDS_PER:
        raise ValueError(f"unknown duration unit {unit!r} in {value!r} (use s, m, h, d, w, y)")
    return int(amount * SECONDS_PER[unit or "s"]) if unit else int(amount)


def parse_rate(value: object) -> float:
    """``10/s``, ``5/min``, ``100/day``, ``1M/month`` style rates or a plain per-second number -> per second."""
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
    amount, unit = _split(period if period[:1].isdigit() else f"1{period}", "period")
    if unit not in SECONDS_PER:
        raise ValueError(f"unknown period {period!r} in rate {value!r} (use s, min, hour, day, week, month)")
    return _finite(count / float(amount * SECONDS_PER[unit]), value)


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
