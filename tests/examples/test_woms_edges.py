"""examples/woms at its edges: creates that land on an existing id, closing a work order, email
case, alert time precision and deleting a plant that work orders map."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tablewright.runtime import ConflictError, RuntimeFailure, UniquenessError, ValidationError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "woms"
sys.path.insert(0, str(EXAMPLE))
import woms as wm  # noqa: E402

SECONDS = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"


def plant(plant_id: int, org_id: int, vendor_id: int, station: str) -> dict:
    return {
        "plant_id": plant_id,
        "org_id": org_id,
        "vendor_id": vendor_id,
        "vendor_plant_id": station,
        "name": f"Plant {plant_id}",
        "network_status": "NORMAL",
        "capacity_kw": 100,
    }


@pytest.fixture
def woms() -> wm.Woms:
    w = wm.Woms.open()
    w.create_organization(1, "Org 1")
    w.add_vendor({"vendor_id": 10, "org_id": 1, "name": "Vendor 10"})
    w.add_plant(plant(1, 1, 10, "A"))
    w.add_plant(plant(2, 1, 10, "B"))
    w.create_work_order({"work_order_id": 1, "org_id": 1, "title": "round 1"})
    w.create_work_order({"work_order_id": 2, "org_id": 1, "title": "round 2"})
    return w


# ------------------------------------------------------------------------------------ creates
def test_creating_an_organization_with_an_existing_id_fails(woms):
    with pytest.raises(ConflictError):
        woms.create_organization(1, "Impostor")
    assert woms.rt.get("Organization", org_id=1)["name"] == "Org 1"


def test_adding_a_vendor_with_an_existing_id_fails(woms):
    with pytest.raises(ConflictError):
        woms.add_vendor({"vendor_id": 10, "org_id": 1, "name": "Impostor"})
    assert woms.rt.get("Vendor", vendor_id=10)["name"] == "Vendor 10"
    assert len(list(woms.rt.run("vendors_by_org", org_id=1))) == 1  # no second slot taken either


def test_adding_a_plant_with_an_existing_id_fails(woms):
    with pytest.raises(ConflictError):
        woms.add_plant(plant(1, 1, 10, "Z"))
    assert woms.rt.get("Plant", plant_id=1)["vendor_plant_id"] == "A"
    woms.add_plant(plant(3, 1, 10, "Z"))  # the refused create claimed no station id


def test_creating_a_work_order_with_an_existing_id_fails(woms):
    woms.assign_plant(1, 1)
    with pytest.raises(ConflictError):
        woms.create_work_order({"work_order_id": 1, "org_id": 1, "title": "overwrite"})
    order = woms.rt.get("WorkOrder", work_order_id=1)
    assert order["title"] == "round 1" and woms.work_order_metrics(1).plants == 1


# ------------------------------------------------------------------------------------ work orders
def test_closing_a_work_order_releases_its_plants(woms):
    woms.assign_plant(1, 1)
    woms.assign_plant(1, 2)
    closed = woms.close_work_order(1)
    assert closed["status"] == "CLOSED"
    assert woms.active_work_order(1) is None and woms.active_work_order(2) is None
    assert woms.work_order_metrics(1).plants == 0
    assert {m["plant_id"] for m in woms.rt.run("work_order_plants", work_order_id=1)} == {1, 2}  # history
    woms.assign_plant(2, 1)  # free for another work order
    with pytest.raises(wm.HierarchyError, match="CLOSED"):
        woms.assign_plant(1, 2)  # a closed work order takes no plants


# ------------------------------------------------------------------------------------ accounts
def test_email_uniqueness_ignores_case(woms):
    woms.create_account({"account_id": 1, "org_id": 1, "email": "Ann.Lee@Example.com"})
    with pytest.raises(UniquenessError):
        woms.create_account({"account_id": 2, "org_id": 1, "email": "ann.lee@example.COM"})
    with pytest.raises(UniquenessError):
        woms.rt.put("Account", {"account_id": 3, "org_id": 1, "email": "ANN.LEE@EXAMPLE.COM"})
    found = woms.account_by_email("ann.lee@EXAMPLE.com")
    assert found is not None and found["account_id"] == 1 and found["email"] == "Ann.Lee@Example.com"
    assert woms.account_by_email("bob@example.com") is None


def test_email_uniqueness_ignores_unicode_spelling_and_case_folding(woms):
    composed, decomposed = "Jos\u00e9@example.com", "Jose\u0301@example.com"  # é as one or two characters
    woms.create_account({"account_id": 1, "org_id": 1, "email": composed})
    with pytest.raises(UniquenessError):
        woms.create_account({"account_id": 2, "org_id": 1, "email": decomposed.upper()})
    found = woms.account_by_email(decomposed)
    assert found is not None and found["account_id"] == 1 and found["email"] == composed
    woms.create_account({"account_id": 3, "org_id": 1, "email": "stra\u00dfe@example.de"})  # ß
    with pytest.raises(UniquenessError):
        woms.create_account({"account_id": 4, "org_id": 1, "email": "STRASSE@example.de"})
    assert woms.account_by_email("Strasse@Example.DE")["account_id"] == 3


# ------------------------------------------------------------------------------------ alerts
def test_alert_times_have_one_precision_whatever_the_vendor_sends(woms):
    sent = {
        "a1": "2025-01-15T14:30:00.500Z",
        "a2": "2025-01-15T15:30:00+01:00",  # 14:30:00Z in another spelling
        "a3": "2025-01-15T14:29:59.999999Z",
        "a4": "2025-01-15t14:31:00z",
    }
    result = woms.sync_vendor_alerts(
        10, "A", [{"vendor_alert_id": k, "alert_time": v} for k, v in sent.items()]
    )
    stored = {a["vendor_alert_id"]: a["alert_time"] for a in result.created}
    assert stored == {
        "a1": "2025-01-15T14:30:00Z",
        "a2": "2025-01-15T14:30:00Z",
        "a3": "2025-01-15T14:29:59Z",
        "a4": "2025-01-15T14:31:00Z",
    }
    since = list(woms.rt.run("alerts_by_plant_since", plant_id=1, since="2025-01-15T14:30:00Z"))
    assert {a["vendor_alert_id"] for a in since} == {"a1", "a2", "a4"}
    with pytest.raises(ValidationError, match="alert_time"):
        woms.rt.put(
            "Alert",
            {
                "plant_id": 1,
                "alert_id": "8a0c1b1e-4f3d-4b59-9a8e-2d6f1c3b5a79",
                "vendor_id": 10,
                "vendor_plant_id": "A",
                "vendor_alert_id": "a9",
                "alert_time": "2025-01-15T14:30:00.250Z",
            },
        )


def test_an_unreadable_alert_time_names_the_alert(woms):
    with pytest.raises(ValidationError, match="alert_time"):
        woms.sync_vendor_alerts(10, "A", [{"vendor_alert_id": "x", "alert_time": "yesterday"}])


# ------------------------------------------------------------------------------------ deleting plants
def test_deleting_a_plant_in_an_active_work_order_is_refused(woms):
    woms.assign_plant(1, 1)
    with pytest.raises(wm.PlantAlreadyAssignedError, match="work order 1"):
        woms.delete_plant(1)
    assert woms.rt.get("Plant", plant_id=1) is not None and woms.active_work_order(1) == 1


def test_deleting_a_released_plant_removes_its_mappings_and_frees_its_station_id(woms):
    woms.assign_plant(1, 1)
    woms.release_plant(1, 1)
    woms.assign_plant(2, 1)
    woms.release_plant(2, 1)
    woms.delete_plant(1)
    assert woms.rt.get("Plant", plant_id=1) is None
    assert list(woms.rt.run("plant_work_orders", plant_id=1)) == []
    assert [m["plant_id"] for m in woms.rt.run("work_order_plants", work_order_id=1)] == []
    woms.add_plant(plant(5, 1, 10, "A"))  # the station id is free again
    assert woms.plant_for(10, "A")["plant_id"] == 5


def test_deleting_an_unknown_plant_says_so(woms):
    with pytest.raises(RuntimeFailure, match="99"):
        woms.delete_plant(99)
