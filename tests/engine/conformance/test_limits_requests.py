"""Request and response size limits, nesting depth, and the control plane on a deleted table.

Reference: Developer Guide, "Constraints" and the API Reference: BatchGetItem returns at most 16 MB
and leaves the rest in UnprocessedKeys; BatchWriteItem takes up to 16 MB; TransactWriteItems takes up
to 4 MB of items and TransactGetItems reads at most 4 MB; documents nest at most 32 levels, the top-level attribute value being level 1.
"""

from __future__ import annotations

import pytest

from ._support import cases, moto_differs, put_all, raises_dynamodb, scan_all

MB = 1024 * 1024
PAYLOAD = 400_000  # "pk" (2) + "k00" (3) + "payload" (7) + 400,000 = 400,012 bytes an item


def _big(i: int) -> dict:
    return {"pk": {"S": f"k{i:02d}"}, "payload": {"S": "x" * PAYLOAD}}


def _count(client, table: str) -> int:
    # Paged: a Scan page stops at 1 MB, which a handful of these items already fill.
    return len(scan_all(client, TableName=table, ProjectionExpression="pk")[0])


def _size(item: dict) -> int:
    # Only S attributes here: name bytes plus value bytes.
    return sum(len(name.encode()) + len(value["S"].encode()) for name, value in item.items())


def test_batch_get_returns_at_most_16_mb_and_the_rest_as_unprocessed(client, make_table):
    table = make_table("hash_s")
    items = [_big(i) for i in range(45)]  # 18 MB
    put_all(client, table, items)
    keys = [{"pk": item["pk"]} for item in items]
    response = client.batch_get_item(RequestItems={table: {"Keys": keys}})
    returned = response["Responses"][table]
    unprocessed = response["UnprocessedKeys"][table]["Keys"]
    assert sum(_size(item) for item in returned) <= 16 * MB
    assert len(returned) == 41  # 41 items of 400,012 bytes fit in 16 MB, 42 do not
    assert sorted([k["pk"]["S"] for k in unprocessed] + [i["pk"]["S"] for i in returned]) == sorted(
        k["pk"]["S"] for k in keys
    )


def test_batch_write_of_25_items_of_400_kb_is_within_16_mb(client, make_table):
    table = make_table("hash_s")
    items = [_big(i) for i in range(25)]  # 10 MB: the item limit keeps a batch under 16 MB
    response = client.batch_write_item(RequestItems={table: [{"PutRequest": {"Item": i}} for i in items]})
    assert response["UnprocessedItems"] == {}
    assert _count(client, table) == 25


@pytest.mark.parametrize(
    ("count", "accepted"),
    cases(
        {"10 items of 350 KB": (10, True), "12 items of 350 KB": (12, False)},
        moto={"12 items of 350 KB": "does not limit the transaction size"},
    ),
)
def test_transact_write_items_is_limited_to_4_mb(client, make_table, count, accepted):
    table = make_table("hash_s")
    actions = [
        {"Put": {"TableName": table, "Item": {"pk": {"S": f"k{i}"}, "payload": {"S": "x" * 350_000}}}}
        for i in range(count)
    ]
    if accepted:
        client.transact_write_items(TransactItems=actions)
    else:
        # DynamoDB's exact text for this case is not documented; the code and the atomicity are.
        with raises_dynamodb("ValidationException"):
            client.transact_write_items(TransactItems=actions)
    assert _count(client, table) == (count if accepted else 0)


@pytest.mark.parametrize(
    ("count", "accepted"),
    cases(
        {"10 items of 400 KB": (10, True), "11 items of 400 KB": (11, False)},
        moto={"11 items of 400 KB": "does not limit the size a transaction reads"},
    ),
)
def test_transact_get_items_reads_at_most_4_mb(client, make_table, count, accepted):
    table = make_table("hash_s")
    put_all(client, table, [_big(i) for i in range(count)])
    gets = [{"Get": {"TableName": table, "Key": {"pk": {"S": f"k{i:02d}"}}}} for i in range(count)]
    if accepted:
        responses = client.transact_get_items(TransactItems=gets)["Responses"]
        assert [response["Item"]["pk"]["S"] for response in responses] == [f"k{i:02d}" for i in range(count)]
    else:
        # The API Reference: the whole request is rejected; DynamoDB's wording is not documented.
        with raises_dynamodb("ValidationException", "4 MB"):
            client.transact_get_items(TransactItems=gets)


def _nested(levels: int) -> dict:
    """A value nested ``levels`` deep: level 1 is the top-level attribute value itself."""
    value: dict = {"S": "leaf"}
    for _ in range(levels - 1):
        value = {"M": {"m": value}}
    return value


NESTING_MESSAGE = (
    "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond "
    "supported limit"
)


@pytest.mark.parametrize(
    ("levels", "accepted"),
    [
        pytest.param(32, True, id="32 levels"),
        pytest.param(33, False, id="33 levels", marks=[moto_differs("does not limit nesting depth")]),
    ],
)
def test_nesting_is_limited_to_32_levels(client, make_table, levels, accepted):
    table = make_table("hash_s")
    item = {"pk": {"S": "k"}, "v": _nested(levels)}
    if accepted:
        client.put_item(TableName=table, Item=item)
        assert client.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"] == item
    else:
        with raises_dynamodb("ValidationException", "Nesting Levels have exceeded supported limits"):
            client.put_item(TableName=table, Item=item)


@moto_differs("does not limit nesting depth")
def test_nesting_error_has_dynamodbs_wording(client, make_table):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException") as info:
        client.put_item(TableName=table, Item={"pk": {"S": "k"}, "v": _nested(40)})
    assert info.value.response["Error"]["Message"] == NESTING_MESSAGE


CALLS_ON_A_DELETED_TABLE = {
    "DescribeTable": ("describe_table", {}),
    "UpdateTable": ("update_table", {"DeletionProtectionEnabled": True}),
    "DeleteTable": ("delete_table", {}),
    "PutItem": ("put_item", {"Item": {"pk": {"S": "k"}}}),
}


@pytest.mark.parametrize(("method", "extra"), cases(CALLS_ON_A_DELETED_TABLE))
def test_a_deleted_table_is_not_found(client, make_table, method, extra):
    table = make_table("hash_s")
    client.delete_table(TableName=table)
    client.get_waiter("table_not_exists").wait(TableName=table, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    with raises_dynamodb("ResourceNotFoundException", "Requested resource not found"):
        getattr(client, method)(TableName=table, **extra)
