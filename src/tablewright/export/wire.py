"""Python values <-> DynamoDB's wire form, without boto3 (export is a pure layer over the design).

The design's value types are those of the runtime boundary: ``str``, ``int``/``Decimal``, ``bool``,
``bytes``, ``set``, ``dict``, ``list``, ``None``. The tables below are the whole mapping.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from decimal import Decimal
from typing import Any

# Design attribute type -> DynamoDB wire type (also NoSQL Workbench's AttributeType).
DESIGN_TO_WIRE = {
    "string": "S",
    "number": "N",
    "binary": "B",
    "boolean": "BOOL",
    "null": "NULL",
    "map": "M",
    "list": "L",
    "string_set": "SS",
    "number_set": "NS",
    "binary_set": "BS",
}
WIRE_TO_DESIGN = {wire: design for design, wire in DESIGN_TO_WIRE.items()}
# Key attribute types in the design model (S/N/B) -> design attribute types.
KEY_TO_DESIGN = {"S": "string", "N": "number", "B": "binary"}


def _number(value: int | Decimal) -> str:
    return str(value)


def _base64(value: bytes) -> str:
    return base64.b64encode(value).decode()


def _set(value: set | frozenset, binary: Callable[[bytes], Any]) -> dict[str, list]:
    elements = sorted(value, key=repr)
    if all(isinstance(e, str) for e in elements):
        return {"SS": sorted(elements)}
    if all(isinstance(e, (bytes, bytearray)) for e in elements):
        return {"BS": [binary(bytes(e)) for e in sorted(elements)]}
    return {"NS": [_number(e) for e in sorted(elements)]}


def _to_wire(value: Any, binary: Callable[[bytes], Any]) -> dict[str, Any]:
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):  # before int: bool is an int subclass
        return {"BOOL": value}
    if isinstance(value, (int, Decimal)):
        return {"N": _number(value)}
    if isinstance(value, float):
        raise TypeError(f"float {value!r}: store numbers as int or Decimal (floats lose precision)")
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, (bytes, bytearray)):
        return {"B": binary(bytes(value))}
    if isinstance(value, (set, frozenset)):
        return _set(value, binary)
    if isinstance(value, dict):
        return {"M": {str(k): _to_wire(v, binary) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return {"L": [_to_wire(v, binary) for v in value]}
    raise TypeError(f"{type(value).__name__} {value!r} has no DynamoDB type")


def to_wire(value: Any) -> dict[str, Any]:
    """One Python value as a DynamoDB AttributeValue in JSON (``{"S": "x"}``, binary as base64);
    floats are refused."""
    return _to_wire(value, _base64)


def to_client(value: Any) -> dict[str, Any]:
    """One Python value as a boto3 low-level client takes it: as :func:`to_wire`, binary as bytes
    (botocore encodes it). Numbers are sent as written: a number DynamoDB cannot store is the
    service's ValidationException, not a ``decimal`` trap raised here as boto3's serializer would."""
    return _to_wire(value, bytes)


def item_to_wire(item: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A whole item in wire form."""
    return {name: to_wire(value) for name, value in item.items()}


def _wire_number(text: str) -> int | Decimal:
    number = Decimal(text)
    return int(number) if number == number.to_integral_value() and "e" not in text.lower() else number


def _exact_number(text: str) -> int | Decimal:
    # Read as sent, without boto3's 38-digit context: DynamoDB validated the number, and it answers a
    # stored 1E+100 with its 101 digits, whose trailing zeros boto3's deserializer takes for digits of
    # precision and refuses with decimal.Rounded (boto3 issue 2500).
    number = Decimal(text)
    return int(number) if number == number.to_integral_value() else number


_FROM_WIRE = {
    "S": lambda v: v,
    "N": _wire_number,
    "B": lambda v: base64.b64decode(v),
    "BOOL": bool,
    "NULL": lambda v: None,
    "M": lambda v: {k: from_wire(x) for k, x in v.items()},
    "L": lambda v: [from_wire(x) for x in v],
    "SS": set,
    "NS": lambda v: {_wire_number(x) for x in v},
    "BS": lambda v: {base64.b64decode(x) for x in v},
}
# The boto3 low-level client's form: binary already bytes (botocore decoded the base64), numbers
# exact, integral ones as int.
_FROM_CLIENT = {
    **_FROM_WIRE,
    "N": _exact_number,
    "B": bytes,
    "M": lambda v: {k: from_client(x) for k, x in v.items()},
    "L": lambda v: [from_client(x) for x in v],
    "NS": lambda v: {_exact_number(x) for x in v},
    "BS": lambda v: {bytes(x) for x in v},
}


def from_wire(value: dict[str, Any]) -> Any:
    """One AttributeValue as a Python value (numbers: ``int`` when integral, else ``Decimal``)."""
    ((kind, payload),) = value.items()
    return _FROM_WIRE[kind](payload)


def from_client(value: dict[str, Any]) -> Any:
    """One AttributeValue as a boto3 low-level client returns it, as a Python value: ``bytes`` for
    binary, ``int`` for integral numbers, else ``Decimal``, every number exactly as stored."""
    ((kind, payload),) = value.items()
    return _FROM_CLIENT[kind](payload)
