"""Fixtures for the server tests: a real engine behind a real server on 127.0.0.1, port 0."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import boto3
import pytest
from botocore.config import Config

from tablewright.server import ServerThread

DUMMY = {"region_name": "us-east-1", "aws_access_key_id": "anything", "aws_secret_access_key": "anything"}
# No retries: a test must see the first answer, not a retried one.
NO_RETRY = Config(retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=10, read_timeout=60)


def engine_class() -> type:
    """The engine class, or skip the test with the reason when it cannot be imported."""
    try:
        from tablewright.engine import Engine
    except ImportError as exc:
        pytest.skip(f"tablewright.engine.Engine is not importable yet: {exc}")
    return Engine


@pytest.fixture
def engine() -> Iterator[object]:
    engine = engine_class()()
    yield engine
    engine.close()


@pytest.fixture
def server(engine) -> Iterator[ServerThread]:
    with ServerThread(engine.handle, request_timeout=2.0) as running:
        yield running


@pytest.fixture
def client(server):
    return boto3.client("dynamodb", endpoint_url=server.url, config=NO_RETRY, **DUMMY)


@pytest.fixture
def resource(server):
    return boto3.resource("dynamodb", endpoint_url=server.url, config=NO_RETRY, **DUMMY)


def raw_exchange(port: int, data: bytes, *, timeout: float = 10.0) -> bytes:
    """Send raw bytes, half-close, and read everything the server answers until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def status_of(response: bytes) -> int:
    """The status code of the first response in ``response`` (0 if there is none)."""
    if not response.startswith(b"HTTP/1.1 "):
        return 0
    return int(response[9:12])


def create_table(client, name: str = "items", sort_key: bool = False) -> None:
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}]
    attributes = [{"AttributeName": "pk", "AttributeType": "S"}]
    if sort_key:
        keys.append({"AttributeName": "sk", "KeyType": "RANGE"})
        attributes.append({"AttributeName": "sk", "AttributeType": "N"})
    client.create_table(
        TableName=name, KeySchema=keys, AttributeDefinitions=attributes, BillingMode="PAY_PER_REQUEST"
    )
