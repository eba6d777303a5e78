"""The ADR-006 migration plan on generated legacy data."""

from __future__ import annotations

import json
from pathlib import Path

import tablewright
from tablewright.design import load
from tablewright.migrate import load_plan, run_plan

from .helpers import PLAN, dump, items, legacy

DESIGN = load(PLAN.parent.parent / "design.yaml")


def _run(db: Path, tmp_path: Path, **kwargs):
    return run_plan(
        tablewright.connect(db),
        load_plan(PLAN),
        state=tmp_path / "state.json",
        segments=3,
        page_size=40,
        **kwargs,
    )


def test_plan_migrates_every_legacy_table(legacy_db: Path, tmp_path: Path) -> None:
    source = legacy.generate(seed=7, devices=3, days=2)
    report = _run(legacy_db, tmp_path)
    assert report.ok, json.dumps(report.as_dict(), default=str)[:2000]
    client = tablewright.connect(legacy_db)
    assert sorted(client.list_tables()["TableNames"]) == [
        "daily-aggregates-rejects",  # where rows that cannot be migrated are kept (empty here)
        "device-registry-rejects",
        "evse-anomalies",
        "evse-daily-stats",
        "evse-device-state",
        "evse-devices",
        "evse-events",
        "sidewalk-v1-device_events_v2-rejects",
    ]

    legacy_events = [i for i in source[legacy.EVENTS] if i["timestamp"] not in legacy.SENTINELS]
    events = items(client, "evse-events")
    assert len(events) == len(legacy_events)  # nothing lost, sentinels gone from the log
    assert {e["timestamp"] - e.get("collision_offset_ms", 0) for e in events} == {
        e["timestamp"] for e in legacy_events
    }
    assert all(e["device_id"].startswith("SC-") and len(e["device_id"]) == 11 for e in events)
    # Device 0's precise timer meets its own MDT uplinks in the repeated hour: moved, not lost.
    moved = [e for e in events if "collision_offset_ms" in e]
    assert moved and all(e["collision_offset_ms"] == 1 for e in moved)

    states = items(client, "evse-device-state")
    assert len(states) == 3
    sentinel_kinds = {
        (i["wireless_device_id"], legacy.SENTINELS[i["timestamp"]])
        for i in source[legacy.EVENTS]
        if i["timestamp"] in legacy.SENTINELS
    }
    for state in states:
        kinds = {k for (device, k) in sentinel_kinds if device == state["wireless_device_id"]}
        assert ("ota_status" in state) == ("ota" in kinds)
        assert ("divergence_count" in state) == ("divergence" in kinds)
        assert state["scheduler_state"] in ("active", "paused") and state["version"] == 1

    assert len(items(client, "evse-daily-stats")) == len(source[legacy.AGGREGATES])
    assert {d["firmware_version"] for d in items(client, "evse-devices")} == {"1.4.2"}


def test_migrated_items_satisfy_the_design(legacy_db: Path, tmp_path: Path) -> None:
    assert _run(legacy_db, tmp_path).ok
    client = tablewright.connect(legacy_db)
    for entity in DESIGN.entities.values():
        table = DESIGN.tables[entity.table].table_name
        for item in items(client, table):
            assert entity.validate(item) == [], (entity.name, item)
            assert entity.key(item) == {
                k: item[k] for k in entity.key(item)
            }  # keys recompose from the values


def test_dry_run_changes_nothing(legacy_db: Path, tmp_path: Path) -> None:
    before = dump(tablewright.connect(legacy_db))
    report = _run(legacy_db, tmp_path, dry_run=True)
    assert report.ok and {s["status"] for s in report.steps} == {"preview"}
    assert dump(tablewright.connect(legacy_db)) == before
    assert not (tmp_path / "state.json").exists()
    events = next(s for s in report.steps if s["id"] == "events")
    sentinels = sum(
        1
        for i in legacy.generate(seed=7, devices=3, days=2)[legacy.EVENTS]
        if i["timestamp"] in legacy.SENTINELS
    )
    assert events["writes"]["evse-device-state"]["merges"] == sentinels
    assert events["samples"] and "before" in events["samples"][0] and events["samples"][0]["after"]


def test_second_run_is_a_no_op(legacy_db: Path, tmp_path: Path) -> None:
    assert _run(legacy_db, tmp_path).ok
    after = dump(tablewright.connect(legacy_db))
    again = _run(legacy_db, tmp_path)
    assert {s["status"] for s in again.steps} == {"already done"}
    assert dump(tablewright.connect(legacy_db)) == after
