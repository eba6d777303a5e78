"""Sample data for WOMS with the document's shapes: organizations with 20-50 vendors each, plants per
vendor with production metrics, alerts per plant (a few per day, some resolved, 365-day TTL), work
orders mixing plants of several vendors of their org, one active work order per plant (plus an old,
inactive mapping), and the WMS domain (vendor, sites, devices, daily insolation).

Scale 1 is about 400 items (2 organizations, 20 vendors each, 80 plants). The document's full volume
(7,000 plants, 50 organizations) is ``scale=87.5``; alerts stay at a few per plant.
Edge cases on purpose: a vendor without plants, a plant without alerts, a work order without plants,
two vendors using the same station id (allowed: unique per vendor), two alerts at the same instant,
a work order with a WMS device and one without.
"""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from tablewright.design.templates import fold

BASE = datetime(2025, 1, 15, 14, 30, tzinfo=UTC)  # the document's sample alert time
VENDOR_KINDS = ["solis", "huawei", "sungrow", "growatt", "sma", "other"]
STATUSES = ["NORMAL"] * 7 + ["OFFLINE", "FAULT", "PARTIAL"]
SHARED_STATION = "STATION123"  # the document's example id, used by two vendors of one org


def _rfc3339(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _uuid4(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _dec(rng: random.Random, low: float, high: float, places: int = 2) -> Decimal:
    return Decimal(str(round(rng.uniform(low, high), places)))


def _sizes(scale: float) -> tuple[int, int]:
    """(organizations, plants) for a scale: 2 orgs / 80 plants at 1, 50 / 7,000 at most."""
    return min(50, max(2, round(2 * scale))), min(7000, max(10, round(80 * scale)))


def _config(rng: random.Random, orgs: int) -> dict[str, list[dict]]:
    data: dict[str, list[dict]] = {"Organization": [], "Account": [], "Vendor": []}
    vendor_id = account_id = 0
    for org_id in range(1, orgs + 1):
        data["Organization"].append({"org_id": org_id, "name": f"Solar Org {org_id}"})
        for n in range(3):
            account_id += 1
            data["Account"].append(
                {
                    "account_id": account_id,
                    "org_id": org_id,
                    "email": f"user{account_id}@org{org_id}.example.com",
                    "name": f"User {account_id}",
                    "role": ["admin", "operator", "viewer"][n],
                }
            )
        count = 20 if org_id <= 2 else rng.randint(20, 50)  # "20-50 max per org"
        for slot in range(1, count + 1):
            vendor_id += 1
            vendor = {
                "vendor_id": vendor_id,
                "org_id": org_id,
                "org_slot": slot,
                "name": f"Vendor {vendor_id}",
                "api_kind": rng.choice(VENDOR_KINDS),
            }
            if slot % 4:  # a quarter never fetched a token
                vendor["token_expires_at"] = _rfc3339(BASE + timedelta(hours=rng.randint(-48, 96)))
            data["Vendor"].append(vendor)
    return data


def _plants(rng: random.Random, vendors: list[dict], count: int) -> list[dict]:
    plants = []
    with_plants = vendors[:-1]  # the last vendor has no plants yet
    for plant_id in range(1, count + 1):
        vendor = with_plants[(plant_id - 1) % len(with_plants)]
        capacity = _dec(rng, 5, 2000, 1)
        station = f"ST{rng.randint(100000, 999999)}-{plant_id}"
        if plant_id <= 2:
            station = SHARED_STATION  # plants 1 and 2 have different vendors: both allowed
        plants.append(
            {
                "plant_id": plant_id,
                "org_id": vendor["org_id"],
                "vendor_id": vendor["vendor_id"],
                "vendor_plant_id": station,
                "name": f"Plant {plant_id}",
                "network_status": rng.choice(STATUSES),
                "latitude": _dec(rng, 8, 35, 4),
                "longitude": _dec(rng, 68, 97, 4),
                "capacity_kw": capacity,
                "current_power_kw": _dec(rng, 0, float(capacity) * 0.9),
                "daily_energy_kwh": _dec(rng, 0, float(capacity) * 6),
                "monthly_energy_mwh": _dec(rng, 0, float(capacity) * 0.15, 3),
                "yearly_energy_mwh": _dec(rng, 0, float(capacity) * 1.6, 3),
                "total_energy_mwh": _dec(rng, 0, float(capacity) * 8, 3),
            }
        )
    return plants


def _alerts(rng: random.Random, plants: list[dict]) -> list[dict]:
    alerts = []
    for plant in plants[:-1]:  # the last plant has never alerted
        for n in range(rng.randint(0, 5)):
            at = BASE - timedelta(minutes=rng.randint(0, 30 * 24 * 60))
            alerts.append(
                {
                    "plant_id": plant["plant_id"],
                    "alert_id": _uuid4(rng),
                    "vendor_id": plant["vendor_id"],
                    "vendor_plant_id": plant["vendor_plant_id"],
                    "vendor_alert_id": f"ALERT{plant['plant_id']}{n:02d}",
                    "alert_time": _rfc3339(at),
                    "severity": rng.choice(["INFO", "WARNING", "CRITICAL"]),
                    "status": "RESOLVED" if rng.random() < 0.4 else "ACTIVE",
                    "message": rng.choice(
                        ["Grid fault", "Inverter offline", "Low irradiance", "Overvoltage"]
                    ),
                }
            )
    first = plants[0]  # two alerts of one plant at the same instant: the alert id breaks the tie
    for n in range(2):
        alerts.append(
            {
                "plant_id": first["plant_id"],
                "alert_id": _uuid4(rng),
                "vendor_id": first["vendor_id"],
                "vendor_plant_id": first["vendor_plant_id"],
                "vendor_alert_id": f"ALERT123-{n}",
                "alert_time": _rfc3339(BASE),
                "status": "ACTIVE",
            }
        )
    return alerts


def _work_orders(rng: random.Random, orgs: int, plants: list[dict], devices: list[dict]) -> dict[str, list]:
    orders, mappings = [], []
    wo_id = 0
    for org_id in range(1, orgs + 1):
        own = [p for p in plants if p["org_id"] == org_id]
        rng.shuffle(own)
        org_devices = [d for d in devices if d["org_id"] == org_id]
        for n in range(3):
            wo_id += 1
            order = {"work_order_id": wo_id, "org_id": org_id, "title": f"O&M round {wo_id}"}
            if n == 0 and org_devices:
                order["wms_device_id"] = org_devices[0]["device_id"]
            orders.append(order)
            if n == 2:
                continue  # a work order without plants
            for plant in own[n * 10 : n * 10 + 10]:  # several vendors of the org
                mappings.append(
                    {
                        "work_order_id": wo_id,
                        "plant_id": plant["plant_id"],
                        "org_id": org_id,
                        "vendor_id": plant["vendor_id"],
                        "is_active": True,
                    }
                )
        if len(own) > 20:  # an old, finished assignment: inactive, so no marker
            plant = own[0]
            mappings.append(
                {
                    "work_order_id": wo_id,
                    "plant_id": plant["plant_id"],
                    "org_id": org_id,
                    "vendor_id": plant["vendor_id"],
                }
            )
    return {"WorkOrder": orders, "WorkOrderPlant": mappings}


def _wms(rng: random.Random, orgs: int) -> dict[str, list[dict]]:
    data: dict[str, list[dict]] = {"WmsVendor": [{"wms_vendor_id": 1, "name": "Kipp & Zonen"}], "WmsSite": []}
    data["WmsDevice"], data["Insolation"] = [], []
    device_id = 0
    for org_id in range(1, orgs + 1):
        site = {"wms_site_id": org_id, "wms_vendor_id": 1, "org_id": org_id, "name": f"Met site {org_id}"}
        data["WmsSite"].append(site)
        for _ in range(2):
            device_id += 1
            data["WmsDevice"].append(
                {
                    "device_id": device_id,
                    "wms_site_id": org_id,
                    "wms_vendor_id": 1,
                    "org_id": org_id,
                    "serial": f"PYR-{device_id:05d}",
                }
            )
            for day in range(5):
                data["Insolation"].append(
                    {
                        "device_id": device_id,
                        "measured_at": _rfc3339(BASE.replace(hour=23, minute=59) - timedelta(days=day)),
                        "insolation_kwh_m2": _dec(rng, 2, 7, 3),
                    }
                )
    return data


def generate(seed: int, scale: float) -> dict[str, list[dict]]:
    """Entity name -> values, parents before children (organizations, vendors, plants, ...)."""
    rng = random.Random(seed)
    orgs, plant_count = _sizes(scale)
    config = _config(rng, orgs)
    plants = _plants(rng, config["Vendor"], plant_count)
    wms = _wms(rng, orgs)
    work = _work_orders(rng, orgs, plants, wms["WmsDevice"])
    return {
        "Organization": config["Organization"],
        "Account": config["Account"],
        "Vendor": config["Vendor"],
        **wms,
        "Plant": plants,
        "WorkOrder": work["WorkOrder"],
        "WorkOrderPlant": work["WorkOrderPlant"],
        "Alert": _alerts(rng, plants),
    }


def params(seed: int, scale: float) -> dict[str, list[dict]]:
    """Pattern -> parameter sets: hits, misses, empty results and the document's tricky cases."""
    data = generate(seed, scale)
    plants, alerts = data["Plant"], data["Alert"]
    busiest = max(
        {a["plant_id"] for a in alerts}, key=lambda p: (sum(a["plant_id"] == p for a in alerts), -p)
    )
    quiet = plants[-1]["plant_id"]
    own = sorted(a["alert_time"] for a in alerts if a["plant_id"] == busiest)
    first_alert = alerts[0]
    idle_vendor = data["Vendor"][-1]["vendor_id"]
    mapped = data["WorkOrderPlant"][0]
    return {
        "account_by_email": [
            {"email_key": fold(data["Account"][0]["email"])},
            {"email_key": "nobody@example.com"},
        ],
        "get_work_order": [{"work_order_id": 1}, {"work_order_id": 99999}],
        "work_orders_by_org": [{"org_id": 1}, {"org_id": 99999}],
        "vendors_by_org": [{"org_id": 1}, {"org_id": 2}, {"org_id": 99999}],
        "expiring_vendor_tokens": [
            {"before": "2025-01-15T14:30:00Z"},
            {"before": "2000-01-01T00:00:00Z"},  # none
        ],
        "get_plant": [{"plant_id": 1}, {"plant_id": 99999}],
        # Bare ids (pk and sk both repeat plant_id): request order kept, a repeat read once, a miss
        # skipped; an empty list reads nothing.
        "plants_by_ids": [
            {"plant_ids": [plants[2]["plant_id"], 1, 99999, plants[2]["plant_id"], quiet]},
            {"plant_ids": [99999]},
            {"plant_ids": []},
        ],
        "plants_by_org": [{"org_id": 1}, {"org_id": 99999}],
        "plants_by_vendor": [{"vendor_id": plants[0]["vendor_id"]}, {"vendor_id": idle_vendor}],
        "plant_by_vendor_plant_id": [
            {"vendor_id": plants[0]["vendor_id"], "vendor_plant_id": SHARED_STATION},
            {"vendor_id": plants[1]["vendor_id"], "vendor_plant_id": SHARED_STATION},
            {"vendor_id": idle_vendor, "vendor_plant_id": SHARED_STATION},  # not this vendor's
        ],
        "plants_by_status": [{"network_status": s} for s in ("NORMAL", "FAULT", "PARTIAL")],
        "alerts_by_plant": [{"plant_id": busiest}, {"plant_id": 1}, {"plant_id": quiet}],
        "active_alerts_by_plant": [{"plant_id": busiest}, {"plant_id": quiet}],
        "alerts_by_plant_since": [
            {"plant_id": busiest, "since": own[0]},  # exact boundary: included
            {"plant_id": busiest, "since": own[-1]},
            {"plant_id": busiest, "since": "2030-01-01T00:00:00Z"},
        ],
        "vendor_alert": [
            {k: first_alert[k] for k in ("vendor_id", "vendor_plant_id", "vendor_alert_id")},
            # ALERT1 is a prefix of ALERT10..: begins_with alone would over-match; the '#' stops it
            {
                "vendor_id": first_alert["vendor_id"],
                "vendor_plant_id": first_alert["vendor_plant_id"],
                "vendor_alert_id": "ALERT1",
            },
        ],
        "alert_by_id": [
            {"alert_id": first_alert["alert_id"]},
            {"alert_id": str(uuid.UUID(int=0, version=4))},
        ],
        "work_order_plants": [{"work_order_id": mapped["work_order_id"]}, {"work_order_id": 3}],
        "plant_work_orders": [{"plant_id": mapped["plant_id"]}, {"plant_id": quiet}],
        "wms_devices_by_site": [{"wms_site_id": 1}, {"wms_site_id": 99999}],
        "wms_by_vendor": [{"wms_vendor_id": 1}, {"wms_vendor_id": 2}],
        "wms_by_org": [{"org_id": 1}, {"org_id": 99999}],
        "insolation_by_date": [{"date": "2025-01-15"}, {"date": "2025-01-11"}, {"date": "2024-01-01"}],
    }
