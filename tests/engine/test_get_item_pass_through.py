"""GetItem without projection answers the stored item's bytes as they are (``EncodedItem``).

Compared with the general path (the same request with ``ReturnConsumedCapacity: NONE``, which decodes
and re-encodes the item) on generated items of every type: the engine's plain and encoded answers, the
in-process boto3 client, and boto3 against a server run as ``tablewright serve`` runs it
(``encoded=True`` and the event loop's ``try_now``).
"""

from __future__ import annotations

import functools

import boto3
import orjson
from hypothesis import HealthCheck, given, settings

import tablewright
from tablewright.engine import Engine, encoded
from tablewright.server import ServerThread

from .support.generated_items import DEFINITION, TABLE, items, same, with_keys

DUMMY = {"region_name": "us-east-1", "aws_access_key_id": "anything", "aws_secret_access_key": "anything"}


def _without_metadata(parsed: dict) -> dict:
    return {name: value for name, value in parsed.items() if name != "ResponseMetadata"}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items)
def test_get_item_pass_through_answers_as_the_general_path(generated: list) -> None:
    engine = Engine()
    engine.handle("CreateTable", DEFINITION)
    stored = with_keys(generated)
    for item in stored:
        engine.handle("PutItem", {"TableName": TABLE, "Item": item})
    keys = [{"pk": item["pk"], "sk": item["sk"]} for item in stored]
    keys.append({"pk": {"S": "p0"}, "sk": {"N": "-1"}})  # no such item
    local = tablewright.connect(engine=engine)
    try:
        with ServerThread(
            functools.partial(engine.handle, encoded=True),
            try_now=functools.partial(engine.try_handle, encoded=True),
        ) as server:
            remote = boto3.client("dynamodb", endpoint_url=server.url, **DUMMY)
            for key in keys:
                short = {"TableName": TABLE, "Key": key}
                general = engine.handle("GetItem", {**short, "ReturnConsumedCapacity": "NONE"})
                passed = engine.handle("GetItem", short, encoded=True)
                if "Item" in general:
                    assert type(passed["Item"]) is encoded.EncodedItem  # the shortcut was taken
                assert same(engine.handle("GetItem", short), general)
                assert same(orjson.loads(encoded.dumps(passed)), general)
                reference = _without_metadata(local.get_item(**short, ReturnConsumedCapacity="NONE"))
                assert same(_without_metadata(local.get_item(**short)), reference)
                assert same(_without_metadata(remote.get_item(**short)), reference)
    finally:
        engine.close()
