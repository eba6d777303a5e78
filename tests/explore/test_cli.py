"""``tablewright explore`` as a command: exit statuses and one-line errors, an existing database."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from tablewright.design import load
from tablewright.runtime import Runtime

from .support import DESIGNS, ROOT, running


def _explore(*args: str, cwd=ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-c", "from tablewright.cli import main; main()", "explore", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=cwd,
    )


def test_unusable_input_exits_2_with_one_line(tmp_path):
    not_sqlite = tmp_path / "notes.db"
    not_sqlite.write_text("these are notes, not a database\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        "tables:\n  t: {partition_key: {name: pk, type: S}}\nviews:\n  v: {kind: pie, pattern: nope}\n"
    )
    cases = [
        ((str(tmp_path / "missing.yaml"),), "no such design file or folder"),
        (("--db", str(tmp_path / "absent.db")), "no such file"),
        (("--db", str(not_sqlite)), str(not_sqlite)),
        (("--endpoint", "localhost:8000"), "is not an http(s) URL"),
        (("--db", "x.db", "--endpoint", "http://127.0.0.1:1"), "not both"),
        ((str(broken),), "broken.yaml:4"),
        ((str(empty),), "no design.yaml and no design files in this folder"),
        (("/dev/null",), "/dev/null: not a design file or folder"),
    ]
    for args, message in cases:
        result = _explore(*args)
        assert result.returncode == 2, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert (
            len(lines) == 1 and lines[0].startswith("tablewright explore: error: ") and message in lines[0]
        ), (
            args,
            result.stderr,
        )


def test_environment_failures_exit_3(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _explore("--port", str(port))
    assert result.returncode == 3 and f"cannot listen on 127.0.0.1:{port}" in result.stderr
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        free = closed.getsockname()[1]
    result = _explore("--endpoint", f"http://127.0.0.1:{free}")
    assert result.returncode == 3 and "is not reachable" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.fixture
def orders_db(tmp_path):
    path = tmp_path / "orders.db"
    rt = Runtime.open(load(DESIGNS / "orders.yaml"), db=path)
    rt.create_tables()
    for n in range(5):
        rt.put("Order", {"customer": "C1", "order_id": f"{n:03d}", "status": "open", "total": n})
    rt.put("Order", {"customer": "C2", "order_id": "001", "status": "paid"})
    # An item another tool wrote, breaking two of the entity's rules (DynamoDB itself accepts it).
    rt.client.put_item(
        TableName="explore-orders",
        Item={
            "pk": {"S": "CUSTOMER#C3"},
            "sk": {"S": "ORDER#001"},
            "customer": {"S": "C3"},
            "order_id": {"S": "001"},
            "status": {"S": "lost"},
            "total": {"N": "-5"},
        },
    )
    return path


def test_an_existing_database_is_shown_and_verified_over_what_it_holds(orders_db):
    """With --db nothing is loaded: patterns are verified against the entities stored in the file."""
    with running(str(DESIGNS / "orders.yaml"), "--db", str(orders_db)) as explore:
        index = explore.json("/")
        assert index["source"] == f"database {orders_db}" and index["writable"] is False
        table = explore.json("/tables/explore-orders")
        assert table["table"]["item_count"] == 7 and table["table"]["stream"] == "NEW_AND_OLD_IMAGES"
        verdict = explore.json("/designs/orders/patterns/customer_orders", _run=1, customer="C1")[
            "verification"
        ]
        assert verdict["status"] == "pass" and verdict["returned"] == 5
        board = explore.json("/designs/orders/views/by_status")["layout"]
        assert [(c["value"], len(c["cards"])) for c in board["columns"]] == [
            ("open", 5),
            ("paid", 0),
            ("shipped", 0),
        ]


def test_explore_against_an_endpoint(orders_db):
    """``--endpoint``: the explorer is a client of ``tablewright serve`` like any application."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from tablewright.cli import main; main()",
            "serve",
            "--db",
            str(orders_db),
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        import time

        import httpx

        for _ in range(100):
            try:
                httpx.post(f"http://127.0.0.1:{port}/", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        with running(str(DESIGNS / "orders.yaml"), "--endpoint", f"http://127.0.0.1:{port}") as explore:
            assert explore.json("/")["source"] == f"endpoint http://127.0.0.1:{port}"
            rows = explore.json(
                "/tables/explore-orders", pk="CUSTOMER#C1", op="between", sk="ORDER#001", sk2="ORDER#003"
            )
            assert [r["plain"]["order_id"] for r in rows["rows"]] == ["001", "002", "003"]
            verdict = explore.json("/designs/orders/patterns/customer_orders", _run=1, customer="C2")[
                "verification"
            ]
            assert verdict["status"] == "pass" and verdict["returned"] == 1
    finally:
        server.terminate()
        server.wait(10)


def test_attributes_that_break_validation_are_highlighted(orders_db):
    with running(str(DESIGNS / "orders.yaml"), "--db", str(orders_db)) as explore:
        rows = explore.json("/tables/explore-orders", pk="CUSTOMER#C3")["rows"]
        assert [(v["attribute"], v["rule"]) for v in rows[0]["entity"]["violations"]] == [
            ("status", "enum"),
            ("total", "min"),
        ]
        page = explore.client.get("/tables/explore-orders", params={"pk": "CUSTOMER#C3"}).text
        assert page.count('<div class="c bad" title=') == 2 and 'class="item invalid"' in page
        item = explore.client.get("/tables/explore-orders/item", params={"key": rows[0]["key"]}).text
        assert "Breaks the entity" in item and 'id="violations"' in item and "lost" in item


def test_without_a_design_items_are_edited_as_dynamodb_json(orders_db):
    with running("--db", str(orders_db), "--write") as explore:
        assert explore.json("/")["designs"] == []
        headers = {"x-explore-token": explore.token()}
        item = (
            '{"pk": {"S": "CUSTOMER#C9"}, "sk": {"S": "ORDER#1"}, "note": {"S": "raw"}, "n": {"N": "1.50"}}'
        )
        created = explore.client.post(
            "/tables/explore-orders/new", params={"_format": "json"}, data={"json": item}, headers=headers
        )
        assert created.status_code == 200 and created.json()["created"] == {
            "pk": {"S": "CUSTOMER#C9"},
            "sk": {"S": "ORDER#1"},
        }
        again = explore.client.post(
            "/tables/explore-orders/new", params={"_format": "json"}, data={"json": item}, headers=headers
        )
        assert again.status_code == 409 and "ConditionalCheckFailedException" in again.json()["refused"]
        key = '{"pk": {"S": "CUSTOMER#C9"}, "sk": {"S": "ORDER#1"}}'
        stored = explore.json("/tables/explore-orders/item", key=key)
        assert stored["item"]["n"] == {"N": "1.5"} and stored["entity"] is None
        moved = explore.client.post(
            "/tables/explore-orders/item",
            params={"_format": "json"},
            data={"key": key, "action": "update", "json": item.replace("ORDER#1", "ORDER#2")},
            headers=headers,
        )
        assert moved.status_code == 409 and "the key cannot change" in moved.json()["refused"]
        gone = explore.client.post(
            "/tables/explore-orders/item",
            params={"_format": "json"},
            data={"key": key, "action": "delete"},
            headers=headers,
        )
        assert gone.status_code == 200
        assert explore.client.get("/tables/explore-orders/item", params={"key": key}).status_code == 404
