"""Operational errors of every command, as a user meets them: the real ``tablewright`` command in a
subprocess, real files (garbage, truncated, another application's database), real endpoints. Each
ends in one stderr line ``tablewright <command>: error: ...`` and the decided exit status (docs/cli.md).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import socket
import sqlite3
import subprocess
from pathlib import Path

import boto3
import pytest
import yaml
from botocore.config import Config

from tablewright.engine import Engine

from ._support import COMMAND, one_line_error, run

ROOT = Path(__file__).resolve().parents[2]
VAN = ROOT / "tests" / "cost" / "designs" / "van.yaml"
KEYED = {
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _database(path: Path, items: int = 50) -> Path:
    with Engine(str(path)) as engine:
        engine.create_table(TableName="things", **KEYED)
        engine.update_continuous_backups(
            TableName="things", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
        )
        for i in range(items):
            engine.put_item(TableName="things", Item={"pk": {"S": f"k{i}"}})
    return path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# --------------------------------------------------------------------------- database files (serve)


def _files_beside(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


@pytest.mark.parametrize("command", [["serve", "--port", "0"], ["import", "--from", "endpoint"]])
def test_a_garbage_file_is_named_and_left_alone(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "data.db"
    path.write_text("id,name\n1,not a database\n")
    before, beside = _digest(path), _files_beside(path)
    one_line_error(run(*command, "--db", str(path)), command[0], 2, str(path), "not a SQLite database")
    assert _digest(path) == before and _files_beside(path) == beside


def test_a_truncated_database_says_how_to_check_it_and_gets_no_wal_file(tmp_path: Path) -> None:
    whole = _database(tmp_path / "whole.db", items=500).read_bytes()
    path = tmp_path / "copy" / "cut.db"
    path.parent.mkdir()
    path.write_bytes(whole[: len(whole) // 2 + 100])
    line = one_line_error(run("serve", "--port", "0", "--db", str(path)), "serve", 2, str(path))
    assert f"sqlite3 {path} 'PRAGMA integrity_check'" in line
    assert _files_beside(path) == ["cut.db"]  # no cut.db-wal, cut.db-shm


def test_another_applications_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY)")
    conn.close()
    before = _digest(path)
    one_line_error(run("serve", "--port", "0", "--db", str(path)), "serve", 2, "another application")
    assert _digest(path) == before


def test_a_database_of_a_newer_format_is_refused(tmp_path: Path) -> None:
    path = _database(tmp_path / "data.db", items=1)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE tw_meta SET value = 7 WHERE key = 'format'")
    conn.close()
    one_line_error(
        run("serve", "--port", "0", "--db", str(path)), "serve", 2, "newer tablewright", "format 7"
    )


def test_a_missing_directory_is_named(tmp_path: Path) -> None:
    path = tmp_path / "not-made-yet" / "data.db"
    line = one_line_error(run("serve", "--port", "0", "--db", str(path)), "serve", 2, "does not exist")
    assert str(path.parent) in line
    line = one_line_error(run("demo", "--db", str(path), "--items", "1"), "demo", 2, "does not exist")
    assert not path.parent.exists()


def test_a_file_where_a_directory_should_be_is_named(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    path = tmp_path / "notes.txt" / "data.db"
    one_line_error(run("serve", "--port", "0", "--db", str(path)), "serve", 2, "is not a directory")


def test_an_unwritable_directory_is_an_operational_error(tmp_path: Path, unwritable_dir: Path) -> None:
    directory = unwritable_dir
    path = directory / "tablewright-probe.db"
    one_line_error(run("serve", "--port", "0", "--db", str(path)), "serve", 3, str(directory), "not writable")
    assert not path.exists()


class Served:
    """A ``tablewright serve`` subprocess on a free port, with the URL from its banner."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [*COMMAND, "serve", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.banner = ""
        for line in self.process.stdout:
            self.banner += line
            if line.startswith("Press Ctrl+C"):
                break
        match = re.search(r"DynamoDB API at (http://\S+)", self.banner)
        if match is None:
            self.process.kill()
            raise AssertionError(f"server did not start: {self.banner} {self.process.stderr.read()}")
        self.url = match.group(1)

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.communicate(timeout=60)


# ------------------------------------------------------------------------------- read-only serving


def test_serve_read_only_reads_refuses_writes_and_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = _database(tmp_path / "data.db")
    before = _digest(path)
    with Served("--db", str(path), "--read-only") as served:
        assert "read-only" in served.banner
        client = boto3.client(
            "dynamodb",
            endpoint_url=served.url,
            region_name="us-east-1",
            aws_access_key_id="x",
            aws_secret_access_key="x",
            config=Config(retries={"total_max_attempts": 1}),
        )
        assert client.get_item(TableName="things", Key={"pk": {"S": "k3"}})["Item"] == {"pk": {"S": "k3"}}
        with pytest.raises(client.exceptions.ClientError) as caught:
            client.put_item(TableName="things", Item={"pk": {"S": "new"}})
        assert caught.value.response["Error"]["Code"] == "AccessDeniedException"
        assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert _digest(path) == before


def test_serve_read_only_needs_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "typo.db"
    one_line_error(
        run("serve", "--port", "0", "--read-only", "--db", str(path)), "serve", 2, "does not exist"
    )
    assert not path.exists()
    result = run("serve", "--port", "0", "--read-only")
    assert result.returncode == 2 and "--read-only needs --db" in result.stderr


# ------------------------------------------------------------------------------------------ endpoints


@pytest.mark.parametrize(
    "url", ["localhost:8000", "not a url", "ftp://example.com", "http://", "http://h:port"]
)
def test_an_endpoint_that_is_not_a_url_is_input_error(url: str) -> None:
    one_line_error(
        run("import", "--from", "endpoint", "--endpoint", url), "import", 2, "is not an endpoint URL"
    )


def test_an_unreachable_endpoint_is_an_operational_error(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    one_line_error(
        run("import", "--from", "endpoint", "--endpoint", url), "import", 3, url, "Could not connect"
    )
    plan = tmp_path / "plan.yaml"
    plan.write_text("name: p\nsteps:\n  - delete_table: {table: gone}\n")
    # A migration reports each failed step (exit 1) but an endpoint that cannot be reached is no step.
    result = run("migrate", str(plan), "--endpoint", url)
    assert result.returncode in (1, 3) and "Traceback" not in result.stderr, result.stderr


def test_an_endpoint_refusing_the_credentials_is_an_operational_error(tmp_path: Path) -> None:
    auth = tmp_path / "auth.yaml"
    auth.write_text("credentials:\n  - {access_key_id: AKIDTEAM, secret_access_key: team-secret}\n")
    with Served("--auth", str(auth)) as served:
        wrong = {"AWS_ACCESS_KEY_ID": "AKIDSTRANGER", "AWS_SECRET_ACCESS_KEY": "guess"}
        result = run("import", "--from", "endpoint", "--endpoint", served.url, env=wrong)
        one_line_error(result, "import", 3, "ListTables")
        right = {"AWS_ACCESS_KEY_ID": "AKIDTEAM", "AWS_SECRET_ACCESS_KEY": "team-secret"}
        # The right credentials get past ListTables: an endpoint without tables has nothing to import.
        empty = run("import", "--from", "endpoint", "--endpoint", served.url, env=right)
        one_line_error(empty, "import", 2, "no tables to import")


def test_import_from_a_database_file_never_writes_it(tmp_path: Path) -> None:
    path = _database(tmp_path / "data.db")
    before = _digest(path)
    result = run("import", "--from", "endpoint", "--db", str(path))
    assert result.returncode == 0, result.stderr
    design = yaml.safe_load(result.stdout)
    assert design["tables"]["things"]["pitr"] is True  # DescribeContinuousBackups on the engine
    assert _digest(path) == before
    one_line_error(run("import", "--from", "endpoint", "--db", str(tmp_path / "nope.db")), "import", 2)
    missing = run("import", "--from", "endpoint", "--db", str(path), "--table", "no-such-table")
    one_line_error(missing, "import", 2, "no-such-table", "ResourceNotFoundException")


# ------------------------------------------------------------------------------- prices, sample data


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("region: [unclosed\n", ("not YAML",)),
        ("- just\n- a list\n", ("expected a mapping",)),
        ("region: us-east-1\neffective: '2024'\n", ("missing",)),
    ],
    ids=["not-yaml", "a-list", "missing-prices"],
)
def test_a_prices_file_that_does_not_load(tmp_path: Path, content: str, words: tuple[str, ...]) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(content)
    one_line_error(run("cost", "--prices", str(prices), str(VAN)), "cost", 2, str(prices), *words)


def test_a_prices_file_with_a_price_that_is_not_a_number(tmp_path: Path) -> None:
    shipped = yaml.safe_load((ROOT / "src" / "tablewright" / "cost" / "prices.yaml").read_text())
    shipped["on_demand"]["write_request_unit"] = "one dollar-ish"
    prices = tmp_path / "prices.yaml"
    prices.write_text(yaml.safe_dump(shipped))
    one_line_error(run("cost", "--prices", str(prices), str(VAN)), "cost", 2, str(prices), "not a number")


SPOILED_PRICES = {
    "free tier without wcu": (("free_tier", "wcu"), None, "free_tier.wcu"),
    "storage without STANDARD": (("storage_gb_month", "STANDARD"), None, "storage_gb_month.STANDARD"),
    "storage a mapping": (("storage_gb_month", "STANDARD"), {"a": 1}, "not a number"),
    "write unit zero": (("on_demand", "write_request_unit"), 0, "above zero"),
    "hours infinite": (("hours_per_month",), float("inf"), "finite number"),
    "negative price": (("provisioned", "wcu_hour"), -1, "zero or more"),
    "price not a number": (("provisioned", "rcu_hour"), float("nan"), "finite number"),
}


@pytest.mark.parametrize(("path", "value", "said"), SPOILED_PRICES.values(), ids=SPOILED_PRICES)
def test_a_prices_file_with_a_missing_or_impossible_price(
    tmp_path: Path, path: tuple, value: object, said: str
) -> None:
    shipped = yaml.safe_load((ROOT / "src" / "tablewright" / "cost" / "prices.yaml").read_text())
    section = shipped
    for key in path[:-1]:
        section = section[key]
    if value is None:
        del section[path[-1]]
    else:
        section[path[-1]] = value
    prices = tmp_path / "prices.yaml"
    prices.write_text(yaml.safe_dump(shipped))
    one_line_error(run("cost", "--prices", str(prices), str(VAN)), "cost", 2, str(prices), said)


@pytest.mark.parametrize(
    "command", [["import", "--from", "serverless"], ["import", "--from", "cloudformation"]]
)
def test_input_nested_thousands_deep_is_input_error(tmp_path: Path, command: list[str]) -> None:
    deep = tmp_path / "deep.yaml"
    deep.write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")
    one_line_error(run(*command, str(deep)), command[0], 2, "nests too deeply")
    linted = run("lint", str(deep))  # a design's loader says where
    assert linted.returncode == 2 and "Traceback" not in linted.stderr
    assert f"{deep}:1:1: error TW001 YAML syntax: nested too deeply to be a design" in linted.stdout


def test_cost_of_a_design_that_does_not_load_is_input_error(tmp_path: Path) -> None:
    design = tmp_path / "design.yaml"
    design.write_text("tables: [\n")
    result = run("cost", str(design))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"tablewright cost: error: {design}: design has 1 problem")


@pytest.mark.parametrize(
    ("generator", "words"),
    [
        (
            "def generate(seed, scale):\n    raise RuntimeError('sensor feed offline')\n",
            ("sensor feed offline",),
        ),
        (
            "def generate(seed, scale):\n    return {'Message': [{'thing_name': 'NOT VALID!'}]}\n",
            ("Message #1",),
        ),
        ("this is not python\n", ("generate() failed",)),
    ],
    ids=["raises", "bad-values", "syntax"],
)
def test_sample_data_that_cannot_be_exported(tmp_path: Path, generator: str, words: tuple[str, ...]) -> None:
    shutil.copy(VAN, tmp_path / "design.yaml")
    (tmp_path / "generate.py").write_text(generator)
    result = run("export", str(tmp_path / "design.yaml"), "--to", "nosql-workbench")
    one_line_error(result, "export", 2, str(tmp_path / "generate.py"), *words)


def test_export_to_a_path_under_a_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("a file")
    result = run("export", str(VAN), "--to", "terraform", "--out", str(tmp_path / "out" / "main.tf"))
    one_line_error(result, "export", 2, str(tmp_path / "out"))


# -------------------------------------------------------------------------------------------- migrate


def test_a_plan_that_does_not_load_is_input_error(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text("steps:\n  - teleport: {table: x}\n")
    one_line_error(run("migrate", str(plan)), "migrate", 2, str(plan), "unknown step 'teleport'")
    broken = tmp_path / "broken.py"
    broken.write_text("PLAN = (\n")
    one_line_error(run("migrate", str(broken)), "migrate", 2, str(broken))


def test_a_read_only_dry_run_reads_the_database_and_changes_nothing(tmp_path: Path) -> None:
    path = _database(tmp_path / "data.db")
    plan = tmp_path / "plan.yaml"
    plan.write_text("name: p\nsteps:\n  - copy: {source: things, target: things-v2}\n")
    before = _digest(path)
    result = run("migrate", str(plan), "--db", str(path), "--dry-run", "--read-only")
    assert result.returncode == 0, result.stdout + result.stderr
    assert _digest(path) == before
    result = run("migrate", str(plan), "--db", str(path), "--read-only")
    assert result.returncode == 2 and "--read-only needs --dry-run" in result.stderr


@pytest.mark.parametrize("scale", ["0", "-1", "nan", "inf"])
def test_a_sample_scale_that_is_not_a_positive_number_is_a_usage_error(scale: str) -> None:
    result = run("check", str(ROOT / "examples" / "evse"), "--scale", scale)
    assert result.returncode == 2 and "Invalid value for '--scale'" in result.stderr
    assert "Traceback" not in result.stderr
