"""Python values <-> DynamoDB's wire form, without boto3 (export is a pure layer over the design).

The design's value types are those of the runtime boundary: ``str``, ``int``/``Decimal``, ``bool``,
``bytes``, ``set``, ``dict``, ``list``, ``None``. The tables below are the whole mapping.
"""

from __future__ import annotations

import base64
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


def _set(value: set | frozenset) -> dict[str, list]:
    elements = sorted(value, key=repr)
    if all(isinstance(e, str) for e in elements):
        return {"SS": sorted(elements)}
    if all(isinstance(e, (bytes, bytearray)) for e in elements):
        return {"BS": [base64.b64encode(e).decode() for e in sorted(elements)]}
    return {"NS": [_number(e) for e in sorted(elements)]}


def to_wire(value: Any) -> dict[str, Any]:
    """One Python value as a DynamoDB AttributeValue (``{"S": "x"}``); floats are refused."""
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
        return {"B": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, (set, frozenset)):
        return _set(value)
    if isinstance(value, dict):
        return {"M": {str(k): to_wire(v) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return {"L": [to_wire(v) for v in value]}
    raise TypeError(f"{type(value).__name__} {value!r} has no DynamoDB type")


def item_to_wire(item: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A whole item in wire form."""
    return {name: to_wire(value) for name, value in item.items()}


def _wire_number(text: str) -> int | Decimal:
    number = Decimal(text)
    return int(number) if number == number.to_integral_value() and "e" not in text.lower() else number


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


def from_wire(value: dict[str, Any]) -> Any:
    """One AttributeValue as a Python value (numbers: ``int`` when integral, else ``Decimal``)."""
    ((kind, payload),) = value.items()
    return _FROM_WIRE[kind](payload)
