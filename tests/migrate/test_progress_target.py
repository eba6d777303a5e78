"""Saved migration progress belongs to one target and one plan version (issue 10, requirement 1).

Resumed against another database, progress would skip steps that never ran there: a fresh database
would be reported migrated while holding nothing. These tests run the documented CLI on real files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tablewright
from tablewright.migrate import Target, default_state_path, load_plan, plan_hash

from .helpers import PLAN, ROOT, items, legacy, things


def _migrate(plan: Path, db: Path, *extra: str, env: dict | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "from tablewright.cli import main; main()", "migrate", str(plan)]
    command += ["--db", str(db), "--format", "json", *extra]
    return subprocess.run(
        command, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=300
    )


def _fresh_legacy(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    legacy.load(tablewright.connect(path), seed=7, devices=2, days=1)
    return path


def test_progress_of_one_database_is_refused_for_another(tmp_path: Path) -> None:
    first, second = _fresh_legacy(tmp_path / "a.db"), _fresh_legacy(tmp_path / "b.db")
    state = tmp_path / "progress.json"
    assert _migrate(PLAN, first, "--state", str(state)).returncode == 0
    saved = state.read_bytes()
    recorded = json.loads(saved)["target"]
    assert (recorded["kind"], recorded["location"]) == ("db", str(first.resolve()))
    assert recorded["plan_hash"] == plan_hash(load_plan(PLAN))

    refused = _migrate(PLAN, second, "--state", str(state))
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        f"tablewright migrate: error: progress file {state} belongs to database {first.resolve()}, "
        f"not database {second.resolve()}: pass --state with another file for this target, or delete "
        "it to start over"
    )
    assert state.read_bytes() == saved  # untouched
    assert "evse-events" not in tablewright.connect(second).list_tables()["TableNames"]


def test_a_database_loaded_again_at_the_same_path_starts_fresh(tmp_path: Path) -> None:
    db, state = _fresh_legacy(tmp_path / "evse.db"), tmp_path / "progress.json"
    assert _migrate(PLAN, db, "--state", str(state)).returncode == 0
    migrated = len(items(tablewright.connect(db), "evse-events"))

    _fresh_legacy(db)  # the same path, a new database: the documented "migrate a fresh copy" case
    again = _migrate(PLAN, db, "--state", str(state))
    assert again.returncode == 0, again.stderr[-2000:]
    report = json.loads(again.stdout)
    assert report["notice"].startswith(f"progress file {state} was saved for an earlier database at ")
    assert report["notice"].endswith("starting fresh")
    assert {s["status"] for s in report["steps"]} == {"done"}  # nothing skipped as "already done"
    assert len(items(tablewright.connect(db), "evse-events")) == migrated

    resumed = json.loads(_migrate(PLAN, db, "--state", str(state)).stdout)  # same database: resumes
    assert resumed["notice"] is None and {s["status"] for s in resumed["steps"]} == {"already done"}


_PLAN_YAML = """
name: copy-things
steps:
  - create_table: {spec: {TableName: things-copy, KeySchema: [{AttributeName: id, KeyType: HASH}],
                   AttributeDefinitions: [{AttributeName: id, AttributeType: S}], BillingMode: PAY_PER_REQUEST}}
  - copy: {source: things, target: things-copy%s}
"""


def test_progress_of_another_plan_version_is_refused(tmp_path: Path) -> None:
    plan, db, state = tmp_path / "plan.yaml", tmp_path / "things.db", tmp_path / "progress.json"
    things(db)
    plan.write_text(_PLAN_YAML % "", encoding="utf-8")
    assert _migrate(plan, db, "--state", str(state)).returncode == 0
    plan.write_text(_PLAN_YAML % ", delete_source: true", encoding="utf-8")
    refused = _migrate(plan, db, "--state", str(state))
    assert refused.returncode == 2
    assert "was saved by another version of plan 'copy-things'" in refused.stderr
    assert "things" in tablewright.connect(db).list_tables()["TableNames"]  # nothing deleted


def test_progress_is_kept_in_the_user_cache_by_default(tmp_path: Path) -> None:
    plan, db, cache = tmp_path / "plans" / "plan.yaml", tmp_path / "things.db", tmp_path / "cache"
    plan.parent.mkdir()
    plan.write_text(_PLAN_YAML % "", encoding="utf-8")
    things(db)
    env = {"XDG_CACHE_HOME": str(cache), "TABLEWRIGHT_CACHE_DIR": ""}
    done = _migrate(plan, db, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    [saved] = (cache / "tablewright" / "migrate").glob("*.migrate.json")
    assert json.loads(done.stdout)["progress"] == str(saved)
    assert sorted(p.name for p in plan.parent.iterdir()) == ["plan.yaml"]  # nothing beside the plan
    assert not [p for p in tmp_path.rglob("*.json") if cache not in p.parents]
    assert json.loads(saved.read_text())["target"]["location"] == str(db.resolve())
    again = json.loads(_migrate(plan, db, env=env).stdout)
    assert {s["status"] for s in again["steps"]} == {"already done"}


def test_an_in_memory_engine_keeps_no_progress() -> None:
    assert default_state_path(Target.of(tablewright.connect()), "plan") is None


def test_one_progress_file_per_target_and_plan(tmp_path: Path) -> None:
    first = default_state_path(Target("db", str(tmp_path / "a.db")), "p", tmp_path / "p.py")
    second = default_state_path(Target("db", str(tmp_path / "b.db")), "p", tmp_path / "p.py")
    endpoint = default_state_path(Target("endpoint", "http://127.0.0.1:8000"), "p", tmp_path / "p.py")
    assert len({first, second, endpoint}) == 3
    assert all(path.name.endswith(".migrate.json") for path in (first, second, endpoint))


@pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout"
)
def test_no_progress_file_is_committed_and_the_patterns_are_ignored() -> None:
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    progress = [
        name for name in tracked.stdout.splitlines() if name.endswith((".migrate.json", ".state.json"))
    ]
    assert progress == []
    names = ["examples/evse/migration/plan.state.json", "x/plan-0123.migrate.json"]
    ignored = subprocess.run(["git", "check-ignore", *names], cwd=ROOT, capture_output=True, text=True)
    assert ignored.stdout.split() == names


def test_a_file_that_is_not_progress_is_refused_untouched(tmp_path: Path) -> None:
    plan, db, state = tmp_path / "plan.yaml", tmp_path / "things.db", tmp_path / "notes.json"
    plan.write_text(_PLAN_YAML % "", encoding="utf-8")
    things(db)
    state.write_text("my notes, not JSON\n", encoding="utf-8")
    refused = _migrate(plan, db, "--state", str(state))
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"tablewright migrate: error: progress file {state} is not valid JSON")
    assert state.read_text(encoding="utf-8") == "my notes, not JSON\n"
    assert "things-copy" not in tablewright.connect(db).list_tables()["TableNames"]
