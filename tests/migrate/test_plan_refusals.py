"""Plans that would do harm or cannot run are refused before anything changes; a plan's own function
that raises fails its step (exit 1) instead of ending the run in a traceback. Real CLI, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tablewright

from .helpers import things


def _migrate(plan: Path, db: Path, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "from tablewright.cli import main; main()", "migrate", str(plan)]
    command += ["--db", str(db), "--format", "json", *extra]
    return subprocess.run(command, env=dict(os.environ), capture_output=True, text=True, timeout=300)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "things.db"
    things(path)
    return path


def _untouched(db: Path) -> None:
    client = tablewright.connect(db)
    assert client.list_tables()["TableNames"] == ["things"]
    assert client.scan(TableName="things")["Count"] == 5


REFUSED = {
    "quoted false": (
        "steps:\n  - copy: {source: things, target: copy, delete_source: 'false'}\n",
        "delete_source must be true or false",
    ),
    "quoted no": (
        "steps:\n  - rename: {old: things, new: other, delete_old: 'no'}\n",
        "delete_old must be true or false",
    ),
    "rename onto itself": (
        "steps:\n  - rename: {old: things, new: things, delete_old: true}\n",
        "reads and writes the same table 'things'",
    ),
    "copy onto itself": (
        "steps:\n  - copy: {source: things, target: things, delete_source: true}\n",
        "reads and writes the same table 'things'",
    ),
    "a list": ("- copy: {source: things, target: copy}\n", "a plan is a mapping"),
    "no steps": ("name: nothing\nsteps:\n", "`steps:` must be a list of at least one step"),
    "steps a number": ("steps: 5\n", "`steps:` must be a list"),
    "fields a list": ("steps:\n  - copy: [things]\n", "its fields must be a mapping"),
    "table a number": ("steps:\n  - delete_table: {table: 5}\n", "table must be text, not 5"),
    "spec text": ("steps:\n  - create_table: {spec: hello}\n", "spec must be a mapping"),
    "names numbers": ("steps:\n  - copy: {source: 5, target: 6}\n", "source must be text, not 5"),
    "transform a number": (
        "steps:\n  - copy: {source: things, target: copy, transform: 5}\n",
        "transform must be text",
    ),
    "unknown field": (
        "steps:\n  - copy: {source: things, target: copy, delete: true}\n",
        "unknown field 'delete'",
    ),
    "missing function": (
        "steps:\n  - copy: {source: things, target: copy, transform: 'helpers:nope'}\n",
        "has no function nope",
    ),
}


@pytest.mark.parametrize(("text", "said"), REFUSED.values(), ids=REFUSED)
def test_a_plan_that_would_harm_or_cannot_run_is_refused_before_anything_changes(
    tmp_path, db, text, said
) -> None:
    (tmp_path / "helpers.py").write_text("def upper(item):\n    return item\n")
    plan = tmp_path / "plan.yaml"
    plan.write_text(text, encoding="utf-8")
    refused = _migrate(plan, db)
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert said in " ".join(refused.stderr.split()), refused.stderr
    assert "Traceback" not in refused.stderr
    _untouched(db)


def test_a_transform_that_raises_fails_its_step_and_deletes_nothing(tmp_path, db) -> None:
    (tmp_path / "boom.py").write_text("def explode(item):\n    raise RuntimeError('no such region')\n")
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "steps:\n  - copy: {source: things, target: copy, transform: 'boom:explode', delete_source: true}\n"
    )
    failed = _migrate(plan, db, "--state", str(tmp_path / "state.json"))
    assert failed.returncode == 1, failed.stderr[-2000:]
    assert "Traceback" not in failed.stderr
    [step] = json.loads(failed.stdout)["steps"]
    assert step["status"] == "failed"
    assert "the plan's transform explode raised RuntimeError: no such region (item {'id': 't" in step["error"]
    client = tablewright.connect(db)
    assert client.scan(TableName="things")["Count"] == 5


def test_a_report_that_cannot_be_written_is_refused_before_the_plan_runs(tmp_path, db) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "steps:\n  - create_table: {like: things, name: copy}\n"
        "  - copy: {source: things, target: copy, delete_source: true}\n"
    )
    (tmp_path / "a-file").write_text("")
    refused = _migrate(plan, db, "--report", str(tmp_path / "a-file" / "report.json"))
    assert refused.returncode != 0 and "--report" in refused.stderr and "Traceback" not in refused.stderr
    _untouched(db)
    written = _migrate(
        plan, db, "--report", str(tmp_path / "report.json"), "--state", str(tmp_path / "s.json")
    )
    assert written.returncode == 0, written.stderr[-2000:]
    report = json.loads((tmp_path / "report.json").read_text())
    assert [step["status"] for step in report["steps"]] == ["done", "done"]
