"""TW406 (under-provisioned-capacity): provisioned billing below what the design's own volumes need at
peak, per table and per GSI, against the figures ``tablewright cost`` shows ("prov. WCU/RCU").

The base design (tests/lint/designs.py) at peak_factor 3 needs 30 RCU / 3 WCU on the table and
15 RCU / 3 WCU on GSI1.
"""

from __future__ import annotations

from typing import Any

from tablewright.lint import lint_text

from .designs import design


def _provisioned(read: int, write: int, gsi: dict[str, int] | None = None) -> dict[str, Any]:
    table: dict[str, Any] = {"billing": {"mode": "provisioned", "read": read, "write": write}}
    if gsi is not None:
        table["indexes"] = {"GSI1": {"throughput": gsi}}
    return {"tables": {"orders": table}}


def _tw406(change: dict[str, Any]) -> list:
    findings = lint_text(design(change), "shop.yaml")
    assert not [f for f in findings if f.rule == "TW001"], "the case design must load"
    return [f for f in findings if f.rule == "TW406"]


def test_an_under_provisioned_table_is_reported_with_declared_and_needed_units() -> None:
    [finding] = _tw406(_provisioned(5, 5, gsi={"read": 15, "write": 3}))
    assert (finding.severity, finding.name) == ("warning", "under-provisioned-capacity")
    assert finding.path == ("tables", "orders", "billing")
    assert finding.message == (
        "table orders declares provisioned 5 RCU / 5 WCU; its peak (declared volumes x peak_factor 3) "
        "needs 30 RCU / 3 WCU: reads throttle at peak"
    )
    assert "read: 30, write: 5" in finding.fix
    assert "throttled" in finding.why


def test_an_under_provisioned_gsi_is_reported_at_its_throughput() -> None:
    [finding] = _tw406(_provisioned(30, 3, gsi={"read": 15, "write": 1}))
    assert finding.path == ("tables", "orders", "indexes", "GSI1", "throughput")
    assert finding.message.startswith("index GSI1 of table orders declares provisioned 15 RCU / 1 WCU; ")
    assert finding.message.endswith("needs 15 RCU / 3 WCU: writes throttle at peak")


def test_a_gsi_inheriting_the_tables_capacity_is_reported_when_its_own_peak_outgrows_it() -> None:
    # The GSI's pattern reads 10x the table's: the table's 100 RCU cover the table, not the index.
    busy_index = {"volumes": {"patterns": {"order_by_id": {"reads": "100/s"}}}}
    found = _tw406({**_provisioned(100, 3), **busy_index})
    assert [f.path for f in found] == [("tables", "orders", "indexes", "GSI1")]
    assert "inherits the table's provisioned 100 RCU / 3 WCU" in found[0].message
    assert "needs 150 RCU / 3 WCU" in found[0].message


def test_capacity_that_covers_the_peak_exactly_is_quiet() -> None:
    assert _tw406(_provisioned(30, 3, gsi={"read": 15, "write": 3})) == []
    assert _tw406(_provisioned(30, 3)) == []  # the GSI inherits 30 / 3, above its 15 / 3


def test_on_demand_billing_is_quiet_however_busy_the_design() -> None:
    busy = {
        "volumes": {
            "entities": {"Order": {"writes": "500/s"}},
            "patterns": {"order_by_id": {"reads": "900/s"}},
        }
    }
    assert _tw406(busy) == []


def test_a_design_without_volumes_is_quiet() -> None:
    assert _tw406({**_provisioned(1, 1, gsi={"read": 1, "write": 1}), "volumes": None}) == []
