"""TransactWriteItems and TransactGetItems: atomicity, cancellation reasons, limits, idempotency.

Reference: Developer Guide, "Amazon DynamoDB Transactions: How it works" (transaction-apis.html):
all-or-nothing, no two actions on one item, up to 100 actions, ClientRequestToken idempotent for
10 minutes, IdempotentParameterMismatchException for the same token with a different request;
API Reference TransactWriteItems, TransactionCanceledException CancellationReasons.
"""

from __future__ import annotations

import pytest

from ._support import moto_differs, raises_dynamodb


def _key(k: str) -> dict:
    return {"pk": {"S": k}}


@pytest.fixture
def table(client, make_table) -> str:
    name = make_table("hash_s")
    client.put_item(TableName=name, Item={**_key("existing"), "n": {"N": "1"}})
    client.put_item(TableName=name, Item={**_key("doomed"), "n": {"N": "2"}})
    return name


def _get(client, table: str, k: str) -> dict | None:
    return client.get_item(TableName=table, Key=_key(k), ConsistentRead=True).get("Item")


def test_all_four_actions_apply_together(client, table):
    client.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": table, "Item": {**_key("new"), "n": {"N": "9"}}}},
            {
                "Update": {
                    "TableName": table,
                    "Key": _key("existing"),
                    "UpdateExpression": "SET n = n + :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                }
            },
            {"Delete": {"TableName": table, "Key": _key("doomed")}},
            {
                "ConditionCheck": {
                    "TableName": table,
                    "Key": _key("checked"),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
        ]
    )
    assert _get(client, table, "new") == {**_key("new"), "n": {"N": "9"}}
    assert _get(client, table, "existing") == {**_key("existing"), "n": {"N": "2"}}
    assert _get(client, table, "doomed") is None
    assert _get(client, table, "checked") is None  # a ConditionCheck writes nothing


def _failing_transaction(table: str, return_on_failure: bool = False) -> list[dict]:
    extra = {"ReturnValuesOnConditionCheckFailure": "ALL_OLD"} if return_on_failure else {}
    return [
        {"Put": {"TableName": table, "Item": {**_key("new"), "n": {"N": "9"}}}},
        {
            "Update": {
                "TableName": table,
                "Key": _key("existing"),
                "UpdateExpression": "SET n = :nine",
                "ConditionExpression": "n = :five",
                "ExpressionAttributeValues": {":nine": {"N": "9"}, ":five": {"N": "5"}},
                **extra,
            }
        },
        {"Delete": {"TableName": table, "Key": _key("doomed")}},
        {
            "ConditionCheck": {
                "TableName": table,
                "Key": _key("other"),
                "ConditionExpression": "attribute_exists(pk)",
                **extra,
            }
        },
    ]


def test_one_failed_condition_cancels_every_action(client, table):
    with raises_dynamodb("TransactionCanceledException", "Transaction cancelled") as info:
        client.transact_write_items(TransactItems=_failing_transaction(table))
    reasons = info.value.response["CancellationReasons"]
    # One reason per action, in request order; "None" for actions that did not fail.
    assert [r["Code"] for r in reasons] == [
        "None",
        "ConditionalCheckFailed",
        "None",
        "ConditionalCheckFailed",
    ]
    assert reasons[1]["Message"] == "The conditional request failed"
    assert all("Item" not in r for r in reasons)
    assert _get(client, table, "new") is None
    assert _get(client, table, "existing") == {**_key("existing"), "n": {"N": "1"}}
    assert _get(client, table, "doomed") == {**_key("doomed"), "n": {"N": "2"}}


def test_cancellation_reasons_carry_the_item_with_all_old(client, table):
    with raises_dynamodb("TransactionCanceledException") as info:
        client.transact_write_items(TransactItems=_failing_transaction(table, return_on_failure=True))
    reasons = info.value.response["CancellationReasons"]
    assert reasons[1]["Item"] == {**_key("existing"), "n": {"N": "1"}}
    assert "Item" not in reasons[3]  # the checked item does not exist


def test_cancellation_message_lists_the_codes(client, table):
    with raises_dynamodb(
        "TransactionCanceledException",
        "Transaction cancelled, please refer cancellation reasons for specific reasons "
        "[None, ConditionalCheckFailed, None, ConditionalCheckFailed]",
    ):
        client.transact_write_items(TransactItems=_failing_transaction(table))


def test_two_actions_on_one_item_are_rejected(client, table):
    with raises_dynamodb(
        "ValidationException", "Transaction request cannot include multiple operations on one item"
    ):
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": table, "Item": {**_key("existing"), "n": {"N": "5"}}}},
                {
                    "ConditionCheck": {
                        "TableName": table,
                        "Key": _key("existing"),
                        "ConditionExpression": "attribute_exists(pk)",
                    }
                },
            ]
        )
    assert _get(client, table, "existing") == {**_key("existing"), "n": {"N": "1"}}


def test_100_actions_are_accepted(client, table):
    client.transact_write_items(
        TransactItems=[{"Put": {"TableName": table, "Item": _key(f"k{i}")}} for i in range(100)]
    )
    assert client.scan(TableName=table, Select="COUNT")["Count"] == 102


def test_101_actions_are_rejected(client, table):
    with raises_dynamodb("ValidationException", "100"):
        client.transact_write_items(
            TransactItems=[{"Put": {"TableName": table, "Item": _key(f"k{i}")}} for i in range(101)]
        )
    assert _get(client, table, "k0") is None


def _increment(table: str) -> list[dict]:
    return [
        {
            "Update": {
                "TableName": table,
                "Key": _key("existing"),
                "UpdateExpression": "ADD n :one",
                "ExpressionAttributeValues": {":one": {"N": "1"}},
            }
        }
    ]


@moto_differs("ignores ClientRequestToken")
def test_same_token_same_request_is_applied_once(client, table):
    for _ in range(3):
        client.transact_write_items(TransactItems=_increment(table), ClientRequestToken="token-1")
    assert _get(client, table, "existing")["n"] == {"N": "2"}
    client.transact_write_items(TransactItems=_increment(table), ClientRequestToken="token-2")
    assert _get(client, table, "existing")["n"] == {"N": "3"}


@moto_differs("ignores ClientRequestToken")
def test_same_token_different_request_is_a_mismatch(client, table):
    client.transact_write_items(TransactItems=_increment(table), ClientRequestToken="token-1")
    with raises_dynamodb("IdempotentParameterMismatchException"):
        client.transact_write_items(
            TransactItems=[{"Put": {"TableName": table, "Item": _key("other")}}], ClientRequestToken="token-1"
        )
    assert _get(client, table, "other") is None


@moto_differs("ignores ClientRequestToken")
def test_a_retry_asking_for_capacity_differently_is_the_same_request(client, table):
    """ReturnConsumedCapacity shapes only the answer: a retry that asks for it (or stops asking) is
    the same transaction, applied once; the retry reports reading the items, not writing them."""
    first = client.transact_write_items(
        TransactItems=_increment(table), ClientRequestToken="token-1", ReturnConsumedCapacity="TOTAL"
    )
    assert first["ConsumedCapacity"][0]["WriteCapacityUnits"] > 0
    client.transact_write_items(TransactItems=_increment(table), ClientRequestToken="token-1")
    retry = client.transact_write_items(
        TransactItems=_increment(table),
        ClientRequestToken="token-1",
        ReturnConsumedCapacity="TOTAL",
        ReturnItemCollectionMetrics="SIZE",
    )
    assert _get(client, table, "existing")["n"] == {"N": "2"}
    (consumed,) = retry["ConsumedCapacity"]
    assert consumed["TableName"] == table and "WriteCapacityUnits" not in consumed
    assert consumed["ReadCapacityUnits"] == consumed["CapacityUnits"] == len(_increment(table))


def test_transaction_on_a_missing_table_is_resource_not_found(client):
    with raises_dynamodb("ResourceNotFoundException", "Requested resource not found"):
        client.transact_write_items(TransactItems=[{"Put": {"TableName": "nosuch", "Item": _key("a")}}])


# ------------------------------------------------------------------------------------- TransactGetItems


def test_transact_get_returns_items_in_request_order(client, table):
    response = client.transact_get_items(
        TransactItems=[
            {"Get": {"TableName": table, "Key": _key("doomed")}},
            {"Get": {"TableName": table, "Key": _key("absent")}},
            {"Get": {"TableName": table, "Key": _key("existing")}},
        ]
    )
    responses = response["Responses"]
    assert len(responses) == 3
    assert responses[0]["Item"] == {**_key("doomed"), "n": {"N": "2"}}
    assert "Item" not in responses[1]  # a missing item is an empty entry, keeping the positions
    assert responses[2]["Item"] == {**_key("existing"), "n": {"N": "1"}}


@moto_differs("ignores ProjectionExpression in TransactGetItems")
def test_transact_get_applies_the_projection(client, table):
    response = client.transact_get_items(
        TransactItems=[{"Get": {"TableName": table, "Key": _key("existing"), "ProjectionExpression": "n"}}]
    )
    assert response["Responses"] == [{"Item": {"n": {"N": "1"}}}]


def test_transact_get_of_101_items_is_rejected(client, table):
    with raises_dynamodb("ValidationException", "100"):
        client.transact_get_items(
            TransactItems=[{"Get": {"TableName": table, "Key": _key(f"k{i}")}} for i in range(101)]
        )
