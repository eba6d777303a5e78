"""Operational errors of every command, as a user meets them: the real ``tablewright`` command in a
subprocess, real files (garbage, truncated, another application's database), real endpoints. Each
ends in one stderr line ``tablewright <command>: error: ...`` and the decided exit status (docs/cli.md).
"""

from __future__ import annotations

import hashlib
import http.server
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import boto3
import botocore.exceptions
import pytest
import yaml
from botocore.config import Config

import tablewright
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


class _Silent:
    """A TCP server that accepts every connection and never answers a byte (a hung endpoint)."""

    def __enter__(self) -> str:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def __exit__(self, *_: object) -> None:
        self.listener.close()


def test_an_endpoint_that_never_answers_ends_in_seconds_not_minutes() -> None:
    # botocore alone would wait 60 s per attempt; the endpoint defaults give up after 15 s without a
    # byte. One attempt (AWS_MAX_ATTEMPTS, which the defaults leave to the user) keeps the test short.
    with _Silent() as url:
        started = time.monotonic()
        result = run("import", "--from", "endpoint", "--endpoint", url, env={"AWS_MAX_ATTEMPTS": "1"})
        waited = time.monotonic() - started
    one_line_error(result, "import", 3, url, "Read timeout")
    assert 14 < waited < 40, waited


def test_a_callers_own_timeouts_win_over_the_endpoint_defaults() -> None:
    client = tablewright.connect(endpoint_url="http://127.0.0.1:1")
    assert (client.meta.config.connect_timeout, client.meta.config.read_timeout) == (5, 15)
    with _Silent() as url:
        mine = tablewright.connect(
            endpoint_url=url, config=Config(read_timeout=1, retries={"total_max_attempts": 2})
        )
        assert (mine.meta.config.connect_timeout, mine.meta.config.read_timeout) == (5, 1)
        started = time.monotonic()
        with pytest.raises(botocore.exceptions.ReadTimeoutError):
            mine.list_tables()
        assert time.monotonic() - started < 10


class _WebPage(http.server.BaseHTTPRequestHandler):
    """A web server, not DynamoDB: every POST gets a long HTML error page."""

    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        body = (
            "<!DOCTYPE html><html><head><title>Bad Gateway</title></head><body>" + "<p>x</p>" * 400
        ).encode()
        self.send_response(502)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@pytest.mark.parametrize(
    "command",
    [
        ["import", "--from", "endpoint", "--endpoint"],
        ["init", "-y", "--from-endpoint"],
        ["check", str(ROOT / "examples" / "van-telemetry"), "--endpoint"],
    ],
)
def test_an_endpoint_that_is_a_web_server_is_said_in_one_short_line(
    tmp_path: Path, command: list[str]
) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _WebPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        result = run(*command, url, cwd=tmp_path, env={"AWS_MAX_ATTEMPTS": "1"})
    finally:
        server.shutdown()
    line = one_line_error(result, command[0], 3, "HTTP 502 and no DynamoDB error", "Bad Gateway")
    assert "<" not in line and len(line) < 400, line


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


# Each command that reads an input file, and the arguments that make it read /dev/zero (which never
# ends) or a file too large to be one.
_READERS = {
    "lint": lambda f: ["lint", f],
    "cost": lambda f: ["cost", f],
    "check": lambda f: ["check", f],
    "explore": lambda f: ["explore", f],
    "export": lambda f: ["export", "--to", "markdown", f],
    "import-cloudformation": lambda f: ["import", "--from", "cloudformation", f],
    "import-terraform": lambda f: ["import", "--from", "terraform", f],
    "import-workbench": lambda f: ["import", "--from", "nosql-workbench", f],
    "cost-prices": lambda f: ["cost", "--prices", f, str(VAN)],
}


@pytest.mark.parametrize("reader", sorted(_READERS))
def test_a_device_given_as_an_input_file_is_refused_not_read_forever(reader: str) -> None:
    args = _READERS[reader]("/dev/zero")
    one_line_error(run(*args, timeout=30), args[0], 2, "/dev/zero: not a")


@pytest.mark.parametrize("reader", ["lint", "export", "import-cloudformation", "cost-prices"])
def test_an_input_file_over_64_mib_is_refused_before_it_is_parsed(tmp_path: Path, reader: str) -> None:
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as sparse:  # a sparse file: no disk taken, all of it read if nothing stops it
        sparse.truncate(64 * 1024 * 1024 + 1)
    args = _READERS[reader](str(huge))
    one_line_error(run(*args, timeout=60), args[0], 2, f"{huge}: larger than 64 MiB")


def test_a_design_read_from_a_pipe_is_linted_like_the_file(tmp_path: Path) -> None:
    # `tablewright lint <(generate)` names a FIFO: read to its end, not refused as a device.
    fifo = tmp_path / "design.yaml"
    os.mkfifo(fifo)
    linting = subprocess.Popen([*COMMAND, "lint", str(fifo)], stdout=subprocess.PIPE, text=True)
    with fifo.open("w") as writer:
        writer.write(VAN.read_text())
    out, _ = linting.communicate(timeout=60)
    assert linting.returncode in (0, 1) and "errors" in out, out


def test_a_migration_plan_that_is_neither_python_nor_yaml_is_named() -> None:
    one_line_error(run("migrate", "/dev/null", "--dry-run"), "migrate", 2, "/dev/null: a plan is a .py file")


@pytest.mark.parametrize("character", ["\x00", "\x07", "\ufffe"])
def test_a_character_yaml_refuses_is_placed_at_its_line_and_column(tmp_path: Path, character: str) -> None:
    design = tmp_path / "design.yaml"
    design.write_text(f"tables:\n  t{character}: {{}}\n", encoding="utf-8")
    said = f"{design}:2:4: error: YAML syntax: the character U+{ord(character):04X} is not allowed"
    for command in (["cost"], ["check"], ["export", "--to", "markdown"]):
        result = run(*command, str(design))  # check reports it on stdout, with the designs it checked
        assert result.returncode == 2 and said in result.stdout + result.stderr, result.stderr
    linted = run("lint", str(design))
    assert f"{design}:2:4: error TW001 YAML syntax: the character U+{ord(character):04X}" in linted.stdout


@pytest.mark.parametrize(
    ("content", "where"),
    [("name: p\x00\nsteps: []\n", ":1:8: not YAML: the character U+0000"), ("steps: [\n", ":2:1: not YAML:")],
)
def test_a_yaml_input_file_that_does_not_parse_is_named_with_its_line(
    tmp_path: Path, content: str, where: str
) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(content)
    one_line_error(run("migrate", str(broken), "--dry-run"), "migrate", 2, f"{broken}{where}")
    one_line_error(run("cost", "--prices", str(broken), str(VAN)), "cost", 2, f"{broken}{where}")
    design = tmp_path / "van.yaml"
    shutil.copy(VAN, design)
    (tmp_path / "van.lint.yaml").write_text(content)
    linted = run("lint", str(design))  # a sidecar that does not parse is a finding at its own line
    line_and_column, _, detail = where.partition(" not YAML:")
    said = f"{tmp_path / 'van.lint.yaml'}{line_and_column} error TW002 lint sidecar is not YAML:{detail}"
    assert linted.returncode == 2 and said in linted.stdout, linted.stdout


def test_a_read_that_fails_after_the_open_names_the_file() -> None:
    one_line_error(run("lint", "/proc/self/mem"), "lint", 3, "/proc/self/mem: Input/output error")


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


def test_ctrl_c_during_a_command_is_one_line_and_status_130() -> None:
    """Ctrl-C ended in click's "Aborted!" and status 1, which this project's scripts read as findings."""
    process = subprocess.Popen(
        [*COMMAND, "check", str(ROOT / "examples")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell's child gets SIGINT's default action even when the test runner ignores it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert process.stdout.readline()  # the first design's report: the check is under way
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, stderr[-500:]
    assert (
        stderr.strip().splitlines()[-1] == "tablewright check: error: interrupted"
        and "Traceback" not in stderr
    )
