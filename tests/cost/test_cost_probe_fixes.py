"""Cost figures a tester's designs got wrong, checked against figures computed by hand: scans of a
sparse index and of a table with unique markers, loads on different constant keys, updates on a hot
key, TTLs computed in milliseconds, index writes of items entering or leaving a sparse index, the
free tier on Standard-IA, and a pattern's ``writes``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewright.cost import build, default_prices, estimate, price
from tablewright.design import loads

DESIGNS = Path(__file__).parent / "designs"  # shared with tests/lint/test_cost_rules_probe.py
SPARSE_SCAN = (DESIGNS / "sparse_scan.yaml").read_text()


def _pattern(design_text: str, name: str) -> dict:
    return next(p for p in build(loads(design_text, "probe.yaml"))["patterns"] if p["name"] == name)


def test_a_scan_of_a_sparse_index_reads_the_index_entries_not_the_table() -> None:
    scan = _pattern(SPARSE_SCAN, "scan_sparse")
    # GSI1 holds 1% of 1,000,000 items: 10,000 entries x 1,000 B = 10,000,000 B, rounded once to
    # 4 KB steps (2,442) at 0.5 (a GSI read is eventual): 1,221 RRU a call, not the table's 122,070.
    assert scan["target"] == "things/GSI1"
    assert scan["items_per_call"] == pytest.approx(10_000)
    assert scan["read_units_per_call"] == pytest.approx(1221)


UNIQUE_SCAN = """
version: 1
name: unique-scan
tables:
  t:
    partition_key: {name: pk, type: S}
    sort_key: {name: sk, type: S}
entities:
  E:
    table: t
    attributes:
      pk: {type: string, required: true}
      sk: {type: string, required: true}
      email: {type: string, required: true}
    unique: [[email]]
    keys:
      table: {pk: "{pk}", sk: "{sk}"}
patterns:
  everything:
    params: {}
    returns: E
    means: {}
    served: {op: scan}
volumes:
  entities:
    E: {items: 10000, item_size: 4097, writes: 1/s}
  patterns:
    everything: {reads: 1/day}
"""


def test_a_table_scan_reads_the_unique_markers_stored_beside_the_items() -> None:
    scan = _pattern(UNIQUE_SCAN, "everything")
    # 10,000 items of 4,097 B and 10,000 markers of 100 B: 41,970,000 B = 10,247 steps x 0.5.
    # Counting the items alone at the average size (2,098.5 B) priced half of it.
    assert scan["items_per_call"] == pytest.approx(20_000)
    assert scan["read_units_per_call"] == pytest.approx(10_247 * 0.5)


TWO_CONSTANT_KEYS = (
    (DESIGNS / "two_constant_keys.yaml")
    .read_text()
    .replace(
        "Beta: {items: 1000, item_size: 500, writes: 600/s}",
        "Beta: {items: 1000, item_size: 500, writes: 300/s}",
    )
)


def test_loads_on_different_constant_keys_are_not_added_together() -> None:
    target = estimate(loads(TWO_CONSTANT_KEYS, "probe.yaml")).targets["app"]
    # 600 and 300 writes/s of 500 B (1 WCU each) on the partitions ALPHA and BETA: the busiest is 600.
    assert target.partition_wcu == pytest.approx(600)
    assert target.key_loads["ALPHA"][0] == pytest.approx(600)
    assert target.key_loads["BETA"][0] == pytest.approx(300)


def test_loads_on_the_same_constant_key_add_up() -> None:
    same = TWO_CONSTANT_KEYS.replace('pk: "BETA"', 'pk: "ALPHA"')
    target = estimate(loads(same, "probe.yaml")).targets["app"]
    assert target.partition_wcu == pytest.approx(900)


HOT_COUNTER = (DESIGNS / "hot_counter.yaml").read_text()


def test_updates_of_a_single_item_key_load_its_partition() -> None:
    target = estimate(loads(HOT_COUNTER, "probe.yaml")).targets["counters"]
    # 2,000 updates/s x peak 2 x 1 WCU (200 B) on the one key value; creates (1/day) are noise.
    assert target.partition_wcu == pytest.approx(4000, rel=1e-3)
    # Each update first reads the item, strongly consistent (1 RCU), on the same key.
    assert target.partition_rcu == pytest.approx(4000, rel=1e-3)


SPARSE_STATUS = """
version: 1
name: tasks
tables:
  tasks:
    partition_key: {name: PK, type: S}
    sort_key: {name: SK, type: S}
    indexes:
      GSI1:
        kind: global
        partition_key: {name: GSI1PK, type: S}
        sort_key: {name: GSI1SK, type: S}
        projection: KEYS_ONLY
entities:
  Task:
    table: tasks
    attributes:
      userId: {type: string, required: true}
      taskId: {type: string, required: true}
      dueUtc: {type: string, required: true, format: rfc3339}
      status: {type: string, required: true, enum: [TODO, DOING, DONE]}
    keys:
      table: {pk: "USER#{userId}", sk: "TASK#{taskId}"}
      GSI1: {pk: "USER#{userId}", sk: "{dueUtc}", when: "status <> 'DONE'"}
volumes:
  entities:
    Task: {items: 100000, item_size: 500, writes: 0, updates: 1/month, update_changes: [status]}
"""


def test_an_update_that_moves_an_item_in_or_out_of_a_sparse_index_writes_once() -> None:
    target = estimate(loads(SPARSE_STATUS, "probe.yaml")).targets["tasks/GSI1"]
    # The index keeps 2/3 of the items (status <> 'DONE'); before and after are independent:
    # 2 x 2/3 x 1/3 = 4/9 of updates enter or leave (1 write each); staying in writes nothing
    # (status is neither the index key nor projected by KEYS_ONLY). Not 2 x 2/3.
    assert target.write_units == pytest.approx(4 / 9)


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
    keys:
      table: {pk: "{pk}", sk: "{ts}"}
volumes:
  entities:
    Ev: {items: 1000, item_size: 100, writes: 1000/month}
"""


def test_a_ttl_computed_from_milliseconds_read_as_seconds_expires_nothing() -> None:
    report = build(loads(TTL_IN_MS, "probe.yaml"))
    assert report["ttl_deletes_per_month"] == {}
    assert report["storage_growth_gb_per_month"]["events"] == pytest.approx(1000 * 200 / 1024**3)
    right = build(loads(TTL_IN_MS.replace("unit: s,", "unit: ms,"), "probe.yaml"))
    assert right["ttl_deletes_per_month"] == {"events": pytest.approx(1000)}


INFREQUENT_ACCESS = """
version: 1
name: ia
tables:
  t:
    partition_key: {name: pk, type: S}
    table_class: STANDARD_INFREQUENT_ACCESS
entities:
  E:
    table: t
    attributes: {pk: {type: string, required: true}}
    keys: {table: {pk: "{pk}"}}
volumes:
  entities:
    E: {items: 1000000, item_size: 2048, writes: 1/s}
"""


def test_the_free_tier_credits_standard_storage_only() -> None:
    infrequent = price(estimate(loads(INFREQUENT_ACCESS, "probe.yaml")), default_prices())
    assert infrequent.free_tier["storage"] == 0
    assert infrequent.free_tier["within_free_tier_provisioned"] is False
    standard = INFREQUENT_ACCESS.replace("STANDARD_INFREQUENT_ACCESS", "STANDARD")
    credited = price(estimate(loads(standard, "probe.yaml")), default_prices())
    # 1,000,000 x (2,048 + 100) B = 2.0 GB, under the 25 GB free, at $0.25.
    assert credited.free_tier["storage"] == pytest.approx(1_000_000 * 2148 / 1024**3 * 0.25)


PATTERN_WRITES = """
version: 1
name: pattern-writes
tables:
  things:
    partition_key: {name: id, type: S}
entities:
  T:
    table: things
    attributes: {id: {type: string, required: true}}
patterns:
  get_t:
    params: {id: string}
    returns: T
    means: {where: "id = :id"}
    served: {op: get}
volumes:
  entities:
    T: {items: 3, item_size: 1000}
  patterns:
    get_t: {reads: 1/s, writes: 1000/s}
"""


def test_a_pattern_volume_writes_is_reported_as_not_priced() -> None:
    report = build(loads(PATTERN_WRITES, "probe.yaml"))
    (said,) = [a for a in report["assumptions"] if a.startswith("pattern get_t: writes")]
    assert "not priced" in said and "volumes.entities.T.writes" in said
