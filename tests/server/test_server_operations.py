"""``tablewright serve`` as operators meet it: TTL expiry in the background, a busy port, an IPv6
loopback endpoint."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import boto3
import pytest

from tablewright.client import is_loopback

from ._support import DUMMY, NO_RETRY, SERVE, Served, create_table


def _ttl_table(url: str):
    client = boto3.client("dynamodb", endpoint_url=url, config=NO_RETRY, **DUMMY)
    create_table(client)
    client.update_time_to_live(
        TableName="items", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"}
    )
    now = int(time.time())
    client.put_item(TableName="items", Item={"pk": {"S": "gone"}, "expires": {"N": str(now - 60)}})
    client.put_item(TableName="items", Item={"pk": {"S": "kept"}, "expires": {"N": str(now + 3600)}})
    return client


def _exists(client, key: str) -> bool:
    return "Item" in client.get_item(TableName="items", Key={"pk": {"S": key}})


def test_expired_item_is_deleted_from_a_served_table(tmp_path: Path):
    served = Served("--db", str(tmp_path / "ttl.db"), "--ttl-interval", "0.2")
    try:
        assert "expired items deleted every 0.2 s" in "".join(served.banner)
        client = _ttl_table(served.url)
        for _ in range(200):  # bounded wait: 20 s at most, normally a few tenths
            if not _exists(client, "gone"):
                break
            time.sleep(0.1)
        assert not _exists(client, "gone")
        assert _exists(client, "kept")
    finally:
        served.kill()


def test_no_ttl_keeps_expired_items():
    served = Served("--no-ttl", "--ttl-interval", "0.1")
    try:
        assert "ttl     : off" in "".join(served.banner)
        client = _ttl_table(served.url)
        time.sleep(1.0)  # ten intervals: a sweeper would have run
        assert _exists(client, "gone")
    finally:
        served.kill()


def test_port_in_use_is_one_sentence_and_exit_3_and_creates_no_database(tmp_path):
    db = tmp_path / "new.db"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [*SERVE, "--port", str(port), "--db", str(db)], capture_output=True, text=True, timeout=60
        )
    assert list(tmp_path.iterdir()) == []
    assert result.returncode == 3
    assert result.stderr.strip().splitlines() == [
        f"tablewright serve: error: port {port} on 127.0.0.1 is already in use "
        "(another server is listening there); choose another with --port, or --port 0 for a free one"
    ]
    assert "Traceback" not in result.stderr + result.stdout


def test_region_without_auth_is_a_usage_error():
    result = subprocess.run([*SERVE, "--region", "eu-west-1"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "--region" in result.stderr and "--auth" in result.stderr


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://localhost:8000", True),
        ("http://LOCALHOST.:8000", True),
        ("http://api.localhost:8000", True),
        ("http://127.0.0.1:8000", True),
        ("http://127.8.9.10:8000", True),
        ("http://[::1]:8000", True),
        ("http://[::ffff:127.0.0.1]:8000", True),
        ("http://localhost.example.com:8000", False),
        ("http://127.0.0.1.nip.io:8000", False),
        ("http://[::2]:8000", False),
        ("https://dynamodb.us-east-1.amazonaws.com", False),
    ],
)
def test_what_counts_as_loopback(url, loopback):
    assert is_loopback(url) is loopback


# Run with no credentials anywhere: connect() supplies dummy ones only for a loopback endpoint.
_CONNECT = """
import sys
from botocore.exceptions import NoCredentialsError
from tablewright.client import connect
client = connect(endpoint_url=sys.argv[1])
try:
    print("tables", client.list_tables()["TableNames"])
except NoCredentialsError:
    print("no credentials")
"""


def _connect_without_credentials(url: str, tmp_path: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        AWS_CONFIG_FILE=str(tmp_path / "none"),
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
        AWS_EC2_METADATA_DISABLED="true",
    )
    result = subprocess.run(
        [sys.executable, "-c", _CONNECT, url], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def _ipv6_loopback_available() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback_available(), reason="this machine has no IPv6 loopback")
def test_ipv6_loopback_endpoint_needs_no_credentials(tmp_path: Path):
    served = Served("--host", "::1")
    try:
        assert served.url.startswith("http://[::1]:")
        assert _connect_without_credentials(served.url, tmp_path) == "tables []"
    finally:
        served.kill()


def test_a_name_starting_with_localhost_gets_no_dummy_credentials(tmp_path: Path):
    # Never contacted: without credentials botocore refuses to sign before opening a connection.
    assert _connect_without_credentials("http://localhost.example.com:9", tmp_path) == "no credentials"
