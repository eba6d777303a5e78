"""The write path's fast validation (``runtime/fast_accept.py``) against the general path it skips.

Generated items, valid and broken in many ways (odd numbers, nested maps, sets, binary, missing and
None values, floats, text no UTF-8 holds, too deep), go through ``violations_of`` and ``compose``
twice: as the runtime runs them, and with the acceptors switched off so that every rule is asked.
Both must give the same answer: the same item to the last type, or the same violations in the same
order, or the same error. The generator is seeded, so a failure names an item that fails again.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType

import pytest

from tablewright.design import load, loads
from tablewright.design.model import Entity
from tablewright.runtime import ValidationError, fast_accept, items

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 1, 15, 12, 0, 0, 123000, tzinfo=UTC)
ITEMS_PER_ENTITY = 60

SINK = """
version: 1
name: fast-path-sink
entity_type_attribute: kind
tables:
  things:
    partition_key: {name: PK, type: S}
    sort_key: {name: SK, type: S}
    ttl: expires
    indexes:
      GSI1:
        kind: global
        partition_key: {name: GSI1PK, type: S}
        sort_key: {name: GSI1SK, type: S}
      GSI2:
        kind: global
        partition_key: {name: GSI2PK, type: S}
        sort_key: {name: GSI2SK, type: N}
entities:
  Thing:
    table: things
    entity_type: THING
    attributes:
      thingId: {type: string, required: true, prefix: thg_, format: uuid4}
      owner: {type: string, required: true, min_length: 2, max_length: 12, charset: safe_ascii}
      label: {type: string, pattern: "^[a-z]+( [a-z]+)*$", max_length: 30}
      state: {type: string, enum: [new, used, gone], default: new}
      count: {type: number, min: 0, max: 1000}
      ratio: {type: number, min: -1, max: 1}
      seen_ms: {type: number, format: epoch_ms}
      at: {type: string, format: rfc3339, precision: ms}
      day: {type: string, format: date}
      zone: {type: string, nullable: true, format: iana_tz}
      flag: boolean
      blob: binary
      tags: {type: string_set, max_length: 4}
      scores: number_set
      blobs: binary_set
      nothing: {type: "null"}
      note: {type: string, nullable: true, max_length: 20}
      spec:
        type: map
        attributes:
          size: {type: number, required: true, min: 1}
          color: {type: string, enum: [red, blue]}
          dims: {type: list, items: {type: number, min: 0}}
        values: string
      parts:
        type: list
        max_length: 5
        items: {type: map, attributes: {name: {type: string, required: true}, qty: number}}
      created: {type: string, format: rfc3339, computed: created_at}
      updated: {type: number, format: epoch_s, computed: updated_at}
      expires: {type: number, format: epoch_s, computed: {ttl: {from: seen_ms, unit: ms, retention: 30d}}}
      slug: {type: string, computed: {template: "{owner|lower}-{state}"}}
    keys:
      table: {pk: "OWNER#{owner}", sk: "THING#{thingId}"}
      GSI1: {pk: "STATE#{state|upper}", sk: "{at}#{label}", when: "state <> 'gone'"}
      GSI2: {pk: "DAY#{seen_ms|day}", sk: "{count}"}
  Loose:
    table: things
    entity_type: LOOSE
    attributes:
      id: {type: string, required: true}
      n: {type: number, required: true, default: 7}
      expires: number
    keys:
      table: {pk: "LOOSE#{id}", sk: "{n:05}"}
"""


class Text(str):
    """A str subclass: valid for a string attribute, not a type the acceptors handle themselves."""


class Colour(StrEnum):
    RED = "red"


def _deep(levels: int, leaf: object = 1, kind: type = dict) -> object:
    value = leaf
    for _ in range(levels):
        value = {"a": value} if kind is dict else [value]
    return value


# Values any attribute may be given instead of its own: every one is wrong for most attributes and
# several are wrong for any (floats, NaN, text with a lone surrogate, maps nested too deep).
ODD = [
    None,
    1.5,
    float("nan"),
    Decimal("NaN"),
    Decimal("-Infinity"),
    10**40,
    10**126,
    -(10**38) + 1,
    12345678901234567890123456789012345678901,
    Decimal("1E+200"),
    Decimal("1E-140"),
    Decimal("1234567890123456789012345678901234567890"),
    Decimal("5.000"),
    Decimal("-0"),
    True,
    False,
    0,
    -1,
    2**63,
    "",
    " ",
    "x",
    "\ud800",
    "é#ü",
    "a#b",
    "2026-01-15T12:00:00.123456Z",
    "2026-01-15T12:00:00Z",
    "A" * 300,
    b"",
    b"\x00\xff",
    bytearray(b"x"),
    set(),
    {"a", "b"},
    {1, Decimal("2.5")},
    {10**40},
    {10**126},
    {b"x"},
    {1.5},
    frozenset({"a"}),
    (1, 2),
    [],
    [1, "a", None],
    [1.5],
    {},
    {"k": 1},
    {1: "a"},
    {"\ud800": 1},
    {"k": 1.5},
    {"k": {"j": [1, {"i": b"x"}]}},
    MappingProxyType({"a": 1}),
    Text("thg_7c9e6679-7425-40de-944b-e07fc1f90ae7"),
    Colour.RED,
    datetime(2026, 1, 1, tzinfo=UTC),
    _deep(30),
    _deep(31),
    _deep(32),
    _deep(30, kind=list),
    _deep(31, kind=list),
    _deep(32, kind=list),
    _deep(200),
]

MAC, UUID4 = "AA:BB:CC:DD:EE:FF", "7c9e6679-7425-40de-944b-e07fc1f90ae7"


def _reading(r: random.Random) -> dict:
    return {
        "timestamp_ms": r.choice(
            [1_768_478_400_000, 946_684_800_000, 4_102_444_800_000, Decimal("1768478400000")]
        ),
        "sensors": r.choice(
            [
                {"bme280_temp_c": Decimal("21.5")},
                {"bme280_temp_c": 21, "humidity_pct": r.choice([0, 100, Decimal("55.5")]), "co2": 415},
                {"soil_moisture_pct": r.choice([0, 100, Decimal("0.0")]), "pressure_hpa": Decimal("1013.25")},
            ]
        ),
        "sensor_status": r.choice([{"bme280": "ok"}, {"bme280": "ok", "ds18b20": "error"}, {}]),
        "hardware_id": MAC,
        "batch_id": r.choice([f"{MAC}_1", "b-1", "x" * 256]),
        "boot_id": UUID4,
        "firmware_version": r.choice(["1.0.16", "v2 beta", "~"]),
        **r.choice([{}, {"friendly_name": "Kitchen"}]),
    }


def _batch(r: random.Random) -> dict:
    return {
        "batch_id": r.choice([f"{MAC}_7", "z"]),
        "hardware_id": MAC,
        **r.choice([{}, {"readings_digest": "ab" * 32}, {"state": "pending"}]),
    }


def _device(r: random.Random) -> dict:
    return {
        "hardware_id": MAC,
        "confirmation_id": UUID4,
        "capabilities": r.choice(
            [
                {"sensors": ["bme280"], "features": {"tft_display": True}},
                {"sensors": [], "features": {}},
                {"sensors": ["a" * 64, "b"]},
            ]
        ),
        "last_seen_at": r.choice(["2026-01-15T12:00:00Z", "2000-01-01T00:00:00Z"]),
        "last_boot_id": UUID4,
        "firmware_version": "1.0.16",
        **r.choice([{}, {"friendly_name": "Hall"}, {"version": 3}]),
    }


def _plant(r: random.Random) -> dict:
    return {
        "plant_id": r.choice([1, 77, Decimal("12")]),
        "org_id": 1,
        "vendor_id": 2,
        "vendor_plant_id": r.choice(["vp-1", "vp#2"]),
        "name": "Plant",
        "network_status": r.choice(["NORMAL", "OFFLINE"]),
        "capacity_kw": r.choice([Decimal("125.5"), 0, 10**6]),
        **r.choice([{}, {"latitude": Decimal("47.3769"), "longitude": -180}, {"current_power_kw": 5}]),
    }


def _alert(r: random.Random) -> dict:
    return {
        "plant_id": 1,
        "alert_id": UUID4,
        "vendor_id": 2,
        "vendor_plant_id": "vp-1",
        "vendor_alert_id": r.choice(["va-1", "va#1"]),
        "alert_time": r.choice(["2026-01-15T12:00:00Z", "1999-12-31T23:59:59Z", "2026-01-15T12:00:00.5Z"]),
        **r.choice([{}, {"severity": "CRITICAL", "message": "offline"}, {"status": "RESOLVED"}]),
    }


def _thing(r: random.Random) -> dict:
    return {
        "thingId": f"thg_{UUID4}",
        "owner": r.choice(["ada", "Bo_b-1", "x" * 12]),
        **r.choice([{}, {"label": "red box"}, {"label": "a"}]),
        **r.choice([{}, {"state": "used"}, {"state": "gone"}]),
        **r.choice([{}, {"count": 0}, {"count": 1000}, {"count": Decimal("7.50")}]),
        **r.choice([{}, {"ratio": Decimal("-1")}, {"ratio": Decimal("0.25")}]),
        **r.choice([{}, {"seen_ms": 1_768_478_400_123}, {"seen_ms": Decimal("1768478400123")}]),
        **r.choice(
            [
                {},
                {"at": "2026-01-15T12:00:00Z"},
                {"at": "2026-01-15T12:00:00.120000Z"},
                {"at": "2026-01-15T12:00:00.1234Z"},
            ]
        ),
        **r.choice([{}, {"day": "2026-02-28"}, {"zone": None}, {"zone": "Europe/Zurich"}]),
        **r.choice([{}, {"flag": True}, {"blob": b"\x00\x01"}, {"nothing": None}, {"note": None}]),
        **r.choice([{}, {"tags": {"a", "b"}}, {"scores": {1, Decimal("2.5")}}, {"blobs": {b"x", b"y"}}]),
        **r.choice(
            [
                {},
                {"spec": {"size": 1}},
                {
                    "spec": {
                        "size": Decimal("2.5"),
                        "color": "blue",
                        "dims": [0, 1, Decimal("0.5")],
                        "extra": "x",
                    }
                },
                {"parts": [{"name": "bolt", "qty": 4}, {"name": "nut"}]},
            ]
        ),
    }


def _loose(r: random.Random) -> dict:
    return {
        "id": r.choice(["l1", "l#2"]),
        **r.choice([{}, {"n": 3}, {"n": 99999}]),
        **r.choice(
            [{}, {"expires": 1_768_478_400}, {"extra": {"nested": [1, {"deeper": b"x"}]}}, {"set": {"a"}}]
        ),
    }


def _mutated(r: random.Random, entity: Entity, values: dict) -> dict:
    """``values`` with up to three things changed: an odd value, a value dropped, an undeclared one."""
    names = [*entity.attributes, entity.entity_type_attribute or "kind", "PK"]
    for _ in range(r.choice([1, 1, 2, 3])):
        name = r.choice(names)
        change = r.random()
        if change < 0.12:
            values.pop(name, None)
        elif change < 0.24:
            values[name] = None
        elif change < 0.36 and isinstance(values.get(name), dict) and values[name]:
            inner = dict(values[name])
            inner[r.choice([*inner, "other"])] = r.choice(ODD)
            values[name] = inner
        elif change < 0.5:
            values["undeclared"] = r.choice(ODD)
        else:
            values[name] = r.choice(ODD)
    return values


ENTITIES: dict[str, tuple[Path | str, Callable[[random.Random], dict]]] = {
    "Reading": (ROOT / "examples/sensor-api/design.yaml", _reading),
    "ProcessedBatch": (ROOT / "examples/sensor-api/design.yaml", _batch),
    "Device": (ROOT / "examples/sensor-api/design.yaml", _device),
    "Plant": (ROOT / "examples/woms/design.yaml", _plant),
    "Alert": (ROOT / "examples/woms/design.yaml", _alert),
    "Thing": (SINK, _thing),
    "Loose": (SINK, _loose),
}
_DESIGNS: dict[object, object] = {}


@pytest.fixture(autouse=True)
def _fresh_acceptors() -> Iterator[None]:
    """Under mutation testing only (mutmut sets ``MUTANT_UNDER_TEST``), load the designs again for
    each test: acceptors are compiled once and kept on a design's attributes, so with the designs of
    an earlier test a mutant of the compilation would meet no test at all."""
    if "MUTANT_UNDER_TEST" in os.environ:
        _DESIGNS.clear()
    yield


def _entity(name: str) -> Entity:
    source, _make = ENTITIES[name]
    if source not in _DESIGNS:
        _DESIGNS[source] = load(source) if isinstance(source, Path) else loads(source)
    return _DESIGNS[source].entities[name]  # type: ignore[attr-defined]


def _typed(value: object) -> object:
    """``value`` with every type spelled out: ``1``, ``True`` and ``Decimal(1)`` are equal, answers are not."""
    if isinstance(value, dict):
        return (type(value), tuple((k, _typed(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value), tuple(_typed(v) for v in value))
    if isinstance(value, set | frozenset):
        return (type(value), frozenset(_typed(v) for v in value))
    return (type(value), repr(value))


def _outcome(call: Callable[[], object]) -> tuple:
    try:
        return ("answer", _typed(call()))
    except ValidationError as error:
        return ("invalid", error.violations, str(error))
    except Exception as error:  # noqa: BLE001 - any error must be the same error
        return ("raised", type(error), str(error))


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the acceptors off: every item then goes the general way."""
    monkeypatch.setattr(items, "accepts", lambda entity, values: False)
    monkeypatch.setattr(items, "accepts_computed", lambda entity, item, now: False)


@pytest.mark.parametrize("name", list(ENTITIES))
def test_compose_answers_as_the_general_path(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    entity = _entity(name)
    make = ENTITIES[name][1]
    r = random.Random(f"fast-paths-{name}")
    cases = []
    for number in range(ITEMS_PER_ENTITY):
        values = _mutated(r, entity, make(r)) if number % 4 else make(r)
        now = r.choice([NOW, NOW, NOW, datetime(1990, 1, 1, tzinfo=UTC), NOW + timedelta(days=365 * 80)])
        cases.append((values, now, r.random() < 0.8))

    fast = []
    accepted = 0
    for values, now, created in cases:
        accepted += fast_accept.accepts(entity, values)
        fast.append(
            (
                _outcome(lambda v=values: items.violations_of(entity, v)),
                _outcome(lambda v=values, n=now, c=created: items.compose(entity, v, now=n, created=c)),
            )
        )
    _general(monkeypatch)
    general = [
        (
            _outcome(lambda v=values: items.general_violations(entity, v)),
            _outcome(lambda v=values, n=now, c=created: items.compose(entity, v, now=n, created=c)),
        )
        for values, now, created in cases
    ]
    for (values, now, created), one, other in zip(cases, fast, general, strict=True):
        assert one == other, f"{name} {values!r} now={now} created={created}"
    # Both ways were taken: the comparison is not one of two general paths, nor of valid items only.
    refused = sum(1 for violations, _compose in general if violations != ("answer", _typed([])))
    assert accepted >= ITEMS_PER_ENTITY // 5, accepted
    assert refused >= ITEMS_PER_ENTITY // 5, refused


def test_an_acceptor_never_accepts_what_the_general_path_refuses() -> None:
    """Each odd value in each attribute of the sink entity on its own, against check_attribute and
    unstorable: an acceptor may refuse a valid value, never accept an invalid one."""
    from tablewright.design.validators import check_attribute, unstorable

    entity = _entity("Thing")
    for name, attr in entity.attributes.items():
        for value in ODD:
            if fast_accept.acceptor(attr)(value, 1):
                assert check_attribute(attr, value, name) == [], (name, value)
                assert unstorable(value, name) == [], (name, value)


@pytest.mark.parametrize("name", ["Thing", "Loose"])
def test_every_odd_value_in_every_place(name: str) -> None:
    """Each odd value alone, as an undeclared attribute and in declared ones (six drawn for each
    value, all of them drawn over the values), of a valid item."""
    entity = _entity(name)
    r = random.Random(0)
    base = next(
        v for v in iter(lambda: ENTITIES[name][1](r), None) if not items.general_violations(entity, v)
    )
    declared = list(entity.attributes)
    for value in ODD:
        for place in ["undeclared", *r.sample(declared, min(6, len(declared)))]:
            values = {**base, place: value}
            answer = _outcome(lambda v=values: items.violations_of(entity, v))
            assert answer == _outcome(lambda v=values: items.general_violations(entity, v)), (place, value)


def test_a_changed_entity_gets_a_new_acceptor() -> None:
    """An entity changed after its first write (linking fills in the TTL attribute and key names
    after it is built) is accepted by what it is now, not by what it was."""
    design = loads(SINK)
    entity = design.entities["Loose"]
    values = {"id": "l1", "n": 3, "expires": 10**13}  # milliseconds in the TTL attribute
    assert not fast_accept.accepts(entity, values)
    entity.ttl_attribute = None
    assert fast_accept.accepts(entity, values)
    assert items.violations_of(entity, values) == items.general_violations(entity, values) == []


def test_the_nesting_limit_is_the_runtimes() -> None:
    assert fast_accept.DEEPEST_CONTAINER == items.DEEPEST_CONTAINER


@pytest.mark.parametrize("value", ["thg_text", 7])
def test_a_rule_added_later_is_asked_by_the_fast_path_too(
    value: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule the acceptors know nothing of (one added to RULES after them) is asked, not skipped."""
    from tablewright.design import validators

    refuses = (lambda attr: True, lambda attr, v: "refused by a rule added later")
    monkeypatch.setitem(validators.RULES, "added_later", refuses)
    design = loads(
        "version: 1\nname: later\ntables: {t: {partition_key: {name: pk, type: S}}}\n"
        "entities:\n  E:\n    table: t\n    attributes:\n      id: {type: string, required: true}\n"
        "      v: {type: " + ("string" if isinstance(value, str) else "number") + "}\n"
        "    keys: {table: {pk: 'E#{id}'}}\n"
    )
    found = items.violations_of(design.entities["E"], {"id": "a", "v": value})
    assert [(v.attribute, v.rule) for v in found] == [("id", "added_later"), ("v", "added_later")]


# ------------------------------------------------------------ found by mutation testing (docs/mutation.md)


def _nested(kind: str, levels: int) -> str:
    """A declared attribute of ``levels`` nested maps (``kind`` "map") or lists ("list") of numbers."""
    text = "{type: number}"
    for _ in range(levels):
        text = (
            f"{{type: map, attributes: {{a: {text}}}}}" if kind == "map" else f"{{type: list, items: {text}}}"
        )
    return text


SMALL = (
    "version: 1\nname: small\ntables: {t: {partition_key: {name: pk, type: S}}}\n"
    "entities:\n  E:\n    table: t\n    additional_attributes: true\n    attributes:\n"
    "      id: {type: string, required: true}\n      level: {type: number, enum: [1, 2]}\n"
    "      num: number\n      box: map\n      bag: list\n      note: {type: string, max_length: 5}\n"
    "      slug: {type: string, computed: {template: '{id}-x'}}\n"
    "      opt: {type: map, attributes: {z: {type: string, nullable: true}, n: {type: 'null'}}}\n"
    f"      maps: {_nested('map', 34)}\n      lists: {_nested('list', 34)}\n"
    "    keys: {table: {pk: 'E#{id}'}}\n"
)


def _small() -> Entity:
    return loads(SMALL).entities["E"]


def test_the_fast_path_answers_as_the_general_path_on_chosen_values() -> None:
    """Values the generated items do not reach: rules of undeclared map members (``values``) and of
    declared ones in maps without ``values``, number enums, mappings that are not dicts, and nesting
    around the limit in declared and undeclared maps and lists."""
    thing, small = _entity("Thing"), _small()
    cases: list[tuple[Entity, dict]] = [
        (thing, {"thingId": f"thg_{UUID4}", "owner": "ada", "spec": {"size": 1, "extra": 5}}),
        (thing, {"thingId": f"thg_{UUID4}", "owner": "ada", "parts": [{"name": 5}]}),
        (thing, {"thingId": f"thg_{UUID4}", "owner": "ada", "parts": [{"name": "n", "qty": "x"}]}),
        (small, {"id": "a", "level": 3}),
        (small, {"id": "a", "level": 2}),
        (small, {"id": "a", "extra": MappingProxyType({"k": 1.5})}),
        (small, {"id": "a", "extra": MappingProxyType({"k": 1})}),
    ]
    for levels in range(28, 35):
        cases += [
            (small, {"id": "a", "box": {"a": _deep(levels)}}),
            (small, {"id": "a", "bag": [_deep(levels)]}),
            (small, {"id": "a", "bag": [_deep(levels, kind=list)]}),
            (small, {"id": "a", "maps": _deep(levels, {})}),
            (small, {"id": "a", "lists": _deep(levels, [], kind=list)}),
            (
                thing,
                {"thingId": f"thg_{UUID4}", "owner": "ada", "parts": [{"name": "n", "o": _deep(levels)}]},
            ),
        ]
    refused = 0
    for entity, values in cases:
        general = _outcome(lambda e=entity, v=values: items.general_violations(e, v))
        assert _outcome(lambda e=entity, v=values: items.violations_of(e, v)) == general, values
        refused += general != ("answer", _typed([]))
    assert refused >= len(cases) // 3


def test_the_acceptors_take_valid_values_of_every_kind() -> None:
    """The fast path is taken, not only safe: valid values of each kind the acceptors handle are
    accepted, up to the nesting limit (a map or list at level 31) and the 38-digit integers."""
    small = _small()
    accepted = [
        {"id": "a"},
        {"id": "é", "note": "ü", "level": 1, "num": 10**40, "box": {"é": "ü", "n": -(10**37)}, "bag": [b"x"]},
        {"id": "a", "flag": True, "raw": b"\x00", "set": {"é", "a"}, "nums": frozenset({1, Decimal("2.5")})},
        {
            "id": "a",
            "map": {"é": {"b": [1, "x", None]}},
            "none": None,
            "big": 10**38 - 1,
            "small": -(10**38) + 1,
        },
        {"id": "a", "deep": _deep(31), "deeper": _deep(31, kind=list), "huge": 10**40},
        {"id": "a", "box": {"a": _deep(29)}, "bag": [_deep(29, kind=list)]},
        {"id": "a", "opt": {"z": None, "n": None}},
        {"id": "a", "maps": _deep(30, {}), "lists": _deep(30, [], kind=list)},
    ]
    for values in accepted:
        assert items.general_violations(small, values) == [], values
        assert fast_accept.accepts(small, values), values
    composed = items.compose(small, {"id": "a"}, now=NOW, created=True)
    assert fast_accept.accepts_computed(small, composed, NOW)
    thing = _entity("Thing")
    values = {"thingId": f"thg_{UUID4}", "owner": "ada", "seen_ms": 1_768_478_400_123, "count": 1000}
    composed = items.compose(thing, values, now=NOW, created=True)
    assert composed["expires"] and composed["updated"]
    assert fast_accept.accepts(thing, values)
    assert fast_accept.accepts_computed(thing, composed, NOW)


def test_an_acceptor_that_fails_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception in an acceptor (a broken rule) sends the item down the general path; an
    attribute of a type the validators do not know is never accepted."""
    from tablewright.design import Attribute, validators

    assert not fast_accept.acceptor(Attribute(name="x", type="nope"))("a", 1)
    small = _small()
    composed = items.compose(small, {"id": "a"}, now=NOW, created=True)

    def broken(attr: object, value: object) -> str | None:
        raise RuntimeError("a broken rule")

    monkeypatch.setitem(validators.RULES, "broken", (lambda attr: attr.type == "string", broken))
    small = _small()
    assert not fast_accept.accepts(small, {"id": "a"})
    assert not fast_accept.accepts_computed(small, composed, NOW)
