"""Item sizes by DynamoDB's rules, hand-computed, and cross-checked against the engine's own sizing."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tablewright.cost.sizes import item_size, number_size, read_units, value_size, write_units
from tablewright.engine.types import value_size as engine_value_size
from tablewright.runtime.wire import to_wire

# Each case carries its own id: a set's repr follows string hashing, which differs between
# pytest-xdist workers ("Different tests were collected").
SIZES = [
    ("abc", 3, "string-ascii"),  # string: UTF-8 bytes
    ("é", 2, "string-utf8"),
    (Decimal("123.45"), 4, "number-5-digits"),  # 5 significant digits -> ceil(5/2) + 1
    (Decimal("-1"), 3, "number-negative"),  # 1 digit -> 1 + 1, +1 negative
    (100, 2, "number-trailing-zeros"),  # trailing zeros trimmed: one significant digit
    (0, 1, "number-zero"),
    (1704067800123, 8, "epoch-ms"),  # epoch ms with non-zero low digits: 13 digits
    (1704067800000, 5, "epoch-ms-round"),  # ... and with zeros: 8 significant digits
    (True, 1, "boolean"),
    (None, 1, "null"),
    (b"\x00\x01", 2, "binary"),
    ({"a": Decimal(1)}, 7, "map"),  # 3 + (name 1 + value 2 + 1)
    ([Decimal(1), "ab"], 9, "list"),  # 3 + (2 + 1) + (2 + 1)
    ({"x", "yy"}, 3, "string-set"),  # sets: sum of elements
    ({Decimal(1), Decimal(22)}, 4, "number-set"),
]


@pytest.mark.parametrize(("value", "size"), [c[:2] for c in SIZES], ids=[c[2] for c in SIZES])
def test_value_sizes_by_hand(value: object, size: int) -> None:
    assert value_size(value) == size


@pytest.mark.parametrize(("value", "size"), [c[:2] for c in SIZES], ids=[c[2] for c in SIZES])
def test_value_sizes_agree_with_the_engine(value: object, size: int) -> None:
    assert engine_value_size(to_wire(value)) == value_size(value)


def test_item_size_counts_names() -> None:
    assert item_size({"pk": "abc", "n": Decimal("12")}) == (2 + 3) + (1 + 2)


def test_number_size_caps_at_21_bytes() -> None:
    assert number_size(Decimal("-" + "9" * 38)) == 21


@pytest.mark.parametrize(("size", "units"), [(0, 1), (1, 1), (1024, 1), (1025, 2), (400 * 1024, 400)])
def test_write_units_round_up_to_1kb(size: int, units: int) -> None:
    assert write_units(size) == units


@pytest.mark.parametrize(
    ("size", "consistency", "units"),
    [
        (1, "eventual", 0.5),
        (4096, "eventual", 0.5),
        (4097, "eventual", 1.0),
        (4097, "strong", 2.0),
        (4097, "transactional", 4.0),
    ],
)
def test_read_units_round_up_to_4kb(size: int, consistency: str, units: float) -> None:
    assert read_units(size, consistency) == units
