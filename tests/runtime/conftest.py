"""Fixtures: runtimes over the test designs on fresh embedded engines."""

from pathlib import Path

import pytest

from tablewright import connect
from tablewright.design import load
from tablewright.runtime import Runtime

DESIGNS = Path(__file__).parent / "designs"


def _runtime_for(name: str, client=None) -> Runtime:
    rt = Runtime(load(DESIGNS / f"{name}.yaml"), client or connect(), secret=b"test-secret")
    rt.create_tables()
    return rt


@pytest.fixture
def runtime_for():
    """A factory: ``runtime_for("nexus", client)`` with tables created."""
    return _runtime_for


@pytest.fixture
def van() -> Runtime:
    return _runtime_for("van")


@pytest.fixture
def nexus() -> Runtime:
    return _runtime_for("nexus")


@pytest.fixture
def sensor() -> Runtime:
    return _runtime_for("sensor")


@pytest.fixture
def bank() -> Runtime:
    return _runtime_for("bank")
