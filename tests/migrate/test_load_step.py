"""The migrate Load step on its own: an SQLite table loaded into a DynamoDB table through a transform,
interrupted by a failing source and resumed from its checkpoint, and a verification that finds a
changed or missing item by key."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

import tablewright
from tablewright.migrate import CreateTable, Load, Merge, Plan, Put, SqliteRows, run_plan
from tablewright.migrate import load as load_module
from tablewright.migrate.load import verify_load

SPEC = {
    "TableName": "readings",
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "BillingMode": "PAY_PER_REQUEST",
}


def to_item(row: dict) -> dict:
    return {"pk": f"R#{row['id']}", "value": row["value"], **({"note": row["note"]} if "note" in row else {})}


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "legacy.sqlite"
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE readings (id INTEGER PRIMARY KEY, value REAL, note TEXT)")
        db.executemany(
            "INSERT INTO readings VALUES (?, ?, ?)",
            [(i, i / 10, None if i % 3 else f"n{i}") for i in range(1, 251)],
        )
        db.commit()
    return path


class FailingAfter(SqliteRows):
    """The same rows, but the source dies after ``pages`` pages (a crash mid-load)."""

    pages: int = 0

    def rows_after(self, after, limit):
        if FailingAfter.pages == 0:
            raise ValueError("source connection lost")
        FailingAfter.pages -= 1
        return super().rows_after(after, limit)


def test_a_load_interrupted_midway_resumes_from_its_checkpoint(source: Path, tmp_path: Path):
    client = tablewright.connect(tmp_path / "target.db")
    state = tmp_path / "state.json"
    FailingAfter.pages = 3
    broken = Plan(
        [CreateTable(spec=SPEC), Load(FailingAfter(source, "readings"), "readings", to_item, name="load")]
    )
    first = run_plan(client, broken, state=state, page_size=40)
    assert not first.ok and "source connection lost" in first.steps[-1]["error"]
    assert client.scan(TableName="readings", Select="COUNT")["Count"] == 120  # three pages, no more
    # The same plan again (progress belongs to one plan version), now with the connection back.
    FailingAfter.pages = 10**9
    second = run_plan(client, broken, state=state, page_size=40)
    assert second.ok
    load = second.steps[-1]
    assert load["writes"] == 250  # 120 before the crash + 130 after it: no page written twice
    assert load["verification"]["ok"] and load["verification"]["rows"] == 250
    item = client.get_item(TableName="readings", Key={"pk": {"S": "R#3"}})["Item"]
    assert item == {
        "pk": {"S": "R#3"},
        "value": {"N": "0.3"},
        "note": {"S": "n3"},
    }  # REAL as exact decimal text
    assert (
        "note" not in client.get_item(TableName="readings", Key={"pk": {"S": "R#4"}})["Item"]
    )  # NULL left out


def test_verification_names_changed_and_missing_items(source: Path, tmp_path: Path):
    client = tablewright.connect(tmp_path / "target.db")
    step = Load(SqliteRows(source, "readings"), "readings", to_item, name="load")
    assert run_plan(client, Plan([CreateTable(spec=SPEC), step]), state=tmp_path / "s.json").ok
    client.update_item(
        TableName="readings", Key={"pk": {"S": "R#7"}}, UpdateExpression="SET #v = :v",
        ExpressionAttributeNames={"#v": "value"}, ExpressionAttributeValues={":v": {"N": "7"}},
    )  # fmt: skip
    client.delete_item(TableName="readings", Key={"pk": {"S": "R#200"}})
    verdict = verify_load(client, step)
    assert not verdict["ok"] and verdict["different"] == 1 and verdict["missing"] == 1
    named = {(d["problem"], d["key"]) for d in verdict["differences"]}
    assert named == {("different", repr({"pk": "R#7"})), ("missing", repr({"pk": "R#200"}))}


def test_a_load_far_off_is_judged_as_it_goes_past_the_held_limit(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Items found wrong wait for a later page's Merge only up to a limit; past it they are counted
    at once, with the same verdict (and memory that does not grow with the table)."""
    client = tablewright.connect(tmp_path / "target.db")
    step = Load(SqliteRows(source, "readings"), "readings", to_item, name="load")
    assert run_plan(client, Plan([CreateTable(spec=SPEC), step]), state=tmp_path / "s.json").ok
    for n in range(1, 31):
        client.delete_item(TableName="readings", Key={"pk": {"S": f"R#{n}"}})
    whole = verify_load(client, step, page_size=10)
    monkeypatch.setattr(load_module, "HELD_LIMIT", 4)
    limited = verify_load(client, step, page_size=10)
    assert whole["missing"] == limited["missing"] == 30 and limited["items"] == whole["items"] == 250
    assert len(limited["differences"]) == 10 and not limited["ok"]


def test_a_missing_source_file_is_a_failed_step_not_a_traceback(tmp_path: Path):
    client = tablewright.connect()
    plan = Plan(
        [
            CreateTable(spec=SPEC),
            Load(SqliteRows(tmp_path / "nope.sqlite", "readings"), "readings", name="load"),
        ]
    )
    report = run_plan(client, plan)
    assert report.steps[-1]["status"] == "failed" and "nope.sqlite" in report.steps[-1]["error"]


def head_and_lines(row: dict) -> list:
    """Row 1 of an order puts its item; the next rows merge into it (a fold across rows)."""
    item = {"pk": f"O#{row['id'] // 10}"}
    if row["id"] % 10 == 0:
        return [Put("readings", {**item, "first": row["value"]})]
    return [Merge("readings", {**item, f"line{row['id'] % 10}": row["value"]})]


@pytest.mark.parametrize("page_size", [7, 250])
def test_merges_into_an_item_put_on_an_earlier_page_verify(source: Path, page_size: int) -> None:
    """An item put on one page and merged into on the next was compared, when its page was
    checked, with the final item: the same load verified or failed depending on --page-size."""
    client = tablewright.connect()
    client.create_table(**SPEC)
    step = Load(SqliteRows(source, "readings"), "readings", head_and_lines)
    report = run_plan(client, Plan([step], name="fold"), page_size=page_size)
    assert report.ok, report.steps[0].get("error")
