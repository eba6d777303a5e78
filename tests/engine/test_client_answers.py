"""The in-process client's item decoding gives exactly what botocore's own parser gives.

``tablewright.connect(engine=...)`` parses the items of read answers itself (``tablewright.answers``)
instead of running botocore's shape walk over them. The reference here is botocore's JSON parser over
the JSON bytes of the engine's answer, as an HTTP response would carry them: the two must be equal
down to the Python type of every value (``bytes`` for binary, ``str`` for numbers, ``bool`` vs ints).
"""

from __future__ import annotations

import functools
from typing import Any

import orjson
from botocore import xform_name
from botocore.parsers import create_parser
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tablewright
from tablewright.engine import Engine
from tablewright.server import ServerThread

from .support.generated_items import DEFINITION, TABLE, items, same, with_keys

_BOTOCORE = create_parser("json")
_HEADERS = {"content-type": "application/x-amz-json-1.0", "x-amzn-requestid": "tablewright"}


def _by_botocore(client: Any, operation: str, answer: dict) -> dict:
    model = client.meta.service_model.operation_model(operation)
    response = {"status_code": 200, "headers": _HEADERS, "body": orjson.dumps(answer)}
    return _BOTOCORE.parse(response, model.output_shape)


def _without_metadata(parsed: dict) -> dict:
    return {name: value for name, value in parsed.items() if name != "ResponseMetadata"}


def _key(number: int, partitions: int = 2) -> dict:
    return {"pk": {"S": f"p{number % partitions}"}, "sk": {"N": str(number)}}


def _reads(count: int, capacity: str) -> list[tuple[str, dict]]:
    """Every read that answers items, over the generated items' keys (one missing key too)."""
    keys = [_key(n) for n in range(count + 1)]
    query = {"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p0"}}}
    return [
        ("Scan", {"TableName": TABLE, "ReturnConsumedCapacity": capacity}),
        ("Scan", {"TableName": TABLE, "Limit": 2}),
        ("Scan", {"TableName": TABLE, "ProjectionExpression": "pk, #b", "ExpressionAttributeNames": {"#b": "B"}}),
        ("Query", {"TableName": TABLE, **query, "ReturnConsumedCapacity": capacity}),
        ("Query", {"TableName": TABLE, "IndexName": "by_g", "KeyConditionExpression": "g = :g",
                   "ExpressionAttributeValues": {":g": {"S": "x"}}}),
        ("Query", {"TableName": TABLE, "IndexName": "by_l_keys", **query}),
        *[("GetItem", {"TableName": TABLE, "Key": key, "ReturnConsumedCapacity": capacity}) for key in keys[:3]],
        ("GetItem", {"TableName": TABLE, "Key": keys[-1]}),
        ("BatchGetItem", {"RequestItems": {TABLE: {"Keys": keys}}, "ReturnConsumedCapacity": capacity}),
        ("TransactGetItems", {"TransactItems": [{"Get": {"TableName": TABLE, "Key": key}} for key in keys],
                              "ReturnConsumedCapacity": capacity}),
    ]  # fmt: skip


def _loaded(generated: list) -> tuple[Engine, list[dict]]:
    engine = Engine()
    engine.handle("CreateTable", DEFINITION)
    stored = with_keys(generated)
    for item in stored:
        engine.handle("PutItem", {"TableName": TABLE, "Item": item})
    return engine, stored


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items, st.sampled_from(["NONE", "TOTAL", "INDEXES"]))
def test_in_process_reads_parse_like_botocore(generated: list, capacity: str) -> None:
    engine, stored = _loaded(generated)
    client = tablewright.connect(engine=engine)
    try:
        for operation, request in _reads(len(stored), capacity):
            answer = getattr(client, xform_name(operation))(**request)
            reference = _by_botocore(client, operation, engine.handle(operation, request))
            assert same(_without_metadata(answer), _without_metadata(reference)), operation
            assert answer["ResponseMetadata"]["HTTPStatusCode"] == 200
    finally:
        engine.close()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items)
def test_in_process_reads_match_boto3_over_http(generated: list) -> None:
    """The same reads through boto3 against ``tablewright serve``'s pass-through: the same answers."""
    engine, stored = _loaded(generated)
    local = tablewright.connect(engine=engine)
    try:
        with ServerThread(functools.partial(engine.handle, encoded=True)) as server:
            remote = tablewright.connect(endpoint_url=server.url)
            for operation, request in _reads(len(stored), "TOTAL"):
                answer = getattr(local, xform_name(operation))(**request)
                served = getattr(remote, xform_name(operation))(**request)
                assert same(_without_metadata(answer), _without_metadata(served)), operation
    finally:
        engine.close()


def test_binary_values_become_bytes_at_every_depth() -> None:
    """A fixed item, so that a decoder returning base64 text cannot pass on lucky draws."""
    engine = Engine()
    engine.handle("CreateTable", DEFINITION)
    item = {
        "pk": {"S": "p0"},
        "sk": {"N": "1"},
        "B": {"S": "an attribute named B"},
        "bin": {"B": "AAEC"},
        "set": {"BS": ["AA==", "AQ=="]},
        "deep": {"L": [{"M": {"x": {"B": "/w=="}, "y": {"S": "B"}}}, {"N": "1.50"}]},
    }
    engine.handle("PutItem", {"TableName": TABLE, "Item": item})
    client = tablewright.connect(engine=engine)
    for found in (
        client.scan(TableName=TABLE)["Items"][0],
        client.get_item(TableName=TABLE, Key=_key(1, 1) | {"pk": {"S": "p0"}})["Item"],
    ):
        assert found["bin"] == {"B": b"\x00\x01\x02"}
        assert found["set"] == {"BS": [b"\x00", b"\x01"]}
        assert found["deep"]["L"][0]["M"]["x"] == {"B": b"\xff"}
        assert found["deep"]["L"][1] == {"N": "1.5"}
        assert found["B"] == {"S": "an attribute named B"}
    engine.close()
