"""Keys that two items could share: a value containing the separator that follows its field is
refused on write, and an item read back is given the entity whose template its own values compose,
not the first whose key shape it fits."""

from __future__ import annotations

import pytest

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import Runtime, ValidationError

DESIGN = """
version: 1
tables:
  main: {partition_key: PK, sort_key: SK}
entities:
  Pair:
    table: main
    attributes:
      a: {type: string, required: true}
      b: {type: string, required: true}
      note: {type: string}
    keys:
      table: {pk: "P#{a}#{b}", sk: "PAIR"}
  Doubled:
    table: main
    attributes:
      a: {type: string, required: true}
      b: {type: string, required: true}
    keys:
      table: {pk: "D#{a}##{b}", sk: "D"}
  Dated:
    table: main
    attributes:
      at: {type: string, required: true, format: rfc3339}
      x: {type: string, required: true}
    keys:
      table: {pk: "T#{at|day}-{x}", sk: "T"}
  Order:
    table: main
    attributes:
      cust: {type: string, required: true}
      oid: {type: string, required: true}
      total: {type: number}
    keys:
      table: {pk: "C#{cust}", sk: "ORDER#{oid}"}
  Line:
    table: main
    attributes:
      cust: {type: string, required: true}
      oid: {type: string, required: true}
      n: {type: number, required: true}
      sku: {type: string}
    keys:
      table: {pk: "C#{cust}", sk: "ORDER#{oid}#LINE#{n:03}"}
patterns:
  order_with_lines:
    params: {cust: string}
    returns: [Order, Line]
    means: {where: "cust = :cust"}
    served: {op: query}
"""


@pytest.fixture
def rt() -> Runtime:
    runtime = Runtime(loads(DESIGN), connect(), secret=b"s")
    runtime.create_tables()
    return runtime


def test_a_value_holding_the_separator_after_its_field_is_refused_naming_it(rt) -> None:
    rt.put("Pair", {"a": "x", "b": "y#z", "note": "first"})  # the last field may hold anything
    with pytest.raises(ValidationError) as refused:
        rt.put("Pair", {"a": "x#y", "b": "z", "note": "second"})
    assert (
        "Pair.a" in str(refused.value) and "'#'" in str(refused.value) and "P#{a}#{b}" in str(refused.value)
    )
    assert rt.get("Pair", a="x", b="y#z")["note"] == "first"
    with pytest.raises(ValidationError):
        rt.replace("Pair", {"a": "x#y", "b": "z", "note": "second"})
    assert rt.get("Pair", a="x", b="y#z")["note"] == "first", "the other item was overwritten"


def test_a_separator_of_two_characters_is_refused_where_it_would_begin_inside_the_value(rt) -> None:
    rt.put("Doubled", {"a": "x", "b": "#z"})  # D#x###z
    with pytest.raises(ValidationError, match="Doubled.a"):
        rt.put("Doubled", {"a": "x#", "b": "z"})  # would be D#x###z too
    rt.put("Doubled", {"a": "x#y", "b": "z"})  # D#x#y##z: nobody else's


def test_a_filtered_field_has_its_own_shape_and_is_not_asked(rt) -> None:
    rt.put("Dated", {"at": "2026-01-15T10:00:00Z", "x": "a"})  # T#2026-01-15-a
    assert rt.get("Dated", at="2026-01-15T10:00:00Z", x="a") is not None


def test_an_item_stored_before_the_refusal_is_still_found(rt) -> None:
    rt.client.put_item(
        TableName="main",
        Item={"PK": {"S": "P#x#y#z"}, "SK": {"S": "PAIR"}, "a": {"S": "x#y"}, "b": {"S": "z"}},
    )
    assert rt.get("Pair", a="x#y", b="z")["a"] == "x#y"


def test_items_of_two_entities_come_back_as_the_entity_their_values_compose(rt) -> None:
    rt.put("Order", {"cust": "c", "oid": "o1", "total": 5})
    rt.put("Line", {"cust": "c", "oid": "o1", "n": 1, "sku": "A"})
    rt.put("Line", {"cust": "c", "oid": "o1", "n": 2, "sku": "B"})
    found = sorted((record.entity, record.get("n", 0)) for record in rt.run("order_with_lines", cust="c"))
    assert found == [("Line", 1), ("Line", 2), ("Order", 0)]


def test_an_item_without_its_values_is_still_told_by_the_shape_of_its_key(rt) -> None:
    rt.client.put_item(TableName="main", Item={"PK": {"S": "C#c"}, "SK": {"S": "ORDER#o9"}})
    assert [record.entity for record in rt.run("order_with_lines", cust="c")] == ["Order"]


SIZED = """
version: 1
tables:
  main:
    partition_key: PK
    sort_key: SK
    indexes:
      by_email: {partition_key: email}
entities:
  Account:
    table: main
    attributes:
      id: {type: string, required: true}
      email: {type: string}
      label: {type: string}
    keys:
      table: {pk: "A#{id}", sk: "{label}"}
      by_email: {pk: "{email}"}
"""


@pytest.mark.parametrize(
    ("values", "attribute", "said"),
    [
        (
            {"id": "x" * 2047, "label": "l"},
            "PK",
            "2,049 bytes: the table's partition key holds at most 2,048",
        ),
        ({"id": "a", "label": "é" * 513}, "SK", "1,026 bytes: the table's sort key holds at most 1,024"),
        ({"id": "a", "label": ""}, "SK", "SK is empty: the table's sort key must hold at least one byte"),
        ({"id": "a", "label": "l", "email": ""}, "email", "email is empty: index by_email's partition key"),
    ],
)
def test_a_key_value_dynamodb_would_refuse_is_refused_naming_the_attribute(values, attribute, said) -> None:
    rt = Runtime(loads(SIZED), connect(), secret=b"s")
    rt.create_tables()
    with pytest.raises(ValidationError) as refused:
        rt.put("Account", values)
    assert f"Account.{attribute}" in str(refused.value) and said in str(refused.value)
    assert rt.client.scan(TableName="main")["Count"] == 0


def test_a_key_is_measured_in_utf8_bytes_not_characters() -> None:
    rt = Runtime(loads(SIZED), connect(), secret=b"s")
    rt.create_tables()
    rt.put("Account", {"id": "é" * 1023, "label": "l"})  # "A#" + 2,046 bytes: the most a partition key holds
    with pytest.raises(ValidationError, match="2,050 bytes"):
        rt.put("Account", {"id": "é" * 1024, "label": "l"})


NESTED = """
version: 1
tables:
  main: {partition_key: PK}
entities:
  Doc:
    table: main
    attributes:
      id: {type: string, required: true}
      body: {type: map}
    keys:
      table: {pk: "D#{id}"}
"""


def _nested(levels: int) -> dict:
    """A map holding maps and lists down to ``levels`` levels, counting the attribute as level 1."""
    value: object = {"leaf": 1}
    for level in range(levels - 1):
        value = [value] if level == 3 else {"m": value}  # one list among the maps
    assert isinstance(value, dict)
    return value


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@pytest.mark.parametrize("levels", [32, 300, 5000])
def test_a_value_nested_past_dynamodbs_levels_is_refused_without_recursing(levels) -> None:
    rt = Runtime(loads(NESTED), connect(), secret=b"s")
    rt.create_tables()
    with pytest.raises(ValidationError, match=r"Doc\.body.*32 levels"):
        rt.put("Doc", {"id": "a", "body": _nested(levels)})
    assert rt.get("Doc", id="a") is None


def test_containers_down_to_level_31_are_stored_as_dynamodb_stores_them() -> None:
    rt = Runtime(loads(NESTED), connect(), secret=b"s")
    rt.create_tables()
    body = _nested(31)
    assert _depth(body) == 31
    rt.put("Doc", {"id": "a", "body": body})
    assert rt.get("Doc", id="a")["body"] == body
