"""The texts of marker keys and request digests, value by value.

A unique marker's text *is* the claim: two spellings of one DynamoDB value must give one text (or
both could be claimed), two values must give two texts (or one would block the other), and a text
once stored must stay the same across releases (or a value claimed before an upgrade could be
claimed again after it). The same holds for the request digest an idempotency marker keeps.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tablewright.design import loads
from tablewright.runtime.errors import RuntimeFailure
from tablewright.runtime.markers import UniqueValue, marker_key, request_digest, unique_text

TABLES = loads(
    """
version: 1
name: markers
tables:
  numbered: {name: Numbered, partition_key: {name: id, type: N}}
  binary: {name: Binary, partition_key: {name: PK, type: B}, sort_key: {name: SK, type: N}}
  text: {name: Text, partition_key: {name: PK, type: S}, sort_key: {name: SK, type: B}}
entities:
  A: {table: numbered, attributes: {id: number}, keys: {table: {pk: "{id}"}}}
"""
).tables


def _text(value: object) -> str:
    return unique_text("E", UniqueValue(("v",), (value,)))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (
            {"b": Decimal("2.0"), "a": {"y": [1, Decimal("1.50")], "x": {2, 1}}},
            "{'a': {'x': {1, 2}, 'y': [1, 1.5]}, 'b': 2}",
        ),
        ({"q": [bytearray(b"k"), {"m": 1}, [Decimal("3.0"), "s"]]}, "{'q': [b'k', {'m': 1}, [3, 's']]}"),
        ({Decimal("1.0"), 2}, "{1, 2}"),
        ({"b", "a"}, "{'a', 'b'}"),
        ([bytearray(b"x"), "y", Decimal("7E1")], "[b'x', 'y', 70]"),
        (bytearray(b"\x00k"), "b'\\x00k'"),
    ],
)
def test_a_unique_value_has_the_text_markers_have_always_had(value, text):
    assert _text(value) == f"_tw#unique#E#v#{text}"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({"a": 1}, {"a": 2}),
        ({"a": {"x": 1}}, {"a": {"x": 2}}),
        ({1, 2}, {1, 3}),
        ([[1]], [[2]]),
        ({"a": [1]}, {"a": [2]}),
        ([bytearray(b"a")], [bytearray(b"b")]),
    ],
)
def test_two_values_claim_two_markers(one, other):
    assert _text(one) != _text(other)


def test_a_number_partition_key_cannot_hold_markers_and_says_why():
    with pytest.raises(RuntimeFailure) as caught:
        marker_key(TABLES["numbered"], "_tw#unique#x")
    assert str(caught.value) == (
        "table Numbered: partition key id is a number, so marker items (unique constraints, "
        "idempotency keys) cannot be stored in it"
    )


def test_a_marker_key_takes_the_type_of_each_key_attribute():
    assert marker_key(TABLES["binary"], "_tw#idem#E#k") == {"PK": b"_tw#idem#E#k", "SK": 0}
    assert marker_key(TABLES["text"], "_tw#idem#E#k") == {"PK": "_tw#idem#E#k", "SK": b"_tw#marker"}


@pytest.mark.parametrize(
    ("one", "same", "other"),
    [
        (b"\x00", bytearray(b"\x00"), b"\x01"),
        ({"s": {Decimal("1.0"), 2}}, {"s": {1, Decimal("2.00")}}, {"s": {1, 3}}),
        ([Decimal("1.0"), {"m": [Decimal("2.50")]}], [1, {"m": [Decimal("2.5")]}], [1, {"m": [3]}]),
        (
            datetime(2025, 1, 1, tzinfo=UTC),
            datetime(2025, 1, 1, tzinfo=UTC),
            datetime(2025, 1, 2, tzinfo=UTC),
        ),
    ],
)
def test_a_request_digest_is_one_per_request_and_tells_requests_apart(one, same, other):
    assert request_digest("put", "E", one) == request_digest("put", "E", same)
    assert request_digest("put", "E", one) != request_digest("put", "E", other)


def test_a_request_digest_stays_the_one_stored_before():
    # Idempotency markers live 30 days: a retry after an upgrade must find the digest it left.
    assert request_digest("put", "E", {"blob": b"\x00\xff"}) == "1f80a9cf43bb601cf9cd8569c1ba3e6c"
    assert request_digest("put", "E", {"n": Decimal("5000.0")}) == request_digest("put", "E", {"n": 5000})


def test_a_number_dynamodb_cannot_store_keeps_its_text_in_the_digest():
    # Spelled out without an exponent it would be a billion digits; it is refused before any write.
    assert request_digest("put", "E", Decimal("1E+999999999")) != request_digest(
        "put", "E", Decimal("1E+999999998")
    )
