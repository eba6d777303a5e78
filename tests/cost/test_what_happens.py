"""Cost prices what the runtime and DynamoDB really do, checked against figures computed by hand:
creates apart from updates, index-key moves, the read before a write, per-page rounding, the
declared billing, TTL that is not epoch seconds, declared shares, open ranges, no volumes."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tablewright.cost import build
from tablewright.cost.estimate import estimate
from tablewright.design import loads

# One item is 1,500 bytes (declared): 2 write units (1 KB steps), one strong 4 KB read step = 1 RRU.
# GSI1 projects ALL (an entry is the whole item: 2 WRU); GSI2 is KEYS_ONLY (under 1 KB: 1 WRU).
DESIGN: dict[str, Any] = {
    "version": 1,
    "name": "accounts",
    "tables": {
        "users": {
            "partition_key": "PK",
            "sort_key": "SK",
            "indexes": {
                "GSI1": {"kind": "global", "partition_key": "GSI1PK", "sort_key": "GSI1SK"},
                "GSI2": {"kind": "global", "partition_key": "GSI2PK", "projection": "KEYS_ONLY"},
            },
        }
    },
    "entities": {
        "User": {
            "table": "users",
            "attributes": {
                "id": {"type": "string", "required": True, "max_length": 20},
                "email": {"type": "string", "required": True, "max_length": 40},
                "status": {"type": "string", "enum": ["active", "blocked"]},
                "name": {"type": "string", "max_length": 40},
            },
            "unique": [["email"]],
            "keys": {
                "table": {"pk": "USER#{id}", "sk": "PROFILE"},
                "GSI1": {"pk": "STATUS#{status}", "sk": "{id}"},
                "GSI2": {"pk": "EMAIL#{email}"},
            },
        }
    },
    "patterns": {
        "users_by_status": {
            "params": {"status": "string"},
            "returns": "User",
            "means": {"where": "status = :status", "limit": 30},
            "served": {"op": "query", "index": "GSI1", "page_size": 10},
        }
    },
    "volumes": {
        "entities": {
            "User": {
                "items": 1000,
                "item_size": 1500,
                "writes": "1000/month",
                "updates": "2000/month",
                "update_changes": ["status"],
            }
        },
        "patterns": {"users_by_status": {"reads": "100/month"}},
    },
}


def _design(**changes: Any):
    data = yaml.safe_load(yaml.safe_dump(DESIGN))
    for path, value in changes.items():
        node = data
        *parents, last = path.split("__")
        for key in parents:
            node = node[key]
        if value is None:
            node.pop(last, None)
        else:
            node[last] = value
    return loads(yaml.safe_dump(data), "accounts.yaml")


def _units(design) -> dict[str, tuple[float, float]]:
    est = estimate(design)
    return {name: (t.write_units, t.read_units) for name, t in est.targets.items()}


def test_creates_and_updates_are_priced_apart() -> None:
    units = _units(_design(volumes__patterns={}))
    # Create (unique email: a transaction, 2x): table 2 x (2 + 1 marker) = 6; GSI1 2 x 2 = 4;
    # GSI2 2 x 1 = 2; no read (the transaction's conditions guard the key and the marker).
    # Update of status (no unique value changes: no transaction): table 2; GSI1's key moves:
    # delete + put = 2 x 2 = 4; GSI2 (KEYS_ONLY, keyed on email) untouched: 0; the read before: 1.
    assert units["users"] == pytest.approx((1000 * 6 + 2000 * 2, 2000 * 1))
    assert units["users/GSI1"] == pytest.approx((1000 * 4 + 2000 * 4, 0))
    assert units["users/GSI2"] == pytest.approx((1000 * 2, 0))


def test_an_update_that_changes_a_unique_value_swaps_markers_in_a_transaction() -> None:
    units = _units(_design(volumes__patterns={}, volumes__entities__User__update_changes=["email"]))
    # Per update: 2x (table 2 + old marker deleted 1 + new marker put 1) = 8; GSI2's key moves:
    # 2x (2 x 1) = 4; GSI1 (ALL) rewritten because email is projected: 2x 2 = 4.
    assert units["users"][0] == pytest.approx(1000 * 6 + 2000 * 8)
    assert units["users/GSI2"][0] == pytest.approx(1000 * 2 + 2000 * 4)
    assert units["users/GSI1"][0] == pytest.approx(1000 * 4 + 2000 * 4)


def test_an_update_of_an_unprojected_attribute_writes_no_keys_only_index() -> None:
    units = _units(_design(volumes__patterns={}, volumes__entities__User__update_changes=["name"]))
    assert units["users/GSI2"][0] == pytest.approx(1000 * 2)  # creates only
    assert units["users/GSI1"][0] == pytest.approx(1000 * 4 + 2000 * 2)  # ALL: rewritten once


def test_query_reads_are_rounded_per_page() -> None:
    # limit 30 in pages of 10: 3 pages of 10 x 1,500 B = 15,000 B -> 4 x 4 KB -> 2 RRU (eventual) each.
    # Rounded once over 45,000 B it would be 11 steps = 5.5 RRU; per page it is 6.
    data = build(_design())
    (pattern,) = data["patterns"]
    assert pattern["read_units_per_call"] == pytest.approx(6.0)
    one_by_one = build(_design(patterns__users_by_status__served__page_size=1))
    assert one_by_one["patterns"][0]["read_units_per_call"] == pytest.approx(30 * 0.5)


def test_declared_billing_is_priced_beside_the_what_if() -> None:
    design = _design(
        tables__users__billing={"mode": "provisioned", "read": 5, "write": 5},
        tables__users__indexes__GSI1__throughput={"read": 1, "write": 1},
        tables__users__indexes__GSI2__throughput={"read": 1, "write": 1},
    )
    data = build(design)
    storage = sum(t["on_demand"]["storage"] for t in data["targets"])
    # 730 h x (5 x $0.00065 + 5 x $0.00013) on the table, (1 x $0.00065 + 1 x $0.00013) per GSI.
    capacity = 730 * (5 * 0.00065 + 5 * 0.00013) + 2 * 730 * (0.00065 + 0.00013)
    assert data["declared_billing"]["monthly"] == pytest.approx(capacity + storage)
    assert set(data["declared_billing"]["modes"].values()) == {"provisioned"}
    assert data["declared_billing"]["under_provisioned"] == []
    busy = build(
        _design(
            tables__users__billing={"mode": "provisioned", "read": 1, "write": 1},
            volumes__entities__User__writes="100/s",
        )
    )
    assert any(line.startswith("users:") for line in busy["declared_billing"]["under_provisioned"])
    on_demand = build(_design())
    assert on_demand["declared_billing"]["monthly"] == pytest.approx(on_demand["monthly"]["on_demand"])


def test_ttl_that_is_not_epoch_seconds_deletes_nothing_and_storage_grows() -> None:
    attrs = dict(DESIGN["entities"]["User"]["attributes"])
    good = _design(
        tables__users__ttl="expires",
        entities__User__attributes={**attrs, "expires": {"type": "number", "format": "epoch_s"}},
    )
    bad = _design(
        tables__users__ttl="expires",
        entities__User__attributes={**attrs, "expires": {"type": "number", "format": "epoch_ms"}},
    )
    assert build(good)["ttl_deletes_per_month"] == {"users": pytest.approx(1000)}  # creates expire
    report = build(bad)
    assert report["ttl_deletes_per_month"] == {}
    # 1,000 creates a month x (1,500 + 100 overhead) bytes on the table.
    assert report["storage_growth_gb_per_month"]["users"] == pytest.approx(1000 * 1600 / 1024**3)


def test_declared_shares_size_sparse_indexes_and_filters() -> None:
    sparse = {"pk": "STATUS#{status}", "sk": "{id}", "when": "name exists"}
    base = _design(volumes__patterns={}, entities__User__keys__GSI1=sparse)
    shared = _design(
        volumes__patterns={},
        entities__User__keys__GSI1=sparse,
        volumes__entities__User__shares={"name": 0.25},
    )
    assert estimate(base).targets["users/GSI1"].items == pytest.approx(1000)  # unknown: all
    assert estimate(shared).targets["users/GSI1"].items == pytest.approx(250)
    from tablewright.cost import analysis
    from tablewright.design.predicates import Predicate

    skewed = _design(volumes__entities__User__shares={"status": {"active": 0.9, "blocked": 0.1}})
    keep = analysis.selectivity(Predicate("status = 'blocked'"), skewed, ("User",))
    assert keep == pytest.approx(0.1)  # not 1/2: the declared share


def test_an_open_range_gives_typical_and_upper_bound() -> None:
    design = _design(
        patterns__users_by_status={
            "params": {"status": "string", "after": "string"},
            "returns": "User",
            "means": {"where": "status = :status AND id > :after"},
            "served": {"op": "query", "index": "GSI1", "sort": {"gt": {"id": ":after"}}},
        }
    )
    (pattern,) = build(design)["patterns"]
    # The whole partition (1,000 users / 2 statuses = 500 x 1,500 B -> 184 steps x 0.5) is the bound;
    # a typical call reads 10 items (15,000 B -> 4 steps x 0.5 = 2).
    assert pattern["read_units_per_call"] == pytest.approx(92.0)
    assert pattern["typical_read_units_per_call"] == pytest.approx(2.0)


def test_no_volumes_is_said_plainly() -> None:
    from tablewright.cost.report import NO_VOLUMES, summary

    data = build(_design(volumes=None))
    assert data["volumes_declared"] is False
    assert summary(data)[0] == NO_VOLUMES
    assert NO_VOLUMES not in summary(build(_design()))


def test_a_declared_enum_share_loads_the_busiest_key_value() -> None:
    # GSI1 is keyed on the status: 1,000 creates a month, 2 WRU per GSI1 entry, twice in a
    # transaction (the unique email), on the busiest value.
    even = estimate(_design(volumes__patterns={}, volumes__entities__User__updates=None))
    skewed = estimate(
        _design(
            volumes__patterns={},
            volumes__entities__User__updates=None,
            volumes__entities__User__shares={"status": {"active": 0.9, "blocked": 0.1}},
        )
    )
    per_second = 1000 / (730 * 3600)
    assert even.targets["users/GSI1"].partition_wcu == pytest.approx(per_second * 2 * 2 / 2)  # 2 values
    assert skewed.targets["users/GSI1"].partition_wcu == pytest.approx(per_second * 2 * 2 * 0.9)
