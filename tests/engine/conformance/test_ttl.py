"""Time to Live: the TTL control plane, and the sweeper's rules for what expires.

Reference: Developer Guide, "Time to Live (TTL)" (TTL.html, howitworks-ttl.html): the attribute must
be a top-level Number holding epoch seconds; items with a TTL more than five years in the past are
not deleted; other types and formats are ignored. The sweep is driven through the engine's
``sweep_ttl(now)`` so tests do not wait (engine backend only).
"""

from __future__ import annotations

import pytest

from ._support import engine_only, moto_differs, put_all, raises_dynamodb

NOW = 1_700_000_000
YEAR = 365 * 24 * 3600


def _enable(client, table: str, attribute: str = "ttl") -> dict:
    return client.update_time_to_live(
        TableName=table, TimeToLiveSpecification={"Enabled": True, "AttributeName": attribute}
    )


def test_ttl_is_disabled_until_enabled(client, make_table):
    table = make_table("hash_s")
    assert (
        client.describe_time_to_live(TableName=table)["TimeToLiveDescription"]["TimeToLiveStatus"]
        == "DISABLED"
    )
    response = _enable(client, table)
    assert response["TimeToLiveSpecification"] == {"Enabled": True, "AttributeName": "ttl"}
    description = client.describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    assert description["TimeToLiveStatus"] in ("ENABLING", "ENABLED")
    assert description["AttributeName"] == "ttl"


@moto_differs("accepts enabling TTL twice")
def test_enabling_twice_is_rejected(client, make_table):
    table = make_table("hash_s")
    _enable(client, table)
    with raises_dynamodb("ValidationException", "TimeToLive is already enabled"):
        _enable(client, table)


@moto_differs("answers with error code ResourceNotFound")
def test_ttl_on_a_missing_table_is_resource_not_found(client):
    with raises_dynamodb("ResourceNotFoundException"):
        client.describe_time_to_live(TableName="nosuch")


def _ttl_items() -> dict[str, dict]:
    return {
        "expired": {"N": str(NOW - 100)},
        "expired-4-years-ago": {"N": str(NOW - 4 * YEAR)},
        "future": {"N": str(NOW + 1000)},
        "milliseconds": {"N": str((NOW - 100) * 1000)},  # ~1.7e12: a date far in the future
        "string": {"S": str(NOW - 100)},
        "expired-6-years-ago": {"N": str(NOW - 6 * YEAR)},  # more than 5 years: never deleted
        "number-set": {"NS": [str(NOW - 100)]},
    }


@engine_only("sweep_ttl is the engine's hook")
def test_sweeper_deletes_only_items_expired_in_epoch_seconds(client, engine, make_table):
    table = make_table("hash_s")
    _enable(client, table)
    put_all(client, table, [{"pk": {"S": k}, "ttl": v} for k, v in _ttl_items().items()])
    client.put_item(TableName=table, Item={"pk": {"S": "no-ttl"}})
    # Expired but not yet swept: still readable (DynamoDB deletes "typically within a few days").
    assert "Item" in client.get_item(TableName=table, Key={"pk": {"S": "expired"}})
    assert engine.sweep_ttl(now=NOW) == 2
    remaining = sorted(i["pk"]["S"] for i in client.scan(TableName=table)["Items"])
    assert remaining == sorted({*_ttl_items(), "no-ttl"} - {"expired", "expired-4-years-ago"})
    assert engine.sweep_ttl(now=NOW) == 0


@engine_only("sweep_ttl is the engine's hook")
def test_sweeper_ignores_tables_without_ttl(client, engine, make_table):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={"pk": {"S": "k"}, "ttl": {"N": str(NOW - 100)}})
    assert engine.sweep_ttl(now=NOW) == 0
    assert "Item" in client.get_item(TableName=table, Key={"pk": {"S": "k"}})


@engine_only("sweep_ttl is the engine's hook")
def test_sweeper_uses_the_configured_attribute_and_maintains_indexes(client, engine, make_table):
    table = make_table("gsi")
    _enable(client, table, "expires")
    key = {"pk": {"S": "p"}, "sk": {"S": "s"}}
    client.put_item(
        TableName=table,
        Item={**key, "gpk": {"S": "g"}, "gsk": {"N": "1"}, "expires": {"N": str(NOW - 1)}, "ttl": {"N": "0"}},
    )
    assert engine.sweep_ttl(now=NOW) == 1
    assert "Item" not in client.get_item(TableName=table, Key=key)
    assert (
        client.query(
            TableName=table,
            IndexName="gsi1",
            KeyConditionExpression="gpk = :g",
            ExpressionAttributeValues={":g": {"S": "g"}},
        )["Items"]
        == []
    )


@engine_only("sweep_ttl is the engine's hook")
@pytest.mark.parametrize(("offset", "deleted"), [(-1, 1), (0, 0), (1, 0)])
def test_sweep_boundary_is_strictly_in_the_past(client, engine, make_table, offset, deleted):
    table = make_table("hash_s")
    _enable(client, table)
    client.put_item(TableName=table, Item={"pk": {"S": "k"}, "ttl": {"N": str(NOW + offset)}})
    assert engine.sweep_ttl(now=NOW) == deleted
