"""Fixtures for the conformance suite: a boto3 client/resource on the chosen backend, and tables.

``TABLEWRIGHT_BACKEND=engine`` (default) serves boto3 in-process from a fresh in-memory engine via
``tablewright.connect()``; ``TABLEWRIGHT_BACKEND=moto`` uses ``moto.mock_aws()``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest

from ._support import BACKEND, create_table

_REGION = "us-east-1"


@pytest.fixture
def _aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # Dummy credentials so that nothing can ever reach a real account.
    for var, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": _REGION,
    }.items():
        monkeypatch.setenv(var, value)


@pytest.fixture
def client(_aws_env: None) -> Iterator[Any]:
    """A boto3 DynamoDB client on a fresh, empty backend."""
    if BACKEND == "moto":
        from moto import mock_aws

        with mock_aws():
            yield boto3.client("dynamodb", region_name=_REGION)
    else:
        import tablewright

        yield tablewright.connect()


@pytest.fixture
def resource(_aws_env: None) -> Iterator[Any]:
    """A boto3 DynamoDB service resource on a fresh, empty backend (independent of ``client``)."""
    if BACKEND == "moto":
        from moto import mock_aws

        with mock_aws():
            yield boto3.resource("dynamodb", region_name=_REGION)
    else:
        import tablewright

        yield tablewright.resource()


@pytest.fixture
def engine(client: Any) -> Any:
    """The engine behind ``client`` (engine backend only), for hooks such as ``sweep_ttl``."""
    if BACKEND == "moto":
        pytest.skip("needs the tablewright engine")
    import tablewright

    return tablewright.engine_of(client)


@pytest.fixture
def make_table(client: Any) -> Callable[..., str]:
    """``make_table(shape, name=None, projection=None, **create_table_overrides) -> table name``.

    Shapes are listed in ``_support.SHAPES``: hash_s, hash_n, hash_b, hash_range_s, hash_range_n,
    hash_range_b, gsi (index gsi1 on gpk S / gsk N), lsi (index lsi1 on pk / lsk N).
    """

    def make(shape: str, name: str | None = None, **options: Any) -> str:
        return create_table(client, shape, name, **options)

    return make
