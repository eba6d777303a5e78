"""Helpers shared by the server tests: constants, raw HTTP exchange, table creation."""

from __future__ import annotations

import socket

from botocore.config import Config

DUMMY = {"region_name": "us-east-1", "aws_access_key_id": "anything", "aws_secret_access_key": "anything"}
# No retries: a test must see the first answer, not a retried one.
NO_RETRY = Config(retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=10, read_timeout=60)


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
