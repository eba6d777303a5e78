"""Python values <-> DynamoDB wire values, and the Record type reads return.

botocore's low-level client speaks wire-typed values (``{"S": "x"}``). The conversion is
``tablewright.export.wire``'s, not boto3's serializer: integral numbers come back as ``int`` so domain
code and predicates compare naturally, and numbers are read exactly as DynamoDB stored them.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from ..export.wire import from_client, to_client


def to_wire(value: object) -> dict:
    """One Python value as a wire attribute value (``bytearray``, tuples and frozensets accepted)."""
    if isinstance(value, float):
        # Callers should not store floats; parameters (e.g. a computed bound) may still be floats.
        value = Decimal(repr(value))
    return to_client(value)


def item_to_wire(item: Mapping[str, object]) -> dict[str, dict]:
    """A whole item as a wire map."""
    wire: dict[str, dict] = {}
    for name, value in item.items():
        kind = type(value)
        # Fast path: text and numbers of the exact types (most of an item) as to_client writes them
        # (a number as its str); everything else (bool, None, bytes, sets, maps, lists) is to_client's.
        if kind is str:
            wire[name] = {"S": value}
        elif kind is int or kind is Decimal:
            wire[name] = {"N": str(value)}
        else:
            wire[name] = to_client(value)
    return wire


def from_wire(value: Mapping[str, object]) -> object:
    """One wire attribute value as Python (integral numbers as ``int``, binary as ``bytes``, every
    number exactly as stored: boto3's deserializer refuses a stored 1E+100)."""
    return from_client(dict(value))


def item_from_wire(item: Mapping[str, Mapping[str, object]]) -> dict[str, object]:
    """A whole wire item as Python values."""
    return {name: from_client(value) for name, value in item.items()}  # type: ignore[arg-type]


class Record(dict):
    """An entity read back: its natural attribute values, plus ``entity`` and ``key``.

    A plain ``dict`` so domain code can use it as one; ``key`` is the table key (attribute name ->
    value) the item is stored under, which identifies it across patterns.
    """

    def __init__(self, entity: str, values: Mapping[str, object], key: Mapping[str, object]) -> None:
        super().__init__(values)
        self.entity = entity
        self.key = dict(key)

    def __repr__(self) -> str:
        return f"Record({self.entity!r}, {dict.__repr__(self)})"

    @property
    def identity(self) -> tuple:
        """A hashable identity: entity name and table key."""
        return (self.entity, *sorted((k, repr(v)) for k, v in self.key.items()))
