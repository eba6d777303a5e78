"""Query and Scan pass stored items through unread, and that never changes an answer.

A read without filter or projection answers its items as the stored JSON (``EncodedItems``); the
same read with a filter that every item passes takes the general path (each item decoded, checked,
kept). The two must agree on everything: Items, Count, ScannedCount, LastEvaluatedKey and
ConsumedCapacity, page after page, for tables and every kind of index, directly and over HTTP.
"""

from __future__ import annotations

import functools
import http.client
import urllib.parse
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewright.engine import Engine
from tablewright.engine.encoded import EncodedItems, decoded, dumps
from tablewright.engine.errors import DynamoDBError
from tablewright.server import ServerThread

from .support.generated_items import DEFINITION, NEVER, TABLE, items, with_keys

ALWAYS_TRUE = {
    "FilterExpression": "attribute_not_exists(#never)",
    "ExpressionAttributeNames": {"#never": NEVER},
}

# (operation, index, key condition values): every read shape the fast path may serve.
_SHAPES = [
    ("Scan", None, None),
    ("Scan", "by_l", None),
    ("Scan", "by_l_keys", None),
    ("Scan", "by_g", None),
    ("Scan", "by_g_keys", None),
    ("Query", None, ("pk", {"S": "p0"})),
    ("Query", "by_l", ("pk", {"S": "p1"})),
    ("Query", "by_l_keys", ("pk", {"S": "p0"})),
    ("Query", "by_g", ("g", {"S": "x"})),
    ("Query", "by_g_keys", ("g", {"S": "y"})),
]

requests = st.fixed_dictionaries(
    {
        "shape": st.sampled_from(_SHAPES),
        "Limit": st.one_of(st.none(), st.integers(1, 5)),
        "ScanIndexForward": st.booleans(),
        "ConsistentRead": st.booleans(),
        "ReturnConsumedCapacity": st.sampled_from([None, "NONE", "TOTAL", "INDEXES"]),
        "Select": st.sampled_from([None, "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"]),
        "segments": st.sampled_from([None, (0, 2), (1, 2)]),
    }
)


def _request(drawn: dict) -> tuple[str, dict]:
    operation, index, condition = drawn["shape"]
    request: dict[str, Any] = {"TableName": TABLE}
    if index is not None:
        request["IndexName"] = index
    if condition is not None:
        request["KeyConditionExpression"] = "#k = :k"
        request["ExpressionAttributeNames"] = {"#k": condition[0]}
        request["ExpressionAttributeValues"] = {":k": condition[1]}
        request["ScanIndexForward"] = drawn["ScanIndexForward"]
    elif drawn["segments"] is not None:
        request["Segment"], request["TotalSegments"] = drawn["segments"]
    for option in ("Limit", "ReturnConsumedCapacity", "Select"):
        if drawn[option] is not None:
            request[option] = drawn[option]
    if drawn["ConsistentRead"] and not (index or "").startswith("by_g"):
        request["ConsistentRead"] = True
    return operation, request


def _general(request: dict) -> dict:
    """The same read through the general path: a filter every generated item passes."""
    names = {**request.get("ExpressionAttributeNames", {}), **ALWAYS_TRUE["ExpressionAttributeNames"]}
    return {**request, "FilterExpression": ALWAYS_TRUE["FilterExpression"], "ExpressionAttributeNames": names}


def _answer(call: Any, operation: str, request: dict) -> dict:
    try:
        return call(operation, request)
    except DynamoDBError as error:
        return {"error": error.to_wire()}


def _pages(call: Any, operation: str, request: dict) -> Iterator[dict]:
    """Every page of a read, following LastEvaluatedKey (at most 40 pages)."""
    for _ in range(40):
        answer = _answer(call, operation, request)
        yield answer
        if "LastEvaluatedKey" not in answer:
            return
        request = {**request, "ExclusiveStartKey": answer["LastEvaluatedKey"]}
    raise AssertionError("more than 40 pages")


def _loaded(generated: list) -> Engine:
    engine = Engine()
    engine.handle("CreateTable", DEFINITION)
    for item in with_keys(generated):
        engine.handle("PutItem", {"TableName": TABLE, "Item": item})
    return engine


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items, requests)
def test_pass_through_answers_like_the_general_path(generated: list, drawn: dict) -> None:
    engine = _loaded(generated)
    try:
        operation, request = _request(drawn)
        fast = list(_pages(engine.handle, operation, request))
        general = list(_pages(engine.handle, operation, _general(request)))
        assert fast == general
        # What the server writes (the stored bytes, spliced) is the same JSON as the decoded answer.
        for page in _pages(functools.partial(engine.handle, encoded=True), operation, request):
            if "error" not in page:
                assert orjson.loads(dumps(page)) == decoded(dict(page))
    finally:
        engine.close()


@pytest.fixture
def engine() -> Iterator[Engine]:
    generated = [({"n": {"N": str(n)}, "b": {"B": "AAE="}}, "x" if n % 2 else None, "y") for n in range(9)]
    engine = _loaded(generated)
    yield engine
    engine.close()


@pytest.mark.parametrize(
    ("index", "select"),
    [(None, None), ("by_l", None), ("by_g", None), ("by_l_keys", "ALL_ATTRIBUTES")],
)
def test_unfiltered_reads_answer_stored_items_unread(
    engine: Engine, index: str | None, select: str | None
) -> None:
    request: dict[str, Any] = {"TableName": TABLE, **({"IndexName": index} if index else {})}
    if select:
        request["Select"] = select
    answer = engine.handle("Scan", request, encoded=True)
    assert type(answer["Items"]) is EncodedItems
    assert engine.handle("Scan", request)["Items"] == orjson.loads(answer["Items"].json)
    assert type(engine.handle("Scan", request)["Items"]) is list  # the public contract: plain structures


@pytest.mark.parametrize(
    "extra",
    [ALWAYS_TRUE, {"ProjectionExpression": "pk, sk"}, {"IndexName": "by_g_keys"}, {"IndexName": "by_l_keys"}],
)
def test_filtered_or_projected_reads_decode_items(engine: Engine, extra: dict) -> None:
    answer = engine.handle("Scan", {"TableName": TABLE, **extra}, encoded=True)
    assert type(answer["Items"]) is list


def test_the_one_megabyte_page_ends_at_the_same_item(engine: Engine) -> None:
    big = "x" * 380_000
    for n in range(6):
        item = {"pk": {"S": "big"}, "sk": {"N": str(n)}, "blob": {"S": big}, "l": {"S": "x"}, "g": {"S": "z"}}
        engine.handle("PutItem", {"TableName": TABLE, "Item": item})
    for operation, request in [
        ("Scan", {"TableName": TABLE, "ReturnConsumedCapacity": "INDEXES"}),
        (
            "Query",
            {"TableName": TABLE, "KeyConditionExpression": "pk = :p", "ReturnConsumedCapacity": "TOTAL"},
        ),
        ("Query", {"TableName": TABLE, "IndexName": "by_g", "KeyConditionExpression": "g = :p"}),
    ]:
        if operation == "Query":
            value = "big" if "IndexName" not in request else "z"
            request["ExpressionAttributeValues"] = {":p": {"S": value}}
        fast = list(_pages(engine.handle, operation, request))
        assert fast == list(_pages(engine.handle, operation, _general(request)))
        # 2.3 MB of items: pages of at most three large items (the one that reaches 1 MB ends a page).
        assert len(fast) >= 3
        assert all(sum("blob" in item for item in page["Items"]) <= 3 for page in fast)


def _post(server: ServerThread, operation: str, request: dict) -> tuple[int, Any]:
    host = urllib.parse.urlsplit(server.url)
    connection = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
    headers = {"X-Amz-Target": f"DynamoDB_20120810.{operation}", "Content-Type": "application/x-amz-json-1.0"}
    connection.request("POST", "/", orjson.dumps(request), headers)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, orjson.loads(body)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items, requests)
def test_served_pass_through_answers_like_the_decoded_server(generated: list, drawn: dict) -> None:
    """Over HTTP: a server writing stored items unread answers what a server re-encoding them does."""
    engine = _loaded(generated)
    try:
        with (
            ServerThread(functools.partial(engine.handle, encoded=True)) as fast,
            ServerThread(engine.handle) as general,
        ):
            operation, request = _request(drawn)
            for _ in range(40):
                answer = _post(fast, operation, request)
                assert answer == _post(general, operation, request)
                if answer[0] != 200 or "LastEvaluatedKey" not in answer[1]:
                    break
                request = {**request, "ExclusiveStartKey": answer[1]["LastEvaluatedKey"]}
    finally:
        engine.close()
