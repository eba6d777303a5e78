"""Attribute validation as tables of named checks.

``TYPE_CHECKS`` maps an attribute type to a predicate over Python values, ``FORMATS`` maps a format
name to a check returning an error message or None, and ``RULES`` maps a declared rule (``enum``,
``pattern``, ``min`` ...) to a check. ``check_attribute`` walks one value (recursing into maps and
lists) and returns ``(path, rule, message)`` triples; ``Entity.validate`` wraps them as ``Violation``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .timeutil import PrecisionError, normalise_rfc3339, parse_rfc3339

if TYPE_CHECKING:
    from .entities import Attribute


@dataclass(frozen=True)
class Violation:
    """One broken rule: which entity, which attribute (dotted path), which rule, and why."""

    entity: str
    attribute: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.entity}.{self.attribute}: {self.message} [{self.rule}]"


def _is_number(value: object) -> bool:
    if isinstance(value, Decimal):
        return value.is_finite()  # NaN and Infinity are no DynamoDB numbers (and break comparisons)
    return isinstance(value, int) and not isinstance(value, bool)


# DynamoDB's numbers: zero, or up to 38 significant digits at a magnitude from 1E-130 to
# 9.9999999999999999999999999999999999999E+125 (positive or negative).
MAX_DIGITS, MIN_EXPONENT, MAX_EXPONENT = 38, -130, 125
_INT_LIMIT = 10**MAX_DIGITS


def number_problem(value: int | Decimal) -> str | None:
    """Why DynamoDB cannot store ``value``, or None. Trailing zeros are no digits of precision."""
    if type(value) is int and -_INT_LIMIT < value < _INT_LIMIT:
        return None  # the usual number: at most 38 digits, magnitude 1E+37 at most; no Decimal made
    number = Decimal(value)
    if not number.is_finite():
        return f"{value} is not a finite number"
    if number.is_zero():
        return None
    digits = "".join(map(str, number.as_tuple().digits)).strip("0")
    if len(digits) > MAX_DIGITS:
        return f"{len(digits)} significant digits: DynamoDB stores at most {MAX_DIGITS}"
    if not MIN_EXPONENT <= number.adjusted() <= MAX_EXPONENT:
        return f"magnitude 1E{number.adjusted():+d}: DynamoDB stores 1E-130 to 9.99...E+125"
    return None


def text_problem(text: str) -> str | None:
    """Why DynamoDB cannot store ``text`` (a lone surrogate is no UTF-8), or None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"{text[:40]!r} is not UTF-8 text: a lone surrogate at character {error.start}"
    return None


def unstorable(value: object, path: str) -> list[tuple[str, str]]:
    """``(path, message)`` for each value in ``value`` (nested in maps, lists and sets too) that
    DynamoDB cannot store: a number out of its range, a float (it would be stored as some other
    number), text with a lone surrogate (not UTF-8), a map key that is not a string."""
    if isinstance(value, str):
        problem = text_problem(value)
        return [(path, problem)] if problem else []
    if isinstance(value, bool) or value is None or isinstance(value, bytes | bytearray):
        return []
    if isinstance(value, int | Decimal):
        problem = number_problem(value)
        return [(path, problem)] if problem else []
    if isinstance(value, float):
        return [(path, f"{value!r} is a float: store numbers as int or Decimal")]
    if isinstance(value, dict):
        found = [(path, f"map key {key!r} is not a string") for key in value if not isinstance(key, str)]
        found += [(path, problem) for key in value if isinstance(key, str) and (problem := text_problem(key))]
        return found + [f for key, item in value.items() for f in unstorable(item, f"{path}.{key}")]
    if isinstance(value, list | tuple):
        return [found for i, item in enumerate(value) for found in unstorable(item, f"{path}[{i}]")]
    if isinstance(value, set | frozenset):
        return [found for item in value for found in unstorable(item, path)]
    return []


def _set_of(check: Callable[[object], bool]) -> Callable[[object], bool]:
    # DynamoDB rejects empty sets, so an empty set is not a valid set value.
    return lambda v: isinstance(v, set | frozenset) and bool(v) and all(check(x) for x in v)


TYPE_CHECKS: dict[str, Callable[[object], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "binary": lambda v: isinstance(v, bytes | bytearray),
    "map": lambda v: isinstance(v, dict),
    "list": lambda v: isinstance(v, list),
    "string_set": _set_of(lambda x: isinstance(x, str)),
    "number_set": _set_of(_is_number),
    "binary_set": _set_of(lambda x: isinstance(x, bytes | bytearray)),
    "null": lambda v: v is None,
}
TYPE_HINTS: dict[str, str] = {
    "number": "a finite int or Decimal (float is not stored: it loses precision)",
    "string_set": "a non-empty set of str",
    "number_set": "a non-empty set of int/Decimal",
    "binary_set": "a non-empty set of bytes",
    "binary": "bytes",
    "map": "a dict",
    "list": "a list",
    "boolean": "a bool",
    "string": "a str",
}

# Every format regex is matched with ``fullmatch`` and re.ASCII: ``$`` alone would accept a trailing
# newline ("AA:BB:CC:DD:EE:FF\n" registering a second device) and ``\d`` would accept Unicode digits.
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", re.ASCII)
_RFC3339_UTC = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z", re.ASCII)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
# Epoch bounds when the attribute declares no min/max: 2000-01-01 .. 2100-01-01 UTC.
EPOCH_BOUNDS: dict[str, tuple[int, int]] = {
    "epoch_s": (946_684_800, 4_102_444_800),
    "epoch_ms": (946_684_800_000, 4_102_444_800_000),
}


# The latest expiry taken to be in epoch seconds: a TTL past 2100-01-01 is another unit (milliseconds
# of today are a date some 55,000 years away), which DynamoDB's TTL reads as seconds and never reaches.
TTL_LATEST_SECONDS = EPOCH_BOUNDS["epoch_s"][1]
# Where a number stops being seconds and starts looking like a finer unit: 10**11 ms is 1973, 10**14
# microseconds is 1973 too (and seconds past 2100 below 10**11 are only an unlikely date).
_MILLISECONDS_FROM, _MICROSECONDS_FROM = 10**11, 10**14


def ttl_problem(value: object) -> str | None:
    """Why DynamoDB's TTL would never act on ``value`` as the TTL attribute, or None.

    TTL reads only a top-level Number of epoch seconds: a string is skipped, and a number in
    milliseconds is a date so far away that the item never expires. Any declared format or range
    of the attribute does not change that, so this is checked apart from them.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return (
            f"{value!r} ({type(value).__name__}) is not a Number: DynamoDB's TTL reads only a Number "
            "of epoch seconds, so the item would never expire"
        )
    if value > TTL_LATEST_SECONDS:
        return f"{value} is after 2100-01-01 in epoch seconds{_finer_unit_hint(value)}"
    return None


def _finer_unit_hint(value: int | float | Decimal) -> str:
    if value >= _MILLISECONDS_FROM:
        unit = "microseconds or finer" if value >= _MICROSECONDS_FROM else "milliseconds"
        return f" (it looks like {unit}): DynamoDB's TTL reads epoch seconds, so the item would never expire"
    return ": DynamoDB's TTL reads epoch seconds, so the item would not expire this century"


def _uuid(value: object) -> str | None:
    if not isinstance(value, str) or not _UUID.fullmatch(value):
        return f"{value!r} is not a UUID (8-4-4-4-12 hex digits)"
    return None


def _uuid4(value: object) -> str | None:
    if error := _uuid(value):
        return error
    text = str(value)
    # The version nibble is the first hex digit of the third group; RFC 4122 variant bits are 10xx.
    if text[14] != "4":
        return f"{value!r} is a UUID version {text[14]}, not version 4"
    if text[19].lower() not in "89ab":
        return f"{value!r} does not have the RFC 4122 variant bits (10) in its fourth group"
    return None


def _rfc3339(value: object) -> str | None:
    if not isinstance(value, str) or not _RFC3339_UTC.fullmatch(value):
        return f"{value!r} is not an RFC 3339 UTC timestamp (YYYY-MM-DDTHH:MM:SS[.fff]Z)"
    try:
        parse_rfc3339(value)
    except ValueError:
        return f"{value!r} is not a real date and time"
    return None


def _date(value: object) -> str | None:
    if isinstance(value, str) and _DATE.fullmatch(value):
        try:
            date.fromisoformat(value)
            return None
        except ValueError:
            pass
    return f"{value!r} is not a date (YYYY-MM-DD)"


def _epoch(unit: str) -> Callable[[object, Attribute], str | None]:
    def check(value: object, attr: Attribute) -> str | None:
        # An int is a whole number as it is: the two Decimals are only made for anything else.
        if type(value) is not int and (
            not _is_number(value) or Decimal(value) != Decimal(value).to_integral_value()  # type: ignore[arg-type]
        ):
            words = {"epoch_ms": "milliseconds", "epoch_s": "seconds"}[unit]
            return f"{value!r} is not a whole number of {words} since the epoch"
        if attr.min is not None or attr.max is not None:
            return None  # the declared range rules apply instead of the default bounds
        low, high = EPOCH_BOUNDS[unit]
        if not low <= value <= high:  # type: ignore[operator]
            hint = ""
            if unit == "epoch_s" and value > high * 100:  # type: ignore[operator]
                hint = " (it looks like milliseconds)"
            elif unit == "epoch_ms" and value < low / 100:  # type: ignore[operator]
                hint = " (it looks like seconds)"
            return f"{value} is outside 2000-01-01..2100-01-01 in {unit}{hint}"
        return None

    return check


_TZ_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*", re.ASCII)


def _iana_tz(value: object) -> str | None:
    text = str(value)
    if not isinstance(value, str) or not _TZ_NAME.fullmatch(text):
        return f"{value!r} is not an IANA Area/Location time zone (e.g. America/New_York)"
    # Legacy names (EST, MST7MDT) are in tzdata but are not Area/Location zones; reject them.
    if text != "UTC" and "/" not in text:
        return f"{value!r} is not an IANA Area/Location time zone (e.g. America/New_York)"
    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        return f"{value!r} is not a known IANA time zone"
    return None


def _regex_format(regex: str, description: str) -> Callable[[object, Attribute], str | None]:
    pattern = re.compile(regex, re.ASCII)
    return lambda value, attr: (
        None if isinstance(value, str) and pattern.fullmatch(value) else f"{value!r} is not {description}"
    )


FORMATS: dict[str, Callable[[object, Attribute], str | None]] = {
    "uuid": lambda value, attr: _uuid(value),
    "uuid4": lambda value, attr: _uuid4(value),
    "mac": _regex_format(r"[0-9A-F]{2}(:[0-9A-F]{2}){5}", "a MAC address in the form AA:BB:CC:DD:EE:FF"),
    "rfc3339": lambda value, attr: _rfc3339(value),
    "date": lambda value, attr: _date(value),
    "epoch_ms": _epoch("epoch_ms"),
    "epoch_s": _epoch("epoch_s"),
    "iana_tz": lambda value, attr: _iana_tz(value),
    "sha256_hex": _regex_format(r"[0-9a-f]{64}", "a SHA-256 hex digest (64 lower-case hex digits)"),
    "semver": _regex_format(
        r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?", "a semantic version such as 1.0.16"
    ),
}

CHARSETS: dict[str, str] = {
    "ascii": r"[\x00-\x7f]",
    "printable": r"[\x20-\x7e]",
    "alnum": r"[A-Za-z0-9]",
    "safe_ascii": r"[A-Za-z0-9_\-]",
    "hex": r"[0-9A-Fa-f]",
}


@functools.lru_cache(maxsize=256)
def charset_regex(charset: str) -> re.Pattern[str]:
    """The regex a whole string made of ``charset`` (a name above or a ``[...]`` class) fullmatches."""
    cls = CHARSETS.get(charset, charset)
    return re.compile(f"(?:{cls})*", re.ASCII)


# JSON Schema patterns are ECMA-262 regular expressions: \d and \w are ASCII, \s is Unicode.
_ECMA_OUTSIDE_CLASS = {"d": "[0-9]", "D": "[^0-9]", "w": "[A-Za-z0-9_]", "W": "[^A-Za-z0-9_]"}
_ECMA_INSIDE_CLASS = {"d": "0-9", "w": "A-Za-z0-9_"}
_ECMA_NAMED = re.compile(r"\(\?<([A-Za-z_]\w*)>|\\k<([A-Za-z_]\w*)>")


def ecma_classes(pattern: str) -> str:
    """``pattern`` with ``\\d``/``\\w`` (and their negations outside ``[...]``) spelled as ASCII classes,
    and ECMA's named groups ``(?<name>...)``/``\\k<name>`` spelled as Python's ``(?P<name>...)``/``(?P=name)``."""
    out: list[str] = []
    in_class, i = False, 0
    while i < len(pattern):
        ch = pattern[i]
        if not in_class and (named := _ECMA_NAMED.match(pattern, i)):
            out.append(f"(?P<{named[1]}>" if named[1] else f"(?P={named[2]})")
            i = named.end()
            continue
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            table = _ECMA_INSIDE_CLASS if in_class else _ECMA_OUTSIDE_CLASS
            out.append(table.get(nxt, ch + nxt))
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
            out.append(ch)
            # A ']' right after '[' or '[^' is a literal member, not the end of the class.
            if pattern[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                out.append("]")
                i += 1
        elif ch == "]" and in_class:
            in_class = False
            out.append(ch)
        else:
            out.append(ch)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=1024)
def pattern_regex(pattern: str) -> re.Pattern[str]:
    """A design ``pattern``, matched against the whole value (``fullmatch``) as JSON Schema reads it.

    ``fullmatch`` means ``^...$`` cannot let a trailing newline through, anchored or not; ``\\d`` and
    ``\\w`` are ASCII as in ECMA-262 (a Unicode digit is not a digit of an id), ``\\s`` stays Unicode.
    """
    return re.compile(ecma_classes(pattern))


def _length(value: object) -> int | None:
    return len(value) if isinstance(value, str | bytes | bytearray | list | dict | set | frozenset) else None


def _format_rule(attr: Attribute, value: object) -> str | None:
    if attr.prefix and isinstance(value, str):
        if not value.startswith(attr.prefix):
            return None  # the prefix rule reports this
        value = value[len(attr.prefix) :]
    return FORMATS[attr.format](value, attr) if attr.format else None


def _precision_rule(attr: Attribute, value: object) -> str | None:
    if not isinstance(value, str):
        return None
    try:
        normalise_rfc3339(value, attr.precision, truncate=attr.truncate)  # type: ignore[arg-type]
    except PrecisionError as error:
        return str(error)
    return None


# Rule name -> (is the rule declared?, check). Each check returns a message or None.
RULES: dict[str, tuple[Callable[[Attribute], bool], Callable[[Attribute, object], str | None]]] = {
    "enum": (
        lambda a: a.enum is not None,
        lambda a, v: None if v in a.enum else f"{v!r} is not one of {list(a.enum)}",  # type: ignore[operator]
    ),
    "prefix": (
        lambda a: bool(a.prefix),
        lambda a, v: None if str(v).startswith(a.prefix) else f"{v!r} does not start with {a.prefix!r}",  # type: ignore[arg-type]
    ),
    "pattern": (
        lambda a: a.pattern is not None,
        lambda a, v: (
            None if pattern_regex(a.pattern).fullmatch(str(v)) else f"{v!r} does not match {a.pattern!r}"
        ),  # type: ignore[arg-type]
    ),
    "min": (
        lambda a: a.min is not None,
        lambda a, v: f"{v} is less than the minimum {a.min}" if _is_number(v) and v < a.min else None,  # type: ignore[operator]
    ),
    "max": (
        lambda a: a.max is not None,
        lambda a, v: f"{v} is more than the maximum {a.max}" if _is_number(v) and v > a.max else None,  # type: ignore[operator]
    ),
    "min_length": (
        lambda a: a.min_length is not None,
        lambda a, v: (
            f"length {n} is less than {a.min_length}"
            if (n := _length(v)) is not None and n < a.min_length
            else None
        ),  # type: ignore[operator]
    ),
    "max_length": (
        lambda a: a.max_length is not None,
        lambda a, v: (
            f"length {n} is more than {a.max_length}"
            if (n := _length(v)) is not None and n > a.max_length
            else None
        ),  # type: ignore[operator]
    ),
    "charset": (
        lambda a: a.charset is not None,
        lambda a, v: (
            None
            if not isinstance(v, str) or charset_regex(a.charset).fullmatch(v)  # type: ignore[arg-type]
            else f"{v!r} has characters outside the {a.charset} charset"
        ),
    ),
    "format": (lambda a: a.format is not None, _format_rule),
    "precision": (lambda a: a.precision is not None, _precision_rule),
}


def type_problem(attr: Attribute, value: object) -> str | None:
    """Why a (non-null) ``value`` is not of the attribute's type, or None: the type rule alone, for
    callers that name a stored value (a key to look up) rather than write one."""
    if TYPE_CHECKS[attr.type](value):
        return None
    wanted = TYPE_HINTS.get(attr.type, attr.type)
    return f"{value!r} ({type(value).__name__}) is not {attr.type}: expected {wanted}"


def check_attribute(attr: Attribute, value: object, path: str) -> list[tuple[str, str, str]]:
    """Check one value against an attribute declaration; returns ``(path, rule, message)`` triples."""
    if value is None:
        if attr.nullable or attr.type == "null":
            return []
        return [(path, "nullable", "is null but the attribute is not nullable")]
    wrong = type_problem(attr, value)
    if wrong:
        return [(path, "type", wrong)]
    problems = [(path, rule, msg) for rule, check in declared_rules(attr) if (msg := check(attr, value))]
    if isinstance(value, dict):
        problems += _check_map(attr, value, path)
    if isinstance(value, list) and attr.items is not None:
        for index, item in enumerate(value):
            problems += check_attribute(attr.items, item, f"{path}[{index}]")
    return problems


def declared_rules(attr: Attribute) -> tuple[tuple[str, Callable[[Attribute, object], str | None]], ...]:
    """The rules ``attr`` declares, in RULES' order. Worked out at its first check and kept on the
    attribute: asking every rule whether it is declared was a quarter of validating an item, and a
    design's attributes do not change once it is built."""
    declared = attr.__dict__.get("_declared_rules")
    if declared is None:
        declared = tuple((rule, check) for rule, (applies, check) in RULES.items() if applies(attr))
        attr.__dict__["_declared_rules"] = declared
    return declared


def _check_map(attr: Attribute, value: dict, path: str) -> list[tuple[str, str, str]]:
    problems: list[tuple[str, str, str]] = []
    for name, child in attr.attributes.items():
        if name in value:
            problems += check_attribute(child, value[name], f"{path}.{name}")
        elif child.required:
            problems.append((f"{path}.{name}", "required", "is required but missing"))
    if attr.values is not None:
        for key, item in value.items():
            if key not in attr.attributes:
                problems += check_attribute(attr.values, item, f"{path}.{key}")
    return problems
