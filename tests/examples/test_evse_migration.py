"""examples/evse/migration (ADR-006's legacy tables -> evse-*) under hostile legacy data: the
documented command on a fresh database, malformed rows counted and kept aside, payloads that try to
set derived keys, and two legacy UUIDs sharing one SC-ID."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from boto3.dynamodb.types import TypeSerializer

import tablewright
from tablewright.migrate import load_plan, run_plan

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "evse"
MIGRATION = EXAMPLE / "migration"
if str(MIGRATION) not in sys.path:
    sys.path.insert(0, str(MIGRATION))
import legacy  # noqa: E402
from evse_ids import sc_id  # noqa: E402

# Two real UUIDs whose SHA-256 share the first 4 bytes (SC-2BA1CFF5), as in test_evse.py.
COLLIDING = ("5587535f-04d7-465f-bdd1-31e4fbf70485", "bea35188-63ab-4dfc-b4b6-93c319aa94f3")
NEW_TABLES = ["evse-anomalies", "evse-daily-stats", "evse-device-state", "evse-devices", "evse-events"]
SERIALIZER = TypeSerializer()


def tablewright_command() -> list[str]:
    """The ``tablewright`` console script of this interpreter's environment (as a user types it),
    or the same entry point through the interpreter when the script is not installed."""
    script = Path(sys.executable).with_name("tablewright")
    if script.exists():
        return [str(script)]
    found = shutil.which("tablewright")
    return [found] if found else [sys.executable, "-c", "from tablewright.cli import main; main()"]


def put(client: Any, table: str, item: dict[str, Any]) -> None:
    client.put_item(TableName=table, Item={k: SERIALIZER.serialize(v) for k, v in item.items()})


def scan(client: Any, table: str) -> list[dict[str, Any]]:
    from tablewright.migrate.io import decode

    found, request = [], {"TableName": table}
    while True:
        page = client.scan(**request)
        found += [decode(i) for i in page["Items"]]
        if "LastEvaluatedKey" not in page:
            return found
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def tables(client: Any) -> list[str]:
    return sorted(client.list_tables()["TableNames"])


def run(db: Path, tmp_path: Path):
    return run_plan(tablewright.connect(db), load_plan(MIGRATION / "plan.py"), state=tmp_path / "state.json")


@pytest.fixture
def legacy_db(tmp_path: Path) -> Path:
    path = tmp_path / "legacy.db"
    legacy.load(tablewright.connect(path), seed=7, devices=3, days=2)
    return path


def a_device(client: Any) -> str:
    return next(i["wireless_device_id"] for i in scan(client, legacy.REGISTRY))


# ------------------------------------------------------------------------------------ the documented command
def test_the_documented_command_migrates_a_freshly_loaded_legacy_database(tmp_path: Path) -> None:
    # A copy of the example folder as a user has it after a checkout (whatever files it carries),
    # the legacy data loaded as docs/migrate.md says, then the command exactly as documented.
    shutil.copytree(EXAMPLE, tmp_path / "examples" / "evse", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / ".cache")}
    load = (
        "import sys; sys.path.insert(0, 'examples/evse/migration'); import legacy, tablewright; "
        "legacy.load(tablewright.connect('fresh.db'))"
    )
    subprocess.run([sys.executable, "-c", load], cwd=tmp_path, env=env, check=True)
    command = [*tablewright_command(), "migrate", "examples/evse/migration/plan.py", "--db", "fresh.db"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "already done" not in done.stdout
    client = tablewright.connect(tmp_path / "fresh.db")
    assert [t for t in tables(client) if t.startswith("evse-")] == NEW_TABLES
    source = legacy.generate()
    events = [i for i in source[legacy.EVENTS] if i["timestamp"] not in legacy.SENTINELS]
    assert len(scan(client, "evse-events")) == len(events)
    assert legacy.EVENTS not in tables(client)  # copied, verified, then deleted


def test_no_progress_file_is_kept_in_the_example_folder() -> None:
    # A progress file in the source tree made the documented command skip every step on a new database.
    assert not list(MIGRATION.glob("*.state.json"))


# ------------------------------------------------------------------------------------ malformed rows
def malformed_rows(device: str) -> dict[str, dict[str, Any]]:
    """One legacy row per way of being wrong, by the reason expected for it."""
    event = {"wireless_device_id": device, "type": "telemetry"}
    return {
        "bad_json": {**event, "timestamp": 1762000000001, "data": "{'j1772_state': 'B'"},
        "not_an_object": {**event, "timestamp": 1762000000002, "data": "[1, 2]"},
        "out_of_enum_type": {**event, "timestamp": 1762000000003, "type": "firmware_dump", "data": "{}"},
        "out_of_range": {**event, "timestamp": 1762000000004, "data": '{"current_a": 500}'},
        "derived_key_in_payload": {
            **event,
            "timestamp": 1762000000005,
            "data": json.dumps({"device_id": "SC-00000000", "timestamp_mt": "2000-01-01 00:00:00.000"}),
        },
        "type_in_payload": {**event, "timestamp": 1762000000006, "data": '{"event_type": "interlock"}'},
        "no_data": {**event, "timestamp": 1762000000007},
        # Key instants the new design cannot take: int() would round the fraction into another row's
        # key (or a sentinel's), and no calendar places the year 3,170,843.
        "fraction": {**event, "timestamp": Decimal("1762000000008.5"), "data": "{}"},
        "sentinel_fraction": {**event, "timestamp": Decimal("-1.5"), "status": "success"},
        "far_future": {**event, "timestamp": 10**17, "data": "{}"},
        "before_2000": {**event, "timestamp": 946684799999, "data": "{}"},
    }


def test_malformed_event_rows_are_counted_reported_and_kept_aside(legacy_db: Path, tmp_path: Path) -> None:
    client = tablewright.connect(legacy_db)
    device = a_device(client)
    rows = malformed_rows(device)
    for row in rows.values():
        put(client, legacy.EVENTS, row)

    report = run(legacy_db, tmp_path)

    assert report.ok, json.dumps(report.as_dict(), default=str)[:3000]
    migrated = {e["timestamp"] for e in scan(client, "evse-events")}
    assert not migrated & {r["timestamp"] for r in rows.values()}
    assert all(e["device_id"] == sc_id(e["wireless_device_id"]) for e in scan(client, "evse-events"))
    rejects = {r["source_key"]: r for r in scan(client, f"{legacy.EVENTS}-rejects")}
    assert set(rejects) == {f"{device}#{r['timestamp']}" for r in rows.values()}
    for reason, row in rows.items():
        kept = rejects[f"{device}#{row['timestamp']}"]
        assert kept["item"] == row  # the legacy row as it was: nothing is lost with the legacy table
        assert kept["reason"], reason
    assert "JSON" in rejects[f"{device}#1762000000001"]["reason"]
    assert "current_a" in rejects[f"{device}#1762000000004"]["reason"]
    assert "device_id" in rejects[f"{device}#1762000000005"]["reason"]
    assert "whole number" in rejects[f"{device}#1762000000008.5"]["reason"]
    assert "whole number" in rejects[f"{device}#-1.5"]["reason"]
    assert "timestamp" in rejects[f"{device}#{10**17}"]["reason"]
    assert "timestamp" in rejects[f"{device}#946684799999"]["reason"]
    events_step = next(s for s in report.steps if s["id"] == "events")
    counted = events_step["verification"]["tables"][f"{legacy.EVENTS}-rejects"]["actual"]["count"]
    assert counted == len(rows)


def test_incomplete_or_invalid_sentinels_are_kept_aside(legacy_db: Path, tmp_path: Path) -> None:
    client = tablewright.connect(legacy_db)
    device = a_device(client)
    # An OTA session without its target version, marked complete without a completion time.
    put(client, legacy.EVENTS, {"wireless_device_id": device, "timestamp": -1, "status": "success"})
    # A divergence tracker with a count below zero.
    put(client, legacy.EVENTS, {"wireless_device_id": device, "timestamp": -3, "active": True, "count": -4})

    report = run(legacy_db, tmp_path)

    assert report.ok, json.dumps(report.as_dict(), default=str)[:3000]
    state = next(s for s in scan(client, "evse-device-state") if s["wireless_device_id"] == device)
    assert "ota_status" not in state and "divergence_count" not in state
    rejects = {r["source_key"]: r["reason"] for r in scan(client, f"{legacy.EVENTS}-rejects")}
    assert "ota" in rejects[f"{device}#-1"] and "to_version" in rejects[f"{device}#-1"]
    assert "divergence_count" in rejects[f"{device}#-3"]


def test_malformed_registry_and_aggregate_rows_are_kept_aside(legacy_db: Path, tmp_path: Path) -> None:
    client = tablewright.connect(legacy_db)
    registry, other = scan(client, legacy.REGISTRY)[:2]
    device = registry["wireless_device_id"]
    put(client, legacy.REGISTRY, {**registry, "fw_version": "not a version"})
    aggregate = {"wireless_device_id": other["wireless_device_id"], "date": "2025-11-05", "count": 3}
    put(client, legacy.AGGREGATES, {**aggregate, "by_type": "{broken"})
    complete = next(a for a in scan(client, legacy.AGGREGATES) if a["wireless_device_id"] != device)
    put(client, legacy.AGGREGATES, {**complete, "date": "2025-11-06", "first_ts": 10**17})

    report = run(legacy_db, tmp_path)

    assert report.ok, json.dumps(report.as_dict(), default=str)[:3000]
    assert sc_id(device) not in {d["device_id"] for d in scan(client, "evse-devices")}
    assert [r["source_key"] for r in scan(client, f"{legacy.REGISTRY}-rejects")] == [sc_id(device)]
    kept = {r["source_key"]: r["reason"] for r in scan(client, f"{legacy.AGGREGATES}-rejects")}
    assert "JSON" in kept[f"{other['wireless_device_id']}#2025-11-05"]
    assert "first_ts" in kept[f"{complete['wireless_device_id']}#2025-11-06"]  # a year no calendar places
    # An unregistered device's rows are kept aside too, never written under an unverified SC-ID.
    assert {k for k in kept if k.startswith(device)} and all(
        "not in device-registry" in r for k, r in kept.items() if k.startswith(device)
    )


def test_the_text_report_counts_the_rejected_rows(legacy_db: Path, tmp_path: Path) -> None:
    client = tablewright.connect(legacy_db)
    put(client, legacy.EVENTS, {**malformed_rows(a_device(client))["bad_json"]})
    env = {**os.environ, "HOME": str(tmp_path), "COLUMNS": "400"}
    command = [
        *tablewright_command(),
        "migrate",
        str(MIGRATION / "plan.py"),
        "--db",
        str(legacy_db),
        "--state",
        str(tmp_path / "s.json"),
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(row for row in done.stdout.splitlines() if " events " in row)
    assert f"{legacy.EVENTS}-rejects=1" in line and "evse-events=" in line


# ------------------------------------------------------------------------------------ SC-ID collisions
def test_two_legacy_uuids_with_one_sc_id_stop_the_migration(legacy_db: Path, tmp_path: Path) -> None:
    client = tablewright.connect(legacy_db)
    first, second = COLLIDING
    put(
        client,
        legacy.REGISTRY,
        {
            "device_id": sc_id(first),
            "wireless_device_id": first,
            "name": "First",
            "site": "Denver HQ",
            "fw_version": "1.4.2",
            "registered_at": "2025-06-01T12:00:00Z",
        },
    )
    for uuid, ms in ((first, 1762000000000), (second, 1762000900000)):
        payload = json.dumps({"j1772_state": "B"})
        put(
            client,
            legacy.EVENTS,
            {"wireless_device_id": uuid, "timestamp": ms, "type": "telemetry", "data": payload},
        )

    report = run(legacy_db, tmp_path)

    assert not report.ok
    failed = next(s for s in report.steps if s["status"] == "failed")
    assert sc_id(first) in failed["error"] and first in failed["error"] and second in failed["error"]
    assert second not in {e["wireless_device_id"] for e in scan(client, "evse-events")}
    assert legacy.EVENTS in tables(client)  # nothing deleted: the legacy data is all still there
