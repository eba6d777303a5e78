"""Helpers shared by the server tests: constants, raw HTTP exchange, table creation."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import threading

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


SERVE = [sys.executable, "-c", "from tablewright.cli import main; main()", "serve"]


class Served:
    """A running ``tablewright serve`` subprocess and what it printed on start.

    Its stderr (the server's log) is read on a thread as it comes, so a chatty server never blocks
    on a full pipe; ``log()`` is what it logged so far.
    """

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [*SERVE, "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self._log: list[str] = []
        self._reader = threading.Thread(target=self._read_log, daemon=True)
        self._reader.start()
        self.banner: list[str] = []
        for line in self.process.stdout:
            self.banner.append(line)
            if line.startswith("Press Ctrl+C"):
                break
        match = re.search(r"DynamoDB API at (http://\S+)", "".join(self.banner))
        if match is None:
            self.process.kill()
            self._reader.join(timeout=10)
            raise AssertionError(f"server did not start: {self.banner} {self.log()}")
        self.url = match.group(1)
        self.port = int(self.url.rsplit(":", 1)[1])

    def _read_log(self) -> None:
        for line in self.process.stderr:
            self._log.append(line)

    def log(self) -> str:
        return "".join(self._log)

    def stop(self, signum: int = signal.SIGTERM) -> tuple[int, str, str]:
        """Signal the server, wait for it; return (exit status, rest of stdout, its whole log)."""
        self.process.send_signal(signum)
        out = self.process.stdout.read()
        self.process.wait(timeout=60)
        self._reader.join(timeout=10)
        return self.process.returncode, out, self.log()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
