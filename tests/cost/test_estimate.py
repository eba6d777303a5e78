"""Cost estimates against hand-computed figures for small designs.

Month = 730 h = 2,628,000 s. Prices: $0.625/M WRU, $0.125/M RRU, $0.00065/WCU-h, $0.00013/RCU-h,
$0.25/GB-month.
"""

from __future__ import annotations

import pytest

from tablewright.cost import build, default_prices, estimate, price
from tablewright.design import loads

MONTH = 2_628_000
DESIGN = """
version: 1
name: amplification
tables:
  things:
    partition_key: {name: id, type: S}
    indexes:
      ByOwner: {kind: global, partition_key: {name: owner, type: S}, projection: ALL}
      ByOwnerKeys: {kind: global, partition_key: {name: owner2, type: S}, projection: KEYS_ONLY}
      Open: {kind: global, partition_key: {name: OpenPK, type: S}, projection: ALL}
entities:
  Thing:
    table: things
    attributes:
      id: {type: string, format: uuid}
      owner: {type: string, format: uuid}
      owner2: {type: string, format: uuid}
      open_owner: {type: string, format: uuid}
      status: {type: string, enum: [open, closed, archived, deleted]}
    keys:
      Open: {pk: "{open_owner}", when: "status = 'open'"}
patterns:
  thing: {params: {id: string}, returns: Thing, served: {op: get}}
  thing_strong: {params: {id: string}, returns: Thing, served: {op: get, consistent: true}}
  owned: {params: {owner: string}, returns: Thing, means: {limit: 10}, served: {op: query, index: ByOwner}}
volumes:
  peak_factor: 2
  entities:
    Thing: {items: 1000000, item_size: 1500, writes: 10/s}
  patterns:
    thing: {reads: 10/s}
    thing_strong: {reads: 1/s}
    owned: {reads: 1/s}
"""


@pytest.fixture(scope="module")
def design():  # type: ignore[no-untyped-def]
    return loads(DESIGN, "amplification.yaml")


def test_writes_are_amplified_by_every_index_the_item_lands_in(design) -> None:  # type: ignore[no-untyped-def]
    est = estimate(design)
    writes = 10 * MONTH
    assert est.targets["things"].write_units == pytest.approx(writes * 2)  # 1,500 B -> 2 WCU
    assert est.targets["things/ByOwner"].write_units == pytest.approx(writes * 2)  # ALL: the whole item
    assert est.targets["things/ByOwnerKeys"].write_units == pytest.approx(writes * 1)  # keys only: < 1 KB
    # Sparse: `status = 'open'` keeps 1 of 4 enum values.
    assert est.targets["things/Open"].write_units == pytest.approx(writes * 0.25 * 2)
    assert est.targets["things/Open"].items == pytest.approx(250_000)


def test_reads_by_op_and_consistency(design) -> None:  # type: ignore[no-untyped-def]
    by_name = {p.name: p for p in estimate(design).patterns}
    assert by_name["thing"].units_per_call == 0.5  # eventual, 1,500 B < 4 KB
    assert by_name["thing_strong"].units_per_call == 1.0
    # Query: 10 items x 1,500 B = 15,000 B, rounded once to 4 x 4 KB, eventual (GSI) -> 2.
    assert by_name["owned"].units_per_call == 2.0
    assert estimate(design).targets["things"].read_units == pytest.approx((10 * 0.5 + 1 * 1.0) * MONTH)


def test_storage_adds_100_bytes_per_item_and_entry(design) -> None:  # type: ignore[no-untyped-def]
    est = estimate(design)
    assert est.targets["things"].storage_bytes == pytest.approx(1_000_000 * 1600)
    assert est.targets["things/Open"].storage_bytes == pytest.approx(250_000 * 1600)


def test_on_demand_and_provisioned_bills(design) -> None:  # type: ignore[no-untyped-def]
    bill = price(estimate(design), default_prices())
    line = {entry.target: entry for entry in bill.lines}["things"]
    # 20 WCU/s average x peak 2 = 40 WCU; reads 6 RCU/s x 2 = 12 RCU.
    assert (line.provisioned_wcu, line.provisioned_rcu) == (40, 12)
    assert line.provisioned["write"] == pytest.approx(40 * 0.00065 * 730)
    assert line.provisioned["read"] == pytest.approx(12 * 0.00013 * 730)
    assert line.on_demand["write"] == pytest.approx(20 * MONTH * 0.625e-6)
    assert line.on_demand["read"] == pytest.approx(6 * MONTH * 0.125e-6)
    assert line.on_demand["storage"] == pytest.approx(1.6e9 / 1024**3 * 0.25)
    # Writes alone: 65.7 $/month on-demand vs 18.98 provisioned; utilisation 50% > 28.9% break-even.
    assert bill.cheaper == "provisioned"


def test_break_even_utilisation() -> None:
    assert default_prices().break_even()["write"] == pytest.approx(0.00065 / (3600 * 0.625e-6))
    assert default_prices().break_even()["read"] == pytest.approx(0.2889, abs=1e-4)


TRANSACTIONAL = """
version: 1
name: unique
tables:
  users: {partition_key: {name: pk, type: S}}
entities:
  User:
    table: users
    attributes: {user_id: string, email: string}
    keys: {table: {pk: "USER#{user_id}"}}
    unique: [[email]]
volumes:
  entities: {User: {items: 10, item_size: 500, writes: 1/s}}
"""


def test_unique_markers_make_writes_transactional() -> None:
    est = estimate(loads(TRANSACTIONAL, "unique.yaml"))
    # TransactWriteItems: 2 x (item 1 WCU + marker 1 WCU) per write.
    assert est.targets["users"].write_units == pytest.approx(4 * MONTH)


def test_unique_markers_are_stored_at_marker_size_not_item_size() -> None:
    est = estimate(loads(TRANSACTIONAL, "unique.yaml"))
    users = est.targets["users"]
    # 10 users of 500 B and 10 email markers of 100 B (key + owner), each + 100 B overhead:
    # 10 x 600 + 10 x 200 = 8,000 B (markers at the item size would make it 12,000 B).
    assert users.items == 20
    assert users.storage_bytes == pytest.approx(8_000)


def test_ttl_deletes_are_free_and_counted_for_streams() -> None:
    text = DESIGN.replace(
        "partition_key: {name: id, type: S}\n",
        "partition_key: {name: id, type: S}\n    ttl: expires\n    stream: NEW_IMAGE\n",
        1,
    )
    text = text.replace("status: {type:", "expires: {type: number, format: epoch_s}\n      status: {type:")
    est = estimate(loads(text, "ttl.yaml"))
    assert est.ttl_deletes["things"] == pytest.approx(10 * MONTH)
    assert est.stream_records["things"] == pytest.approx(20 * MONTH)  # writes + TTL deletes
    assert est.targets["things"].write_units == pytest.approx(10 * MONTH * 2)  # deletes add nothing


def test_report_carries_dated_prices_and_free_tier_apart(design) -> None:  # type: ignore[no-untyped-def]
    data = build(design)
    assert data["prices"]["effective"] == "2024-11-01" and data["prices"]["region"] == "us-east-1"
    # Under 25 GB, the free tier covers all of the storage.
    assert data["free_tier"]["storage"] == pytest.approx(sum(t["storage_gb"] for t in data["targets"]) * 0.25)
    assert data["monthly"]["on_demand"] > data["free_tier"]["on_demand_after_free_tier"]


def test_peak_partition_load_on_a_literal_partition() -> None:
    text = """
version: 1
name: hot
tables:
  events:
    partition_key: {name: kind, type: S}
    sort_key: {name: ts, type: N}
entities:
  Event:
    table: events
    attributes: {kind: {type: string, enum: [a, b]}, ts: {type: number, format: epoch_ms}}
patterns:
  a_events: {params: {}, returns: Event, means: {limit: 100}, served: {op: query, partition: {kind: a}}}
volumes:
  peak_factor: 4
  entities: {Event: {items: 1000, item_size: 2000, writes: 100/s}}
  patterns: {a_events: {reads: 10/s}}
"""
    target = estimate(loads(text, "hot.yaml")).targets["events"]
    # Writes: 100/s x peak 4 x 2 WCU / 2 key values = 400 WCU/s on the busiest value.
    assert target.partition_wcu == pytest.approx(400)
    # Reads: every call hits kind=a; 100 x 2,000 B = 200,000 B -> 49 x 4 KB x 0.5 = 24.5 RRU, x 10/s x 4.
    assert target.partition_rcu == pytest.approx(24.5 * 10 * 4)


PLAIN = TRANSACTIONAL.replace("    unique: [[email]]\n", "")


def test_entities_declared_transactional_are_priced_at_twice_the_units() -> None:
    assert estimate(loads(PLAIN, "plain.yaml")).targets["users"].write_units == pytest.approx(MONTH)
    declared = PLAIN + "lint:\n  transactional: [User, Nobody]\n"
    est = estimate(loads(declared, "tx.yaml"))
    # TransactWriteItems: 2 x 1 WCU (500 B) per write, no marker.
    assert est.targets["users"].write_units == pytest.approx(2 * MONTH)
    assert any("'Nobody'" in note for note in est.assumptions)


def test_the_sidecar_declares_transactional_writes_for_tablewright_cost(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tablewright.lint.runner import load_design

    path = tmp_path / "design.yaml"
    path.write_text(PLAIN, encoding="utf-8")
    (tmp_path / "design.lint.yaml").write_text("transactional: [User]\n", encoding="utf-8")
    assert estimate(load_design(path)).targets["users"].write_units == pytest.approx(2 * MONTH)
