"""Key template filters: a table of ``name -> function``.

Each filter takes the current value, its raw argument (text after ``:``, or None) and the field's
declared unit (``epoch_ms``/``epoch_s``/``rfc3339`` or None), and returns the next value. Adding a
filter is adding a row to ``FILTERS``.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..timeutil import epoch_ms, epoch_s, format_exact, format_rfc3339, to_datetime

FilterFn = Callable[[object, str | None, str | None], object]


class TemplateValueError(ValueError):
    """A value cannot go through a filter (wrong type, bad argument).

    ``field`` and ``template`` name where, once the template knows (None inside a filter).
    """

    def __init__(self, message: str, field: str | None = None, template: str | None = None) -> None:
        super().__init__(message)
        self.field, self.template = field, template


@dataclass(frozen=True)
class Zoned:
    """A datetime converted by ``|tz:``; later date filters use its local wall clock, not UTC."""

    moment: datetime


def _moment(value: object, unit: str | None) -> datetime:
    """Coerce to a datetime (in UTC); a ``Zoned`` value keeps its zone."""
    if isinstance(value, Zoned):
        return value.moment
    try:
        return to_datetime(value, unit).astimezone(UTC)
    except ValueError as exc:
        raise TemplateValueError(str(exc)) from None
    except OverflowError:  # a datetime whose offset moves it past 9999-12-31 or before 0001-01-01
        raise TemplateValueError(f"{value!r} is outside the instants a timestamp can hold") from None


def _utc_unless_zoned(value: object, unit: str | None) -> datetime:
    # Date parts are taken in UTC unless an earlier `tz:` filter chose a zone.
    if isinstance(value, Zoned):
        return value.moment
    return _moment(value, unit).astimezone(UTC)


def _text(value: object) -> str:
    if isinstance(value, bytes):
        raise TemplateValueError("binary value cannot be embedded in a string key; hash it with |sha256")
    return value if isinstance(value, str) else to_text(value)


def to_text(value: object) -> str:
    """The text a value contributes to a composed key (datetimes as RFC 3339 UTC, booleans lower case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Zoned):
        return value.moment.isoformat(timespec="milliseconds")
    if isinstance(value, datetime):
        # Every digit it has: cutting to milliseconds would make .123456 and .123000 one key.
        try:
            return format_exact(value)
        except OverflowError:
            raise TemplateValueError(f"{value!r} is outside the instants a timestamp can hold") from None
    if isinstance(value, int | float | Decimal):
        return canonical_number(value)
    return str(value)


def canonical_number(value: int | float | Decimal) -> str:
    """The one spelling of a number in a key: ``Decimal("7.0")`` -> ``7``, ``1.50`` -> ``1.5``, ``1E+3``
    -> ``1000``; never an exponent, never trailing zeros, ``-0`` -> ``0``. Two spellings of one number
    must compose one key, as DynamoDB itself compares ``N`` values by value, not by text."""
    if isinstance(value, bool):
        raise TemplateValueError(f"{value!r} is a boolean, not a number")
    if isinstance(value, int):
        return str(value)
    number = Decimal(repr(value)) if isinstance(value, float) else value
    if not number.is_finite():
        raise TemplateValueError(f"{value} is not a finite number and cannot be part of a key")
    if number == number.to_integral_value():
        return str(int(number))
    return format(number.normalize(), "f")


def canonical_integer(value: int | float | Decimal) -> int | None:
    """``value`` as an ``int`` when it is integral (``7.0`` -> 7), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    number = Decimal(repr(value)) if isinstance(value, float) else value
    if number.is_finite() and number == number.to_integral_value():
        return int(number)
    return None


def _sha256(value: object, arg: str | None, unit: str | None) -> str:
    data = value if isinstance(value, bytes) else _text(value).encode("utf-8")
    digest = hashlib.sha256(data).digest()
    count = _int_arg(arg, "sha256", default=len(digest))
    return digest[:count].hex()


def _shard(value: object, arg: str | None, unit: str | None) -> int:
    count = _int_arg(arg, "shard", default=None)
    data = value if isinstance(value, bytes) else _text(value).encode("utf-8")
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big") % count


def _int_arg(arg: str | None, name: str, default: int | None) -> int:
    if arg is None:
        if default is None:
            raise TemplateValueError(f"filter {name} needs a number argument, as in |{name}:10")
        return default
    if not arg.strip().isdigit() or int(arg) == 0:
        raise TemplateValueError(f"filter {name} needs a positive whole number, got {arg!r}")
    return int(arg)


def _tz(value: object, arg: str | None, unit: str | None) -> Zoned:
    if not arg:
        raise TemplateValueError("filter tz needs an IANA zone, as in |tz:America/Denver")
    try:
        zone = ZoneInfo(arg.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise TemplateValueError(
            f"unknown time zone {arg!r} (use an IANA name like America/Denver)"
        ) from None
    try:
        return Zoned(_moment(value, unit).astimezone(zone))
    except OverflowError:  # 9999-12-31T23:00Z is in the year 10000 east of UTC
        raise TemplateValueError(f"{value!r} is outside the instants {arg.strip()} can show") from None


def _format(value: object, arg: str | None, unit: str | None) -> str:
    if not arg:
        raise TemplateValueError("filter format needs a strftime pattern, as in |format:%Y-%m-%d")
    moment = _utc_unless_zoned(value, unit)
    # %L (milliseconds) is not a strftime code; substitute it first, keeping %%L literal.
    pattern = arg.replace("%%", "\0").replace("%L", f"{moment.microsecond // 1000:03d}").replace("\0", "%%")
    return moment.strftime(pattern)


def _bool(value: object, arg: str | None, unit: str | None) -> str:
    if not isinstance(value, bool):
        raise TemplateValueError(f"filter bool needs a boolean, got {value!r}")
    true_text, _, false_text = (arg or "true,false").partition(",")
    return true_text if value else false_text


def _case(method: str) -> FilterFn:
    return lambda value, arg, unit: getattr(_text(value), method)()


def fold(text: str) -> str:
    """``text`` as a caseless key: one spelling for every way of writing it in any letter case.

    Unicode's caseless matching of identifiers (NFKC, then case folding, then NFKC again): ``lower``
    would give "É" typed as one character and "É" typed as E and an accent two keys, and would keep
    "Straße" and "STRASSE" apart. For login names and email addresses, where two spellings must not
    make two accounts."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def _date_part(pattern: str) -> FilterFn:
    return lambda value, arg, unit: _utc_unless_zoned(value, unit).strftime(pattern)


def _pad(value: object, arg: str | None, unit: str | None) -> str:
    width = _int_arg(arg, "pad", default=None)
    return apply_spec(value, f"0{width}")


def zero_pad_width(spec: str | None) -> int | None:
    """The width of a zero-padding spec (``05``, ``013d`` -> 5, 13), or None for any other spec."""
    if spec is None:
        return None
    body = spec[:-1] if spec.endswith("d") else spec
    return int(body) if len(body) > 1 and body.isdigit() and body[0] == "0" else None


def _refuse_wider_than_pad(text: str, spec: str) -> None:
    # Zero padding makes text order numeric order only while every value fits: 123456 padded to 5
    # digits stays "123456" and sorts before "99999".
    width = zero_pad_width(spec)
    if width is not None and len(text) > width:
        raise TemplateValueError(
            f"{text} has {len(text)} digits, more than the template's zero padding :{spec} "
            f"({width} digits): the key would not sort numerically; widen the padding"
        )


def _is_integer_spec(spec: str) -> bool:
    # ``013`` / ``13`` / ``d`` / ``013d`` / ``,d`` / ``_d``: an integer rendering (no precision, no
    # float type). A whole Decimal read back from the table renders as the int it was written as.
    if spec.endswith("d"):
        body = spec[:-1]
        body = body[:-1] if body[-1:] in (",", "_") else body
    else:
        body = spec
    return body == "" or body.isdigit()


def apply_spec(value: object, spec: str) -> str:
    """Apply a Python format spec such as ``013`` (zero padding) to a number or string."""
    if type(value) is int and value >= 0 and _is_integer_spec(spec):
        # Fast path: a non-negative int padded as an integer (``{ts:013}``), the usual sort key. Of
        # the general path's checks only the width applies to it: it is whole, no bool, not negative.
        _refuse_wider_than_pad(str(value), spec)
        try:
            return format(value, spec)
        except (ValueError, TypeError):
            raise TemplateValueError(f"format spec :{spec} does not apply to {value!r}") from None
    return _apply_spec_general(value, spec)


def _apply_spec_general(value: object, spec: str) -> str:
    """``apply_spec`` for any value (the fast path's too, which gives the same text or error)."""
    if isinstance(value, bool):
        raise TemplateValueError(f"format spec :{spec} needs a number or string, got a boolean")
    if isinstance(value, str) and spec[:1] == "0" and spec[1:].isdigit():
        # Zero-padding digit strings keeps numeric order; other strings are an error, not a surprise.
        if not (value.isascii() and value.isdigit()):
            raise TemplateValueError(f"cannot zero-pad non-digit text {value!r}")
        _refuse_wider_than_pad(value, spec)
        return value.rjust(int(spec), "0")
    if isinstance(value, int | float | Decimal) and _is_integer_spec(spec):
        whole = canonical_integer(value)
        if whole is None:
            raise TemplateValueError(
                f"{value} is not a whole number but the template pads it as an integer (:{spec})"
            )
        value = whole
    if isinstance(value, int | Decimal) and spec[:1] == "0" and value < 0:
        raise TemplateValueError(
            f"cannot zero-pad negative number {value}: the key would not sort numerically"
        )
    if isinstance(value, int):
        _refuse_wider_than_pad(str(value), spec)
    try:
        return format(value, spec)
    except (ValueError, TypeError):
        raise TemplateValueError(f"format spec :{spec} does not apply to {value!r}") from None


FILTERS: dict[str, FilterFn] = {
    "upper": _case("upper"),
    "lower": _case("lower"),
    "fold": lambda value, arg, unit: fold(_text(value)),
    "pad": _pad,
    "year": _date_part("%Y"),
    "month": _date_part("%Y-%m"),
    "date": _date_part("%Y-%m-%d"),
    "day": _date_part("%Y-%m-%d"),
    "hour": _date_part("%Y-%m-%dT%H"),
    "tz": _tz,
    "format": _format,
    "epoch_ms": lambda value, arg, unit: epoch_ms(_moment(value, unit)),
    "epoch_s": lambda value, arg, unit: epoch_s(_moment(value, unit)),
    "rfc3339": lambda value, arg, unit: format_rfc3339(_moment(value, unit), millis=arg == "ms"),
    "sha256": _sha256,
    "shard": _shard,
    "bool": _bool,
}

# Date-part filters define time buckets; AccessPattern.buckets uses this to infer the step.
BUCKET_FILTERS: dict[str, str] = {
    "year": "year",
    "month": "month",
    "date": "day",
    "day": "day",
    "hour": "hour",
}
