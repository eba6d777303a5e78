"""Fixtures for the stream tests: an in-memory engine with a movable clock and boto3 clients on it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import tablewright
from tablewright.engine import Engine

from ._support import MovableClock


@pytest.fixture
def clock() -> MovableClock:
    return MovableClock()


@pytest.fixture
def engine(clock: MovableClock) -> Iterator[Engine]:
    engine = Engine(clock=clock)
    yield engine
    engine.close()


@pytest.fixture
def ddb(engine: Engine) -> Any:
    return tablewright.connect(engine=engine)


@pytest.fixture
def streams(engine: Engine) -> Any:
    return tablewright.connect(service="dynamodbstreams", engine=engine)
