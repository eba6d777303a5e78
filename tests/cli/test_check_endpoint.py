"""``check --endpoint`` on a shared endpoint (``tablewright serve`` as a process): tables under a
prefix unique per run, removed afterwards unless ``--keep``, a refusal before any write when a table
of that name exists unless ``--reuse-tables``, and nobody else's table touched."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import tablewright
from tablewright.cli import main

from ._serve import served

DESIGN = """\
version: 1
name: ledger
tables:
  ledger: {partition_key: PK, sort_key: SK}
entities:
  Entry:
    table: ledger
    attributes:
      account: {type: string, required: true}
      seq: {type: number, required: true}
    keys:
      table: {pk: "ACCOUNT#{account}", sk: "{seq:06}"}
patterns:
  entries:
    params: {account: string}
    returns: Entry
    means: {where: "account = :account", order: seq asc}
    served: {op: query}
    examples: [{account: a1}, {account: a2}]
samples:
  Entry:
    - {account: a1, seq: 1}
    - {account: a1, seq: 2}
    - {account: a2, seq: 1}
"""


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with served() as (url, _banner):
        yield url


@pytest.fixture
def client(endpoint: str):
    client = tablewright.connect(endpoint_url=endpoint)
    yield client
    for name in client.list_tables()["TableNames"]:
        client.delete_table(TableName=name)


@pytest.fixture
def design(tmp_path: Path) -> Path:
    path = tmp_path / "design.yaml"
    path.write_text(DESIGN)
    return path


def _check(design: Path, endpoint: str, *args: str):
    return CliRunner().invoke(main, ["check", str(design), "--endpoint", endpoint, *args])


def _someone_elses_table(client, name: str) -> None:
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName=name, Item={"PK": {"S": "theirs"}, "SK": {"S": "1"}, "v": {"S": "keep me"}})


def _items(client, name: str) -> list[dict]:
    return client.scan(TableName=name)["Items"]


def test_a_check_leaves_the_endpoint_as_it_found_it(design: Path, endpoint: str, client) -> None:
    _someone_elses_table(client, "ledger")  # the design's own logical name, in use by someone else
    result = _check(design, endpoint, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)["designs"][0]
    prefix = report["table_prefix"]
    assert re.fullmatch(r"twcheck-[0-9a-f]{8}-", prefix)
    assert report["tables"][0] == f"{prefix}ledger: created"
    assert [r["returned"] for r in report["patterns"]] == [2, 1]
    assert client.list_tables()["TableNames"] == ["ledger"]
    assert _items(client, "ledger") == [{"PK": {"S": "theirs"}, "SK": {"S": "1"}, "v": {"S": "keep me"}}]


def test_each_run_has_its_own_prefix_and_keep_leaves_the_tables(design: Path, endpoint: str, client) -> None:
    prefixes = set()
    for _ in range(2):
        result = _check(design, endpoint, "--keep")
        assert result.exit_code == 0, result.output
        prefixes.add(re.search(r"under the prefix (\S+)", result.output).group(1))
    assert len(prefixes) == 2
    assert sorted(client.list_tables()["TableNames"]) == sorted(f"{p}ledger" for p in prefixes)
    for prefix in prefixes:
        assert len(_items(client, f"{prefix}ledger")) == 3


def test_an_existing_table_is_refused_before_anything_is_written(design: Path, endpoint: str, client) -> None:
    _someone_elses_table(client, "team-ledger")
    result = _check(design, endpoint, "--table-prefix", "team-")
    assert result.exit_code == 3
    assert result.stderr.startswith("tablewright check: error: 1 table(s) already exist on ")
    assert "team-ledger" in result.stderr and "--reuse-tables" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""
    assert client.list_tables()["TableNames"] == ["team-ledger"]
    assert _items(client, "team-ledger") == [{"PK": {"S": "theirs"}, "SK": {"S": "1"}, "v": {"S": "keep me"}}]


def test_reuse_tables_writes_into_them_and_leaves_them(design: Path, endpoint: str, client) -> None:
    _someone_elses_table(client, "team-ledger")
    result = _check(design, endpoint, "--table-prefix", "team-", "--reuse-tables", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["designs"][0]["tables"] == ["team-ledger: exists"]
    assert client.list_tables()["TableNames"] == ["team-ledger"]  # not ours to remove
    assert len(_items(client, "team-ledger")) == 4


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["--endpoint", "http://127.0.0.1:9"], 3, "endpoint http://127.0.0.1:9"),
        (["--endpoint", "localhost:8000"], 2, "is not an http(s) URL"),
        (["--keep"], 2, "go with --endpoint"),
        (["--endpoint", "http://127.0.0.1:9", "--table-prefix", "no spaces"], 2, "--table-prefix"),
    ],
)
def test_bad_endpoint_arguments(design: Path, args: list[str], code: int, says: str) -> None:
    result = CliRunner().invoke(main, ["check", str(design), *args])
    assert result.exit_code == code, result.output
    assert says in result.stderr and "Traceback" not in result.output
