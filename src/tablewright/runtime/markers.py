"""Marker items: uniqueness markers and idempotency markers, stored in the entity's own table.

A marker is a small item whose partition key is a reserved text (``_tw#unique#...``,
``_tw#idem#...``) so it never collides with entity keys, and whose ``attribute_not_exists`` guard
inside a TransactWriteItems is what makes a unique value or an idempotency key claimable once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from ..design.model import Table
from ..design.templates.filters import canonical_number
from ..design.validators import number_problem
from .errors import RuntimeFailure
from .wire import to_wire

MARKER_PREFIX = "_tw#"
KIND_ATTRIBUTE = "_tw_kind"
OWNER_ATTRIBUTE = "_tw_owner"
# Sort key of a marker, by the table's sort key type: markers need one item per partition only.
_SORT_VALUES: dict[str, object] = {"S": "_tw#marker", "N": 0, "B": b"_tw#marker"}
IDEMPOTENCY_RETENTION_SECONDS = 30 * 86_400
# Between the values of a composite unique constraint in its marker text, and the character that
# escapes it (and itself) inside a value.
_COMPOSITE_SEPARATOR = "#"
_ESCAPE = "\\"


@dataclass(frozen=True)
class UniqueValue:
    """One unique constraint's value on an item: the attribute names and their values."""

    constraint: tuple[str, ...]
    value: tuple[object, ...]


def marker_key(table: Table, text: str) -> dict[str, object]:
    """The key of the marker ``text`` in ``table`` (Python values)."""
    pk = table.partition_key
    if pk.type == "N":
        raise RuntimeFailure(
            f"table {table.table_name}: partition key {pk.name} is a number, so marker items "
            "(unique constraints, idempotency keys) cannot be stored in it"
        )
    key: dict[str, object] = {pk.name: text if pk.type == "S" else text.encode()}
    if table.sort_key is not None:
        key[table.sort_key.name] = _SORT_VALUES[table.sort_key.type]
    return key


def unique_text(entity: str, unique: UniqueValue) -> str:
    """The marker text of a unique value: entity, attribute names and values.

    One value is written as it is. The values of a composite constraint are joined with ``#``, each
    with ``\\`` and ``#`` escaped by ``\\``: plain joining made ``("x#y", "z")`` and ``("x", "y#z")``
    one marker. Values holding neither character keep the text markers have always had.
    """
    texts = [_value_text(v) for v in unique.value]
    values = texts[0] if len(texts) == 1 else _COMPOSITE_SEPARATOR.join(_escaped(t) for t in texts)
    return f"{MARKER_PREFIX}unique#{entity}#{'+'.join(unique.constraint)}#{values}"


def _value_text(value: object) -> str:
    """One value as a unique marker spells it: a number canonically, as in keys (``Decimal("7.0")``
    and ``7`` are one value to DynamoDB, so they must claim one marker), anything else as ``str``.
    A number DynamoDB cannot store never reaches a marker (validation refuses it) and keeps ``str``."""
    if isinstance(value, int | Decimal) and not isinstance(value, bool) and number_problem(value) is None:
        return canonical_number(value)
    if isinstance(value, bytearray):
        # Stored as the same B value as ``bytes``: it claims the marker ``bytes`` always had.
        return str(bytes(value))
    if isinstance(value, set | frozenset):
        # A set has no order (str() follows the hash seed, so each process spelled {"a", "b"} its
        # own way): its members sorted, in the braces str() writes.
        return "{" + ", ".join(sorted(_member_text(member) for member in value)) + "}"
    if isinstance(value, Mapping):
        # A map has no order to DynamoDB ({"a": 1, "b": 2} and {"b": 2, "a": 1} are one M value),
        # but str() follows insertion order: its entries sorted by name, in the braces str() writes.
        return "{" + ", ".join(f"{name!r}: {_member_text(value[name])}" for name in sorted(value)) + "}"
    if isinstance(value, list | tuple):
        # A list keeps its order, but str() spells its numbers as written (``[1]`` and
        # ``[Decimal("1.0")]`` are one L value): its elements canonical, in the brackets str() writes.
        return "[" + ", ".join(_member_text(element) for element in value) + "]"
    return str(value)


def _member_text(member: object) -> str:
    # A set member or map value as str() of the set writes it (repr), a number by value as above,
    # and a nested map or set in its canonical text too.
    if isinstance(member, int | Decimal) and not isinstance(member, bool):
        return _value_text(member)
    if isinstance(member, Mapping | set | frozenset):
        return _value_text(member)
    if isinstance(member, list | tuple):
        return "[" + ", ".join(_member_text(element) for element in member) + "]"
    return repr(bytes(member) if isinstance(member, bytearray) else member)


def _escaped(text: str) -> str:
    # The escape character first, so that the escapes added for the separator stay unambiguous.
    escaped = text.replace(_ESCAPE, _ESCAPE + _ESCAPE)
    return escaped.replace(_COMPOSITE_SEPARATOR, _ESCAPE + _COMPOSITE_SEPARATOR)


def idempotency_text(entity: str, key: object) -> str:
    """The marker text of an idempotency key."""
    return f"{MARKER_PREFIX}idem#{entity}#{key}"


REQUEST_ATTRIBUTE = "_tw_request"  # on an idempotency marker: the digest of the request it applied
STATE_ATTRIBUTE = "_tw_state"  # "pending" while a chunked batch writes its chunks; absent once done
CLAIMED_ATTRIBUTE = "_tw_claimed_ms"  # when the pending marker was put (wall clock, epoch ms)


def request_digest(*parts: object) -> str:
    """A digest of what a write was asked to do (verb, entity, the caller's values), stored on its
    idempotency marker so a retry (the same request) is told apart from a key reused for another.
    The caller's values, not the composed item: a retry's computed timestamps differ. Numbers are
    digested by value (``5000`` and ``Decimal("5000.0")`` are one stored number); ints, and numbers
    already spelled canonically, digest as they did before numbers were made canonical."""
    text = json.dumps([_canonical(part) for part in parts], sort_keys=True, default=_opaque)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _canonical(part: object) -> object:
    try:
        return _numbers_by_value(to_wire(part))
    except (TypeError, ValueError):  # a value no item holds (a condition, a datetime): its repr
        return repr(part)


def _numbers_by_value(wire: dict) -> dict:
    """A wire value with every number (nested, and in number sets) spelled canonically."""
    ((kind, payload),) = wire.items()
    if kind == "N":
        return {kind: _number_text(payload)}
    if kind == "NS":
        return {kind: [_number_text(text) for text in payload]}
    if kind == "M":
        return {kind: {name: _numbers_by_value(value) for name, value in payload.items()}}
    if kind == "L":
        return {kind: [_numbers_by_value(value) for value in payload]}
    return wire


def _number_text(text: str) -> str:
    number = Decimal(text)
    # A number DynamoDB cannot store (NaN, 1E+999999) is refused before any write; spelling it out
    # without an exponent could take millions of digits, so it keeps its text.
    return canonical_number(number) if number_problem(number) is None else text


def _opaque(value: object) -> str:
    return value.hex() if isinstance(value, bytes) else repr(value)


def unique_values(constraints: Sequence[Sequence[str]], item: Mapping[str, object]) -> list[UniqueValue]:
    """The unique values an item holds; a constraint with a missing part holds none (like SQL NULL)."""
    found: list[UniqueValue] = []
    for constraint in constraints:
        values = tuple(item.get(name) for name in constraint)
        if all(v is not None for v in values):
            found.append(UniqueValue(tuple(constraint), values))
    return found


def is_marker(item: Mapping[str, object]) -> bool:
    """True for a marker item (read back by a scan, for instance)."""
    return KIND_ATTRIBUTE in item
