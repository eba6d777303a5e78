"""CreateTable's extra calls in a migration: a failed point-in-time-recovery change fails the step."""

from __future__ import annotations

from pathlib import Path

import tablewright
from tablewright.migrate import CreateTable, Plan, run_plan

SPEC = {
    "TableName": "orders-v2",
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}


def _pitr(days: int) -> dict:
    return {
        "TableName": "orders-v2",
        "PointInTimeRecoverySpecification": {
            "PointInTimeRecoveryEnabled": True,
            "RecoveryPeriodInDays": days,
        },
    }


def test_a_failed_continuous_backup_change_is_a_failed_step(tmp_path: Path) -> None:
    client = tablewright.connect()
    plan = Plan([CreateTable(spec=SPEC, calls={"UpdateContinuousBackups": _pitr(90)})], name="pitr")
    report = run_plan(client, plan, state=tmp_path / "state.json")
    assert not report.ok
    (step,) = report.steps
    assert step["status"] == "failed"
    assert "UpdateContinuousBackups failed" in step["error"] and "orders-v2" in step["error"]
    # Run again with the plan fixed (another plan version, so its own progress file): the table
    # exists, the PITR change is sent again and the step is done.
    fixed = Plan([CreateTable(spec=SPEC, calls={"UpdateContinuousBackups": _pitr(7)})], name="pitr")
    report = run_plan(client, fixed, state=tmp_path / "fixed.json")
    assert report.ok and report.steps[0]["result"] == "exists"
    found = client.describe_continuous_backups(TableName="orders-v2")["ContinuousBackupsDescription"]
    assert found["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"
    assert found["PointInTimeRecoveryDescription"]["RecoveryPeriodInDays"] == 7


def test_ttl_on_a_resumed_create_is_not_sent_twice(tmp_path: Path) -> None:
    client = tablewright.connect()
    plan = Plan([CreateTable(spec=SPEC, ttl="expires")], name="ttl")
    assert run_plan(client, plan, state=tmp_path / "a.json").ok
    again = run_plan(client, plan, state=tmp_path / "b.json")  # a fresh state: the table already exists
    assert again.ok and again.steps[0]["result"] == "exists"
    ttl = client.describe_time_to_live(TableName="orders-v2")["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}


def test_an_existing_target_without_the_planned_index_fails_the_step(tmp_path: Path) -> None:
    """A target left from elsewhere with the plan's keys but not its index used to be reported
    'exists' and filled: the plan was done, and every query on the index failed in production."""
    client = tablewright.connect()
    client.create_table(**SPEC)
    index = {
        "IndexName": "by-owner",
        "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
    }
    definitions = [*SPEC["AttributeDefinitions"], {"AttributeName": "owner", "AttributeType": "S"}]
    spec = {**SPEC, "AttributeDefinitions": definitions, "GlobalSecondaryIndexes": [index]}
    report = run_plan(client, Plan([CreateTable(spec=spec)], name="shape"), state=tmp_path / "s.json")
    assert not report.ok
    assert "index by-owner: wanted owner HASH S, found absent" in report.steps[0]["error"]
    # The same table with the same shape is what a resumed run finds: left alone, done.
    again = run_plan(client, Plan([CreateTable(spec=SPEC)], name="same"), state=tmp_path / "t.json")
    assert again.ok and again.steps[0]["result"] == "exists"
