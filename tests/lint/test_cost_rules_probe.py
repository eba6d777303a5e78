"""Lint rules that rest on the cost analysis, on a tester's designs: a Scan of a sparse index, loads
on different constant keys, a hot single-item key that is only updated, TTLs in milliseconds and a
projection ALL on a sparse index."""

from __future__ import annotations

from pathlib import Path

from tablewright.lint import lint_text


def _findings(text: str, rule: str) -> list[str]:
    return [f.message for f in lint_text(text, "probe.yaml") if f.rule == rule]


# The designs the cost tests price (tests/cost/designs): here, what lint says about the same numbers.
SHARED = Path(__file__).parents[1] / "cost" / "designs"
SPARSE_SCAN = (SHARED / "sparse_scan.yaml").read_text()


def test_a_scan_of_a_sparse_index_that_wants_all_its_entries_is_not_a_table_scan() -> None:
    # The index holds exactly the flagged 1%: the Scan reads what it wants (facts D.11).
    assert _findings(SPARSE_SCAN, "TW301") == []


def test_a_scan_of_an_index_is_judged_on_the_index_entries() -> None:
    narrower = SPARSE_SCAN.replace('where: "flagged exists"', "where: \"flagged exists AND kind = 'a'\"")
    (message,) = _findings(narrower, "TW301")
    assert "scans index GSI1 of table things (10,000 items)" in message
    assert "selecting about 25% of it" in message


TWO_CONSTANT_KEYS = (SHARED / "two_constant_keys.yaml").read_text()


def test_two_constant_keys_under_the_limit_each_are_not_a_hot_partition() -> None:
    assert _findings(TWO_CONSTANT_KEYS, "TW103") == []
    warned = _findings(TWO_CONSTANT_KEYS, "TW101")
    assert len(warned) == 2
    assert all("600.0 units/s (60% of 1,000)" in message for message in warned)


HOT_COUNTER = (SHARED / "hot_counter.yaml").read_text()


def test_an_updated_counter_is_a_hot_partition() -> None:
    (message,) = _findings(HOT_COUNTER, "TW103")
    assert "writes 4,000.0 units/s" in message and "reads 4,000.0 units/s" in message


TTL_IN_MS = """
version: 1
name: ttl-ms
tables:
  events:
    partition_key: {name: pk, type: S}
    sort_key: {name: ts, type: N}
    ttl: ttl
entities:
  Ev:
    table: events
    attributes:
      pk: {type: string, required: true}
      ts: {type: number, required: true, format: epoch_ms}
      ttl: {type: number, computed: {ttl: {from: ts, unit: s, retention: 30d}}}
    keys: {table: {pk: "{pk}", sk: "{ts}"}}
  Ev2:
    table: events
    attributes:
      pk: {type: string, required: true}
      ts: {type: number, required: true, format: epoch_ms}
      ttl: {type: number, computed: {template: "{ts}"}}
    keys: {table: {pk: "E2#{pk}", sk: "{ts}"}}
  Ev3:
    table: events
    attributes:
      pk: {type: string, required: true}
      ts: {type: number, required: true, format: epoch_ms}
      ttl: {type: number, default: 1893456000000}
    keys: {table: {pk: "E3#{pk}", sk: "{ts}"}}
"""


def test_ttls_in_milliseconds_are_reported_however_they_are_made() -> None:
    messages = _findings(TTL_IN_MS, "TW501")
    assert len(messages) == 3
    assert any("of Ev " in m and "computed from ts (epoch_ms) read as unit s" in m for m in messages)
    assert any("of Ev2 " in m and "copies ts" in m for m in messages)
    assert any("of Ev3 " in m and "defaults to 1893456000000" in m for m in messages)
    # Read in its own unit (ms), the source converts to seconds: quiet.
    seconds = TTL_IN_MS.replace("unit: s,", "unit: ms,")
    assert len(_findings(seconds, "TW501")) == 2


SPARSE_ALL = """
version: 1
name: tickets
tables:
  things:
    partition_key: {name: PK, type: S}
    indexes:
      GSI1:
        kind: global
        partition_key: {name: GSI1PK, type: S}
        sort_key: {name: GSI1SK, type: S}
        projection: ALL
entities:
  Ticket:
    table: things
    attributes:
      id: {type: string, required: true}
      escalatedAt: {type: string, format: rfc3339}
      team: {type: string, required: true, max_length: 20}
    keys:
      table: {pk: "TICKET#{id}"}
      GSI1: {pk: "ESCALATED#{team}", sk: "{escalatedAt}", when: "escalatedAt exists"}
patterns:
  escalated_for_team:
    params: {team: string}
    returns: Ticket
    means: {where: "team = :team AND escalatedAt exists", order: escalatedAt asc, limit: 50}
    served: {op: query, index: GSI1}
volumes:
  peak_factor: 2
  entities:
    Ticket: {items: 10000000, item_size: 4000, writes: 20/s, shares: {escalatedAt: 0.001}}
  patterns:
    escalated_for_team: {reads: 1/min}
"""


def test_projection_all_on_a_sparse_index_is_priced_on_the_entries_it_holds() -> None:
    # 0.1% of the items and writes land in GSI1: ALL costs ~$0.11/month more than KEYS_ONLY.
    assert _findings(SPARSE_ALL, "TW204") == []
