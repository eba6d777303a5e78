"""Errors: each DynamoDB error arrives as a ClientError with DynamoDB's code and a message saying what.

Reference: Developer Guide, "Error handling with DynamoDB" (Programming.Errors.html) and
"Expression attribute names/values" (unused and undefined placeholders, reserved words).
"""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from ._support import cases, raises_dynamodb

TABLE = "t_hash_range_s"
KEY = {"pk": {"S": "p"}, "sk": {"S": "s"}}


def _put(client, **extra):
    return client.put_item(TableName=TABLE, Item={**KEY, "v": {"N": "1"}}, **extra)


ERRORS = {
    "missing table": (
        lambda c: c.get_item(TableName="nosuch", Key=KEY),
        "ResourceNotFoundException",
        ["Requested resource not found"],
    ),
    "key missing its sort key": (
        lambda c: c.get_item(TableName=TABLE, Key={"pk": {"S": "p"}}),
        "ValidationException",
        ["The provided key element does not match the schema"],
    ),
    "key with an extra attribute": (
        lambda c: c.get_item(TableName=TABLE, Key={**KEY, "v": {"N": "1"}}),
        "ValidationException",
        ["The provided key element does not match the schema"],
    ),
    "key of the wrong type": (
        lambda c: c.get_item(TableName=TABLE, Key={"pk": {"N": "1"}, "sk": {"S": "s"}}),
        "ValidationException",
        ["The provided key element does not match the schema"],
    ),
    "item missing a key attribute": (
        lambda c: c.put_item(TableName=TABLE, Item={"pk": {"S": "p"}}),
        "ValidationException",
        ["One or more parameter values were invalid", "Missing the key sk in the item"],
    ),
    "item key of the wrong type": (
        lambda c: c.put_item(TableName=TABLE, Item={"pk": {"S": "p"}, "sk": {"N": "1"}}),
        "ValidationException",
        ["Type mismatch for key sk expected: S actual: N"],
    ),
    "unused value placeholder": (
        lambda c: _put(
            c,
            ConditionExpression="attribute_not_exists(pk)",
            ExpressionAttributeValues={":unused": {"S": "x"}},
        ),
        "ValidationException",
        ["Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}"],
    ),
    "unused name placeholder": (
        lambda c: _put(
            c,
            ConditionExpression="attribute_not_exists(pk)",
            ExpressionAttributeNames={"#unused": "x"},
        ),
        "ValidationException",
        ["Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}"],
    ),
    "undefined value placeholder": (
        lambda c: _put(c, ConditionExpression="v = :nope"),
        "ValidationException",
        ["An expression attribute value used in expression is not defined; attribute value: :nope"],
    ),
    "undefined name placeholder": (
        lambda c: _put(c, ConditionExpression="attribute_not_exists(#nope)"),
        "ValidationException",
        ["An expression attribute name used in the document path is not defined; attribute name: #nope"],
    ),
    "reserved word": (
        lambda c: _put(c, ConditionExpression="attribute_not_exists(status)"),
        "ValidationException",
        ["Attribute name is a reserved keyword; reserved keyword: status"],
    ),
    "reserved words are case-insensitive": (
        lambda c: _put(c, ConditionExpression="attribute_not_exists(Status)"),
        "ValidationException",
        ["Attribute name is a reserved keyword"],
    ),
    "empty ExpressionAttributeValues": (
        lambda c: _put(c, ConditionExpression="attribute_not_exists(pk)", ExpressionAttributeValues={}),
        "ValidationException",
        ["ExpressionAttributeValues must not be empty"],
    ),
    # The wording names the expressions that could have used the values (as dynalite records it).
    "values without an expression": (
        lambda c: _put(c, ExpressionAttributeValues={":v": {"S": "x"}}),
        "ValidationException",
        [
            "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"
        ],
    ),
    "values without an update or condition expression": (
        lambda c: c.update_item(
            TableName=TABLE, Key={"pk": {"S": "a"}}, ExpressionAttributeValues={":v": {"S": "x"}}
        ),
        "ValidationException",
        [
            "ExpressionAttributeValues can only be specified when using expressions: "
            "UpdateExpression and ConditionExpression are null"
        ],
    ),
    "values without a filter on a scan": (
        lambda c: c.scan(TableName=TABLE, ExpressionAttributeValues={":v": {"S": "x"}}),
        "ValidationException",
        ["ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null"],
    ),
    "failed condition": (
        lambda c: (_put(c), _put(c, ConditionExpression="attribute_not_exists(pk)")),
        "ConditionalCheckFailedException",
        ["The conditional request failed"],
    ),
    "create an existing table": (
        lambda c: c.create_table(
            TableName=TABLE,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        ),
        "ResourceInUseException",
        ["Table already exists", TABLE],
    ),
}


@pytest.mark.parametrize(
    ("call", "code", "phrases"),
    cases(
        ERRORS,
        moto={
            "key missing its sort key": "says only 'Validation Exception'",
            "key of the wrong type": "accepts a key of the wrong type",
            "unused value placeholder": "does not check unused values on PutItem",
            "undefined value placeholder": "raises KeyError",
            "undefined name placeholder": "raises KeyError",
            "values without an expression": "accepts values without an expression",
            "values without an update or condition expression": "says only 'Validation Exception'",
            "values without a filter on a scan": "accepts values without a filter",
        },
    ),
)
def test_error_code_and_message(client, make_table, call, code, phrases):
    make_table("hash_range_s")
    with raises_dynamodb(code, *phrases) as info:
        call(client)
    assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_modelled_exception_classes_are_raised(client, make_table):
    make_table("hash_range_s")
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.describe_table(TableName="nosuch")
    with pytest.raises(client.exceptions.ResourceInUseException):
        make_table("hash_range_s")
    with pytest.raises(ClientError) as info:
        client.get_item(TableName=TABLE, Key={"pk": {"S": "p"}})
    assert info.value.response["Error"]["Code"] == "ValidationException"
