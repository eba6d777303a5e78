"""Every field of every operation's request shape, made hostile, against ``tablewright serve``.

At least 20,000 requests (from :mod:`._model_fuzz`, driven by botocore's service models) go over
loopback to a real server process; not one may be answered with a 5xx, and the server must log no
internal error. Bounded in time: the run stops at its time cap, and fails if the cap came first.
"""

from __future__ import annotations

import http.client
import json
import time
from collections import Counter

import pytest

from ._model_fuzz import SETUP_TABLE, TABLE, all_requests
from ._support import Served

MINIMUM_REQUESTS = 20_000
TIME_CAP = 90.0  # seconds; a run takes about 15 s on one free core


@pytest.fixture
def served():
    running = Served()
    yield running
    running.kill()


def _post(conn: http.client.HTTPConnection, target: str, body: bytes) -> tuple[int, bytes]:
    conn.request(
        "POST",
        "/",
        body=body,
        headers={"X-Amz-Target": target, "Content-Type": "application/x-amz-json-1.0"},
    )
    response = conn.getresponse()
    return response.status, response.read()


@pytest.mark.slow
def test_no_hostile_field_gets_a_5xx(served):
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=60)
    setup = json.dumps(SETUP_TABLE).encode()
    assert _post(conn, "DynamoDB_20120810.CreateTable", setup)[0] == 200
    statuses: Counter[int] = Counter()
    server_errors: list[tuple[str, str, bytes]] = []
    started = time.monotonic()
    previous = None
    for prefix, operation, request in all_requests():
        if time.monotonic() - started > TIME_CAP:
            break
        if operation != previous:  # a DeleteTable mutant may have dropped it: each operation starts with it
            _post(conn, "DynamoDB_20120810.CreateTable", setup)
            _post(
                conn,
                "DynamoDB_20120810.PutItem",
                b'{"TableName": "%s", "Item": {"pk": {"S": "a"}}}' % TABLE.encode(),
            )
            previous = operation
        body = json.dumps(request).encode()  # json, not orjson: it writes integers of any size
        status, payload = _post(conn, f"{prefix}.{operation}", body)
        statuses[status] += 1
        if status >= 500:
            server_errors.append((operation, body[:300].decode(errors="replace"), payload[:300]))
    conn.close()
    total = sum(statuses.values())
    assert not server_errors, f"{len(server_errors)} 5xx answers, first ones: {server_errors[:5]}"
    assert total >= MINIMUM_REQUESTS, f"only {total} requests within {TIME_CAP} s: {statuses}"
    assert statuses[400] > MINIMUM_REQUESTS // 2  # most are refused, as they must be
    assert "internal error" not in served.log()
