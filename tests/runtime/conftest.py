"""Fixtures: runtimes over the test designs on fresh embedded engines.

The runtime caches the patterns that split keys into fields by template text; under mutation
testing (docs/mutation.md: mutmut marks its processes with ``MUTANT_UNDER_TEST``) a warm cache would
hide a mutant of the pattern builder from every test but the first, so each test then starts empty.
"""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablewright import connect
from tablewright.design import load
from tablewright.runtime import Runtime
from tablewright.runtime.key_values import split_patterns

DESIGNS = Path(__file__).parent / "designs"


def _runtime_for(name: str, client=None) -> Runtime:
    rt = Runtime(load(DESIGNS / f"{name}.yaml"), client or connect(), secret=b"test-secret")
    rt.create_tables()
    return rt


@pytest.fixture(autouse=True)
def _fresh_split_patterns() -> Iterator[None]:
    if "MUTANT_UNDER_TEST" in os.environ:
        split_patterns.cache_clear()
    yield


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
