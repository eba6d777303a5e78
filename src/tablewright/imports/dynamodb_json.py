"""DynamoDB JSON (``{"N": "42"}``, ``{"SS": ["a", "b"]}``...) checked the way DynamoDB checks it,
before a sample item from another tool's file is read as values: a value DynamoDB would refuse must
be named where it is, not end in a ``decimal`` trap or a base64 error that names nothing, nor be
read as something else (``{"BOOL": "false"}`` as true, ``{"SS": "abc"}`` as three letters).

``CHECKS`` maps each type tag to its checker; :func:`value_problem` says what is wrong with one
attribute value (and where inside it, for maps and lists), or None when DynamoDB would take it.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

# DynamoDB numbers: decimal digits with an optional sign, point and exponent; no NaN, Infinity or hex.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_MAX_DIGITS = 38  # significant digits DynamoDB keeps
_MIN_EXPONENT, _MAX_EXPONENT = -130, 125  # magnitude from 1E-130 to 9.99...E+125


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(text: Any) -> tuple[str | None, Decimal | None]:
    """(problem, None) or (None, the number) for one DynamoDB number, given as a string."""
    if not isinstance(text, str):
        return f"{_shown(text)} ({type(text).__name__}): a number is written as a string", None
    if not _NUMBER.fullmatch(text):
        return f"{_shown(text)} is not a decimal number", None
    number = Decimal(text)
    if number.is_zero():
        return None, number
    significant = "".join(map(str, number.as_tuple().digits)).strip("0")  # DynamoDB trims the zeros
    if len(significant) > _MAX_DIGITS:
        return f"{_shown(text)} has more than {_MAX_DIGITS} significant digits", None
    if not _MIN_EXPONENT <= number.adjusted() <= _MAX_EXPONENT:
        return f"{_shown(text)} is out of DynamoDB's range (1E-130 to 9.9E+125)", None
    return None, number


def _binary(text: Any) -> tuple[str | None, bytes | None]:
    if not isinstance(text, str):
        return f"{_shown(text)} ({type(text).__name__}): binary is written as base64 text", None
    try:
        return None, base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as error:
        return f"{_shown(text)} is not base64 ({error})", None


def _string(value: Any) -> tuple[str | None, str | None]:
    if not isinstance(value, str):
        return f"{_shown(value)} ({type(value).__name__}) is not a string", None
    return None, value


def _scalar(read: Callable[[Any], tuple[str | None, Any]]) -> Callable[[Any], str | None]:
    return lambda value: read(value)[0]


def _set_of(read: Callable[[Any], tuple[str | None, Any]]) -> Callable[[Any], str | None]:
    """A set: a non-empty list of distinct members (DynamoDB refuses duplicates: ``1`` and ``1.0``
    are one number)."""

    def check(members: Any) -> str | None:
        if not isinstance(members, list):
            return f"{_shown(members)} ({type(members).__name__}) is not a list of members"
        if not members:
            return "an empty set (DynamoDB stores no empty set)"
        seen: dict[Any, Any] = {}
        for member in members:
            problem, read_value = read(member)
            if problem:
                return f"member {problem}"
            if read_value in seen:
                return f"members {_shown(seen[read_value])} and {_shown(member)} are the same value twice"
            seen[read_value] = member
        return None

    return check


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"{_shown(value)} is not true or false"


def _null(value: Any) -> str | None:
    return None if value is True else f"{_shown(value)}: NULL is written as true"


def _map(value: Any) -> str | None:
    if not isinstance(value, dict):
        return f"{_shown(value)} ({type(value).__name__}) is not a mapping of names to values"
    for name, member in value.items():
        problem = value_problem(member)
        if problem:
            return f"in .{name}: {problem}"
    return None


def _list(value: Any) -> str | None:
    if not isinstance(value, list):
        return f"{_shown(value)} ({type(value).__name__}) is not a list of values"
    for position, member in enumerate(value):
        problem = value_problem(member)
        if problem:
            return f"in [{position}]: {problem}"
    return None


# Type tag -> what is wrong with its payload (None: DynamoDB takes it).
CHECKS: dict[str, Callable[[Any], str | None]] = {
    "S": _scalar(_string),
    "N": _scalar(_number),
    "B": _scalar(_binary),
    "BOOL": _boolean,
    "NULL": _null,
    "M": _map,
    "L": _list,
    "SS": _set_of(_string),
    "NS": _set_of(_number),
    "BS": _set_of(_binary),
}


def value_problem(value: Any) -> str | None:
    """What DynamoDB would refuse in one attribute value in DynamoDB JSON, or None."""
    if not isinstance(value, dict) or len(value) != 1:
        return f"{_shown(value)} is not one {{type: value}} pair"
    ((tag, payload),) = value.items()
    check = CHECKS.get(tag)
    if check is None:
        return f"{tag!r} is not a DynamoDB type ({', '.join(CHECKS)})"
    problem = check(payload)
    return f"{tag} {problem}" if problem else None
