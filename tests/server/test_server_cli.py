"""``tablewright serve`` as a user runs it: a subprocess, real clients, SIGTERM, the AWS CLI."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from botocore.config import Config

from ._support import DUMMY, NO_RETRY, SERVE, Served, create_table
from .conftest import engine_class


@pytest.fixture
def served_file(tmp_path: Path) -> Iterator[tuple[Served, Path]]:
    engine_class()  # skip cleanly if the engine is not importable
    db = tmp_path / "served.db"
    served = Served("--db", str(db))
    yield served, db
    if served.process.poll() is None:
        served.process.kill()
        served.process.wait(timeout=30)


def test_banner_says_where_and_how_to_connect(served_file):
    served, _ = served_file
    banner = "".join(served.banner)
    assert served.url.startswith("http://127.0.0.1:") and not served.url.endswith(":0")
    assert f"--endpoint-url {served.url}" in banner
    assert f'endpoint_url="{served.url}"' in banner
    assert f'endpoint: "{served.url}"' in banner
    assert "any access key id and secret are accepted" in banner


def test_sigterm_finishes_writes_and_keeps_every_acknowledged_one(served_file):
    served, db = served_file
    client = boto3.client("dynamodb", endpoint_url=served.url, config=NO_RETRY, **DUMMY)
    create_table(client)
    acknowledged: list[int] = []
    enough = threading.Event()

    def writer() -> None:
        own = boto3.client(
            "dynamodb", endpoint_url=served.url, config=Config(retries={"max_attempts": 1}), **DUMMY
        )
        for n in range(5_000):  # bounded; the server going away ends it much sooner
            try:
                own.put_item(TableName="items", Item={"pk": {"S": f"k{n}"}, "n": {"N": str(n)}})
            except Exception:
                enough.set()
                return
            acknowledged.append(n)
            if n == 50:
                enough.set()

    thread = threading.Thread(target=writer)
    thread.start()
    assert enough.wait(timeout=120)
    code, out, err = served.stop(signal.SIGTERM)
    thread.join(timeout=60)
    assert code == 0, err
    assert "database closed" in out
    assert len(acknowledged) > 50
    engine = engine_class()(str(db))
    try:
        assert engine.handle("DescribeTable", {"TableName": "items"})["Table"]["ItemCount"] >= 0
        for n in acknowledged:
            assert engine.handle("GetItem", {"TableName": "items", "Key": {"pk": {"S": f"k{n}"}}})["Item"][
                "n"
            ] == {"N": str(n)}
    finally:
        engine.close()


def test_sigint_also_stops_cleanly(served_file):
    served, _ = served_file
    assert served.stop(signal.SIGINT)[0] == 0


def test_auth_file_turns_on_sigv4(tmp_path: Path):
    engine_class()
    auth = tmp_path / "keys.yaml"
    auth.write_text("credentials:\n  - access_key_id: AKIDCLI\n    secret_access_key: cli-secret\n")
    served = Served("--auth", str(auth))
    try:
        assert "SigV4 required; 1 access key(s)" in "".join(served.banner)
        good = boto3.client(
            "dynamodb",
            endpoint_url=served.url,
            region_name="us-east-1",
            aws_access_key_id="AKIDCLI",
            aws_secret_access_key="cli-secret",
            config=NO_RETRY,
        )
        assert good.list_tables()["TableNames"] == []
        bad = boto3.client("dynamodb", endpoint_url=served.url, config=NO_RETRY, **DUMMY)
        with pytest.raises(Exception, match="UnrecognizedClientException"):
            bad.list_tables()
    finally:
        assert served.stop()[0] == 0


def test_broken_auth_file_is_a_clear_usage_error(tmp_path: Path):
    auth = tmp_path / "keys.yaml"
    auth.write_text("credentials:\n  - access_key_id: AKIDONLY\n")
    result = subprocess.run([*SERVE, "--auth", str(auth)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "credentials[0]: 'secret_access_key' must be a non-empty string" in result.stderr


@pytest.mark.skipif(shutil.which("aws") is None, reason="the AWS CLI (pip package awscli) is not installed")
def test_aws_cli_create_put_get_query(served_file, tmp_path: Path):
    served, _ = served_file
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "dummy",
        "AWS_SECRET_ACCESS_KEY": "dummy",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": str(tmp_path / "none"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
    }

    def aws(*args: str) -> dict:
        result = subprocess.run(
            ["aws", "dynamodb", *args, "--endpoint-url", served.url, "--output", "json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout) if result.stdout.strip() else {}

    aws(
        "create-table",
        "--table-name",
        "cli",
        "--billing-mode",
        "PAY_PER_REQUEST",
        "--attribute-definitions",
        "AttributeName=pk,AttributeType=S",
        "AttributeName=sk,AttributeType=N",
        "--key-schema",
        "AttributeName=pk,KeyType=HASH",
        "AttributeName=sk,KeyType=RANGE",
    )
    for sk in (1, 2, 3):
        aws("put-item", "--table-name", "cli", "--item", json.dumps({"pk": {"S": "a"}, "sk": {"N": str(sk)}}))
    got = aws("get-item", "--table-name", "cli", "--key", json.dumps({"pk": {"S": "a"}, "sk": {"N": "2"}}))
    assert got["Item"] == {"pk": {"S": "a"}, "sk": {"N": "2"}}
    queried = aws(
        "query",
        "--table-name",
        "cli",
        "--key-condition-expression",
        "pk = :pk AND sk > :low",
        "--expression-attribute-values",
        json.dumps({":pk": {"S": "a"}, ":low": {"N": "1"}}),
    )
    assert [item["sk"]["N"] for item in queried["Items"]] == ["2", "3"]
    failed = subprocess.run(
        ["aws", "dynamodb", "describe-table", "--table-name", "nope", "--endpoint-url", served.url],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert failed.returncode != 0 and "ResourceNotFoundException" in failed.stderr
