"""Resource limits of ``tablewright serve``, hit on purpose: unauthenticated uploads, the buffer cap,
the connection cap, idle connections. Each against a real server process on 127.0.0.1."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from pathlib import Path

import boto3
import pytest

from ._support import DUMMY, NO_RETRY, Served, status_of

SIXTEEN_MB = 16 * 1024 * 1024
CHUNK = b"x" * 65536


def rss_mb(pid: int) -> float:
    """Resident memory of a process, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def head(length: int, target: str = "ListTables") -> bytes:
    return (
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: DynamoDB_20120810.%s\r\n"
        b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n" % (target.encode(), length)
    )


def upload(port: int, size: int) -> bytes:
    """Send a ``size``-byte ListTables request (a padded JSON object) the way a naive client does,
    body and all whatever the server says, then read the answer."""
    prefix, suffix = b'{"Limit": 1, "Pad": "', b'"}'
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        try:
            sock.sendall(head(size) + prefix)
            left = size - len(prefix) - len(suffix)
            while left > 0:
                sock.sendall(CHUNK[: min(left, len(CHUNK))])
                left -= len(CHUNK)
            sock.sendall(suffix)
        except OSError:
            pass  # the server answered early and closed: the answer is still in our receive buffer
        try:
            return sock.recv(65536)
        except OSError as error:
            return repr(error).encode()


def uploads(port: int, rounds: int, clients: int, size: int) -> list[bytes]:
    answers: list[bytes] = []
    for _ in range(rounds):
        threads = [
            threading.Thread(target=lambda: answers.append(upload(port, size))) for _ in range(clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    return answers


@pytest.fixture
def auth_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys.yaml"
    path.write_text("credentials:\n  - access_key_id: AKIDLIMITS\n    secret_access_key: limits-secret\n")
    return path


@pytest.mark.slow
def test_unauthenticated_16_mb_uploads_leave_memory_at_baseline(auth_file):
    served = Served("--auth", str(auth_file))
    try:
        uploads(served.port, 1, 2, 1000)  # warm up the code paths before measuring
        baseline = rss_mb(served.process.pid)
        answers = uploads(served.port, 3, 6, SIXTEEN_MB)
        assert len(answers) == 18
        for answer in answers:
            assert status_of(answer) == 400 and b"MissingAuthenticationTokenException" in answer, answer[:200]
        after = rss_mb(served.process.pid)
        # 288 MB were sent; none of it was buffered, so the server is where it started.
        assert after < baseline + 24, (baseline, after)
        client = boto3.client(
            "dynamodb",
            endpoint_url=served.url,
            region_name="us-east-1",
            aws_access_key_id="AKIDLIMITS",
            aws_secret_access_key="limits-secret",
            config=NO_RETRY,
        )
        assert client.list_tables()["TableNames"] == []
    finally:
        served.kill()


@pytest.mark.slow
def test_memory_returns_to_baseline_after_large_accepted_uploads():
    served = Served()
    try:
        uploads(served.port, 1, 2, 1000)
        baseline = rss_mb(served.process.pid)
        answers = uploads(served.port, 2, 4, SIXTEEN_MB)
        assert [status_of(answer) for answer in answers] == [200] * 8
        time.sleep(0.5)  # the last answers are written before the bodies are dropped
        assert rss_mb(served.process.pid) < baseline + 32
    finally:
        served.kill()


def test_bytes_buffered_across_connections_are_capped():
    served = Served("--max-buffered-mb", "17")
    try:
        with socket.create_connection(("127.0.0.1", served.port), timeout=30) as holder:
            # One client has announced 16 MB and sent a little of it: 16 MB of the 17 are spoken for.
            holder.sendall(head(SIXTEEN_MB) + b'{"Limit": 1, "Pad": "')
            time.sleep(0.2)
            answer = upload(served.port, 2 * 1024 * 1024)
            assert status_of(answer) == 503, answer[:200]
            assert b"ServiceUnavailable" in answer and b"retry" in answer
            # Small requests still fit.
            assert status_of(upload(served.port, 1000)) == 200
        # The holder left; its reservation went with it.
        time.sleep(0.2)
        assert status_of(upload(served.port, 2 * 1024 * 1024)) == 200
    finally:
        served.kill()


def test_idle_connections_make_room_for_new_clients():
    served = Served("--max-connections", "4")
    try:
        idle = []
        for _ in range(4):
            sock = socket.create_connection(("127.0.0.1", served.port), timeout=10)
            sock.sendall(head(2) + b"{}")
            assert status_of(sock.recv(65536)) == 200  # served, then left open (keep-alive)
            idle.append(sock)
        newcomers = []
        for _ in range(3):  # each new client takes the place of the longest-idle one
            sock = socket.create_connection(("127.0.0.1", served.port), timeout=10)
            sock.sendall(head(2) + b"{}")
            assert status_of(sock.recv(65536)) == 200
            newcomers.append(sock)
        for sock in idle[:3]:
            assert sock.recv(65536) == b""  # closed by the server, oldest first
        client = boto3.client("dynamodb", endpoint_url=served.url, config=NO_RETRY, **DUMMY)
        assert client.list_tables()["TableNames"] == []
        for sock in idle + newcomers:
            sock.close()
    finally:
        served.kill()


def test_connection_cap_refuses_with_503_then_cuts_off_stalled_requests():
    served = Served("--max-connections", "3")
    try:
        stalled = []
        for _ in range(3):
            sock = socket.create_connection(("127.0.0.1", served.port), timeout=10)
            sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Tar")  # a request that never completes
            stalled.append(sock)
        time.sleep(0.2)
        # Every place taken by a request still arriving, none of them stalled long yet: 503.
        answer = upload(served.port, 1000)
        assert status_of(answer) == 503 and b"connections open" in answer, answer[:200]
        time.sleep(1.2)
        # Now they are stalled (an SDK sends a request within milliseconds): a new client takes the
        # place of the longest-stalled one, which is answered 408; later ones take each other's.
        for _ in range(3):
            assert status_of(upload(served.port, 1000)) == 200
        assert status_of(stalled[0].recv(65536)) == 408
        for sock in stalled:
            sock.close()
    finally:
        served.kill()


def test_idle_connection_is_closed_after_the_idle_timeout():
    served = Served("--idle-timeout", "0.5")
    try:
        with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
            sock.sendall(head(2) + b"{}")
            assert status_of(sock.recv(65536)) == 200
            assert sock.recv(65536) == b""  # closed by the server, well within the 10 s socket timeout
    finally:
        served.kill()


def read_answers(sock: socket.socket, count: int) -> list[tuple[int, bytes]]:
    """Read ``count`` HTTP answers (status, body) from a socket, in order."""
    pending = b""
    answers: list[tuple[int, bytes]] = []
    while len(answers) < count:
        end = pending.find(b"\r\n\r\n")
        if end < 0:
            data = sock.recv(1 << 20)
            assert data, f"the server closed after {len(answers)} answers"
            pending += data
            continue
        head_text = pending[:end].decode("latin-1")
        length = int(re.search(r"(?im)^content-length:\s*(\d+)", head_text).group(1))  # type: ignore[union-attr]
        while len(pending) < end + 4 + length:
            data = sock.recv(1 << 20)
            assert data, f"the server closed after {len(answers)} answers"
            pending += data
        answers.append((status_of(pending[:end]), pending[end + 4 : end + 4 + length]))
        pending = pending[end + 4 + length :]
    return answers


@pytest.mark.parametrize("alone", [True, False], ids=["alone", "with-another-client"])
def test_a_client_that_pipelines_but_does_not_read_gets_no_more_answers_made_than_it_reads(alone):
    """Answers are made only as the client takes them: 600 pipelined requests for a 380 KB answer
    each would otherwise be 230 MB held for a client that reads nothing. Alone, a connection's
    answers go straight to its transport; with other clients connected they are gathered first."""
    served = Served()
    try:
        client = boto3.client("dynamodb", endpoint_url=served.url, config=NO_RETRY, **DUMMY)
        client.create_table(
            TableName="piped",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        client.put_item(
            TableName="piped", Item={"pk": {"S": "big"}, "n": {"N": "0"}, "x": {"S": "x" * 380_000}}
        )
        baseline = rss_mb(served.process.pid)
        body = json.dumps(
            {
                "TableName": "piped",
                "Key": {"pk": {"S": "big"}},
                "UpdateExpression": "ADD n :one",
                "ExpressionAttributeValues": {":one": {"N": "1"}},
                "ReturnValues": "ALL_NEW",
            }
        ).encode()
        requests = 600
        if alone:
            client.close()  # its keep-alive connection
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.settimeout(60)
            sock.connect(("127.0.0.1", served.port))
            sock.sendall((head(len(body), "UpdateItem") + body) * requests)
            time.sleep(2)
            if alone:
                client = boto3.client("dynamodb", endpoint_url=served.url, config=NO_RETRY, **DUMMY)
            made = client.get_item(TableName="piped", Key={"pk": {"S": "big"}}, ProjectionExpression="n")
            assert int(made["Item"]["n"]["N"]) < 100  # what the socket buffers hold, not all 600
            assert rss_mb(served.process.pid) < baseline + 100
            answers = read_answers(sock, requests)
        assert [status for status, _ in answers] == [200] * requests
        assert [json.loads(body)["Attributes"]["n"]["N"] for _, body in answers] == [
            str(number) for number in range(1, requests + 1)
        ]
    finally:
        served.kill()
