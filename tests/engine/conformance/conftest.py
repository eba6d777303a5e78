"""Fixtures for the conformance suite: a boto3 client/resource on the chosen backend, and tables.

``TABLEWRIGHT_BACKEND`` picks where the suite's requests go (docs/conformance.md); unset, every
test taking ``client`` or ``resource`` runs twice, on ``engine`` and ``serve`` (the serve runs marked
``slow``, so out of the fast subset); ``moto`` runs only when named (``TABLEWRIGHT_BACKEND=moto``, or
``engine,serve,moto``):

- ``engine``: boto3 served in-process by a fresh in-memory engine (``tablewright.connect()``);
- ``serve``: one ``tablewright serve`` process per test session (in memory, 127.0.0.1, a free port),
  reached over HTTP; each test gets its own table namespace, deleted when it ends;
- ``endpoint``: the endpoint named by ``TABLEWRIGHT_ENDPOINT`` (Amazon DynamoDB included), with
  region and credentials from the standard AWS environment; a non-loopback endpoint needs
  ``TABLEWRIGHT_ENDPOINT_ALLOW_REMOTE=create-and-delete-tables``. Namespaced and cleaned as ``serve``;
- ``moto``: ``moto.mock_aws()``, a cross-check of the tests themselves (each known difference is a
  strict ``moto_differs`` marker, an xfail on moto only).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from . import _backends
from ._support import BACKEND, REMOTE_BACKENDS, SELECTED, create_table

_REGION = "us-east-1"


_HERE = Path(__file__).parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "engine_only(reason): runs on the in-process engine backend only")
    config.addinivalue_line("markers", "moto_differs(reason, strict): an xfail on the moto backend")
    if "endpoint" in SELECTED:
        try:  # refused once, before any test or worker starts, rather than once per test
            _backends.endpoint_from_environment()
        except RuntimeError as refusal:
            raise pytest.UsageError(str(refusal)) from None


def _meaningless_on(item: pytest.Item, backend: str) -> bool:
    """Whether ``item`` checks nothing on ``backend``: an engine hook or the engine's own rows off the
    in-process engine, an HTTP detail without HTTP. Such runs are not collected (deselected), rather
    than collected and always skipped."""
    if backend != "engine" and (
        item.get_closest_marker("engine_only") is not None or "engine" in item.fixturenames
    ):
        return True
    return "http_client" in item.fixturenames and backend not in REMOTE_BACKENDS


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Called with every item of the session: only this directory's are ours.
    deselected = [
        item for item in items if item.path.is_relative_to(_HERE) and _meaningless_on(item, _backend_of(item))
    ]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        dropped = set(deselected)
        items[:] = [item for item in items if item not in dropped]
    for item in items:
        if not item.path.is_relative_to(_HERE):
            continue
        backend = _backend_of(item)
        if backend == "serve" and len(SELECTED) > 1:
            # The served runs repeat the engine's over HTTP: CI runs them, the edit-test loop does not
            # (tests/server covers the HTTP layer in the fast subset).
            item.add_marker(pytest.mark.slow)
        if backend != "moto":
            continue
        marker = next(item.iter_markers("moto_differs"), None)
        if marker is not None and marker.kwargs["reason"] is not None:  # None: moto_agrees
            item.add_marker(pytest.mark.xfail(reason=marker.kwargs["reason"], strict=marker.kwargs["strict"]))
        if len(SELECTED) > 1:
            item.add_marker(pytest.mark.slow)  # with others: out of the edit-test loop too


def _backend_of(item: pytest.Item) -> str:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("backend", BACKEND) if callspec else BACKEND


@pytest.fixture(scope="session", params=SELECTED)
def backend(request: pytest.FixtureRequest) -> str:
    """The backend this test runs on: one of ``_support.SELECTED``."""
    return request.param


@pytest.fixture
def _aws_env(monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    if backend == "endpoint":
        return  # the endpoint's own credentials and region, from the standard AWS environment
    # Dummy credentials so that nothing can ever reach a real account.
    for var, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": _REGION,
    }.items():
        monkeypatch.setenv(var, value)


@pytest.fixture(scope="session")
def _remote_url(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str | None]:
    """The URL of the remote backend: a ``tablewright serve`` started for this session, or the endpoint."""
    if backend == "serve":
        served = _backends.ServedProcess(tmp_path_factory.mktemp("serve") / "serve.log")
        try:
            yield served.url
        finally:
            served.stop()
    elif backend == "endpoint":
        yield _backends.endpoint_from_environment()
    else:
        yield None


def _remote_region(backend: str) -> str | None:
    if backend == "serve":
        return _REGION
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")


@functools.cache
def _moto_session() -> boto3.session.Session:
    """One boto3 session for every moto run of this process. ``mock_aws`` starts with a fresh default
    session, whose first client loads botocore's models again (130 ms of each test's 400); a session
    made once, after moto is imported (so that it has moto's request hook), loads them once. Each
    ``mock_aws`` still starts from empty backends."""
    import moto  # noqa: F401 - registers moto's hook before the session copies botocore's handlers

    return boto3.session.Session(region_name=_REGION)


@pytest.fixture
def client(backend: str, _aws_env: None, _remote_url: str | None) -> Iterator[Any]:
    """A boto3 DynamoDB client on a fresh, empty backend (a fresh table namespace on remote ones)."""
    if backend == "moto":
        from moto import mock_aws

        with mock_aws():
            yield _moto_session().client("dynamodb", region_name=_REGION)
    elif backend in REMOTE_BACKENDS:
        assert _remote_url is not None
        region = _remote_region(backend)
        remote = _backends.remote_client(_remote_url, region)
        with _backends.namespaced(remote, _backends.cleanup_client(_remote_url, region)):
            yield remote
    else:
        import tablewright

        yield tablewright.connect()


@pytest.fixture
def resource(backend: str, _aws_env: None, _remote_url: str | None) -> Iterator[Any]:
    """A boto3 DynamoDB service resource on a fresh, empty backend (independent of ``client``)."""
    if backend == "moto":
        from moto import mock_aws

        with mock_aws():
            yield _moto_session().resource("dynamodb", region_name=_REGION)
    elif backend in REMOTE_BACKENDS:
        assert _remote_url is not None
        region = _remote_region(backend)
        dynamodb = _backends.remote_resource(_remote_url, region)
        with _backends.namespaced(dynamodb.meta.client, _backends.cleanup_client(_remote_url, region)):
            yield dynamodb
    else:
        import tablewright

        yield tablewright.resource()


@pytest.fixture
def engine(backend: str, client: Any) -> Any:
    """The engine behind ``client`` (engine backend only), for hooks such as ``sweep_ttl``."""
    if backend != "engine":
        pytest.skip(f"needs the tablewright engine in this process (backend is {backend})")
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
