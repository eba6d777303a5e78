"""The write path's smaller fast paths against their general paths, over generated values.

Key templates (render, run-on fields, zero padding), epoch arithmetic, items to wire form, the copy
``direct.py`` makes of each request for the engine, the identities and the size ``transact.py``
checks, key sizes and unique markers: each fast path must give exactly the general path's answer
(the same value to the last type, or the same error with the same message). Seeded, so a failure
names a case that fails again.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math
import random
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from decimal import Decimal
from enum import IntEnum
from fractions import Fraction
from pathlib import Path

import pytest

from tablewright.design import Attribute, KeyTemplate, loads
from tablewright.design.templates import Field, Literal
from tablewright.design.templates.filters import _apply_spec_general, apply_spec, to_text
from tablewright.design.timeutil import EPOCH_UNITS, epoch_seconds_of
from tablewright.design.validators import FORMATS
from tablewright.export.wire import to_client
from tablewright.runtime import Runtime, direct, items, transact
from tablewright.runtime.wire import item_to_wire

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_fast_paths_compose import _typed  # noqa: E402  (answers compared to the last type)

CASES = 400


class Text(str):
    pass


class Number(IntEnum):
    ONE = 1


class Binary:
    """boto3's Binary: the bytes on ``.value``."""

    def __init__(self, value: bytes) -> None:
        self.value = value


def _outcome(call: Callable[[], object]) -> tuple:
    try:
        return ("answer", _typed(call()))
    except Exception as error:  # noqa: BLE001 - any error must be the same error
        return ("raised", type(error), str(error))


# ------------------------------------------------------------------------------------ key templates
SOURCES = [
    "{a}",
    "{n}",
    "{n:013}",
    "{n:05d}",
    "{n:d}",
    "{n:>8}",
    "{n:x}",
    "A#{a}#{b}",
    "{a}#{b}",
    "{n:013}#{a}",
    "{a|upper}-{b}",
    "{at}#{a}",
    "{at|day}#{n:04}",
    "{m.k}#{a}",
    "{flag|bool:y,n}{a}",
    "CONST",
    "{a}{b}",
]
VALUES = [
    None,
    "",
    "x",
    "x#y",
    "é",
    "0042",
    0,
    7,
    -7,
    10**13,
    10**20,
    True,
    False,
    Decimal("7"),
    Decimal("7.0"),
    Decimal("7.5"),
    Decimal("-0"),
    Decimal("NaN"),
    1.5,
    b"x",
    Text("t"),
    Number.ONE,
    datetime(2026, 1, 15, 12, 0, 0, 123000, tzinfo=UTC),
    "2026-01-15T12:00:00.123Z",
    "2026-01-15T12:00:00.1234Z",
    {"k": "v"},
]


def _render_general(template: KeyTemplate, values: Mapping[str, object]) -> object:
    """``KeyTemplate.render`` as written before its fast paths."""
    texts: list[str] = []
    for part in template._parts:
        if isinstance(part, Literal):
            texts.append(part.text)
            continue
        value = template._field_value(part, values)
        if value is None:
            return None
        if len(template._parts) == 1 and isinstance(template._parts[0], Field):
            return template._bare(value)
        texts.append(to_text(value))
    return "".join(texts)


def _run_on_general(template: KeyTemplate, values: Mapping[str, object]) -> object:
    """``KeyTemplate.run_on_field`` as written before the fields it asks were worked out once."""
    parts = template._parts
    for position, part in enumerate(parts[:-1]):
        follower = parts[position + 1]
        if not isinstance(part, Field) or not isinstance(follower, Literal) or part.filters or part.spec:
            continue
        value = template._field_value(part, values)
        if isinstance(value, str) and (value + follower.text).find(follower.text) != len(value):
            return part.name, follower.text
    return None


@pytest.mark.parametrize("source", SOURCES)
def test_key_templates_render_as_the_general_path(source: str) -> None:
    template = KeyTemplate(source, {"at": "rfc3339"}, {"at": ("ms", False)})
    parts = template._parts
    assert template.fields == tuple(dict.fromkeys(p.name for p in parts if isinstance(p, Field)))
    assert template.field_parts == tuple(p for p in parts if isinstance(p, Field))
    assert template.is_bare_field == (len(parts) == 1 and isinstance(parts[0], Field))
    r = random.Random(source)
    for _ in range(CASES // 10):
        values = {name: r.choice(VALUES) for name in ("a", "b", "n", "at", "flag")}
        values["m"] = {"k": r.choice(VALUES)}
        if r.random() < 0.2:
            values.pop(r.choice(list(values)))
        assert _outcome(lambda v=values: template.render(v)) == _outcome(
            lambda v=values: _render_general(template, v)
        ), values
        assert _outcome(lambda v=values: template.run_on_field(v)) == _outcome(
            lambda v=values: _run_on_general(template, v)
        ), values


SPECS = ["013", "05d", "d", "", "0", "00", "1", "5", ">5", "x", "02x", ",", "+05", "08.2f", ".1"]


def test_zero_padding_as_the_general_path() -> None:
    numbers = [0, 1, 7, 99999, 100000, 10**12, 10**13, 10**14, 2**70, -1, -(10**13), True, Decimal(5), "42"]
    for value in numbers:
        for spec in SPECS:
            assert _outcome(lambda v=value, s=spec: apply_spec(v, s)) == _outcome(
                lambda v=value, s=spec: _apply_spec_general(v, s)
            ), (value, spec)


def test_epoch_seconds_of_an_int_as_by_fractions() -> None:
    r = random.Random("epoch")
    numbers = [0, 1, -1, 999, 1000, 1001, -999, -1000, -1001, 10**40 + 7, -(10**40) - 7]
    numbers += [r.randrange(-(10**16), 10**16) for _ in range(CASES)]
    for value in numbers:
        for unit in EPOCH_UNITS:
            assert epoch_seconds_of(value, unit) == math.floor(Fraction(str(value)) / EPOCH_UNITS[unit])


def test_the_epoch_formats_check_an_int_as_a_decimal_of_it() -> None:
    """The epoch format's int fast path (no Decimal made) against the whole-number test it skips."""
    numbers = [0, 946_684_800, 946_684_799, 4_102_444_800, 4_102_444_801, 946_684_800_000, 10**20, -5]
    for name in ("epoch_ms", "epoch_s"):
        for bounded in (Attribute("t", "number"), Attribute("t", "number", min=0)):
            for value in numbers:
                # A whole Decimal goes the general way and is said as its int is.
                assert FORMATS[name](value, bounded) == FORMATS[name](Decimal(value), bounded)


# ------------------------------------------------------------------------------------ wire forms
SCALARS = [
    "",
    "x",
    "é",
    "\x7f",
    "\n",
    Text("t"),
    0,
    -3,
    10**40,
    Number.ONE,
    True,
    False,
    None,
    1.5,
    Decimal("1.50"),
    Decimal("-0"),
    Decimal("1E+3"),
    b"",
    b"\x00\xff",
    bytearray(b"ab"),
]


def _value(r: random.Random, depth: int = 0) -> object:
    """An item value: scalars, sets, maps and lists nested a few levels."""
    pick = r.random()
    if depth < 3 and pick < 0.15:
        return {r.choice(["a", "B", "BS", "S", "é"]): _value(r, depth + 1) for _ in range(r.randrange(3))}
    if depth < 3 and pick < 0.25:
        return [_value(r, depth + 1) for _ in range(r.randrange(3))]
    if pick < 0.32:
        return r.choice([{"a", "b"}, {1, Decimal("2.5")}, {b"x", b"y"}, frozenset({"z"})])
    return r.choice(SCALARS)


def test_items_go_to_wire_form_as_to_client_writes_them() -> None:
    r = random.Random("item_to_wire")
    for _ in range(CASES):
        item = {f"a{i}": _value(r) for i in range(r.randrange(1, 6))}
        assert _outcome(lambda i=item: item_to_wire(i)) == _outcome(
            lambda i=item: {name: to_client(value) for name, value in i.items()}
        ), item


def _convert_general(node: object, one: Callable[[object], object]) -> object:
    """``direct._convert`` as written before its fast path (one call per node)."""
    if isinstance(node, dict):
        kind = None
        if len(node) == 1:
            ((name, inner),) = node.items()
            if name == "B" and not isinstance(inner, dict):
                kind = "B"
            if name == "BS" and isinstance(inner, list):
                kind = "BS"
        if kind == "B":
            return {"B": one(node["B"])}
        if kind == "BS":
            return {"BS": [one(v) for v in node["BS"]]}
        return {k: _convert_general(v, one) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [_convert_general(v, one) for v in node]
    return node


class Box(dict):
    pass


def _request(r: random.Random, depth: int = 0) -> object:
    """A request-shaped tree: wire values (binary ones too, and attributes named B or BS), lists,
    tuples, a dict subclass, and the odd scalar botocore would take or refuse."""
    pick = r.random()
    if depth < 4 and pick < 0.3:
        kind = Box if r.random() < 0.05 else dict
        return kind(
            {
                r.choice(["Item", "B", "BS", "S", "M", "k"]): _request(r, depth + 1)
                for _ in range(r.randrange(4))
            }
        )
    if depth < 4 and pick < 0.4:
        return (list if r.random() < 0.8 else tuple)(_request(r, depth + 1) for _ in range(r.randrange(3)))
    if pick < 0.55:
        return {"B": r.choice([b"x", bytearray(b"y"), Binary(b"z"), "text"])}
    if pick < 0.6:
        return {"BS": [b"x", "y", Binary(b"z")]}
    return r.choice(["x", Text("t"), 1, True, None, 1.5, Number.ONE, {"S": "s"}, {"N": "1"}, {"NULL": True}])


def _containers(node: object) -> list[int]:
    if isinstance(node, dict):
        return [id(node), *(i for v in node.values() for i in _containers(v))]
    if isinstance(node, list | tuple):
        return [id(node), *(i for v in node for i in _containers(v))]
    return []


def test_requests_are_copied_for_the_engine_as_the_general_path_copies_them() -> None:
    r = random.Random("to_engine")
    copied = 0
    for _ in range(CASES):
        request = {"TableName": "t", "TransactItems": [_request(r) for _ in range(3)]}
        answer = _outcome(lambda q=request: direct.to_engine(q))
        assert answer == _outcome(lambda q=request: _convert_general(q, direct._encode_one)), request
        if answer[0] == "raised":  # a BS of something no binary value is: both refuse it alike
            continue
        copied += 1
        copy = direct.to_engine(request)
        # A copy: no dict or list is shared with the caller's request.
        assert not set(_containers(copy)) & set(_containers(request))
        wire = json.loads(json.dumps(copy))  # a response: binary as base64 text
        assert _outcome(lambda w=wire: direct.from_engine(w)) == _outcome(
            lambda w=wire: _convert_general(w, direct._decode_one)
        )
    assert copied >= CASES // 2, copied


# ------------------------------------------------------------------------------------ transactions
TEXTS = ["a", "A#1", "é", "日本", "\x7f", "\x00", "\n\t", '"\\', "\ud800", "x" * 50, "😀", ""]


def test_key_identities_are_the_json_of_the_general_path() -> None:
    r = random.Random("identity")
    for _ in range(CASES):
        key = {}
        for name in r.sample(["PK", "SK", "é", "pk"], r.randrange(1, 3)):
            kind = r.choice(["S", "N", "B", "S", "S"])
            payload = {
                "S": r.choice(TEXTS),
                "N": r.choice(["1", "1.5", "-0"]),
                "B": r.choice([b"\x00", b"x"]),
            }[kind]
            key[name] = r.choice(
                [
                    {kind: payload},
                    {kind: payload},
                    {kind: Text("t")},
                    {kind: 1e-07},
                    {kind: float("nan")},
                    {"M": {"a": {"S": "x"}}},
                ]
            )
        if r.random() < 0.05:
            key[1] = {"S": "x"}  # a name that is no str
        assert _outcome(lambda k=key: transact._key_json(k)) == _outcome(lambda k=key: transact._json(k)), key


def _size_general(request: object) -> int | None:
    size = len(transact._json(request).encode())
    return size if size > transact.MAX_TRANSACTION_BYTES else None


def test_request_sizes_over_the_limit_are_the_general_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    # A limit of 40 KB rather than 4 MB: the same arithmetic, a hundredth of the text to write.
    limit = 40_000
    monkeypatch.setattr(transact, "MAX_TRANSACTION_BYTES", limit)
    requests: list[object] = [
        {"TransactItems": [{"Put": {"Item": {"a": {"S": "x" * n}}}}]}
        for n in (10, limit // 7, limit - 40, limit)
    ]
    # Text orjson writes in fewer bytes than json: one just under the limit as json writes it, one over.
    requests += [
        {"TransactItems": [{"Put": {"Item": {"a": {"S": "é" * n}}}}]} for n in (limit // 6 - 10, limit // 6)
    ]
    requests += [{"TransactItems": [{"Put": {"Item": {"a": {"S": "\x7f" * (limit // 6)}}}}]}]
    requests += [
        {"v": [1e-07, float("nan"), float("-inf"), 10**30, Text("t"), b"\x00"]},
        {"v": Decimal(1)},
        {1: "x"},
    ]
    requests += [{"v": "\ud800"}, {"v": datetime(2026, 1, 1, tzinfo=UTC)}]
    for request in requests:
        assert _outcome(lambda q=request: transact._size_over_limit(q)) == _outcome(
            lambda q=request: _size_general(q)
        ), str(request)[:80]


# ------------------------------------------------------------------------------------ keys, markers
def _key_sizes_general(entity, item):  # noqa: ANN001, ANN202 - items.key_size_violations as it was
    found = []
    for index, entry in entity.keys.items():
        for role, name in (("partition", entry.partition_name), ("sort", entry.sort_name)):
            value = item.get(name) if name else None
            if not isinstance(value, str | bytes):
                continue
            size = len(value.encode("utf-8")) if isinstance(value, str) else len(value)
            where = f"the table's {role} key" if index == "table" else f"index {index}'s {role} key"
            if size == 0:
                message = f"{name} is empty: {where} must hold at least one byte"
            elif size > items.KEY_BYTES[role]:
                message = f"{name} is {size:,} bytes: {where} holds at most {items.KEY_BYTES[role]:,}"
            else:
                continue
            found.append(items.Violation(entity.name, name, "key", message))
    return found


DESIGN = """
version: 1
name: keys
tables:
  t:
    partition_key: {name: PK, type: S}
    sort_key: {name: SK, type: S}
    indexes:
      GSI1: {kind: global, partition_key: {name: G1, type: S}, sort_key: {name: G1S, type: B}}
entities:
  E:
    table: t
    attributes:
      id: {type: string, required: true}
      email: string
      blob: binary
    keys:
      table: {pk: "E#{id}", sk: "E"}
      GSI1: {pk: "{id}", sk: "{blob}"}
    unique: [[email]]
"""


def test_key_sizes_as_the_general_path() -> None:
    entity = loads(DESIGN).entities["E"]
    r = random.Random("key sizes")
    texts = [
        "",
        "a",
        "é",
        "😀",
        "\ud800",
        "a" * 1024,
        "a" * 1025,
        "é" * 512,
        "é" * 513,
        "a" * 2049,
        "é" * 1025,
    ]
    for _ in range(CASES // 2):
        item = {name: r.choice([*texts, b"", b"x" * 1025, 5, None]) for name in ("PK", "SK", "G1", "G1S")}
        assert _outcome(lambda i=item: items.key_size_violations(entity, i)) == _outcome(
            lambda i=item: _key_sizes_general(entity, i)
        ), item


class _NoConstraints(tuple):
    """No unique constraint, yet true: ``unique_actions`` then goes its general way over none."""

    def __bool__(self) -> bool:
        return True


def test_an_entity_without_unique_constraints_moves_no_marker() -> None:
    rt = Runtime(loads(DESIGN), client=object())  # markers are planned, nothing is sent
    entity = dataclasses.replace(rt.entity("E"), unique=())
    general = dataclasses.replace(entity, unique=_NoConstraints())
    old, new = {"PK": "E#1", "SK": "E", "email": "a@b"}, {"PK": "E#1", "SK": "E", "email": "c@d"}
    for before, after in ((None, new), (old, new), (old, None), (old, old)):
        assert rt.writer.unique_actions(entity, before, after) == []
        assert rt.writer.unique_actions(general, before, after) == []
    # The test means something: with its constraint, the same change moves two markers.
    assert len(rt.writer.unique_actions(rt.entity("E"), old, new)) == 2


def test_binary_values_in_a_request_are_encoded_as_botocore_does() -> None:
    request = {"Item": {"b": {"B": b"\x00"}, "t": {"B": "é"}, "s": {"BS": [Binary(b"x")]}, "B": {"S": "x"}}}
    assert direct.to_engine(request)["Item"] == {
        "b": {"B": base64.b64encode(b"\x00").decode()},
        "t": {"B": base64.b64encode("é".encode()).decode()},
        "s": {"BS": [base64.b64encode(b"x").decode()]},
        "B": {"S": "x"},
    }
