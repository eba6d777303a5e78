"""Malformed requests the engine once answered with a 500 and Python's error text: each now gets
DynamoDB's 4xx error type and a message that says what is wrong. Sent as raw JSON over HTTP, since
an SDK refuses to send most of them."""

from __future__ import annotations

import http.client

import orjson
import pytest

from ._support import DUMMY, NO_RETRY, create_table


def _deep(levels: int) -> dict:
    value: dict = {"S": "leaf"}
    for _ in range(levels):
        value = {"M": {"a": value}}
    return value


ITEM_TOO_DEEP = {"pk": {"S": "a"}, "d": _deep(33)}
CASES = [
    ("ListTables", {"Limit": None}, None),  # null is absent: a valid request
    ("CreateTable", {"TableName": "nokeys", "BillingMode": "PAY_PER_REQUEST"}, "ValidationException"),
    (
        "CreateTable",
        {
            "TableName": "nokeys",
            "KeySchema": None,
            "AttributeDefinitions": None,
            "BillingMode": "PAY_PER_REQUEST",
        },
        "ValidationException",
    ),
    (
        "CreateTable",
        {
            "TableName": "nodefs",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST",
        },
        "ValidationException",
    ),
    ("BatchWriteItem", {"RequestItems": {"items": [{"PutRequest": None}]}}, "ValidationException"),
    ("BatchWriteItem", {"RequestItems": {"items": [{"DeleteRequest": None}]}}, "ValidationException"),
    ("TransactWriteItems", {"TransactItems": [{"Put": None}]}, "ValidationException"),
    ("TransactWriteItems", {"TransactItems": [{"ConditionCheck": None}]}, "ValidationException"),
    (
        "TransactWriteItems",
        {"TransactItems": [{"Put": {"TableName": "items", "Item": ITEM_TOO_DEEP}}]},
        "ValidationException",
    ),
    (
        "ExecuteTransaction",
        {
            "TransactStatements": [
                {"Statement": "INSERT INTO \"items\" VALUE {'pk': 'a', 'd': ?}", "Parameters": [_deep(33)]}
            ]
        },
        "ValidationException",
    ),
    ("PutItem", {"TableName": "items", "Item": ITEM_TOO_DEEP}, "ValidationException"),
    ("Query", {"TableName": "items", "KeyConditionExpression": ""}, "ValidationException"),
    ("ExecuteStatement", {"Statement": 'SELECT * FROM "items"', "NextToken": None}, None),
    (
        "UpdateTable",
        {
            "TableName": "items",
            "BillingMode": "PAY_PER_REQUEST",
            "StreamSpecification": None,
            "AttributeDefinitions": None,
        },
        None,
    ),
]


@pytest.mark.parametrize(
    ("operation", "request_body", "code"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_malformed_request_gets_dynamodb_4xx_not_500(server, operation, request_body, code):
    import boto3

    create_table(boto3.client("dynamodb", endpoint_url=server.url, config=NO_RETRY, **DUMMY))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request(
        "POST",
        "/",
        body=orjson.dumps(request_body),
        headers={
            "X-Amz-Target": f"DynamoDB_20120810.{operation}",
            "Content-Type": "application/x-amz-json-1.0",
        },
    )
    response = conn.getresponse()
    payload = orjson.loads(response.read())
    conn.close()
    if code is None:
        assert response.status == 200, payload
        return
    assert response.status == 400, payload
    assert payload["__type"].endswith("#" + code)
    assert payload["message"] and "Error(" not in payload["message"] and "Traceback" not in payload["message"]


def test_messages_say_what_is_wrong(server):
    import boto3

    create_table(boto3.client("dynamodb", endpoint_url=server.url, config=NO_RETRY, **DUMMY))

    def message(operation: str, body: dict) -> str:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request(
            "POST",
            "/",
            body=orjson.dumps(body),
            headers={
                "X-Amz-Target": f"DynamoDB_20120810.{operation}",
                "Content-Type": "application/x-amz-json-1.0",
            },
        )
        text = orjson.loads(conn.getresponse().read())["message"]
        conn.close()
        return text

    assert "'keySchema' failed to satisfy constraint: Member must not be null" in message(
        "CreateTable", {"TableName": "nokeys", "KeySchema": None, "AttributeDefinitions": []}
    )
    assert "Invalid KeyConditionExpression: The expression can not be empty" in message(
        "Query", {"TableName": "items", "KeyConditionExpression": ""}
    )
    assert "Nesting Levels have exceeded supported limits" in message(
        "TransactWriteItems", {"TransactItems": [{"Put": {"TableName": "items", "Item": ITEM_TOO_DEEP}}]}
    )
    assert "exactly one of PutRequest or DeleteRequest" in message(
        "BatchWriteItem", {"RequestItems": {"items": [{"PutRequest": None}]}}
    )
