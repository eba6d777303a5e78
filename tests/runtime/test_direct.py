"""The direct path: data-plane calls straight to the in-process engine, with botocore's results.

Every test compares the direct path with botocore's on the same engine (or on twin engines fed
the same writes): responses, stored items, records, stats and errors must be the same.
"""

import re
from datetime import UTC, datetime

import pytest
from botocore.exceptions import ClientError, ParamValidationError

import tablewright
from tablewright.design import loads
from tablewright.runtime import Runtime, UniquenessError
from tablewright.runtime.direct import DirectClient, data_client, from_engine, to_engine

DESIGN = """
version: 1
name: blobs
tables:
  blobs:
    partition_key: {name: PK, type: S}
    sort_key: {name: SK, type: S}
entities:
  Blob:
    table: blobs
    attributes:
      owner: {type: string, required: true}
      blob_id: {type: number, required: true}
      digest: {type: binary}
      chunks: {type: binary_set}
      note: {type: string}
    keys:
      table: {pk: "OWNER#{owner}", sk: "BLOB#{blob_id:05d}"}
    unique: [[digest]]
patterns:
  blobs_of_owner:
    params: {owner: string}
    returns: Blob
    means: {where: "owner = :owner", order: blob_id asc}
    served: {op: query, page_size: 2}
  blobs_by_ids:
    params: {owner: string, ids: list}
    returns: Blob
    means: {where: "owner = :owner AND contains(:ids, blob_id)"}
    served: {op: batch_get, keys: ":ids"}
"""
NOW = datetime(2025, 1, 15, 12, 0, tzinfo=UTC)
NESTED = {"meta": {"raw": b"\x00\xff", "list": [b"a", {"deeper": b"\x01"}], "B": "text, not binary"}}


def _blob(n: int) -> dict:
    return {
        "owner": "o1",
        "blob_id": n,
        "digest": bytes([n, 0, 255]),
        "chunks": {b"c1", bytes([n])},
        "note": f"note {n}",
        **NESTED,
    }


def _runtime(client, *, direct: bool) -> Runtime:
    return Runtime(loads(DESIGN), client, secret=b"same-secret", direct=direct)


def _seeded(direct: bool) -> Runtime:
    rt = _runtime(tablewright.connect(), direct=direct)
    rt.create_tables()
    for n in range(1, 6):
        rt.put("Blob", _blob(n), now=NOW)
    rt.update("Blob", {"owner": "o1", "blob_id": 2}, {"digest": b"new"}, remove=["note"], now=NOW)
    rt.delete("Blob", {"owner": "o1", "blob_id": 3})
    return rt


def _stored(rt: Runtime) -> list[dict]:
    items = rt.client.scan(TableName="blobs", ConsistentRead=True)["Items"]
    return sorted(items, key=repr)


def _page(page) -> tuple:
    stats = page.stats
    return (
        [(r.entity, dict(r), r.key) for r in page],
        page.cursor,
        (stats.requests, stats.items_read, stats.items_returned, stats.consumed_capacity),
    )


def test_in_process_clients_take_the_direct_path_and_others_do_not():
    client = tablewright.connect()
    assert isinstance(data_client(client), DirectClient)
    assert data_client(tablewright.resource().meta.client).engine is not None

    class Wrapper:  # e.g. instrumentation: it must keep seeing every call
        def __getattr__(self, name):
            return getattr(client, name)

    wrapped = Wrapper()
    assert data_client(wrapped) is wrapped
    assert _runtime(client, direct=False).data is client


def test_direct_calls_skip_botocore():
    client = tablewright.connect()
    calls = []
    client.meta.events.register("before-call.dynamodb", lambda **kw: calls.append(kw["model"].name))
    for direct in (True, False):
        rt = _runtime(client, direct=direct)
        rt.create_tables()
        calls.clear()
        rt.replace("Blob", _blob(1), now=NOW)  # both runtimes share one table: the second overwrites
        rt.run("blobs_of_owner", owner="o1")
        assert bool(calls) is not direct, calls


def test_writes_store_the_same_items_over_both_paths():
    direct, botocore_path = _seeded(True), _seeded(False)
    assert _stored(direct) == _stored(botocore_path)
    assert any("digest" in item for item in _stored(direct))  # binary values made the trip
    assert direct.get("Blob", owner="o1", blob_id=1) == {**_blob(1)}


@pytest.mark.parametrize(
    "pattern, params",
    [
        ("blobs_of_owner", {"owner": "o1"}),
        ("blobs_by_ids", {"owner": "o1", "ids": [5, 3, 1, 2]}),
    ],
)
def test_a_pattern_returns_the_same_over_both_paths(pattern, params):
    rt = _seeded(True)
    slow = _runtime(rt.client, direct=False)
    for limit in (None, 2):
        fast_page, slow_page = rt.run(pattern, params, limit=limit), slow.run(pattern, params, limit=limit)
        assert _page(fast_page) == _page(slow_page)
        assert fast_page.items  # not vacuously equal
        if fast_page.cursor:
            resumed = [
                rt.run(pattern, params, cursor=fast_page.cursor),
                slow.run(pattern, params, cursor=slow_page.cursor),
            ]
            assert _page(resumed[0]) == _page(resumed[1])


def test_runtime_errors_are_the_same_over_both_paths():
    for direct in (True, False):
        rt = _seeded(direct)
        with pytest.raises(UniquenessError, match="digest"):
            rt.put("Blob", {**_blob(9), "digest": bytes([1, 0, 255])})


# ---------------------------------------------------------------------------- raw calls: responses and errors
@pytest.fixture
def twins():
    """The botocore client and the direct client of one engine, with one item holding binaries."""
    client = tablewright.connect()
    client.create_table(
        TableName="raw",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    item = {
        "pk": {"S": "a"},
        "b": {"B": b"\x00\x01"},
        "bs": {"BS": [b"x", b"\xff"]},
        "m": {"M": {"B": {"B": b"q"}, "l": {"L": [{"B": b"r"}, {"BS": [b"s"]}]}}},
    }
    client.put_item(TableName="raw", Item=item)
    return client, data_client(client), item


def _error(call, **request) -> ClientError:
    with pytest.raises(ClientError) as caught:
        call(**request)
    return caught.value


def _comparable(error: ClientError) -> tuple:
    response = {k: v for k, v in error.response.items() if k != "ResponseMetadata"}
    status = error.response["ResponseMetadata"]["HTTPStatusCode"]
    # Newer botocore releases decorate the message with their retry bookkeeping ("(reached max
    # retries: 0)") even when nothing was retried; that is the SDK's note, not the error.
    message = re.sub(r" \(reached max retries: \d+\)", "", str(error))
    return type(error).__name__, error.operation_name, message, status, response


ERRORS = {
    "conditional check, old item returned": (
        "put_item",
        {
            "TableName": "raw",
            "Item": {"pk": {"S": "a"}},
            "ConditionExpression": "attribute_not_exists(pk)",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        },
    ),
    "transaction cancelled, reasons with the item": (
        "transact_write_items",
        {
            "TransactItems": [
                {"Put": {"TableName": "raw", "Item": {"pk": {"S": "b"}}}},
                {
                    "ConditionCheck": {
                        "TableName": "raw",
                        "Key": {"pk": {"S": "a"}},
                        "ConditionExpression": "b = :b",
                        "ExpressionAttributeValues": {":b": {"B": b"other"}},
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    }
                },
            ]
        },
    ),
    "missing table": ("get_item", {"TableName": "nope", "Key": {"pk": {"S": "a"}}}),
    "invalid expression": ("query", {"TableName": "raw", "KeyConditionExpression": "pk = "}),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_are_raised_as_botocore_raises_them(twins, case):
    client, direct, _ = twins
    method, request = ERRORS[case]
    slow = _error(getattr(client, method), **request)
    fast = _error(getattr(direct, method), **request)
    assert _comparable(fast) == _comparable(slow)
    # modelled exception classes keep working in ``except client.exceptions.X``
    assert isinstance(fast, type(slow))


@pytest.mark.parametrize(
    ("method", "request_"),
    [
        ("scan", {"TableName": "raw", "consistentRead": True}),
        ("get_item", {"TableName": "raw", "Key": {"pk": {"S": "a"}}, "Projection": "pk"}),
        (
            "transact_write_items",
            {"TransactItems": [{"Put": {"TableName": "raw", "Item": {"pk": {"S": "z"}}}}], "Token": "t"},
        ),
    ],
)
def test_a_parameter_botocore_does_not_know_is_refused_as_botocore_refuses_it(twins, method, request_):
    # Else a misspelt member would work in process and fail against Amazon DynamoDB.
    client, direct, _ = twins
    refused = []
    for call in (getattr(client, method), getattr(direct, method)):
        with pytest.raises(ParamValidationError) as caught:
            call(**request_)
        refused.append(str(caught.value))
    assert refused[0] == refused[1]
    assert "Item" not in direct.get_item(TableName="raw", Key={"pk": {"S": "z"}})  # nothing was written


def test_responses_are_botocore_shaped(twins):
    client, direct, item = twins
    for method, request in [
        ("get_item", {"TableName": "raw", "Key": {"pk": {"S": "a"}}, "ReturnConsumedCapacity": "TOTAL"}),
        (
            "scan",
            {
                "TableName": "raw",
                "FilterExpression": "b = :b",
                "ExpressionAttributeValues": {":b": {"B": b"\x00\x01"}},
            },
        ),
        ("batch_get_item", {"RequestItems": {"raw": {"Keys": [{"pk": {"S": "a"}}]}}}),
        ("transact_get_items", {"TransactItems": [{"Get": {"TableName": "raw", "Key": {"pk": {"S": "a"}}}}]}),
    ]:
        slow, fast = getattr(client, method)(**request), getattr(direct, method)(**request)
        slow.pop("ResponseMetadata"), fast.pop("ResponseMetadata")
        assert fast == slow
    assert direct.get_item(TableName="raw", Key={"pk": {"S": "a"}})["Item"] == item


def test_binary_conversion_both_ways_and_only_for_binary_values():
    request = {
        "Item": {
            "b": {"B": b"\x00"},
            "ba": {"B": bytearray(b"\x01")},
            "bs": {"BS": [b"\x02"]},
            "B": {"S": "an attribute named B"},
            "BS": {"L": [{"B": b"\x03"}]},
        }
    }
    wire = to_engine(request)
    assert wire["Item"]["b"] == {"B": "AA=="} and wire["Item"]["ba"] == {"B": "AQ=="}
    assert wire["Item"]["bs"] == {"BS": ["Ag=="]}
    assert wire["Item"]["B"] == {"S": "an attribute named B"}
    assert wire["Item"]["BS"] == {"L": [{"B": "Aw=="}]}
    back = from_engine(wire)
    assert back["Item"]["ba"] == {"B": b"\x01"} and back["Item"]["BS"] == {"L": [{"B": b"\x03"}]}
    assert request["Item"]["b"] == {"B": b"\x00"}  # the caller's request is not changed
