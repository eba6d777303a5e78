"""The WOMS SQL database this example migrates from, generated into SQLite at the document's scale.

    python examples/woms/migration/legacy_sql.py woms.sqlite [--plants 3622] [--alerts-per-plant 3]

The document analyses an SQL schema without printing it; this is one with the tables, columns,
constraints and indexes it names (``idx_plants_org_id``, ``idx_alerts_vendor_alert_device``, the
unique ``(vendor_id, vendor_plant_id)``, one active work order per plant) and the volumes it states:
3,622 plants loaded (of 7,000 max), 24 organisations (10-50), ~60 accounts (30-100), 150 vendors
(50-200, at most 50 per organisation), 300 work orders (100-500), alerts of the last 30 days.
SQL spellings differ from the design on purpose, as real ones do: lower-case enums, ``is_active``
as 0/1, timestamps as ``YYYY-MM-DD HH:MM:SS[.ffffff]+00`` text, REAL metrics, NULLs.
Deterministic for a seed and a day (alerts are dated back from ``--today`` so their 365-day TTL
lies ahead).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from tablewright.cli.errors import ENVIRONMENT, CommandError, reported

PROGRAM = "legacy_sql.py"

SCHEMA = """
CREATE TABLE organizations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE accounts (id INTEGER PRIMARY KEY, org_id INTEGER NOT NULL REFERENCES organizations(id),
  email TEXT NOT NULL, name TEXT, role TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE UNIQUE INDEX idx_accounts_email ON accounts (lower(email));
CREATE TABLE vendors (id INTEGER PRIMARY KEY, org_id INTEGER NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL, api_kind TEXT, token_expires_at TEXT, created_at TEXT NOT NULL);
CREATE INDEX idx_vendors_org_id ON vendors (org_id);
CREATE TABLE plants (id INTEGER PRIMARY KEY, org_id INTEGER NOT NULL REFERENCES organizations(id),
  vendor_id INTEGER NOT NULL REFERENCES vendors(id), vendor_plant_id TEXT NOT NULL, name TEXT NOT NULL,
  network_status TEXT NOT NULL, latitude REAL, longitude REAL, capacity_kw REAL NOT NULL,
  current_power_kw REAL, daily_energy_kwh REAL, monthly_energy_mwh REAL, yearly_energy_mwh REAL,
  total_energy_mwh REAL, updated_at TEXT NOT NULL, UNIQUE (vendor_id, vendor_plant_id));
CREATE INDEX idx_plants_org_id ON plants (org_id);
CREATE INDEX idx_plants_vendor_id ON plants (vendor_id);
CREATE TABLE work_orders (id INTEGER PRIMARY KEY, org_id INTEGER NOT NULL REFERENCES organizations(id),
  title TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX idx_work_orders_org_id ON work_orders (org_id);
CREATE TABLE work_order_plants (work_order_id INTEGER NOT NULL REFERENCES work_orders(id),
  plant_id INTEGER NOT NULL REFERENCES plants(id), is_active INTEGER NOT NULL, assigned_at TEXT NOT NULL,
  PRIMARY KEY (work_order_id, plant_id));
CREATE UNIQUE INDEX idx_wop_one_active ON work_order_plants (plant_id) WHERE is_active = 1;
CREATE TABLE alerts (id INTEGER PRIMARY KEY, plant_id INTEGER NOT NULL REFERENCES plants(id),
  vendor_id INTEGER NOT NULL REFERENCES vendors(id), vendor_alert_id TEXT NOT NULL, device_sn TEXT,
  alert_time TEXT NOT NULL, severity TEXT, status TEXT NOT NULL, message TEXT);
CREATE INDEX idx_alerts_plant_id ON alerts (plant_id);
CREATE UNIQUE INDEX idx_alerts_vendor_alert_device ON alerts (vendor_id, plant_id, vendor_alert_id);
"""
KINDS = ["solis", "huawei", "sungrow", "growatt", "sma", None]
STATUSES = ["normal"] * 7 + ["offline", "fault", "partial"]
MESSAGES = ["Inverter offline", "Grid overvoltage", "String current low", "Communication lost", None]


def _sql_time(moment: datetime, rng: random.Random | None = None) -> str:
    fraction = f".{rng.randint(0, 999999):06d}" if rng is not None and rng.random() < 0.5 else ""
    return moment.strftime("%Y-%m-%d %H:%M:%S") + fraction + "+00"


def create(
    path: str | Path,
    *,
    seed: int = 7,
    plants: int = 3622,
    alerts_per_plant: int = 3,
    today: date | None = None,
) -> dict[str, int]:
    """Write the database (replacing ``path``); returns rows per table."""
    rng = random.Random(f"woms-sql:{seed}")
    day = today or datetime.now(UTC).date()
    now = datetime(day.year, day.month, day.day, tzinfo=UTC)
    Path(path).unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    orgs, vendors_per_org = 24, [rng.randint(2, 10) for _ in range(24)]
    rows: dict[str, list[tuple]] = {
        t: []
        for t in (
            "organizations",
            "accounts",
            "vendors",
            "plants",
            "work_orders",
            "work_order_plants",
            "alerts",
        )
    }
    long_ago = now - timedelta(days=900)
    for org in range(1, orgs + 1):
        rows["organizations"].append((org, f"Solar Org {org:02d}", _sql_time(long_ago + timedelta(days=org))))
    for account in range(1, 61):
        org = (account - 1) % orgs + 1
        email = (
            f"User.{account}@Org{org}.example.com"
            if account % 7 == 0
            else f"user{account}@org{org}.example.com"
        )
        rows["accounts"].append(
            (
                account,
                org,
                email,
                f"User {account}" if account % 5 else None,
                ["admin", "operator", "viewer"][account % 3],
                _sql_time(long_ago + timedelta(days=30 + account), rng),
            )
        )
    vendor_id = 0
    org_vendors: dict[int, list[int]] = {}
    for org in range(1, orgs + 1):
        for _ in range(vendors_per_org[org - 1] + (rng.randint(0, 2) if org % 2 else 0)):
            vendor_id += 1
            if vendor_id > 150:
                break
            expires = _sql_time(now + timedelta(hours=rng.randint(-48, 96))) if rng.random() < 0.75 else None
            rows["vendors"].append(
                (
                    vendor_id,
                    org,
                    f"Vendor {vendor_id}",
                    rng.choice(KINDS),
                    expires,
                    _sql_time(long_ago + timedelta(days=60)),
                )
            )
            org_vendors.setdefault(org, []).append(vendor_id)
    vendor_org = {v: o for o, vs in org_vendors.items() for v in vs}
    all_vendors = sorted(vendor_org)
    for plant in range(1, plants + 1):
        vendor = all_vendors[rng.randrange(len(all_vendors))]
        capacity = round(rng.uniform(5, 2000), 1)
        power = round(rng.uniform(0, capacity), 2) if rng.random() < 0.9 else None
        rows["plants"].append(
            (
                plant,
                vendor_org[vendor],
                vendor,
                f"ST{vendor:03d}{plant:05d}",
                f"Plant {plant}",
                rng.choice(STATUSES),
                round(rng.uniform(-40, 60), 6) if plant % 11 else None,
                round(rng.uniform(-120, 150), 6) if plant % 11 else None,
                capacity,
                power,
                round(rng.uniform(0, capacity * 8), 3),
                round(rng.uniform(0, capacity * 0.2), 3),
                round(rng.uniform(0, capacity * 2), 3),
                round(rng.uniform(0, capacity * 10), 3),
                _sql_time(now - timedelta(minutes=rng.randint(1, 600)), rng),
            )
        )
    plants_of_org: dict[int, list[int]] = {}
    for plant in rows["plants"]:
        plants_of_org.setdefault(plant[1], []).append(plant[0])
    taken: set[int] = set()
    for order in range(1, 301):
        org = (order - 1) % orgs + 1
        status = rng.choice(["open", "in_progress", "closed", "open"])
        rows["work_orders"].append(
            (
                order,
                org,
                f"Maintenance round {order}",
                status,
                _sql_time(now - timedelta(days=rng.randint(1, 200))),
            )
        )
        candidates = plants_of_org.get(org, [])
        for plant in rng.sample(candidates, min(len(candidates), rng.randint(0, 12))):
            active = status != "closed" and plant not in taken
            taken |= {plant} if active else set()
            rows["work_order_plants"].append(
                (order, plant, 1 if active else 0, _sql_time(now - timedelta(days=rng.randint(0, 30))))
            )
    alert = 0
    for plant in rows["plants"]:
        for n in range(rng.randint(0, 2 * alerts_per_plant)):
            alert += 1
            at = now - timedelta(seconds=rng.randint(60, 30 * 86400))
            rows["alerts"].append(
                (
                    alert,
                    plant[0],
                    plant[2],
                    f"A{plant[0]}-{n:03d}",
                    f"SN{plant[0]:06d}",
                    _sql_time(at, rng),
                    rng.choice(["info", "warning", "critical", None]),
                    rng.choice(["active", "active", "resolved"]),
                    rng.choice(MESSAGES),
                )
            )
    for table, values in rows.items():
        if values:
            db.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(values[0]))})", values)
    db.commit()
    db.close()
    return {table: len(values) for table, values in rows.items()}


def _count(text: str) -> int:
    """A command-line count: a whole number from 0 to 1,000,000 (stray spaces and ``_`` allowed)."""
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"{value} is not between 0 and 1,000,000")
    return value


@reported(PROGRAM)
def main() -> int:
    parser = argparse.ArgumentParser(prog=PROGRAM, description="Generate the WOMS SQL database (SQLite)")
    parser.add_argument("path")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--plants", type=_count, default=3622)
    parser.add_argument("--alerts-per-plant", type=_count, default=3)
    args = parser.parse_args()
    target = Path(args.path)
    if not target.parent.is_dir():
        raise CommandError(f"{target}: the folder {target.parent} does not exist")
    if target.is_dir():
        raise CommandError(f"{target} is a folder; name the database file to write")
    try:
        counts = create(target, seed=args.seed, plants=args.plants, alerts_per_plant=args.alerts_per_plant)
    except sqlite3.Error as error:  # a read-only folder, a full disk
        raise CommandError(f"{target}: could not write the database ({error})", ENVIRONMENT) from None
    print(", ".join(f"{table}={count}" for table, count in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
