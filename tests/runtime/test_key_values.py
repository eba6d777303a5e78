"""Natural values given back from key attributes (an item read through a KEYS_ONLY or INCLUDE index).

The rule (runtime/key_values.py): a value comes back only when the key spells it one way, as a value
of the attribute's type that passes its rules and renders the very key again. Each case pins one
half of that rule: what is recovered, and the near miss that must not be guessed.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tablewright.design import loads
from tablewright.runtime.key_values import recovered_values

DESIGN = """
version: 1
name: recover
tables:
  main:
    name: Main
    partition_key: {name: PK, type: S}
    sort_key: {name: SK, type: S}
    indexes:
      GSI1: {kind: global, partition_key: {name: GSI1PK, type: S}, sort_key: {name: GSI1SK, type: S}}
  devices:
    name: Devices
    partition_key: {name: PK, type: N}
  blobs:
    name: Blobs
    partition_key: {name: PK, type: B}
entities:
  Repo:
    table: main
    attributes:
      owner: string
      kind: {type: string, enum: [lib, app]}
      name: string
    keys:
      table: {pk: "O#{owner}", sk: "{kind}#{name}"}
      GSI1: {pk: "K#{kind}", sk: "N#{name}"}
  Counter:
    table: main
    attributes:
      n: number
      tag: string
      live: boolean
    keys:
      table: {pk: "N#{n:05}", sk: "T#{tag}"}
      GSI1: {pk: "L#{live}", sk: "P#{n:03}#{tag}"}
  Handle:
    table: main
    attributes:
      handle: string
    keys:
      table: {pk: "U#{handle|lower}", sk: "USER"}
  Device:
    table: devices
    attributes:
      deviceId: number
    keys:
      table: {pk: "{deviceId}"}
  Blob:
    table: blobs
    attributes:
      blobId: binary
    keys:
      table: {pk: "{blobId}"}
"""
ENTITIES = loads(DESIGN).entities


def _recovered(entity: str, item: dict) -> dict:
    return recovered_values(ENTITIES[entity], item)


def test_a_field_is_recovered_beside_one_the_item_holds():
    assert _recovered("Repo", {"PK": "O#ada", "SK": "lib#engine", "kind": "lib"}) == {
        "owner": "ada",
        "name": "engine",
    }


def test_keys_that_spell_a_field_two_ways_give_neither():
    item = {"PK": "O#ada", "SK": "lib#engine", "GSI1PK": "K#lib", "GSI1SK": "N#motor"}
    assert _recovered("Repo", item) == {"owner": "ada", "kind": "lib"}


def test_a_value_the_attributes_rules_refuse_is_not_recovered():
    assert _recovered("Repo", {"GSI1PK": "K#tool", "GSI1SK": "N#x"}) == {"name": "x"}


def test_a_filtered_field_is_never_recovered():
    # "U#ada" may have been written for "Ada" or "ADA": the key does not say which.
    assert _recovered("Handle", {"PK": "U#ada", "SK": "USER"}) == {}


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ("N#00042", {"n": 42}),
        ("N#42", {}),  # not how the template writes 42: another writer's spelling, not believed
        ("N#-0042", {}),  # the template refuses to pad a negative number: no value writes this key
        ("N#123456", {}),  # nor one wider than its padding
    ],
)
def test_a_padded_number_comes_back_only_from_the_spelling_the_template_writes(stored, expected):
    assert _recovered("Counter", {"PK": stored, "SK": "T#t"}) == {**expected, "tag": "t"}


def test_padded_digits_end_where_the_digits_end_so_the_next_field_may_hold_the_separator():
    item = {"GSI1PK": "L#true", "GSI1SK": "P#012#a#b"}
    assert _recovered("Counter", item) == {"live": True, "n": 12, "tag": "a#b"}
    assert type(_recovered("Counter", item)["n"]) is int


def test_a_value_holding_a_newline_is_recovered():
    assert _recovered("Repo", {"PK": "O#a\nb", "SK": "app#x"})["owner"] == "a\nb"


def test_bare_number_and_binary_keys_come_back_as_their_values():
    (value,) = _recovered("Device", {"PK": Decimal("42")}).values()
    assert (value, type(value)) == (42, int)
    assert _recovered("Device", {"PK": Decimal("4.50")}) == {"deviceId": Decimal("4.5")}
    assert _recovered("Blob", {"PK": b"\x00\xff"}) == {"blobId": b"\x00\xff"}
