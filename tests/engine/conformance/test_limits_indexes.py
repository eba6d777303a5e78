"""Index quotas on CreateTable and UpdateTable.

Reference: Developer Guide, "Constraints" (secondary indexes): 20 global secondary indexes per table
(default quota), 5 local; 100 INCLUDE attributes summed over all indexes (an attribute projected into
two indexes counts twice); one index created or deleted per UpdateTable. CreateTable reports the
counts as ValidationException ("One or more parameter values were invalid: ..."); a 21st GSI added
by UpdateTable is a LimitExceededException ("Subscriber limit exceeded: ...").
"""

from __future__ import annotations

from typing import Any

import pytest

from ._support import cases, raises_dynamodb, table_request

_ALL = {"ProjectionType": "ALL"}


def _gsi(name: str, projection: dict | None = None) -> dict[str, Any]:
    # Index names are at least 3 characters; the key attribute is "<name>_pk".
    return {
        "IndexName": f"ix_{name}",
        "KeySchema": [{"AttributeName": f"{name}_pk", "KeyType": "HASH"}],
        "Projection": projection or _ALL,
    }


def _lsi(name: str, projection: dict | None = None) -> dict[str, Any]:
    return {
        "IndexName": f"ix_{name}",
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": f"{name}_sk", "KeyType": "RANGE"},
        ],
        "Projection": projection or _ALL,
    }


def _include(count: int, prefix: str = "p") -> dict[str, Any]:
    return {"ProjectionType": "INCLUDE", "NonKeyAttributes": [f"{prefix}{i}" for i in range(count)]}


def _create_request(gsis: list[dict], lsis: list[dict]) -> dict[str, Any]:
    """A pk/sk table carrying ``gsis`` and ``lsis``, with every key attribute defined."""
    request = table_request("hash_range_s", "quota")
    keys = [k for index in gsis + lsis for k in index["KeySchema"]]
    request["AttributeDefinitions"] += [
        {"AttributeName": k["AttributeName"], "AttributeType": "S"}
        for k in keys
        if k["AttributeName"] not in ("pk", "sk")
    ]
    if gsis:
        request["GlobalSecondaryIndexes"] = gsis
    if lsis:
        request["LocalSecondaryIndexes"] = lsis
    return request


CREATE_QUOTAS = {
    # id -> (GSIs, LSIs, message phrase or None when accepted)
    "20 GSIs": ([_gsi(f"g{i}") for i in range(20)], [], None),
    "21 GSIs": (
        [_gsi(f"g{i}") for i in range(21)],
        [],
        "One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of 20",
    ),
    "5 LSIs": ([], [_lsi(f"l{i}") for i in range(5)], None),
    "6 LSIs": (
        [],
        [_lsi(f"l{i}") for i in range(6)],
        "One or more parameter values were invalid: Number of LocalSecondaryIndexes exceeds per-table limit of 5",
    ),
    # NonKeyAttributes holds at most 20 names per index (service model), so 100 takes 5 indexes.
    "100 INCLUDE attributes over five indexes": ([_gsi(f"g{i}", _include(20)) for i in range(5)], [], None),
    "101 INCLUDE attributes over six indexes": (
        [_gsi(f"g{i}", _include(20)) for i in range(5)],
        [_lsi("l", _include(1))],
        "One or more parameter values were invalid: Number of projected attributes in all indexes exceeds limit of 100",
    ),
    "the same attribute in two indexes counts twice": (
        [_gsi(f"g{i}", _include(17)) for i in range(6)],  # 17 names, projected 6 times: 102
        [],
        "Number of projected attributes in all indexes exceeds limit of 100",
    ),
}


@pytest.mark.parametrize(
    ("gsis", "lsis", "phrase"),
    cases(
        CREATE_QUOTAS,
        moto={
            "21 GSIs": "words the GSI limit differently",
            "6 LSIs": "does not limit local indexes",
            "101 INCLUDE attributes over six indexes": "does not limit projected attributes",
            "the same attribute in two indexes counts twice": "does not limit projected attributes",
        },
    ),
)
def test_create_table_index_quotas(client, gsis, lsis, phrase):
    request = _create_request(gsis, lsis)
    if phrase is None:
        described = client.create_table(**request)["TableDescription"]
        assert len(described.get("GlobalSecondaryIndexes", [])) == len(gsis)
        assert len(described.get("LocalSecondaryIndexes", [])) == len(lsis)
    else:
        with raises_dynamodb("ValidationException", phrase):
            client.create_table(**request)
        assert client.list_tables()["TableNames"] == []


def _create_gsi(name: str, projection: dict | None = None) -> dict[str, Any]:
    return {"Create": _gsi(name, projection)}


def _definitions(*names: str) -> list[dict[str, str]]:
    return [{"AttributeName": f"{n}_pk", "AttributeType": "S"} for n in names]


UPDATE_QUOTAS = {
    # id -> (GSIs of the table, GlobalSecondaryIndexUpdates, new definitions, error code, phrase)
    "21st GSI": (
        [_gsi(f"g{i}") for i in range(20)],
        [_create_gsi("extra")],
        _definitions("extra"),
        "LimitExceededException",
        "Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of 20",
    ),
    "two creates in one call": (
        [],
        [_create_gsi("a"), _create_gsi("b")],
        _definitions("a", "b"),
        "LimitExceededException",
        "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table",
    ),
    "a create and a delete in one call": (
        [_gsi("old")],
        [_create_gsi("new"), {"Delete": {"IndexName": "ix_old"}}],
        _definitions("new"),
        "LimitExceededException",
        "Only 1 online index can be created or deleted simultaneously per table",
    ),
    "INCLUDE attributes past 100 with the new index": (
        [_gsi(f"g{i}", _include(18)) for i in range(5)],
        [_create_gsi("more", _include(11, "q"))],
        _definitions("more"),
        "ValidationException",
        "Number of projected attributes in all indexes exceeds limit of 100",
    ),
}


@pytest.mark.parametrize(
    ("gsis", "updates", "definitions", "code", "phrase"),
    cases(
        UPDATE_QUOTAS,
        moto={
            "21st GSI": "does not limit GSIs on UpdateTable",
            "two creates in one call": "accepts several index creations in one call",
            "a create and a delete in one call": "accepts several index changes in one call",
            "INCLUDE attributes past 100 with the new index": "does not limit projected attributes",
        },
    ),
)
def test_update_table_index_quotas(client, gsis, updates, definitions, code, phrase):
    client.create_table(**_create_request(gsis, []))
    with raises_dynamodb(code, phrase):
        client.update_table(
            TableName="quota", AttributeDefinitions=definitions, GlobalSecondaryIndexUpdates=updates
        )
    # Nothing changed: the table keeps exactly the indexes it had.
    described = client.describe_table(TableName="quota")["Table"]
    assert sorted(i["IndexName"] for i in described.get("GlobalSecondaryIndexes", [])) == sorted(
        g["IndexName"] for g in gsis
    )


def test_update_table_adds_one_index_up_to_100_include_attributes(client):
    client.create_table(**_create_request([_gsi(f"g{i}", _include(18)) for i in range(5)], []))
    client.update_table(
        TableName="quota",
        AttributeDefinitions=_definitions("more"),
        GlobalSecondaryIndexUpdates=[_create_gsi("more", _include(10, "q"))],
    )
    described = client.describe_table(TableName="quota")["Table"]
    assert "ix_more" in {i["IndexName"] for i in described["GlobalSecondaryIndexes"]}
