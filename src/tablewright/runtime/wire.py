"""Python values <-> DynamoDB wire values, and the Record type reads return.

botocore's low-level client speaks wire-typed values (``{"S": "x"}``); boto3's serializer does the
conversion but returns every number as ``Decimal`` and rejects nothing the design would. Here
integral numbers come back as ``int`` so domain code and predicates compare naturally.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from boto3.dynamodb.types import Binary, TypeDeserializer, TypeSerializer

_SERIALIZER = TypeSerializer()
_DESERIALIZER = TypeDeserializer()


def to_wire(value: object) -> dict:
    """One Python value as a wire attribute value (``bytearray`` and tuples accepted)."""
    if isinstance(value, bytearray):
        value = bytes(value)
    elif isinstance(value, tuple):
        value = list(value)
    elif isinstance(value, frozenset):
        value = set(value)
    elif isinstance(value, float):
        # Callers should not store floats; parameters (e.g. a computed bound) may still be floats.
        value = Decimal(repr(value))
    if isinstance(value, dict):
        return {"M": {k: to_wire(v) for k, v in value.items()}}
    if isinstance(value, list):
        return {"L": [to_wire(v) for v in value]}
    return _SERIALIZER.serialize(value)


def item_to_wire(item: Mapping[str, object]) -> dict[str, dict]:
    """A whole item as a wire map."""
    return {name: to_wire(value) for name, value in item.items()}


def from_wire(value: Mapping[str, object]) -> object:
    """One wire attribute value as Python (integral numbers as ``int``, binary as ``bytes``)."""
    return _plain(_DESERIALIZER.deserialize(value))


def item_from_wire(item: Mapping[str, Mapping[str, object]]) -> dict[str, object]:
    """A whole wire item as Python values."""
    return {name: from_wire(value) for name, value in item.items()}


def _plain(value: object) -> object:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else value
    if isinstance(value, Binary):
        return bytes(value.value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, set):
        return {_plain(v) for v in value}
    return value


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
