"""Item sizes by DynamoDB's rules, from declared attributes or from sample items.

DynamoDB sizes an item as the UTF-8 bytes of every attribute name plus its value: strings by UTF-8
bytes, numbers by ``ceil(significant digits / 2) + 1`` (+1 if negative, at most 21), binary by raw
bytes, booleans and NULL 1 byte, lists and maps 3 bytes + 1 byte per element + the elements, sets
the sum of their elements. The engine has its own copy of these rules for wire values; this one
works on the Python values the design model uses, so lint and cost need no engine.

A design rarely has sample items, so ``sample_item`` invents one per entity from the declared
attributes: a *typical* item (enums, formats and bounds where declared, documented defaults
otherwise) for cost, and a *largest* item (every bound at its maximum) for the 400 KB limit, which
is ``None`` when any attribute is unbounded: lint only reports limits it can prove.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from tablewright.design.model import Attribute, Design, Entity, Projection

# Canonical values per format: the seeds' own examples, so sizes match what the designs store.
FORMAT_SAMPLES: dict[str, object] = {
    "uuid": "550e8400-e29b-41d4-a716-446655440000",
    "uuid4": "550e8400-e29b-41d4-a716-446655440000",
    "mac": "AA:BB:CC:DD:EE:FF",
    "rfc3339": "2024-01-15T10:30:00Z",
    "date": "2024-01-15",
    "iana_tz": "America/New_York",
    "sha256_hex": "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8",
    "semver": "1.0.16",
    # Real timestamps have non-zero low digits: 13 and 10 significant digits.
    "epoch_ms": 1704067800123,
    "epoch_s": 1704067801,
}
# Defaults where a design declares no bound: documented in docs/cost.md.
TYPICAL_STRING = 16
TYPICAL_ELEMENTS = 4
TYPICAL_NUMBER = Decimal("123.5")  # 4 significant digits -> 3 bytes
LARGEST_NUMBER = 21  # bytes: 38 significant digits, negative
SAMPLE_TIME = datetime(2024, 1, 15, 10, 30, tzinfo=UTC)
KB = 1024


class Unbounded(Exception):
    """Raised while building a largest item when an attribute has no upper bound."""


def number_size(value: int | float | Decimal) -> int:
    """Bytes DynamoDB charges for a number: one per two significant digits, plus one (+1 if negative)."""
    text = format(Decimal(str(value)) if isinstance(value, float) else Decimal(value), "f")
    digits = text.lstrip("-").replace(".", "").strip("0")
    if not digits:
        return 1
    return min(LARGEST_NUMBER, (len(digits) + 1) // 2 + 1 + text.startswith("-"))


def value_size(value: object) -> int:
    """Bytes DynamoDB charges for one Python value of the design model."""
    for kinds, sizer in _SIZERS:
        if isinstance(value, kinds):
            return sizer(value)
    raise TypeError(f"cannot size a {type(value).__name__} value: {value!r}")


def _container(value: list | dict) -> int:
    if isinstance(value, dict):
        return 3 + sum(len(str(k).encode()) + value_size(v) + 1 for k, v in value.items())
    return 3 + sum(value_size(v) + 1 for v in value)


_SIZERS: tuple[tuple[type | tuple[type, ...], Callable[[object], int]], ...] = (
    ((bool, type(None)), lambda v: 1),
    ((int, float, Decimal), number_size),  # type: ignore[arg-type]
    (str, lambda v: len(v.encode("utf-8"))),  # type: ignore[attr-defined]
    ((bytes, bytearray), len),  # type: ignore[arg-type]
    ((set, frozenset), lambda v: sum(value_size(x) for x in v)),  # type: ignore[attr-defined]
    ((list, tuple, dict), _container),  # type: ignore[arg-type]
)


def item_size(item: Mapping[str, object]) -> int:
    """Bytes of a whole item: attribute names plus values."""
    return sum(len(name.encode("utf-8")) + value_size(value) for name, value in item.items())


def write_units(size: int) -> int:
    """Write units of one standard write: size rounded up to 1 KB (at least 1)."""
    return max(1, -(-size // KB))


def read_units(size: int, consistency: str = "eventual") -> float:
    """Read units of one item read: size rounded up to 4 KB, times 0.5 / 1 / 2."""
    return max(1, -(-size // (4 * KB))) * READ_FACTORS[consistency]


READ_FACTORS = {"eventual": 0.5, "strong": 1.0, "transactional": 2.0}


# ---------------------------------------------------------------- sample values from declarations


def sample_value(attr: Attribute, largest: bool = False) -> object:
    """A value for ``attr``: typical, or the largest the declaration allows (``Unbounded`` if none)."""
    if attr.enum:
        return max(attr.enum, key=lambda v: value_size(v)) if largest else attr.enum[0]
    return _BY_TYPE.get(attr.type, _string)(attr, largest)


def _string(attr: Attribute, largest: bool) -> object:
    prefix = attr.prefix or ""
    if attr.format in FORMAT_SAMPLES:
        return prefix + str(FORMAT_SAMPLES[attr.format]) if prefix else FORMAT_SAMPLES[attr.format]
    if largest:
        if attr.max_length is None:
            raise Unbounded(attr.name)
        return "x" * attr.max_length
    length = min(max(TYPICAL_STRING, attr.min_length or 0), attr.max_length or TYPICAL_STRING)
    return prefix + "x" * max(0, length - len(prefix))


def _number(attr: Attribute, largest: bool) -> object:
    if attr.format in FORMAT_SAMPLES:
        return FORMAT_SAMPLES[attr.format]
    bounds = [abs(Decimal(str(b))) for b in (attr.min, attr.max) if b is not None]
    if largest:
        # Without bounds a number can hold 38 digits; a bound caps the digits, not the precision.
        return Decimal("-" + "9" * 38) if not bounds else -Decimal(str(max(bounds))) - Decimal("0.000001")
    return Decimal(str(attr.max)) if attr.max is not None else TYPICAL_NUMBER


def _binary(attr: Attribute, largest: bool) -> object:
    if largest and attr.max_length is None:
        raise Unbounded(attr.name)
    return b"x" * (attr.max_length if largest else min(TYPICAL_STRING, attr.max_length or TYPICAL_STRING))


def _count(attr: Attribute, largest: bool) -> int:
    if largest:
        if attr.max_length is None:
            raise Unbounded(attr.name)
        return attr.max_length
    return min(TYPICAL_ELEMENTS, attr.max_length or TYPICAL_ELEMENTS)


def _map(attr: Attribute, largest: bool) -> object:
    if attr.attributes:
        return {name: sample_value(child, largest) for name, child in attr.attributes.items()}
    if largest:  # data-named keys have no length bound
        raise Unbounded(attr.name)
    child = attr.values or Attribute(f"{attr.name}.*")
    return {f"k{i}": sample_value(child) for i in range(_count(attr, False))}


def _list(attr: Attribute, largest: bool) -> object:
    child = attr.items or Attribute(f"{attr.name}[]")
    return [sample_value(child, largest) for _ in range(_count(attr, largest))]


def _set(kind: str) -> Callable[[Attribute, bool], object]:
    def make(attr: Attribute, largest: bool) -> object:
        base = Attribute(attr.name, kind, max_length=attr.max_length if kind != "number" else None)
        one = sample_value(base, largest)
        # Set elements are distinct: vary the last character/digit.
        return {_variant(one, i) for i in range(_count(attr, largest))}

    return make


def _variant(value: object, i: int) -> object:
    if isinstance(value, str):
        return value[:-1] + chr(65 + i % 26) + str(i // 26) if value else str(i)
    if isinstance(value, bytes):
        return value + i.to_bytes(4, "big")
    return Decimal(value) + i  # type: ignore[arg-type]


_BY_TYPE: dict[str, Callable[[Attribute, bool], object]] = {
    "string": _string,
    "number": _number,
    "boolean": lambda a, largest: True,
    "null": lambda a, largest: None,
    "binary": _binary,
    "map": _map,
    "list": _list,
    "string_set": _set("string"),
    "number_set": _set("number"),
    "binary_set": _set("binary"),
}


def sample_item(entity: Entity, largest: bool = False) -> dict[str, object] | None:
    """A whole item as the runtime would write it (keys, computed values, discriminator).

    Optional attributes are included: the estimate is for a fully populated item. Returns None for
    ``largest=True`` when some attribute is unbounded.
    """
    try:
        values = {
            name: sample_value(attr, largest)
            for name, attr in entity.attributes.items()
            if attr.computed is None
        }
    except Unbounded:
        return None
    try:
        return entity.to_item(values, now=SAMPLE_TIME)
    except (ValueError, TypeError, KeyError):
        # A filter that cannot read an invented value: size the attributes without the keys.
        return values


@dataclass(frozen=True)
class EntitySize:
    """Typical (or declared) and largest item size of an entity, and where the figure came from."""

    typical: int
    largest: int | None
    source: str  # "volumes" (declared item_size) or "attributes" (estimated)


def entity_size(design: Design, entity: str) -> EntitySize:
    """Size of an entity's items: the declared ``item_size`` if any, else estimated from attributes."""
    ent = design.entities[entity]
    biggest = sample_item(ent, largest=True)
    largest = item_size(biggest) if biggest is not None else None
    volume = design.volumes.entities.get(entity)
    if volume is not None and volume.item_size:
        return EntitySize(volume.item_size, largest, "volumes")
    typical = sample_item(ent) or {}
    return EntitySize(item_size(typical), largest, "attributes")


def index_entry_size(design: Design, entity: str, index: str, projection: Projection | None = None) -> int:
    """Bytes of one entity item's entry in an index, by the index's projection.

    KEYS_ONLY keeps the table and index keys; INCLUDE adds the named attributes; ALL is the whole
    item (the declared ``item_size`` when given). ``projection`` overrides the index's own (to
    price an alternative).
    """
    ent = design.entities[entity]
    table = design.tables[ent.table]
    idx = table.indexes[index]
    projection = projection or idx.projection
    whole = entity_size(design, entity).typical
    if projection.type == "ALL":
        return whole
    item = sample_item(ent) or {}
    keep = {table.partition_key.name, idx.partition_key.name}
    keep |= {k.name for k in (table.sort_key, idx.sort_key) if k is not None}
    if projection.type == "INCLUDE":
        keep |= set(projection.attributes)
    # An entry never exceeds the whole item (the declared item_size may be smaller than our guess).
    return min(whole, item_size({k: v for k, v in item.items() if k in keep}))
