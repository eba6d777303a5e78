"""examples/woms running: the SQL database at the document's scale (3,622 plants) loaded by the
migration's Load steps — killed midway, resumed, verified by the migration and again here row by
row —, the loaded data guarded like data written through the runtime, vendor syncs run
concurrently as processes against a stand-in vendor API and `tablewright serve`, and the
work-order lifecycle (open, close, reopen)."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from decimal import Decimal
from pathlib import Path

import pytest

from tablewright import connect
from tablewright.migrate import load_plan, run_plan
from tablewright.runtime import Runtime

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "woms"
PLAN = EXAMPLE / "migration" / "plan.py"
sys.path.insert(0, str(EXAMPLE))
sys.path.insert(0, str(EXAMPLE / "migration"))
import legacy_sql  # noqa: E402
import sql_transforms as transforms  # noqa: E402
from woms import DESIGN, HierarchyError, PlantAlreadyAssignedError, Woms  # noqa: E402


def tablewright_command(*args: str) -> list[str]:
    return [sys.executable, "-c", "from tablewright.cli import main; main()", *args]


def sql_rows(path: Path, table: str) -> list[dict]:
    with closing(sqlite3.connect(path)) as db:
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute(f"SELECT * FROM {table}")]


def state_of(path: Path) -> dict:
    try:
        return json.loads(path.read_text())["steps"]
    except (OSError, ValueError, KeyError):
        return {}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """The SQL load at full plant scale, killed while loading alerts and resumed."""
    folder = tmp_path_factory.mktemp("woms-load")
    sql, db, state = folder / "woms.sqlite", folder / "woms.db", folder / "state.json"
    counts = legacy_sql.create(sql, plants=3622, alerts_per_plant=1)
    env = {**os.environ, "WOMS_SQL": str(sql)}
    command = tablewright_command(
        "migrate", str(PLAN), "--db", str(db), "--state", str(state), "--page-size", "100"
    )
    first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=folder)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and first.poll() is None:
        alerts = state_of(state).get("load:alerts", {})
        if alerts.get("cursors", {}).get("0", {}).get("written", 0) > 0:
            first.send_signal(signal.SIGKILL)
            break
        time.sleep(0.02)
    first.wait(timeout=30)
    killed = state_of(state)
    second = subprocess.run(command, env=env, capture_output=True, text=True, cwd=folder, timeout=600)
    return {
        "sql": sql,
        "db": db,
        "counts": counts,
        "killed": killed,
        "first": first,
        "second": second,
        "state": state,
    }


@pytest.mark.slow  # the document's 3,622 plants, loaded, killed, resumed
def test_the_load_was_killed_midway_and_the_rerun_finished_it(loaded):
    assert loaded["first"].returncode == -signal.SIGKILL
    killed = loaded["killed"]
    assert killed["load:plants"]["status"] == "done"  # finished steps are not redone
    assert killed["load:alerts"].get("status") is None  # killed inside the alerts load
    assert killed["load:alerts"]["cursors"]["0"]["written"] > 0
    second = loaded["second"]
    assert second.returncode == 0, second.stdout + second.stderr
    assert "already done" in second.stdout
    final = state_of(loaded["state"])
    assert all(final[f"load:{t}"]["status"] == "done" for t in ("plants", "alerts", "work_order_plants"))
    verification = final["load:alerts"]["result"]["verification"]
    assert verification["ok"] and verification["rows"] == loaded["counts"]["alerts"]
    assert verification["missing"] == verification["different"] == 0


@pytest.fixture(scope="module")
def rt(loaded):
    return Runtime.open(DESIGN, db=loaded["db"])


@pytest.mark.slow  # the document's 3,622 plants, loaded, killed, resumed
def test_every_sql_row_is_in_the_tables_row_by_row(loaded, rt):
    plants = sql_rows(loaded["sql"], "plants")
    assert len(plants) == 3622
    for row in plants:
        stored = rt.get("Plant", plant_id=row["id"])
        assert stored is not None, row["id"]
        assert (
            stored["vendor_plant_id"] == row["vendor_plant_id"]
            and stored["network_status"] == row["network_status"].upper()
        )
        for column in ("capacity_kw", "latitude", "current_power_kw", "total_energy_mwh"):
            if row[column] is not None:
                assert stored[column] == Decimal(repr(row[column])), (row["id"], column)
    for row in sql_rows(loaded["sql"], "alerts"):
        stored = rt.get(
            "Alert",
            plant_id=row["plant_id"],
            alert_time=transforms.rfc3339(row["alert_time"]),
            alert_id=transforms.alert_id(row["id"]),
        )
        assert stored is not None and stored["vendor_alert_id"] == row["vendor_alert_id"], row["id"]
        assert stored["status"] == row["status"].upper()
    for row in sql_rows(loaded["sql"], "work_order_plants"):
        mapping = rt.get("WorkOrderPlant", work_order_id=row["work_order_id"], plant_id=row["plant_id"])
        assert bool(mapping.get("is_active")) == bool(row["is_active"])
    for row in sql_rows(loaded["sql"], "accounts"):
        assert rt.get("Account", account_id=row["id"])["email_key"] == row["email"].lower()


@pytest.mark.slow  # the document's 3,622 plants, loaded, killed, resumed
def test_loaded_data_is_guarded_like_runtime_data(loaded, rt):
    woms = Woms(rt)
    row = sql_rows(loaded["sql"], "alerts")[0]
    station = rt.get("Plant", plant_id=row["plant_id"])["vendor_plant_id"]
    again = woms.sync_vendor_alerts(
        row["vendor_id"],
        station,
        [{"vendor_alert_id": row["vendor_alert_id"], "alert_time": "2025-01-15T14:30:00Z"}],
    )
    assert again.created == [] and again.duplicates == [row["vendor_alert_id"]]
    active = next(r for r in sql_rows(loaded["sql"], "work_order_plants") if r["is_active"])
    order = rt.get("WorkOrder", work_order_id=active["work_order_id"])
    other = next(
        o["id"]
        for o in sql_rows(loaded["sql"], "work_orders")
        if o["org_id"] == order["org_id"] and o["id"] != order["work_order_id"] and o["status"] != "closed"
    )
    with pytest.raises(PlantAlreadyAssignedError):
        woms.assign_plant(other, active["plant_id"])
    taken = sql_rows(loaded["sql"], "accounts")[0]
    with pytest.raises(Exception, match="already used"):
        woms.create_account({"account_id": 999, "org_id": taken["org_id"], "email": taken["email"].upper()})


def test_a_row_the_design_refuses_stops_the_load_by_name(tmp_path, monkeypatch):
    sql = tmp_path / "bad.sqlite"
    legacy_sql.create(sql, plants=40, alerts_per_plant=0)
    with closing(sqlite3.connect(sql)) as db:
        db.execute("UPDATE plants SET latitude = 95.5 WHERE id = 17")
        db.commit()
    monkeypatch.setenv("WOMS_SQL", str(sql))
    report = run_plan(connect(tmp_path / "bad.db"), load_plan(PLAN), state=tmp_path / "s.json")
    failed = report.steps[-1]
    assert failed["id"] == "load:plants" and failed["status"] == "failed"
    assert "latitude" in failed["error"] and "95.5" in failed["error"]


def test_two_accounts_with_one_folded_address_stop_the_load_by_name(tmp_path, monkeypatch):
    # The SQL index is on lower(email): "Straße" and "STRASSE" are two accounts there, one address in
    # the design (case-folded), so they would share one unique marker.
    sql = tmp_path / "twins.sqlite"
    legacy_sql.create(sql, plants=12, alerts_per_plant=0)
    with closing(sqlite3.connect(sql)) as db:
        first, second = [i for (i,) in db.execute("SELECT id FROM accounts ORDER BY id LIMIT 2")]
        db.execute("UPDATE accounts SET email = 'Straße@example.org' WHERE id = ?", (first,))
        db.execute("UPDATE accounts SET email = 'STRASSE@example.org' WHERE id = ?", (second,))
        db.commit()
    monkeypatch.setenv("WOMS_SQL", str(sql))
    report = run_plan(connect(tmp_path / "twins.db"), load_plan(PLAN), state=tmp_path / "s.json")
    failed = report.steps[-1]
    assert failed["id"] == "load:accounts" and failed["status"] == "failed"
    named = f"accounts {first} ('Straße@example.org') and {second} ('STRASSE@example.org')"
    assert named in failed["error"] and "'strasse@example.org'" in failed["error"]


# ------------------------------------------------------------------------------------ vendor sync
def start(command: list[str], pattern: str, cwd: Path) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    for _ in range(20):  # bounded: the first lines say where it listens
        line = process.stdout.readline()
        found = re.search(pattern, line)
        if found:
            return process, found.group(1)
        if not line:
            break
    process.kill()
    raise AssertionError(f"{command[:3]} did not start: {process.stderr.read()}")


def _migrated(tmp_path: Path, monkeypatch, **scale: int) -> Path:
    """A legacy SQL database of ``scale`` migrated into ``tmp_path/woms.db``; the SQL file."""
    sql = tmp_path / "small.sqlite"
    legacy_sql.create(sql, **scale)
    monkeypatch.setenv("WOMS_SQL", str(sql))
    assert run_plan(connect(tmp_path / "woms.db"), load_plan(PLAN), state=tmp_path / "s.json").ok
    return sql


def test_concurrent_vendor_syncs_store_each_alert_and_plant_once(tmp_path, monkeypatch):
    sql = _migrated(tmp_path, monkeypatch, plants=120, alerts_per_plant=2)
    plants = sql_rows(sql, "plants")
    vendor_id = max({p["vendor_id"] for p in plants}, key=lambda v: sum(p["vendor_id"] == v for p in plants))
    mine = [p for p in plants if p["vendor_id"] == vendor_id]
    loaded_alerts = [a for a in sql_rows(sql, "alerts") if a["vendor_id"] == vendor_id]
    stations = [
        {
            "vendor_plant_id": p["vendor_plant_id"],
            "name": p["name"],
            "network_status": "FAULT",
            "capacity_kw": 10,
        }
        for p in mine
    ]
    stations += [
        {
            "vendor_plant_id": f"NEW-{n}",
            "name": f"New plant {n}",
            "network_status": "NORMAL",
            "capacity_kw": 50,
        }
        for n in range(2)
    ]
    feed: dict[str, list[dict]] = {}
    for alert in loaded_alerts:  # already in WOMS: duplicates for every run
        station = next(p["vendor_plant_id"] for p in mine if p["id"] == alert["plant_id"])
        feed.setdefault(station, []).append(
            {"vendor_alert_id": alert["vendor_alert_id"], "alert_time": "2025-01-15T14:30:00.250+02:00"}
        )
    new_alerts = 0
    for station in stations:
        for n in range(3):
            feed.setdefault(station["vendor_plant_id"], []).append(
                {
                    "vendor_alert_id": f"V-{station['vendor_plant_id']}-{n}",
                    "alert_time": f"2025-01-16T0{n}:00:00Z",
                    "severity": "CRITICAL",
                }
            )
            new_alerts += 1
    (tmp_path / "vendor.json").write_text(json.dumps({str(vendor_id): {"plants": stations, "alerts": feed}}))
    api, api_url = start(
        [sys.executable, str(EXAMPLE / "vendor_api.py"), "--data", "vendor.json", "--port", "0"],
        r"listening on (\S+)",
        tmp_path,
    )
    serve, endpoint = start(
        tablewright_command("serve", "--db", str(tmp_path / "woms.db"), "--port", "0"),
        r"DynamoDB API at (\S+)",
        tmp_path,
    )
    try:
        command = [
            sys.executable,
            str(EXAMPLE / "sync.py"),
            "--endpoint",
            endpoint,
            "--vendor-id",
            str(vendor_id),
            "--vendor-url",
            api_url,
        ]
        runs = [
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(3)
        ]
        outputs = [run.communicate(timeout=300) for run in runs]
        assert all(run.returncode == 0 for run in runs), outputs
        summaries = [
            re.search(r"plants \+(\d+) ~\d+, alerts \+(\d+) =(\d+)", out).groups() for out, _ in outputs
        ]
        assert sum(int(s[0]) for s in summaries) == 2  # each new station added by exactly one run
        assert sum(int(s[1]) for s in summaries) == new_alerts  # each new alert created by exactly one run
        rt = Runtime.open(DESIGN, endpoint_url=endpoint)
        woms = Woms(rt)
        for station in stations:
            plant = woms.plant_for(vendor_id, station["vendor_plant_id"])
            assert plant["network_status"] == station["network_status"]
            ids = [a["vendor_alert_id"] for a in rt.run("alerts_by_plant", plant_id=plant["plant_id"]).items]
            assert sorted(ids) == sorted({a["vendor_alert_id"] for a in feed[station["vendor_plant_id"]]})
    finally:
        for process in (api, serve):
            process.terminate()
            process.wait(timeout=10)


# ------------------------------------------------------------------------------------ lifecycle
def test_work_order_lifecycle_open_close_reopen():
    woms = Woms.open()
    woms.create_organization(1, "Org")
    woms.add_vendor({"vendor_id": 1, "org_id": 1, "name": "V"})
    for plant_id in (1, 2):
        woms.add_plant(
            {
                "plant_id": plant_id,
                "org_id": 1,
                "vendor_id": 1,
                "vendor_plant_id": f"S{plant_id}",
                "name": "P",
                "network_status": "NORMAL",
                "capacity_kw": 5,
            }
        )
    assert woms.create_work_order({"work_order_id": 10, "org_id": 1, "title": "Round"})["status"] == "OPEN"
    woms.create_work_order({"work_order_id": 11, "org_id": 1, "title": "Other"})
    woms.assign_plant(10, 1)
    woms.assign_plant(10, 2)
    with pytest.raises(HierarchyError, match="not CLOSED"):
        woms.reopen_work_order(10)
    assert woms.close_work_order(10)["status"] == "CLOSED"
    assert woms.active_work_order(1) is None and sorted(woms.released_plants(10)) == [1, 2]
    woms.assign_plant(11, 1)  # released by the close: free for another order
    reopened = woms.reopen_work_order(10)
    assert reopened["status"] == "OPEN"
    assert woms.active_work_order(2) is None  # reopening takes nothing back by itself
    woms.assign_plant(10, 2)
    with pytest.raises(PlantAlreadyAssignedError):
        woms.assign_plant(10, 1)  # now in work order 11
    assert woms.work_order_metrics(10).plants == 1
    with pytest.raises(HierarchyError):
        woms.reopen_work_order(99)


def test_a_sync_skips_the_stations_a_vendor_describes_wrongly_and_syncs_the_rest(tmp_path, monkeypatch):
    sql = _migrated(tmp_path, monkeypatch, plants=12, alerts_per_plant=0)
    plants = sql_rows(sql, "plants")
    vendor_id = plants[0]["vendor_id"]
    known = next(p["vendor_plant_id"] for p in plants if p["vendor_id"] == vendor_id)
    odd = "ST1/../ST2?x="  # must name no other resource of the vendor's API
    stations = [
        {"vendor_plant_id": known, "capacity_kw": 1143.3},  # a decimal: stored exactly, not refused
        {"name": "no id"},
        "not a station",
        {"vendor_plant_id": "LOWER", "name": "x", "network_status": "offline"},  # the design says OFFLINE
        {"vendor_plant_id": odd, "name": "Odd id", "network_status": "NORMAL", "capacity_kw": 5},
    ]
    alert = {"vendor_alert_id": "A1", "alert_time": "9999-12-31T23:59:59-01:00", "severity": "CRITICAL"}
    feed = {odd: [{"vendor_alert_id": "A2", "alert_time": "2025-01-16T00:00:00Z", "severity": "CRITICAL"}]}
    feed[known] = [alert]  # a time past year 9999 in UTC
    (tmp_path / "vendor.json").write_text(json.dumps({str(vendor_id): {"plants": stations, "alerts": feed}}))
    api, api_url = start(
        [sys.executable, str(EXAMPLE / "vendor_api.py"), "--data", "vendor.json", "--port", "0"],
        r"listening on (\S+)",
        tmp_path,
    )
    try:
        command = [sys.executable, str(EXAMPLE / "sync.py"), "--db", str(tmp_path / "woms.db")]
        command += ["--vendor-id", str(vendor_id), "--vendor-url", api_url]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    finally:
        api.terminate()
        api.wait(timeout=10)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    problems = result.stderr.splitlines()
    assert any(line.startswith("woms sync: station [1]: no vendor_plant_id") for line in problems)
    assert any(line.startswith("woms sync: station [2]: no vendor_plant_id") for line in problems)
    assert any("station LOWER:" in line and "offline" in line for line in problems), problems
    assert any(f"station {known}:" in line and "alert_time" in line for line in problems), problems
    woms = Woms(Runtime.open(DESIGN, db=tmp_path / "woms.db"))
    assert woms.plant_for(vendor_id, known)["capacity_kw"] == Decimal("1143.3")
    plant = woms.plant_for(vendor_id, odd)
    assert plant is not None, result.stderr
    ids = [a["vendor_alert_id"] for a in woms.rt.run("alerts_by_plant", plant_id=plant["plant_id"]).items]
    assert ids == ["A2"] and woms.plant_for(vendor_id, "LOWER") is None
