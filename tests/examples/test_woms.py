"""examples/woms (seed 003) on the real embedded engine: the hierarchy's constraints, one active work
order per plant, unique vendor plant ids, alert de-duplication (also under concurrency, and why the
document's GSI check is racy), metrics aggregation, TTLs and `tablewright check`."""

from __future__ import annotations

import dataclasses
import sys
import threading
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewright.cli.check import check
from tablewright.design import load
from tablewright.runtime import Runtime, UniquenessError, ValidationError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "woms"
sys.path.insert(0, str(EXAMPLE))
import woms as wm  # noqa: E402

ALERT_TIME = "2025-01-15T14:30:00Z"


def plant(plant_id: int, org_id: int, vendor_id: int, station: str, **metrics: object) -> dict:
    return {
        "plant_id": plant_id,
        "org_id": org_id,
        "vendor_id": vendor_id,
        "vendor_plant_id": station,
        "name": f"Plant {plant_id}",
        "network_status": "NORMAL",
        "capacity_kw": 100,
        **metrics,
    }


@pytest.fixture
def woms() -> wm.Woms:
    """Two organizations with two vendors each, one WMS device per organization."""
    w = wm.Woms.open()
    w.rt.put("WmsVendor", {"wms_vendor_id": 1, "name": "Kipp"})
    for org_id in (1, 2):
        w.create_organization(org_id, f"Org {org_id}")
        for n in range(2):
            w.add_vendor({"vendor_id": org_id * 10 + n, "org_id": org_id, "name": f"Vendor {org_id}{n}"})
        w.rt.put("WmsSite", {"wms_site_id": org_id, "wms_vendor_id": 1, "org_id": org_id, "name": "site"})
        w.rt.put(
            "WmsDevice",
            {"device_id": org_id, "wms_site_id": org_id, "wms_vendor_id": 1, "org_id": org_id, "serial": "P"},
        )
    return w


# ------------------------------------------------------------------------------------ hierarchy
def test_vendor_needs_an_existing_organization(woms):
    with pytest.raises(wm.HierarchyError, match=r"vendor 99: Organization \{'org_id': 7\} does not exist"):
        woms.add_vendor({"vendor_id": 99, "org_id": 7, "name": "x"})
    with pytest.raises(ValidationError, match="org_id is required"):
        woms.rt.put("Vendor", {"vendor_id": 98, "org_slot": 1, "name": "x"})


def test_vendors_take_slots_and_the_51st_is_refused(woms):
    slots = [v["org_slot"] for v in woms.rt.run("vendors_by_org", org_id=1)]
    assert sorted(slots) == [1, 2]
    for vendor_id in range(100, 148):
        woms.add_vendor({"vendor_id": vendor_id, "org_id": 1, "name": "v"})
    assert len(woms.rt.run("vendors_by_org", org_id=1).items) == 50
    with pytest.raises(wm.VendorLimitError, match="organization 1 already has 50 vendors"):
        woms.add_vendor({"vendor_id": 200, "org_id": 1, "name": "v"})
    woms.rt.delete("Vendor", {"vendor_id": 100})  # frees its slot
    assert woms.add_vendor({"vendor_id": 200, "org_id": 1, "name": "v"})["org_slot"] == 3


def test_a_slot_cannot_be_taken_twice_even_bypassing_the_domain_code(woms):
    with pytest.raises(UniquenessError, match="org_id, org_slot"):
        woms.rt.put("Vendor", {"vendor_id": 77, "org_id": 1, "org_slot": 1, "name": "sneaky"})
    with pytest.raises(ValidationError, match="more than the maximum 50"):
        woms.rt.put("Vendor", {"vendor_id": 77, "org_id": 1, "org_slot": 51, "name": "sneaky"})


def test_plant_needs_org_and_vendor_of_that_org(woms):
    with pytest.raises(ValidationError) as missing:
        woms.rt.put("Plant", {"plant_id": 1, "vendor_plant_id": "S", "name": "p", "network_status": "NORMAL"})
    text = str(missing.value)
    assert "org_id is required" in text and "vendor_id is required" in text and "capacity_kw" in text
    with pytest.raises(wm.HierarchyError, match="vendor 20 belongs to organization 2, not 1"):
        woms.add_plant(plant(1, 1, 20, "S1"))
    with pytest.raises(wm.HierarchyError, match=r"Vendor \{'vendor_id': 55\} does not exist"):
        woms.add_plant(plant(1, 1, 55, "S1"))


def test_vendor_plant_id_is_unique_per_vendor_not_globally(woms):
    woms.add_plant(plant(1, 1, 10, "STATION123"))
    woms.add_plant(plant(2, 1, 11, "STATION123"))  # another vendor: allowed
    with pytest.raises(UniquenessError, match="STATION123") as err:
        woms.add_plant(plant(3, 1, 10, "STATION123"))
    assert "vendor_id, vendor_plant_id" in str(err.value)
    assert woms.rt.get("Plant", plant_id=3) is None  # the transaction wrote nothing
    # Changing the station id moves the marker: the old id becomes free again.
    woms.rt.update("Plant", {"plant_id": 1}, {"vendor_plant_id": "STATION999"})
    woms.add_plant(plant(3, 1, 10, "STATION123"))
    assert woms.plant_for(10, "STATION123")["plant_id"] == 3
    assert woms.plant_for(10, "NOPE") is None


def test_work_order_needs_org_and_a_wms_device_of_the_same_org(woms):
    with pytest.raises(ValidationError, match="org_id is required"):
        woms.create_work_order({"work_order_id": 1, "title": "t"})
    with pytest.raises(wm.HierarchyError, match="WMS device 2 belongs to organization 2, not 1"):
        woms.create_work_order({"work_order_id": 1, "org_id": 1, "title": "t", "wms_device_id": 2})
    with pytest.raises(wm.HierarchyError, match=r"WmsDevice \{'device_id': 9\} does not exist"):
        woms.create_work_order({"work_order_id": 1, "org_id": 1, "title": "t", "wms_device_id": 9})
    order = woms.create_work_order({"work_order_id": 1, "org_id": 1, "title": "t", "wms_device_id": 1})
    assert order["wms_device_id"] == 1 and order["status"] == "OPEN"
    assert (
        woms.create_work_order({"work_order_id": 2, "org_id": 1, "title": "no device"})["title"]
        == "no device"
    )


# ------------------------------------------------------------------------------------ work orders
@pytest.fixture
def assigned(woms):
    """Org 1: plants 1-3 (vendors 10, 11, 10) in work order 1; plant 4 of org 2; WO 2 of org 1 empty."""
    woms.add_plant(plant(1, 1, 10, "A", current_power_kw=10, daily_energy_kwh=Decimal("40.5")))
    woms.add_plant(plant(2, 1, 11, "B", current_power_kw=20, daily_energy_kwh=Decimal("60.25")))
    woms.add_plant(plant(3, 1, 10, "C", current_power_kw=5, total_energy_mwh=Decimal("1.125")))
    woms.add_plant(plant(4, 2, 20, "D", current_power_kw=99))
    woms.create_work_order({"work_order_id": 1, "org_id": 1, "title": "round 1"})
    woms.create_work_order({"work_order_id": 2, "org_id": 1, "title": "round 2"})
    woms.create_work_order({"work_order_id": 3, "org_id": 2, "title": "other org"})
    for plant_id in (1, 2, 3):
        woms.assign_plant(1, plant_id)
    return woms


def test_work_order_mixes_vendors_of_one_org_only(assigned):
    vendors = {m["vendor_id"] for m in assigned.rt.run("work_order_plants", work_order_id=1)}
    assert vendors == {10, 11}
    with pytest.raises(wm.HierarchyError, match="organization 1.*cannot contain plant 4 of organization 2"):
        assigned.assign_plant(1, 4)


def test_one_active_work_order_per_plant(assigned):
    with pytest.raises(wm.PlantAlreadyAssignedError, match="plant 1 is already in active work order 1"):
        assigned.assign_plant(2, 1)
    assert assigned.rt.get("WorkOrderPlant", work_order_id=2, plant_id=1) is None
    assigned.release_plant(1, 1)
    assert assigned.active_work_order(1) is None
    assigned.assign_plant(2, 1)  # free now
    assert assigned.active_work_order(1) == 2
    # History stays: plant 1 appears under both work orders, active in one.
    assert sorted(m["work_order_id"] for m in assigned.rt.run("plant_work_orders", plant_id=1)) == [1, 2]
    with pytest.raises(wm.PlantAlreadyAssignedError, match="active work order 2"):
        assigned.assign_plant(1, 1)  # re-activating the old mapping is refused too
    assigned.release_plant(2, 1)
    assert assigned.assign_plant(1, 1)["is_active"] is True


def test_is_active_false_is_rejected_so_inactive_means_absent(assigned):
    with pytest.raises(ValidationError, match="is_active"):
        assigned.rt.put(
            "WorkOrderPlant",
            {"work_order_id": 2, "plant_id": 2, "org_id": 1, "vendor_id": 11, "is_active": False},
        )


def test_concurrent_assignments_of_one_plant_leave_exactly_one_active(tmp_path):
    w = wm.Woms.open(db=tmp_path / "woms.db")
    w.create_organization(1, "o")
    w.add_vendor({"vendor_id": 10, "org_id": 1, "name": "v"})
    w.add_plant(plant(1, 1, 10, "A"))
    for wo in range(1, 9):
        w.create_work_order({"work_order_id": wo, "org_id": 1, "title": "t"})
    barrier, outcomes = threading.Barrier(8), []

    def assign(wo: int) -> None:
        barrier.wait()
        try:
            wm.Woms(Runtime.open(wm.DESIGN, db=tmp_path / "woms.db")).assign_plant(wo, 1)
            outcomes.append("ok")
        except wm.PlantAlreadyAssignedError:
            outcomes.append("refused")

    threads = [threading.Thread(target=assign, args=(wo,)) for wo in range(1, 9)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["ok"] + ["refused"] * 7
    active = [wo for wo in range(1, 9) if w.rt.get("WorkOrderPlant", work_order_id=wo, plant_id=1)]
    assert len(active) == 1


# ------------------------------------------------------------------------------------ metrics
def test_work_order_metrics_sum_active_plants(assigned):
    metrics = assigned.work_order_metrics(1)
    assert metrics.plants == 3
    assert metrics.totals["current_power_kw"] == 35
    assert metrics.totals["daily_energy_kwh"] == Decimal("100.75")
    assert metrics.totals["total_energy_mwh"] == Decimal("1.125")
    assert metrics.totals["capacity_kw"] == 300
    assigned.release_plant(1, 2)
    assert assigned.work_order_metrics(1).totals["current_power_kw"] == 15  # on the fly: no stale total
    assert assigned.work_order_metrics(2).plants == 0


def test_organization_metrics_count_each_plant_in_its_work_orders_once(assigned):
    assigned.release_plant(1, 3)
    assigned.assign_plant(2, 3)  # plant 3 in WO 2 now, its old WO 1 mapping inactive
    org = assigned.organization_metrics(1)
    assert org.plants == 3 and org.totals["current_power_kw"] == 35
    assert assigned.organization_metrics(2).plants == 0  # plant 4 is in no work order
    assigned.assign_plant(3, 4)
    assert assigned.organization_metrics(2).totals["current_power_kw"] == 99
    # Metrics read current plant data.
    assigned.rt.update("Plant", {"plant_id": 1}, {"current_power_kw": 0})
    assert assigned.organization_metrics(1).totals["current_power_kw"] == 25


# ------------------------------------------------------------------------------------ alerts
VENDOR_ALERTS = [
    {"vendor_alert_id": "ALERT123", "alert_time": ALERT_TIME, "message": "Grid fault"},
    {"vendor_alert_id": "ALERT124", "alert_time": "2025-01-15T15:00:00Z", "severity": "CRITICAL"},
]


def test_sync_deduplicates_by_vendor_alert_id(assigned):
    first = assigned.sync_vendor_alerts(10, "A", VENDOR_ALERTS)
    assert [a["vendor_alert_id"] for a in first.created] == ["ALERT123", "ALERT124"] and not first.duplicates
    again = assigned.sync_vendor_alerts(
        10, "A", [*VENDOR_ALERTS, {"vendor_alert_id": "ALERT125", "alert_time": ALERT_TIME}]
    )
    assert again.duplicates == ["ALERT123", "ALERT124"]
    assert [a["vendor_alert_id"] for a in again.created] == ["ALERT125"]
    alerts = assigned.rt.run("alerts_by_plant", plant_id=1).items
    # Newest first; ALERT123 and ALERT125 share an instant, so their random alert ids order them.
    assert [a["vendor_alert_id"] for a in alerts][0] == "ALERT124"
    assert sorted(a["vendor_alert_id"] for a in alerts) == ["ALERT123", "ALERT124", "ALERT125"]
    # The same vendor alert id of ANOTHER station is another alert.
    assert len(assigned.sync_vendor_alerts(11, "B", VENDOR_ALERTS[:1]).created) == 1


def test_sync_of_unknown_station_names_it(assigned):
    with pytest.raises(wm.HierarchyError, match="vendor 10 has no plant with vendor plant id 'ZZZ'"):
        assigned.sync_vendor_alerts(10, "ZZZ", VENDOR_ALERTS)


def test_concurrent_syncs_store_each_alert_once(tmp_path):
    db = tmp_path / "woms.db"
    w = wm.Woms.open(db=db)
    w.create_organization(1, "o")
    w.add_vendor({"vendor_id": 10, "org_id": 1, "name": "v"})
    w.add_plant(plant(1, 1, 10, "A"))
    barrier, results = threading.Barrier(6), []

    def sync() -> None:
        worker = wm.Woms(Runtime.open(wm.DESIGN, db=db))
        barrier.wait()
        results.append(worker.sync_vendor_alerts(10, "A", VENDOR_ALERTS))

    threads = [threading.Thread(target=sync) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(len(r.created) for r in results) == 2
    assert sum(len(r.duplicates) for r in results) == 10
    assert len(w.rt.run("alerts_by_plant", plant_id=1).items) == 2


def test_the_documents_gsi_check_then_put_lets_duplicates_in():
    """GSI2 begins_with before the put: two syncs that both check before either writes both write."""
    design = load(wm.DESIGN)
    design.entities["Alert"] = dataclasses.replace(design.entities["Alert"], unique=())  # no marker
    w = wm.Woms(Runtime(design))
    w.rt.create_tables()
    w.create_organization(1, "o")
    w.add_vendor({"vendor_id": 10, "org_id": 1, "name": "v"})
    w.add_plant(plant(1, 1, 10, "A"))
    lookup = {"vendor_id": 10, "vendor_plant_id": "A", "vendor_alert_id": "ALERT123"}
    seen_by_sync_1 = w.rt.run("vendor_alert", **lookup).items
    seen_by_sync_2 = w.rt.run("vendor_alert", **lookup).items  # before sync 1 writes
    assert seen_by_sync_1 == seen_by_sync_2 == []
    for _ in (seen_by_sync_1, seen_by_sync_2):
        w.sync_vendor_alerts(10, "A", VENDOR_ALERTS[:1])
    assert len(w.rt.run("vendor_alert", **lookup).items) == 2  # the duplicate the document's check allows


def test_resolve_alert_by_id_and_active_filter(assigned):
    created = assigned.sync_vendor_alerts(10, "A", VENDOR_ALERTS).created
    assigned.resolve_alert(created[0]["alert_id"])
    active = assigned.rt.run("active_alerts_by_plant", plant_id=1).items
    assert [a["vendor_alert_id"] for a in active] == ["ALERT124"]
    with pytest.raises(wm.HierarchyError, match="alert .* does not exist"):
        assigned.resolve_alert("00000000-0000-4000-8000-000000000000")


def test_alert_ttl_is_alert_time_plus_365_days_in_seconds(assigned):
    alert = assigned.sync_vendor_alerts(10, "A", VENDOR_ALERTS[:1]).created[0]
    assert alert["ttl"] == 1736951400 + 365 * 86400  # 2025-01-15T14:30:00Z + 365 days


def test_insolation_keys_by_day_and_ttl_100_days(woms):
    woms.rt.put("Insolation", {"device_id": 1, "measured_at": "2025-01-15T23:59:00Z", "insolation_kwh_m2": 5})
    day = woms.rt.run("insolation_by_date", date="2025-01-15").items
    assert [(r["device_id"], r["date"]) for r in day] == [(1, "2025-01-15")]
    assert day[0]["ttl"] == 1736985540 + 100 * 86400


def test_document_volumes_are_in_the_design():
    design = load(wm.DESIGN)
    assert design.volumes.entities["Alert"].writes_per_second == pytest.approx(35000 / 86400)
    assert design.volumes.entities["Plant"].items == 7000
    assert sum(len(t.indexes) for t in design.tables.values()) == 3 + 4 + 2 + 1 + 4  # not the claimed 17


def test_check_passes():
    result = CliRunner().invoke(check, [str(EXAMPLE)])
    assert result.exit_code == 0, result.output
