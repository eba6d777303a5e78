"""DynamoDB attribute values in their wire form: validation, numbers, ordering, equality and size.

Values stay in DynamoDB's JSON wire shape throughout the engine (``{"S": "x"}``, ``{"N": "1.5"}``,
``{"B": "<base64>"}``...), so a stored item can be returned without conversion. This module is the
one place that knows the rules of each type.
"""

from __future__ import annotations

import base64
import binascii
import decimal
import re
import zlib
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .errors import SerializationException, ValidationException

AttributeValue = dict[str, Any]
Item = dict[str, AttributeValue]

TYPES = frozenset({"S", "N", "B", "SS", "NS", "BS", "M", "L", "BOOL", "NULL"})
SCALAR_KEY_TYPES = frozenset({"S", "N", "B"})
MAX_ITEM_SIZE = 400 * 1024
MAX_NESTING = 32
MAX_NAME_BYTES = 65535  # attribute names are 1..65535 bytes of UTF-8
_SHORT_NAME = MAX_NAME_BYTES // 4  # a name this long or shorter cannot be over MAX_NAME_BYTES in UTF-8
MAX_DIGITS = 38
MIN_EXPONENT = -130  # smallest magnitude 1E-130
MAX_EXPONENT = 126  # largest magnitude 9.99...E+125 < 1E+126

# Arithmetic needs headroom beyond 38 digits so that rounding never hides an overflow.
_CONTEXT = decimal.Context(prec=80, Emax=999, Emin=-999, traps=[decimal.InvalidOperation])


def invalid(message: str) -> ValidationException:
    return ValidationException("One or more parameter values were invalid: " + message)


# ----------------------------------------------------------------------------------------------- numbers


def parse_number(text: Any) -> Decimal:
    """Parse a DynamoDB number string, enforcing 38 significant digits and the magnitude range."""
    # Decimal also takes digit groups ("1_000"), which DynamoDB (Java's BigDecimal) refuses.
    if not isinstance(text, str) or not text or text.strip() != text or "_" in text:
        raise ValidationException(f"The parameter cannot be converted to a numeric value: {text}")
    try:
        value = Decimal(text)  # exact, whatever the exponent: "1e100000000" is an overflow, not garbage
    except (decimal.InvalidOperation, ValueError):
        raise ValidationException(f"The parameter cannot be converted to a numeric value: {text}") from None
    if not value.is_finite():
        raise ValidationException(f"The parameter cannot be converted to a numeric value: {text}")
    return check_number(value)


_OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
# Arithmetic is exact or an error: a result that needs rounding has more digits than DynamoDB keeps.
_EXACT = decimal.Context(prec=80, Emax=999, Emin=-999, traps=[decimal.InvalidOperation, decimal.Inexact])


def check_number(value: Decimal, arithmetic: bool = False) -> Decimal:
    """Reject numbers DynamoDB cannot store; return the value normalised (no trailing zeros).

    ``arithmetic``: the value is the result of SET a = b + c, for which DynamoDB reports too many
    digits as an overflow (its own, odd, wording).
    """
    if not value:
        return Decimal(0)
    magnitude = value.adjusted() + 1  # value = 0.d1d2... x 10^magnitude
    if magnitude > MAX_EXPONENT:
        raise ValidationException(_OVERFLOW)
    if magnitude - 1 < MIN_EXPONENT:
        raise ValidationException(
            "Number underflow. Attempting to store a number with magnitude smaller than supported range"
        )
    # Counted before normalising, which would round away digits beyond the context's precision.
    significant = "".join(map(str, value.as_tuple().digits)).strip("0")
    if len(significant) > MAX_DIGITS:
        raise ValidationException(
            _OVERFLOW if arithmetic else "Attempting to store more than 38 significant digits in a Number"
        )
    return value.normalize(_CONTEXT)


def format_number(value: Decimal) -> str:
    """DynamoDB's output form: plain notation, no exponent, no trailing zeros, no negative zero."""
    if not value:
        return "0"
    return format(value.normalize(_CONTEXT), "f")


# Numbers already in DynamoDB's output form (no exponent, no leading/trailing zeros, at most 38 digits,
# so within range) need no Decimal arithmetic: most numbers on the hot path are such integers/decimals.
_CANONICAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?")


def is_canonical_number(text: Any) -> bool:
    """Whether ``text`` is a valid DynamoDB number already in canonical form (the common case)."""
    if (
        text.__class__ is str
        and text.isdigit()
        and text.isascii()
        and text[0] != "0"
        and len(text) <= MAX_DIGITS
    ):
        return True  # a positive integer, the commonest number: no regular expression needed
    return (
        isinstance(text, str)
        and len(text) <= 40
        and _CANONICAL.fullmatch(text) is not None
        and text != "-0"
        # at most 38 characters cannot hold more than 38 digits: count only longer texts
        and (len(text) <= MAX_DIGITS or len(text.lstrip("-").replace(".", "").lstrip("0")) <= MAX_DIGITS)
    )


def normalize_number(text: str) -> str:
    """The canonical text of a DynamoDB number, validating it."""
    if is_canonical_number(text):
        return text
    if type(text) is str and "." in text and text.endswith("0"):
        # "2.50", "3.0": formatted decimals are common and only need their trailing zeros cut.
        trimmed = text.rstrip("0").rstrip(".")
        if is_canonical_number(trimmed):
            return trimmed
    return format_number(parse_number(text))


def add_numbers(left: str, right: str, subtract: bool = False) -> str:
    a, b = parse_number(left), parse_number(right)
    try:
        result = _EXACT.subtract(a, b) if subtract else _EXACT.add(a, b)
    except decimal.Inexact:  # more digits than even the working precision: far beyond 38
        raise ValidationException(_OVERFLOW) from None
    return format_number(check_number(result, arithmetic=True))


def number_size(text: str) -> int:
    """Storage size of a number: one byte per two significant digits, plus one, plus one if negative."""
    return _canonical_number_size(normalize_number(text))


def _canonical_number_size(text: str) -> int:
    """:func:`number_size` of a number already in canonical form (validation has normalised it once)."""
    digits = text.lstrip("-").replace(".", "").strip("0")
    if not digits:
        return 1
    return min(21, (len(digits) + 1) // 2 + 1 + text.startswith("-"))


def _plain_decimal_sized(text: str) -> tuple[str, int] | None:
    """The canonical text and :func:`number_size` of a non-negative number written as ASCII digits, a
    point and digits, in at most 38 characters ("1.25", "2.50", "0.5", "3.0"); ``None`` for anything
    else, which the general path decides.

    Formatted decimals are common in items; recognised with string methods, without the regular
    expression and without Decimal arithmetic. At most 38 characters hold at most 37 digits, so the
    number is within DynamoDB's precision and range, and only trailing zeros can be non-canonical.
    """
    integer, point, fraction = text.partition(".")
    if not (
        point
        and len(text) <= MAX_DIGITS
        and text.isascii()
        and integer.isdigit()
        and fraction.isdigit()
        and (integer[0] != "0" or len(integer) == 1)
    ):
        return None
    if fraction[-1] == "0":  # "2.50", "3.0": cut to "2.5", "3"
        fraction = fraction.rstrip("0")
        text = f"{integer}.{fraction}" if fraction else integer
    # Significant digits: none of the fraction's is trailing now, none of the integer's is leading
    # unless it is "0", and an integer's trailing zeros do not count.
    if not fraction:
        digits = len(integer.rstrip("0"))
    elif integer == "0":
        digits = len(fraction.lstrip("0"))
    else:
        digits = len(integer) + len(fraction)
    return text, (digits + 1) // 2 + 1 if digits else 1


# ----------------------------------------------------------------------------------------------- binary


def decode_binary(text: Any) -> bytes:
    if isinstance(text, bytes | bytearray):
        return bytes(text)
    try:
        return base64.b64decode(text)  # validated already, when text
    except (binascii.Error, TypeError, ValueError):
        raise invalid(f"Invalid binary value: {str(text)[:64]}") from None


def encode_binary(data: bytes) -> str:
    return base64.b64encode(data).decode()  # base64 is ASCII


# ------------------------------------------------------------------------------------------- validation


def _type_of(value: Any) -> str:
    if not isinstance(value, dict) or not value:
        raise ValidationException(
            "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
        )
    if len(value) > 1:
        raise ValidationException(
            "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
        )
    (kind,) = value
    if kind not in TYPES:
        raise ValidationException(
            f"Supplied AttributeValue has an unknown datatype {kind!r}, must contain exactly one of the supported datatypes"
        )
    return kind


_SET_NAMES = {"SS": "string", "NS": "number", "BS": "binary"}


def _sized_set(kind: str, items: Any, measure: Callable[[Any], tuple[Any, int]]) -> tuple[list, int]:
    """Validate a set of one scalar type: a non-empty list without duplicates (after normalisation)."""
    if not isinstance(items, list):
        raise _wrong_json(items, "List") or ValidationException(
            f"Invalid {_SET_NAMES[kind]} set: expected a list"
        )
    if not items:
        raise invalid(f"An {_SET_NAMES[kind]} set  may not be empty")
    normalised, size = [], 0
    for each in items:
        text, each_size = measure(each)
        normalised.append(text)
        size += each_size
    if len(set(normalised)) != len(normalised):
        raise invalid(f"Input collection [{', '.join(map(str, items))}] contains duplicates.")
    return normalised, size


# The JSON token DynamoDB's deserializer names when a scalar arrives where a string belongs.
_JSON_TOKENS = {str: "STRING_VALUE", bool: "BOOLEAN_VALUE", int: "NUMBER_VALUE", float: "NUMBER_VALUE"}
_JSON_STARTS = {dict: "Start of structure or map", list: "Start of list"}
_JSON_KINDS = {"String": str, "Boolean": bool, "Map": dict, "List": list}


def _wrong_json(v: Any, target: str) -> SerializationException | None:
    """The SerializationException DynamoDB's deserializer raises for a JSON value of another type than
    the ``target`` a field holds (``{"N": 123}``: "NUMBER_VALUE cannot be converted to String"), before
    any validation; None when the JSON type is right (or null, which reads as an absent field)."""
    if v is None or type(v) is _JSON_KINDS[target]:
        return None
    start = _JSON_STARTS.get(type(v))
    if start is not None:
        return SerializationException(f"{start} found where not expected")
    token = _JSON_TOKENS.get(type(v))
    return SerializationException(f"{token} cannot be converted to {target}") if token else None


# The JSON type each attribute value kind's payload must have on the wire (sets: lists of strings).
_WIRE_SCALARS = {"S": "String", "N": "String", "B": "String", "BOOL": "Boolean", "NULL": "Boolean"}
_WIRE_SETS = frozenset({"SS", "NS", "BS"})


def check_wire_json(value: Any, depth: int = 0) -> None:
    """Raise the SerializationException DynamoDB's deserializer raises for a payload of the wrong JSON
    type anywhere in one wire attribute value (or a B/BS member that is not base64).

    DynamoDB deserializes the whole request before any operation runs, so this answer comes before
    ResourceNotFoundException or any validation; everything else (empty or unknown types, numbers,
    nesting) is left to :func:`validate_value`, in the operation's own order.
    """
    if type(value) is not dict or depth > MAX_NESTING:
        return
    for kind, payload in value.items():
        target = _WIRE_SCALARS.get(kind)
        if target is not None:
            error = _wrong_json(payload, target)
            if error is not None:
                raise error
            if kind == "B" and type(payload) is str:
                _check_base64(payload)
        elif kind in _WIRE_SETS:
            error = _wrong_json(payload, "List")
            if error is not None:
                raise error
            for each in payload or ():
                error = _wrong_json(each, "String")
                if error is not None:
                    raise error
                if kind == "BS" and type(each) is str:
                    _check_base64(each)
        elif kind == "L":
            error = _wrong_json(payload, "List")
            if error is not None:
                raise error
            for each in payload or ():
                check_wire_json(each, depth + 1)
        elif kind == "M":
            error = _wrong_json(payload, "Map")
            if error is not None:
                raise error
            for name, each in payload.items() if type(payload) is dict else ():  # else: _map's error
                if not isinstance(name, str):  # JSON's keys are strings; an in-process caller's may not be
                    raise _wrong_json(name, "String") or SerializationException(
                        f"{type(name).__name__} cannot be converted to String"
                    )
                check_wire_json(each, depth + 1)


def _check_base64(text: str) -> None:
    _strict_b64decode(text)


def _strict_b64decode(text: str) -> bytes:
    """Decode base64 as DynamoDB's deserializer does: the last character's unused bits must be zero
    (``"YR=="`` is refused, where Python alone would read it as ``"YQ=="``)."""
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise _base64_error(text) from None
    # Only a padded last group has unused bits; valid base64 is ASCII.
    if text.endswith("=") and base64.b64encode(data) != text.encode():
        raise SerializationException("Invalid last non-pad Base64 character dectected")
    return data


def _not_a_string(v: Any) -> SerializationException | None:
    return _wrong_json(v, "String")


def _string(v: Any) -> str:
    if not isinstance(v, str):
        raise _not_a_string(v) or ValidationException(f"Invalid string value: {v!r}")
    return v


def validate_value(value: Any) -> AttributeValue:
    """Check one attribute value and return it normalised (numbers canonical, binaries as base64)."""
    return validate_value_sized(value)[0]


def validate_value_sized(value: Any, depth: int = 0) -> tuple[AttributeValue, int]:
    """:func:`validate_value` that also returns the value's size by DynamoDB's rules.

    Validation already normalises every number and decodes every binary; measuring in the same walk
    saves a second walk of the item (and a second normalisation of each number) on every write.
    """
    # The common case first (one known type, nesting within bounds); anything else takes the checks
    # below, in DynamoDB's order, for the exact error.
    if type(value) is dict and len(value) == 1 and depth <= MAX_NESTING:
        for kind, payload in value.items():
            validator = _VALIDATORS.get(kind)
            if validator is not None:
                payload, size = validator(payload, depth)
                return {kind: payload}, size
    if depth > MAX_NESTING:
        raise nesting_error()
    kind = _type_of(value)
    payload, size = _VALIDATORS[kind](value[kind], depth)
    return {kind: payload}, size


def _utf8(text: str) -> int:
    size = _utf8_or_none(text)
    if size is None:  # a lone surrogate: not a string DynamoDB can store
        raise ValidationException(f"Invalid string value: {text[:64]!r} is not valid UTF-8")
    return size


def _utf8_or_none(text: str) -> int | None:
    """The UTF-8 size of ``text``, None for text no UTF-8 holds (a lone surrogate), which the shortcuts
    leave to the general path to word."""
    # isascii() is O(1) on CPython's compact strings: most names and strings need no encoding.
    if text.isascii():
        return len(text)
    try:
        return len(text.encode())
    except UnicodeEncodeError:
        return None


def _sized_string(v: Any, *_depth: int) -> tuple[str, int]:  # a scalar: the depth is unused
    if type(v) is not str:
        _string(v)  # raises DynamoDB's error (a str subclass passes, as before)
    return v, _utf8(v)


def _sized_number(v: Any, *_depth: int) -> tuple[str, int]:  # a scalar: the depth is unused
    if type(v) is not str:
        error = _not_a_string(v)
        if error is not None:
            raise error
    text = normalize_number(v)
    return text, _canonical_number_size(text)


def _base64_error(text: str) -> SerializationException:
    """DynamoDB's deserializer's words for a B value that is not base64."""
    if len(text) % 4:
        return SerializationException(
            f"Base64 encoded length is expected a multiple of 4 bytes but found: {len(text)}"
        )
    bad = next((c for c in text if not (c.isascii() and (c.isalnum() or c in "+/="))), None)
    if bad is not None:
        return SerializationException(f"Invalid Base64 character: {bad!r}")
    return SerializationException("Invalid last non-pad Base64 character dectected")


def _sized_binary(v: Any, *_depth: int) -> tuple[str, int]:  # a scalar: the depth is unused
    if type(v) is str:
        return v, len(_strict_b64decode(v))
    error = _not_a_string(v)  # None for an in-process caller's raw bytes
    if error is not None:
        raise error
    data = decode_binary(v)
    return (v if isinstance(v, str) else encode_binary(data)), len(data)


def _bool(v: Any, depth: int) -> tuple[bool, int]:
    if not isinstance(v, bool):
        raise _wrong_json(v, "Boolean") or ValidationException(f"Invalid boolean value: {v!r}")
    return v, 1


def _null(v: Any, depth: int) -> tuple[bool, int]:
    if v is not True:
        raise _wrong_json(v, "Boolean") or invalid("Null attribute value types must have the value of true")
    return True, 1


def nesting_error() -> ValidationException:
    return ValidationException(
        "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
    )


def _check_container_depth(depth: int) -> None:
    # DynamoDB allows 32 levels counting the top-level attribute as level 1: a map or list may sit at
    # level 31 at most (depth 30 here, where the top-level value is depth 0), its members at 32.
    if depth >= MAX_NESTING - 1:
        raise nesting_error()


def _map(v: Any, depth: int) -> tuple[dict, int]:
    _check_container_depth(depth)
    if not isinstance(v, dict):
        raise _wrong_json(v, "Map") or ValidationException("Invalid map value: expected an object")
    out, size = {}, 3
    for name, inner in v.items():
        out[name], inner_size = validate_value_sized(inner, depth + 1)
        size += _utf8(name) + inner_size + 1
    return out, size


def _list(v: Any, depth: int) -> tuple[list, int]:
    _check_container_depth(depth)
    if not isinstance(v, list):
        raise _wrong_json(v, "List") or ValidationException("Invalid list value: expected an array")
    out, size = [], 3
    for inner in v:
        value, inner_size = validate_value_sized(inner, depth + 1)
        out.append(value)
        size += inner_size + 1
    return out, size


# Each validator returns (normalised payload, size in bytes).
_VALIDATORS: dict[str, Callable[[Any, int], tuple[Any, int]]] = {
    "S": _sized_string,
    "N": _sized_number,
    "B": _sized_binary,
    "SS": lambda v, d: _sized_set("SS", v, _sized_string),
    "NS": lambda v, d: _sized_set("NS", v, _sized_number),
    "BS": lambda v, d: _sized_set("BS", v, _sized_binary),
    "BOOL": _bool,
    "NULL": _null,
    "M": _map,
    "L": _list,
}


def validate_item(item: Any, what: str = "item") -> Item:
    return validate_item_sized(item, what)[0]


def validate_item_sized(item: Any, what: str = "item") -> tuple[Item, int]:
    """Validate and normalise an item (or a Key, or ExpressionAttributeValues); return it with its size."""
    if not isinstance(item, dict):
        raise ValidationException(f"Invalid {what}: expected a map of attribute names to values")
    out: Item = {}
    size = 0
    for name, value in item.items():
        if name.__class__ is str and name.isascii() and 0 < len(name) <= _SHORT_NAME:
            size += len(name)  # the common name, short and ASCII: none of the checks below can fail
        else:
            if not isinstance(name, str) or not name:
                raise invalid("Empty attribute name")
            if len(name) > _SHORT_NAME and _utf8(name) > MAX_NAME_BYTES:
                raise invalid(
                    f"Attribute name is too long; it must be at most {MAX_NAME_BYTES} bytes: {name[:64]}..."
                )
            size += len(name) if name.isascii() else _utf8(name)
        # Strings and canonical numbers are most attributes of most items: handled inline, they skip
        # three calls each; everything else (and every error) takes validate_value_sized.
        if value.__class__ is dict and len(value) == 1:
            payload = value.get("S")
            if payload.__class__ is str:
                out[name] = {"S": payload}
                size += len(payload) if payload.isascii() else _utf8(payload)
                continue
            payload = value.get("N")
            if payload.__class__ is str:
                if (
                    payload.isdigit()
                    and payload.isascii()
                    and payload[0] != "0"
                    and len(payload) <= MAX_DIGITS
                ):
                    # A positive integer: one byte per two significant digits, plus one.
                    out[name] = {"N": payload}
                    size += (len(payload.rstrip("0")) + 1) // 2 + 1
                    continue
                decimal_sized = _plain_decimal_sized(payload)
                if decimal_sized is not None:  # "1.25", "2.50": formatted decimals, without the regex
                    out[name] = {"N": decimal_sized[0]}
                    size += decimal_sized[1]
                    continue
                if is_canonical_number(payload):
                    out[name] = {"N": payload}
                    size += _canonical_number_size(payload)
                    continue
                if "." in payload and payload.endswith("0"):  # "-2.50": normalize_number's own shortcut
                    trimmed = payload.rstrip("0").rstrip(".")
                    if is_canonical_number(trimmed):
                        out[name] = {"N": trimmed}
                        size += _canonical_number_size(trimmed)
                        continue
            payload = value.get("SS")
            if payload.__class__ is list and payload:
                # A set of ASCII strings without duplicates (anything else: the checked path's errors).
                try:
                    joined = "".join(payload)
                except TypeError:
                    joined = ""
                if joined.isascii() and joined and len(set(payload)) == len(payload):
                    out[name] = {"SS": list(payload)}
                    size += len(joined)
                    continue
        out[name], value_size = validate_value_sized(value)
        size += value_size
    return out, size


_LONG_NAME = MAX_NAME_BYTES // 4  # a name this long or longer may exceed the limit in UTF-8


def validate_loaded_item_sized(item: Any) -> tuple[Item, int]:
    """:func:`validate_item_sized` for bulk loads and blind batch writes, where most values are strings,
    numbers in canonical form and string sets.

    Those take one check each and keep the caller's value dict (these paths only serialise the item,
    so nothing can change it afterwards); every other value takes the general walk, and an item
    with an unusual name (not ASCII, long, empty, not a string) is validated whole by the general
    function, so every answer, error included, is :func:`validate_item_sized`'s. The differential tests
    (tests/engine/test_bulk_differential.py) hold the two to the same stored bytes and errors.
    """
    if item.__class__ is not dict:
        return validate_item_sized(item)
    out: Item = {}
    size = 0
    for name, value in item.items():
        if name.__class__ is not str or not name or len(name) >= _LONG_NAME or not name.isascii():
            return validate_item_sized(item)
        size += len(name)
        if value.__class__ is dict and len(value) == 1:
            for kind, payload in value.items():  # the one entry, without building a view's iterator twice
                if payload.__class__ is str:
                    if kind == "S":
                        out[name] = value
                        size += len(payload) if payload.isascii() else _utf8(payload)
                        break
                    if (
                        kind == "N"
                        and payload.isdigit()
                        and payload.isascii()
                        and payload[0] != "0"
                        and len(payload) <= MAX_DIGITS
                    ):  # a positive integer: one byte per two significant digits, plus one
                        out[name] = value
                        size += (len(payload.rstrip("0")) + 1) // 2 + 1
                        break
                    if kind == "N" and is_canonical_number(payload):
                        out[name] = value
                        size += _canonical_number_size(payload)
                        break
                elif (  # ASCII strings without duplicates; anything else (errors included) the general walk
                    kind == "SS"
                    and payload.__class__ is list
                    and payload
                    and all(each.__class__ is str for each in payload)
                ):
                    joined = "".join(payload)
                    if joined.isascii() and len(set(payload)) == len(payload):
                        out[name] = value
                        size += len(joined)
                        break
                out[name], value_size = validate_value_sized(value)
                size += value_size
            continue
        return validate_item_sized(item)  # not a one-type value: refused, in the general walk's words
    return out, size


def plain_item_sized(item: Any) -> tuple[Item, int] | None:
    """The item and size :func:`validate_item_sized` gives, for an item whose every attribute value
    would also pass DynamoDB's wire check (:func:`check_wire_json`); ``None`` for any other item (an
    error anywhere, an unusual attribute name), which the caller's general path then answers, errors
    and their order included. Never raises.

    For PutItem's shortcut: one walk of the item where the general path makes two (the request's wire
    check, then validation). Names are checked all at once (ASCII, none empty, short enough together);
    strings, positive integers, formatted decimals, ASCII string sets and flat maps of strings and
    numbers inline; any other value by both general checks. The caller's item is kept (it is only
    serialised) unless a value is one that validation normalises ("2.50", nested maps): those are
    replaced in a copy, in the same order.
    """
    if type(item) is not dict:
        return None
    try:
        names = "".join(item)
    except TypeError:  # a name that is not a string
        return None
    if "" in item or not names.isascii() or len(names) > MAX_NAME_BYTES:
        return None
    size = len(names)
    out: Item = item  # copied on the first value that validation normalises
    for name, value in item.items():
        if type(value) is dict and len(value) == 1:
            payload = value.get("S")
            if type(payload) is str:
                length = _utf8_or_none(payload)
                if length is None:  # a lone surrogate: the general path words the error
                    return None
                size += length
                continue
            payload = value.get("N")
            if type(payload) is str:
                if (
                    payload.isdigit()
                    and payload.isascii()
                    and payload[0] != "0"
                    and len(payload) <= MAX_DIGITS
                ):
                    size += (len(payload.rstrip("0")) + 1) // 2 + 1
                    continue
                decimal_sized = _plain_decimal_sized(payload)
                if decimal_sized is not None:
                    if decimal_sized[0] != payload:  # "2.50" is stored as "2.5"
                        if out is item:
                            out = dict(item)
                        out[name] = {"N": decimal_sized[0]}
                    size += decimal_sized[1]
                    continue
            else:
                payload = value.get("SS")
                if type(payload) is list and payload:
                    try:
                        joined = "".join(payload)
                    except TypeError:
                        joined = ""
                    if joined.isascii() and joined and len(set(payload)) == len(payload):
                        size += len(joined)
                        continue
                elif payload is None:
                    members = _plain_map_sized(value.get("M"))
                    if members is not None:
                        if members[0] is not None:  # a member normalised ("2.50"): a copy of the map
                            if out is item:
                                out = dict(item)
                            out[name] = {"M": members[0]}
                        size += members[1]
                        continue
        try:
            check_wire_json(value)
            validated, value_size = validate_value_sized(value)
            if out is item:
                out = dict(item)
            out[name] = validated
        except Exception:  # noqa: BLE001 - any error is the general path's to raise, in its order
            return None
        size += value_size
    return out, size


def _plain_map_sized(members: Any) -> tuple[dict | None, int] | None:
    """For :func:`plain_item_sized`: the payload of a map of string and number members (a flat map, the
    commonest nested value) with its size as :func:`validate_value_sized` measures the map; the members
    are ``None`` when validation would change none of them (else a copy with the normalised ones).
    ``None`` for any other payload, which the general checks then take. Never raises."""
    if type(members) is not dict:
        return None
    out = None
    size = 3
    for name, value in members.items():
        if type(name) is not str or type(value) is not dict or len(value) != 1:
            return None
        length = _utf8_or_none(name)
        if length is None:
            return None
        size += length + 1
        payload = value.get("S")
        if type(payload) is str:
            length = _utf8_or_none(payload)
            if length is None:
                return None
            size += length
            continue
        payload = value.get("N")
        if type(payload) is not str:
            return None
        if payload.isdigit() and payload.isascii() and payload[0] != "0" and len(payload) <= MAX_DIGITS:
            size += (len(payload.rstrip("0")) + 1) // 2 + 1
            continue
        decimal_sized = _plain_decimal_sized(payload)
        if decimal_sized is None:
            return None
        if decimal_sized[0] != payload:
            if out is None:
                out = dict(members)
            out[name] = {"N": decimal_sized[0]}
        size += decimal_sized[1]
    return out, size


# --------------------------------------------------------------------------------------------- ordering


def encode_key(value: AttributeValue) -> bytes:
    """Bytes whose unsigned order is DynamoDB's key order: N numeric, S by UTF-8, B by bytes."""
    kind, payload = next(iter(value.items()))
    if kind == "S":
        return payload.encode()
    if kind == "B":
        return decode_binary(payload)
    return encode_number_key(normalize_number(payload))


_INVERT_DIGITS = bytes.maketrans(b"0123456789", b"9876543210")
# Sign byte and magnitude of a positive integer of n digits (up to 126: 38 significant digits then zeros).
_POSITIVE_MAGNITUDE = [b"\x02" + (0x8000 + n).to_bytes(2, "big") for n in range(127)]


def encode_number_key(text: str) -> bytes:
    """Order-preserving bytes of a canonical number string: sign byte, exponent, digits.

    Works on the text (0.d1d2... x 10^magnitude) because Decimal arithmetic is the slow part of a write.
    """
    # A positive integer, the usual numeric key, needs no arithmetic.
    # (A canonical number has at most 126 digits before its point: always within the table.)
    if text.isdigit() and text.isascii() and text[0] != "0":
        return _POSITIVE_MAGNITUDE[len(text)] + text.rstrip("0").encode()
    negative = text.startswith("-")
    integer, _, fraction = text.lstrip("-").partition(".")
    if integer != "0":
        digits, magnitude = (integer + fraction).rstrip("0"), len(integer)
    else:
        significant = fraction.lstrip("0")
        if not significant:
            return b"\x01"
        digits, magnitude = significant, len(significant) - len(fraction)  # canonical: no trailing zeros
    raw = digits.encode()
    if not negative:
        return b"\x02" + (0x8000 + magnitude).to_bytes(2) + raw
    # Negative: invert everything, and end with 0xFF so that a longer (more negative) mantissa sorts first.
    return b"\x00" + (0x8000 - magnitude).to_bytes(2) + raw.translate(_INVERT_DIGITS) + b"\xff"


def partition_hash(partition_key: bytes) -> int:
    """A stable 32-bit hash of a partition key: the engine's scan order and parallel-scan segments."""
    return zlib.crc32(partition_key)


def compare(left: AttributeValue, right: AttributeValue) -> int | None:
    """-1/0/1 for two values of one scalar type (S, N, B); ``None`` when DynamoDB cannot compare them."""
    (lk, lv), (rk, rv) = next(iter(left.items())), next(iter(right.items()))
    if lk != rk or lk not in SCALAR_KEY_TYPES:
        return None
    if lk == "N":
        a, b = parse_number(lv), parse_number(rv)
    elif lk == "S":
        a, b = lv.encode(), rv.encode()
    else:
        a, b = decode_binary(lv), decode_binary(rv)
    return (a > b) - (a < b)


def canonical(value: AttributeValue) -> Any:
    """A hashable form in which equal DynamoDB values are equal (sets unordered, numbers by value).

    Numbers are compared as numbers, not as text: validated values are canonical text already, but an
    item written by another tool or an older engine, or a value given to the evaluator directly, may
    spell one number two ways ("1.50", "1.5").
    """
    kind, payload = next(iter(value.items()))
    if kind == "N":
        return (kind, parse_number(payload))
    if kind == "NS":
        return (kind, frozenset(parse_number(p) for p in payload))
    if kind in _WIRE_SETS:
        return (kind, frozenset(payload))
    if kind == "M":
        return (kind, frozenset((k, canonical(v)) for k, v in payload.items()))
    if kind == "L":
        return (kind, tuple(canonical(v) for v in payload))
    return (kind, payload)


def equal(left: AttributeValue, right: AttributeValue) -> bool:
    return canonical(left) == canonical(right)


# ------------------------------------------------------------------------------------------------- size


def value_size(value: AttributeValue) -> int:
    kind, payload = next(iter(value.items()))
    return _SIZERS[kind](payload)


_SIZERS: dict[str, Callable[[Any], int]] = {
    "S": _utf8,
    "N": number_size,
    "B": lambda p: len(decode_binary(p)),
    "SS": lambda p: sum(_utf8(s) for s in p),
    "NS": lambda p: sum(number_size(n) for n in p),
    "BS": lambda p: sum(len(decode_binary(b)) for b in p),
    "BOOL": lambda p: 1,
    "NULL": lambda p: 1,
    "M": lambda p: 3 + sum(_utf8(k) + value_size(v) + 1 for k, v in p.items()),
    "L": lambda p: 3 + sum(value_size(v) + 1 for v in p),
}


def item_size(item: Item) -> int:
    """Item size by DynamoDB's rules: attribute names plus values."""
    return sum(_utf8(name) + value_size(value) for name, value in item.items())
