"""Secondary indexes: projections, sparse indexes, maintenance on write, key validation.

Reference: Developer Guide, "Using Global Secondary Indexes" (GSI.html, projections and sparse
indexes, GSI.html#GSI.Writes) and "Local secondary indexes" (LSI.html: non-projected attributes are
fetched from the base table).
"""

from __future__ import annotations

import pytest

from ._support import cases, moto_differs, put_all, query_all, raises_dynamodb

FULL = {
    "pk": {"S": "p"},
    "sk": {"S": "s"},
    "gpk": {"S": "g"},
    "gsk": {"N": "1"},
    "lsk": {"N": "1"},
    "keep": {"S": "k"},
    "drop": {"S": "d"},
}
TABLE_AND_GSI_KEYS = {k: FULL[k] for k in ("pk", "sk", "gpk", "gsk")}

PROJECTIONS = {
    "KEYS_ONLY": ({"ProjectionType": "KEYS_ONLY"}, TABLE_AND_GSI_KEYS),
    "INCLUDE": (
        {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["keep"]},
        {**TABLE_AND_GSI_KEYS, "keep": FULL["keep"]},
    ),
    "ALL": ({"ProjectionType": "ALL"}, {k: v for k, v in FULL.items()}),
}


def _query_gsi(client, table: str, value: str = "g", **extra) -> list[dict]:
    items, _ = query_all(
        client,
        TableName=table,
        IndexName="gsi1",
        KeyConditionExpression="gpk = :g",
        ExpressionAttributeValues={":g": {"S": value}},
        **extra,
    )
    return items


@pytest.mark.parametrize(("projection", "expected"), cases(PROJECTIONS))
def test_global_index_returns_its_projection(client, make_table, projection, expected):
    table = make_table("gsi", projection=projection)
    client.put_item(TableName=table, Item=FULL)
    assert _query_gsi(client, table) == [expected]


def test_all_attributes_from_a_partial_global_index_is_rejected(client, make_table):
    table = make_table("gsi", projection={"ProjectionType": "KEYS_ONLY"})
    with raises_dynamodb("ValidationException", "ALL_ATTRIBUTES"):
        _query_gsi(client, table, Select="ALL_ATTRIBUTES")


@moto_differs("does not fetch non-projected attributes for an LSI")
def test_local_index_fetches_non_projected_attributes_from_the_table(client, make_table):
    table = make_table("lsi", projection={"ProjectionType": "KEYS_ONLY"})
    client.put_item(TableName=table, Item=FULL)
    request = {
        "TableName": table,
        "IndexName": "lsi1",
        "KeyConditionExpression": "pk = :p",
        "ExpressionAttributeValues": {":p": {"S": "p"}},
    }
    assert client.query(**request)["Items"] == [{k: FULL[k] for k in ("pk", "sk", "lsk")}]
    assert client.query(**request, ProjectionExpression="#d", ExpressionAttributeNames={"#d": "drop"})[
        "Items"
    ] == [{"drop": FULL["drop"]}]
    assert client.query(**request, Select="ALL_ATTRIBUTES")["Items"] == [FULL]


def test_sparse_global_index_holds_only_items_with_both_index_keys(client, make_table):
    table = make_table("gsi")
    put_all(
        client,
        table,
        [
            {"pk": {"S": "both"}, "sk": {"S": "s"}, "gpk": {"S": "g"}, "gsk": {"N": "1"}},
            {"pk": {"S": "hash-only"}, "sk": {"S": "s"}, "gpk": {"S": "g"}},
            {"pk": {"S": "range-only"}, "sk": {"S": "s"}, "gsk": {"N": "2"}},
            {"pk": {"S": "neither"}, "sk": {"S": "s"}},
        ],
    )
    assert [i["pk"]["S"] for i in _query_gsi(client, table)] == ["both"]


def test_writes_maintain_the_global_index(client, make_table):
    table = make_table("gsi")
    key = {"pk": {"S": "p"}, "sk": {"S": "s"}}
    client.put_item(TableName=table, Item={**key, "gpk": {"S": "g"}, "gsk": {"N": "1"}})
    client.update_item(
        TableName=table,
        Key=key,
        UpdateExpression="SET gpk = :h",
        ExpressionAttributeValues={":h": {"S": "h"}},
    )
    assert _query_gsi(client, table, "g") == []
    assert [i["gpk"] for i in _query_gsi(client, table, "h")] == [{"S": "h"}]
    client.update_item(TableName=table, Key=key, UpdateExpression="REMOVE gsk")
    assert _query_gsi(client, table, "h") == []
    client.update_item(
        TableName=table,
        Key=key,
        UpdateExpression="SET gsk = :n",
        ExpressionAttributeValues={":n": {"N": "5"}},
    )
    assert len(_query_gsi(client, table, "h")) == 1
    client.delete_item(TableName=table, Key=key)
    assert _query_gsi(client, table, "h") == []


def test_index_keys_need_not_be_unique(client, make_table):
    table = make_table("gsi")
    put_all(
        client,
        table,
        [{"pk": {"S": f"p{i}"}, "sk": {"S": "s"}, "gpk": {"S": "g"}, "gsk": {"N": "7"}} for i in range(5)],
    )
    assert sorted(i["pk"]["S"] for i in _query_gsi(client, table)) == [f"p{i}" for i in range(5)]


BAD_INDEX_KEYS = {
    "GSI hash wrong type": ("gsi", {"gpk": {"N": "1"}}, "gpk"),
    "GSI range wrong type": ("gsi", {"gsk": {"S": "one"}}, "gsk"),
    "LSI range wrong type": ("lsi", {"lsk": {"S": "one"}}, "lsk"),
}


@moto_differs("accepts wrong-typed index keys")
@pytest.mark.parametrize(("shape", "attributes", "attribute"), cases(BAD_INDEX_KEYS))
def test_wrong_typed_index_key_is_rejected_on_write(client, make_table, shape, attributes, attribute):
    table = make_table(shape)
    key = {"pk": {"S": "p"}, "sk": {"S": "s"}}
    # "One or more parameter values were invalid: Type mismatch for Index Key gpk Expected: S Actual: N
    # IndexName: gsi1"
    with raises_dynamodb("ValidationException", "Type mismatch for Index Key", attribute):
        client.put_item(TableName=table, Item={**key, **attributes})
    with raises_dynamodb("ValidationException", "Type mismatch for Index Key", attribute):
        name = next(iter(attributes))
        client.update_item(
            TableName=table,
            Key=key,
            UpdateExpression="SET #a = :v",
            ExpressionAttributeNames={"#a": name},
            ExpressionAttributeValues={":v": attributes[name]},
        )
    assert "Item" not in client.get_item(TableName=table, Key=key)


def test_empty_string_index_key_is_rejected(client, make_table):
    table = make_table("gsi")
    with raises_dynamodb("ValidationException", "IndexName: gsi1"):
        client.put_item(
            TableName=table, Item={"pk": {"S": "p"}, "sk": {"S": "s"}, "gpk": {"S": ""}, "gsk": {"N": "1"}}
        )


@moto_differs("omits IndexArn")
def test_describe_table_shows_the_indexes(client, make_table):
    table = make_table("gsi", projection={"ProjectionType": "INCLUDE", "NonKeyAttributes": ["keep"]})
    described = client.describe_table(TableName=table)["Table"]
    (index,) = described["GlobalSecondaryIndexes"]
    assert index["IndexName"] == "gsi1"
    assert index["IndexStatus"] == "ACTIVE"
    assert index["KeySchema"] == [
        {"AttributeName": "gpk", "KeyType": "HASH"},
        {"AttributeName": "gsk", "KeyType": "RANGE"},
    ]
    assert index["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["keep"]}
    assert index["IndexArn"].endswith(f"table/{table}/index/gsi1")
