"""Shared helpers for the conformance suite: backend choice, table shapes and error assertions.

The suite is DynamoDB's behaviour written down as tests. It runs against the embedded engine
(``TABLEWRIGHT_BACKEND=engine``, the default), against ``tablewright serve`` over HTTP (``serve``),
against any other endpoint (``endpoint``, Amazon DynamoDB included), or against moto (``moto``) as a
cross-check of the tests themselves. Where moto disagrees with DynamoDB's documentation the test
is marked :func:`moto_differs` and keeps asserting what DynamoDB does. docs/conformance.md says how.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from botocore.exceptions import ClientError

BACKENDS = ("engine", "serve", "endpoint", "moto")
# Unset: every test taking ``client`` or ``resource`` runs on the in-process engine and on
# ``tablewright serve`` (the default run, CI's too). Set to one backend, or to several separated by
# commas (``engine,serve,moto``: the moto cross-check beside them), the suite runs on those.
_CHOSEN = tuple(b.strip() for b in os.environ.get("TABLEWRIGHT_BACKEND", "").split(",") if b.strip())
if any(b not in BACKENDS for b in _CHOSEN):
    raise RuntimeError(
        f"TABLEWRIGHT_BACKEND must be one or more of {', '.join(BACKENDS)} (comma-separated); "
        f"got {os.environ['TABLEWRIGHT_BACKEND']!r}"
    )
SELECTED: tuple[str, ...] = tuple(dict.fromkeys(_CHOSEN)) or ("engine", "serve")
# The backend a test that does not take ``client`` or ``resource`` stands for (run once).
BACKEND = SELECTED[0]
# Reached over HTTP through a table namespace (conformance/_backends.py).
REMOTE_BACKENDS = ("serve", "endpoint")
REMOTE = BACKEND in REMOTE_BACKENDS


def moto_differs(reason: str, strict: bool = True) -> pytest.MarkDecorator:
    """Expect failure on moto only: moto does not do what DynamoDB documents (``reason`` says what).

    Strict by default, so a marker that stops being true (moto fixed, or the test wrong) is noticed;
    where a module-wide marker is wrong for one test, mark that test :func:`moto_agrees` rather than
    passing ``strict=False``. The conftest turns it into an ``xfail`` on the moto runs of the test.
    """
    return pytest.mark.moto_differs(reason=f"moto differs: {reason}", strict=strict)


def engine_only(reason: str) -> pytest.MarkDecorator:
    """Skip on every backend but the in-process engine: the test needs an engine hook that has no
    DynamoDB API (e.g. the TTL sweeper) or checks the engine's own internals (conftest applies it)."""
    return pytest.mark.engine_only(reason=f"engine only: {reason}")


def moto_agrees(why: str) -> pytest.MarkDecorator:
    """Lift a module- or class-wide :func:`moto_differs` from one test or case: here moto's answer is
    DynamoDB's (``why`` says why, e.g. a fixed figure that happens to be right)."""
    return pytest.mark.moto_differs(reason=None, strict=True, agrees=why)


def cases(
    table: dict[str, Any], moto: dict[str, str] | None = None, moto_agrees_on: dict[str, str] | None = None
) -> list[Any]:
    """``pytest.param`` per entry of a case table (id -> args); ids in ``moto`` get :func:`moto_differs`,
    ids in ``moto_agrees_on`` get :func:`moto_agrees`.

    A tuple value is the argument tuple; anything else is the single argument.
    """
    moto = moto or {}
    agrees = moto_agrees_on or {}
    unknown = (set(moto) | set(agrees)) - set(table)
    assert not unknown, f"moto marker ids not in the case table: {unknown}"

    def marks(case_id: str) -> list[pytest.MarkDecorator]:
        if case_id in moto:
            return [moto_differs(moto[case_id])]
        return [moto_agrees(agrees[case_id])] if case_id in agrees else []

    return [
        pytest.param(*(args if isinstance(args, tuple) else (args,)), id=case_id, marks=marks(case_id))
        for case_id, args in table.items()
    ]


# ------------------------------------------------------------------------------------- table shapes

# Each shape is the key part of a CreateTable request. Data, not code: a new shape is one entry.
_S, _N, _B = "S", "N", "B"
SHAPES: dict[str, dict[str, Any]] = {
    "hash_s": {"keys": [("pk", _S, "HASH")]},
    "hash_n": {"keys": [("pk", _N, "HASH")]},
    "hash_b": {"keys": [("pk", _B, "HASH")]},
    "hash_range_s": {"keys": [("pk", _S, "HASH"), ("sk", _S, "RANGE")]},
    "hash_range_n": {"keys": [("pk", _S, "HASH"), ("sk", _N, "RANGE")]},
    "hash_range_b": {"keys": [("pk", _S, "HASH"), ("sk", _B, "RANGE")]},
    # table pk/sk (S/S) + global index gsi1 on gpk (S) / gsk (N)
    "gsi": {
        "keys": [("pk", _S, "HASH"), ("sk", _S, "RANGE")],
        "gsi": {"gsi1": [("gpk", _S, "HASH"), ("gsk", _N, "RANGE")]},
    },
    # table pk/sk (S/S) + local index lsi1 on pk / lsk (N)
    "lsi": {
        "keys": [("pk", _S, "HASH"), ("sk", _S, "RANGE")],
        "lsi": {"lsi1": [("pk", _S, "HASH"), ("lsk", _N, "RANGE")]},
    },
}


def table_request(shape: str, name: str, projection: dict | None = None, **extra: Any) -> dict[str, Any]:
    """The CreateTable request for ``shape`` (see :data:`SHAPES`); ``extra`` overrides any field."""
    spec = SHAPES[shape]
    projection = projection or {"ProjectionType": "ALL"}
    definitions: dict[str, str] = {}

    def schema(keys: list[tuple[str, str, str]]) -> list[dict[str, str]]:
        for attr, kind, _ in keys:
            definitions[attr] = kind
        return [{"AttributeName": attr, "KeyType": role} for attr, _, role in keys]

    request: dict[str, Any] = {"TableName": name, "KeySchema": schema(spec["keys"])}
    request["BillingMode"] = "PAY_PER_REQUEST"
    if "gsi" in spec:
        request["GlobalSecondaryIndexes"] = [
            {"IndexName": index, "KeySchema": schema(keys), "Projection": projection}
            for index, keys in spec["gsi"].items()
        ]
    if "lsi" in spec:
        request["LocalSecondaryIndexes"] = [
            {"IndexName": index, "KeySchema": schema(keys), "Projection": projection}
            for index, keys in spec["lsi"].items()
        ]
    request["AttributeDefinitions"] = [
        {"AttributeName": a, "AttributeType": t} for a, t in definitions.items()
    ]
    request.update(extra)
    return request


def create_table(client: Any, shape: str, name: str | None = None, **options: Any) -> str:
    """Create a table of ``shape`` through ``client`` and return its name."""
    name = name or f"t_{shape}"
    client.create_table(**table_request(shape, name, **options))
    client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    return name


# ------------------------------------------------------------------------------------------ errors


@contextmanager
def raises_dynamodb(code: str, *phrases: str) -> Iterator[pytest.ExceptionInfo[ClientError]]:
    """Expect a ``ClientError`` whose ``Error.Code`` is ``code`` and whose message holds ``phrases``.

    Phrases are DynamoDB's own wording; matching key phrases rather than whole messages keeps the
    test about what is said, not about punctuation DynamoDB itself is inconsistent about.
    """
    with pytest.raises(ClientError) as info:
        yield info
    error = info.value.response["Error"]
    assert error["Code"] == code, f"expected {code}, got {error['Code']}: {error.get('Message')}"
    for phrase in phrases:
        assert phrase in error.get("Message", ""), f"{phrase!r} not in message {error.get('Message')!r}"


# ------------------------------------------------------------------------------------------- items


def s(value: str) -> dict[str, str]:
    """A wire String attribute value."""
    return {"S": value}


def n(value: int | float | str) -> dict[str, str]:
    """A wire Number attribute value."""
    return {"N": str(value)}


def put_all(client: Any, table: str, items: list[dict[str, Any]]) -> None:
    """Write ``items`` with BatchWriteItem in chunks of 25 (the batch limit)."""
    for start in range(0, len(items), 25):
        chunk = items[start : start + 25]
        response = client.batch_write_item(RequestItems={table: [{"PutRequest": {"Item": i}} for i in chunk]})
        assert response["UnprocessedItems"] == {}


def query_all(client: Any, **request: Any) -> tuple[list[dict[str, Any]], int]:
    """Page a Query to exhaustion; return every item and the number of pages it took."""
    return _drain(client.query, request)


def scan_all(client: Any, **request: Any) -> tuple[list[dict[str, Any]], int]:
    """Page a Scan to exhaustion; return every item and the number of pages it took."""
    return _drain(client.scan, request)


def _drain(call: Any, request: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    items: list[dict[str, Any]] = []
    pages = 0
    while True:
        page = call(**request)
        pages += 1
        items.extend(page.get("Items", []))
        if "LastEvaluatedKey" not in page:
            return items, pages
        request = {**request, "ExclusiveStartKey": page["LastEvaluatedKey"]}
        assert pages < 10_000, "paging never ended"
