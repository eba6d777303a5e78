"""``tablewright init`` each way in (flags, dialogue, defaults, an embedded file, a served endpoint),
each followed by ``tablewright check`` running every pattern of what it wrote."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import tablewright
import tablewright.engine
from tablewright.cli import main
from tablewright.design import load

from ._serve import TABLEWRIGHT, served


def _check(folder: Path) -> dict:
    result = CliRunner().invoke(main, ["check", str(folder), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["designs"][0]


def _assert_every_pattern_ran(folder: Path) -> dict:
    design = load(folder / "design.yaml")
    report = _check(folder)
    ran = {row["pattern"] for row in report["patterns"] if row["status"] == "pass"}
    assert ran == set(design.patterns), report["patterns"]
    assert report["items_loaded"] == sum(len(v) for v in design.samples.values()) > 0
    return report


def test_init_from_flags(tmp_path: Path) -> None:
    folder = tmp_path / "library"
    result = CliRunner().invoke(
        main,
        [
            "init",
            str(folder),
            "--entity",
            "Author:name,born=number",
            "--entity",
            "Book:title,in_print=boolean",
        ],
    )
    assert result.exit_code == 0, result.output
    assert f"next: tablewright check {folder}" in result.output
    design = load(folder / "design.yaml")
    assert design.name == "library"
    assert set(design.entities) == {"Author", "Book"}
    assert design.entities["Book"].attributes["in_print"].type == "boolean"
    assert set(design.patterns) == {"get_author", "books_of_author", "get_book"}
    assert all(p.examples for p in design.patterns.values())
    _assert_every_pattern_ran(folder)


def test_init_from_the_dialogue(tmp_path: Path) -> None:
    # Answers as typed, stray spaces included; the empty line ends the list of entities.
    answers = " plant-ops \n Site \n code , city\nSensor\n kind, threshold = number \nAlert\n\n\n"
    result = CliRunner().invoke(main, ["init", str(tmp_path)], input=answers)
    assert result.exit_code == 0, result.output
    design = load(tmp_path / "design.yaml")
    assert design.name == "plant-ops"
    assert list(design.entities) == ["Site", "Sensor", "Alert"]
    assert design.entities["Sensor"].attributes["threshold"].type == "number"
    report = _assert_every_pattern_ran(tmp_path)
    assert report["name"] == "plant-ops"


def test_init_with_defaults_in_the_current_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = subprocess.run([*TABLEWRIGHT, "init", "-y"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    report = _assert_every_pattern_ran(Path("."))
    assert report["name"] == tmp_path.name  # the folder's name, never empty


def test_init_refuses_to_overwrite_and_bad_answers(tmp_path: Path) -> None:
    (tmp_path / "design.yaml").write_text("mine\n")
    result = CliRunner().invoke(main, ["init", str(tmp_path), "-y"])
    assert result.exit_code == 2
    assert result.stderr.startswith("tablewright init: error: ") and "--force" in result.stderr
    assert (tmp_path / "design.yaml").read_text() == "mine\n"
    for bad, says in [
        ("order:x", "capitalised"),
        ("Order:total=float", "'float'"),
        ("Order:a b", "plain name"),
        ("Order:status,PK", "PK would be overwritten by the key templates"),
    ]:
        result = CliRunner().invoke(main, ["init", str(tmp_path / "new"), "--entity", bad])
        assert result.exit_code == 2 and says in result.stderr, result.stderr
        assert not (tmp_path / "new" / "design.yaml").exists()


def _fill(client, table: str) -> None:
    client.create_table(
        TableName=table,
        KeySchema=[
            {"AttributeName": "tenant", "KeyType": "HASH"},
            {"AttributeName": "seq", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "tenant", "AttributeType": "S"},
            {"AttributeName": "seq", "AttributeType": "N"},
            {"AttributeName": "state", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-state",
                "KeySchema": [{"AttributeName": "state", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for seq in range(12):
        item = {
            "tenant": {"S": f"t{seq % 3}"},
            "seq": {"N": str(seq)},
            "state": {"S": ("open", "done")[seq % 2]},
        }
        item["price"] = {"N": "12.5"}
        item["tags"] = {"SS": ["a", "b"]}
        item["blob"] = {"B": b"\x00\x01"}
        client.put_item(TableName=table, Item=item)


def test_init_from_an_embedded_database(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    _fill(tablewright.connect(str(db)), "orders-live")
    folder = tmp_path / "design"
    result = CliRunner().invoke(main, ["init", str(folder), "--db", str(db), "--samples", "6"])
    assert result.exit_code == 0, result.output
    design = load(folder / "design.yaml")
    assert design.tables["orders_live"].table_name == "orders-live"
    assert "by-state" in design.tables["orders_live"].indexes
    assert len(design.samples["OrdersLive"]) == 6
    assert set(design.patterns) == {"get_orders_live", "orders_live_by_tenant", "orders_live_by_state"}
    _assert_every_pattern_ran(folder)


def test_init_keeps_tables_whose_names_fold_to_one(tmp_path: Path) -> None:
    """order-lines, order_lines and Order.Lines were one table, one entity and one pattern."""
    db = tmp_path / "live.db"
    client = tablewright.connect(str(db))
    physical = ["order-lines", "order_lines", "Order.Lines"]
    for name in physical:
        client.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        client.put_item(TableName=name, Item={"pk": {"S": f"in {name}"}})
    folder = tmp_path / "design"
    result = CliRunner().invoke(main, ["init", str(folder), "--db", str(db)])
    assert result.exit_code == 0, result.output
    design = load(folder / "design.yaml")
    assert sorted(t.table_name for t in design.tables.values()) == sorted(physical)
    assert len(design.entities) == len(design.patterns) == 3
    assert "fold to the logical name 'order_lines'" in design.description
    assert sorted(s["pk"] for items in design.samples.values() for s in items) == sorted(
        f"in {name}" for name in physical
    )
    _assert_every_pattern_ran(folder)


def test_init_from_a_served_endpoint(tmp_path: Path) -> None:
    with served() as (url, _banner):
        _fill(tablewright.connect(endpoint_url=url), "events")
        result = CliRunner().invoke(
            main, ["init", str(tmp_path), "--from-endpoint", url, "--table", "events"]
        )
        assert result.exit_code == 0, result.output
    _assert_every_pattern_ran(tmp_path)


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["--db", "missing.db"], 2, "missing.db does not exist"),
        (["--from-endpoint", "http://127.0.0.1:9"], 3, "http://127.0.0.1:9"),
        (["--from-endpoint", "not a url"], 2, "'not a url' is not an endpoint URL"),
    ],
)
def test_init_from_tables_that_cannot_be_read(tmp_path: Path, monkeypatch, args, code, says) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["init", *args])
    assert result.exit_code == code, result.output
    assert result.stderr.startswith("tablewright init: error: ") and says in result.stderr
    assert "Traceback" not in result.output and not (tmp_path / "design.yaml").exists()


def test_init_from_a_table_the_file_does_not_hold_is_input_error(tmp_path: Path) -> None:
    db = tmp_path / "data.db"
    _fill(tablewright.connect(db), "events")
    result = CliRunner().invoke(main, ["init", str(tmp_path / "new"), "--db", str(db), "--table", "nope"])
    assert result.exit_code == 2 and "ResourceNotFoundException" in result.stderr, result.output


@contextlib.contextmanager
def _read_only(folder: Path) -> Iterator[None]:
    """The folder and its files made unwritable: chmod, or as root (where chmod does not bind) the
    immutable attribute."""
    paths = [*folder.iterdir(), folder]
    if os.geteuid() != 0:
        for path in paths:
            path.chmod(0o555)
        yield
        return
    subprocess.run(["chattr", "+i", *map(str, paths)], check=True)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *map(str, paths)], check=True)


def test_init_reads_a_database_it_may_not_write(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    with tablewright.engine.Engine(str(shared / "data.db")) as engine:
        _fill(tablewright.connect(engine=engine), "events")
    with _read_only(shared):
        result = CliRunner().invoke(main, ["init", str(tmp_path / "new"), "--db", str(shared / "data.db")])
    assert result.exit_code == 0, result.output
    assert "events" in load(tmp_path / "new" / "design.yaml").tables
