"""Verification verdicts: what ``means`` selects, how a served answer is compared with it, and how the
difference is said (runtime/verify.py), on records built by hand and on a real table."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import Runtime
from tablewright.runtime.verify import Verdict, compare, evaluate_means, stored_records, verify_pattern
from tablewright.runtime.wire import Record

DESIGN = loads(
    """
version: 1
name: verdicts
tables:
  main: {name: Main, partition_key: {name: PK, type: S}, sort_key: {name: SK, type: S}}
entities:
  Item:
    table: main
    attributes:
      id: {type: string, required: true}
      rank: number
      at: {type: string, format: rfc3339}
      pad: string
    keys:
      table: {pk: "ITEM", sk: "ID#{id}"}
    unique: [[at]]
  Other:
    table: main
    attributes:
      id: {type: string, required: true}
    keys:
      table: {pk: "OTHER", sk: "ID#{id}"}
patterns:
  top3:
    params: {}
    returns: Item
    means: {order: rank asc, limit: 3}
    served: {op: query}
  recent:
    params: {since: {type: string, format: rfc3339}}
    returns: Item
    means: {where: "at >= :since", order: at desc}
    served: {op: query}
  every:
    params: {}
    returns: Item
    means: {}
    served: {op: query}
  any2:
    params: {}
    returns: Item
    means: {limit: 2}
    served: {op: query}
"""
)


def _item(id: str, **values: object) -> Record:
    return Record("Item", {"id": id, **values}, {"PK": "ITEM", "SK": f"ID#{id}"})


def _means(name: str, records: list[Record], **params: object) -> list[str]:
    return [r["id"] for r in evaluate_means(DESIGN.patterns[name], params, records)]


def test_means_orders_missing_values_last_and_numbers_by_value():
    records = [
        _item("a"),
        _item("b", rank=Decimal("10")),
        _item("c", rank=2),
        _item("d", rank=Decimal("2.5")),
    ]
    assert _means("top3", records) == ["c", "d", "b"]
    assert _means("top3", [_item("a"), _item("b", rank=1)]) == ["b", "a"]


def test_means_keeps_the_order_records_came_in_among_equal_values():
    records = [_item("x", rank=1), _item("a"), _item("b"), _item("c", rank=2), _item("d", rank=Decimal("2"))]
    assert _means("top3", records) == ["x", "c", "d"]
    assert _means("top3", records[:3]) == ["x", "a", "b"]  # missing last, and in the order they came


def test_means_orders_values_of_different_types_by_type_then_value():
    records = [_item("s", rank="x"), _item("n", rank=3), _item("m", rank=1)]
    assert _means("top3", records) == ["m", "n", "s"]  # int before str, a stable total order
    flags = [_item("t", rank=True), _item("n", rank=0)]
    assert _means("top3", flags) == ["t", "n"]  # a boolean is no number: "bool" sorts before "int"


def test_means_orders_a_datetime_and_an_rfc3339_text_as_instants():
    late = datetime(2025, 1, 1, 0, 0, 0, 900_000, tzinfo=UTC)
    records = [_item("text", at="2025-01-01T00:00:00.600Z"), _item("moment", at=late), _item("none")]
    assert _means("recent", records, since=datetime(2025, 1, 1, tzinfo=UTC)) == ["moment", "text"]
    assert _means("recent", records, since=datetime(2025, 1, 1, 0, 0, 0, 700_000, tzinfo=UTC)) == ["moment"]


def _verdict(name: str, expected: list[Record], served: list[Record]) -> Verdict:
    return compare(DESIGN.patterns[name], expected, served, Verdict(name, {}))


def test_records_tied_at_the_limit_stand_in_for_each_other():
    one, two, three, other_three = (
        _item("1", rank=1),
        _item("2", rank=2),
        _item("3", rank=3),
        _item("3b", rank=3),
    )
    assert _verdict("top3", [one, two, three], [one, two, other_three]).ok
    verdict = _verdict("top3", [one, two, three], [one, two, _item("4", rank=4)])
    assert not verdict.ok
    assert verdict.summary() == "1 missing (e.g. Item ITEM/ID#3); 1 extra (e.g. Item ITEM/ID#4)"
    assert verdict.missing == [{"PK": "ITEM", "SK": "ID#3", "entity": "Item"}]


def test_order_and_count_differences_are_said():
    one, two = _item("1", rank=1), _item("2", rank=2)
    verdict = _verdict("top3", [one, two], [two, one])
    assert (verdict.ok, verdict.out_of_order, verdict.summary()) == (False, True, "out of order")
    short = _verdict("every", [one, two], [one])
    assert short.summary() == "1 missing (e.g. Item ITEM/ID#2); expected 2 items, served 1"
    assert (short.expected, short.returned) == (2, 1)
    assert _verdict("every", [one, two], [two, one]).ok  # no order: any order is right
    assert Verdict("p", {}).summary() == "ok"
    assert Verdict("p", {}, ok=False, error="PatternError: x").summary() == "error: PatternError: x"


def test_ties_stand_in_for_each_other_only_at_a_limit_and_a_duplicate_is_no_stand_in():
    a, b = _item("a", at="2025-01-01T00:00:00Z"), _item("b", at="2025-01-01T00:00:00Z")
    assert not _verdict("recent", [a], [b]).ok  # no limit: b is no stand-in for a
    one, two = _item("1"), _item("2")
    assert _verdict("any2", [one, two], [two, one]).ok  # a limit without an order: any two
    verdict = _verdict("every", [one, two], [one, one])  # a page served the same item twice
    assert not verdict.ok and verdict.summary() == "1 missing (e.g. Item ITEM/ID#2)"


def test_a_served_record_lacking_the_order_attribute_the_stored_item_has_is_said():
    stored = [_item("1", rank=1), _item("2", rank=2)]
    served = [_item("1"), _item("2")]  # read through an index that does not project rank
    verdict = compare(DESIGN.patterns["top3"], stored, served, Verdict("top3", {}), stored=stored)
    assert verdict.unprojected_order == "rank" and verdict.summary() == (
        "orders by rank, which the served read does not project"
    )
    assert _verdict("top3", [_item("1")], [_item("1")]).ok  # stored without it: nothing to say
    # A served record lacking rank that is not stored at all is an extra, not an unprojected order.
    stray = compare(
        DESIGN.patterns["top3"], stored, [stored[0], _item("9")], Verdict("top3", {}), stored=stored
    )
    assert stray.extra == [{"PK": "ITEM", "SK": "ID#9", "entity": "Item"}] and stray.unprojected_order is None


def test_stored_records_reads_every_page_of_the_wanted_entities_only():
    rt = Runtime(DESIGN, connect(), secret=b"v")
    rt.create_tables()
    pad = "x" * 1000  # 1,200 items of 1 KB: more than one Scan page of 1 MB
    rt.load_many(
        "Item",
        [
            {"id": f"{n:04d}", "pad": pad, "at": f"2025-01-01T00:{n // 60:02d}:{n % 60:02d}Z"}
            for n in range(1200)
        ],
    )
    rt.put("Other", {"id": "o"})
    records = stored_records(rt, ["Item", "Item"])
    assert sorted(r["id"] for r in records) == [f"{n:04d}" for n in range(1200)]  # no marker, no Other
    assert {r.entity for r in stored_records(rt, ["Other"])} == {"Other"}


def test_verify_pattern_on_a_real_table():
    rt = Runtime(DESIGN, connect(), secret=b"v")
    rt.create_tables()
    written = [rt.put("Item", {"id": f"{n}", "rank": 5 - n}).record for n in range(4)]
    verdict = verify_pattern(rt, "top3", {}, written)
    # Served in key order (0, 1, 2), meant by rank (3, 2, 1): the check says so.
    assert not verdict.ok and verdict.summary().startswith("1 missing (e.g. Item ITEM/ID#3)")
    assert verdict.stats.requests == 1 and len(verdict.served_records) == 3


def test_a_pattern_that_cannot_run_is_a_verdict_not_a_crash():
    rt = Runtime(DESIGN, connect(), secret=b"v")
    rt.create_tables()
    verdict = verify_pattern(rt, "recent", {}, [])
    assert (verdict.ok, verdict.summary()) == (
        False,
        "error: PatternError: pattern 'recent': parameter since is missing",
    )
