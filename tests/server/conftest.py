"""Fixtures for the server tests: a real engine behind a real server on 127.0.0.1, port 0."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import boto3
import pytest

from tablewright.server import ServerThread
from tablewright.server.poll import DEFAULT_WINDOW

from ._support import DUMMY, NO_RETRY

# As `tablewright serve` polls for a client's next request (server/poll.py): every server test runs
# with the poll, the fd bookkeeping of connections opening and closing included.
POLL = DEFAULT_WINDOW


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
    # As `tablewright serve` runs it: stored items of unfiltered reads are written unread, and
    # one-transaction requests are answered on the event loop unless they would wait for a lock.
    with ServerThread(
        functools.partial(engine.handle, encoded=True),
        try_now=functools.partial(engine.try_handle, encoded=True),
        request_timeout=2.0,
        poll=POLL,
    ) as running:
        yield running


@pytest.fixture
def client(server):
    return boto3.client("dynamodb", endpoint_url=server.url, config=NO_RETRY, **DUMMY)


@pytest.fixture
def resource(server):
    return boto3.resource("dynamodb", endpoint_url=server.url, config=NO_RETRY, **DUMMY)
