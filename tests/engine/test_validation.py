"""Request-shape validation against botocore's DynamoDB model: what passes, and DynamoDB's exact messages.

Messages marked "real" were copied from errors DynamoDB itself returned (quoted in public issue
threads), so they pin the wording, member naming and aggregation, not just our own choices.
"""

from __future__ import annotations

import pytest

from tablewright.engine.errors import SerializationException, UnknownOperationException, ValidationException
from tablewright.engine.validation import OPERATIONS, STREAMS_OPERATIONS, validate_request
from tablewright.engine.validation.model import service_model
from tablewright.engine.validation.rules import java_pattern

ITEM = {"pk": {"S": "user#1"}, "sk": {"N": "1"}, "blob": {"B": "AAE="}}
KEY = {"pk": {"S": "user#1"}, "sk": {"N": "1"}}
ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/users"
STREAM_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/users/stream/2024-01-01T00:00:00.000"


def message(operation: str, request: object, error: type = ValidationException) -> str:
    with pytest.raises(error) as info:
        validate_request(operation, request)
    return info.value.message


VALID = [
    (
        "PutItem",
        {
            "TableName": "users",
            "Item": ITEM,
            "ReturnValues": "ALL_OLD",
            "ConditionExpression": "a = :v",
            "ExpressionAttributeValues": {":v": {"S": "x"}},
            "ReturnValuesOnConditionCheckFailure": "NONE",
        },
    ),
    (
        "GetItem",
        {
            "TableName": ARN,
            "Key": KEY,
            "ConsistentRead": True,
            "ProjectionExpression": "#a",
            "ExpressionAttributeNames": {"#a": "a"},
        },
    ),
    (
        "UpdateItem",
        {
            "TableName": "users",
            "Key": KEY,
            "UpdateExpression": "SET a = :v",
            "ExpressionAttributeValues": {":v": {"N": "1"}},
            "ReturnValues": "UPDATED_NEW",
        },
    ),
    ("DeleteItem", {"TableName": "users", "Key": KEY, "ReturnConsumedCapacity": "TOTAL"}),
    (
        "Query",
        {
            "TableName": "users",
            "IndexName": "by-name",
            "KeyConditionExpression": "pk = :p",
            "ExpressionAttributeValues": {":p": {"S": "x"}},
            "Limit": 10,
            "ScanIndexForward": False,
            "ExclusiveStartKey": KEY,
            "Select": "ALL_PROJECTED_ATTRIBUTES",
        },
    ),
    (
        "Scan",
        {
            "TableName": "users",
            "Segment": 0,
            "TotalSegments": 4,
            "FilterExpression": "a > :v",
            "ExpressionAttributeValues": {":v": {"N": "2"}},
        },
    ),
    ("BatchGetItem", {"RequestItems": {"users": {"Keys": [KEY], "ConsistentRead": True}}}),
    (
        "BatchWriteItem",
        {
            "RequestItems": {"users": [{"PutRequest": {"Item": ITEM}}, {"DeleteRequest": {"Key": KEY}}]},
            "ReturnItemCollectionMetrics": "SIZE",
        },
    ),
    (
        "TransactWriteItems",
        {
            "TransactItems": [
                {"Put": {"TableName": "users", "Item": ITEM}},
                {
                    "ConditionCheck": {
                        "TableName": "users",
                        "Key": KEY,
                        "ConditionExpression": "attribute_exists(pk)",
                    }
                },
            ],
            "ClientRequestToken": "token-1",
        },
    ),
    ("TransactGetItems", {"TransactItems": [{"Get": {"TableName": "users", "Key": KEY}}]}),
    (
        "CreateTable",
        {
            "TableName": "users",
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "gsi1",
                    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a"]},
                }
            ],
            "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
            "SSESpecification": {"Enabled": True, "SSEType": "KMS"},
            "Tags": [{"Key": "k", "Value": "v"}],
        },
    ),
    ("DescribeTable", {"TableName": "users"}),
    ("ListTables", {"Limit": 100, "ExclusiveStartTableName": "abc"}),
    ("ListTables", {}),
    (
        "UpdateTimeToLive",
        {"TableName": "users", "TimeToLiveSpecification": {"Enabled": True, "AttributeName": "ttl"}},
    ),
    ("ExecuteStatement", {"Statement": "SELECT * FROM users", "Parameters": [{"S": "x"}]}),
    (
        "RestoreTableToPointInTime",
        {"TargetTableName": "restored", "SourceTableName": "users", "RestoreDateTime": 1700000000.5},
    ),
    ("ListStreams", {"TableName": "users", "Limit": 10}),
    ("DescribeStream", {"StreamArn": STREAM_ARN}),
    (
        "GetShardIterator",
        {
            "StreamArn": STREAM_ARN,
            "ShardId": "shardId-00000001700000000000-abcdef12",
            "ShardIteratorType": "TRIM_HORIZON",
        },
    ),
    ("GetRecords", {"ShardIterator": "iterator", "Limit": 1000}),
]


@pytest.mark.parametrize(("operation", "request_"), VALID, ids=[op for op, _ in VALID])
def test_valid_requests_pass(operation: str, request_: dict) -> None:
    assert validate_request(operation, request_) is None


def test_operation_sets_come_from_the_models() -> None:
    assert {"PutItem", "Query", "TransactWriteItems", "CreateTable"} <= OPERATIONS
    assert {"ListStreams", "DescribeStream", "GetShardIterator", "GetRecords"} == STREAMS_OPERATIONS
    assert not OPERATIONS & STREAMS_OPERATIONS


def test_unknown_operation() -> None:
    text = message("PutThing", {}, UnknownOperationException)
    assert "'PutThing'" in text


def test_null_required_member() -> None:
    assert message("PutItem", {"TableName": "users"}) == (
        "1 validation error detected: Value null at 'item' failed to satisfy constraint: Member must not be null"
    )


def test_json_null_counts_as_absent() -> None:
    assert "Value null at 'item'" in message("PutItem", {"TableName": "users", "Item": None})


def test_too_short_table_name() -> None:
    assert message("DescribeTable", {"TableName": "ab"}) == (
        "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: "
        "Member must have length greater than or equal to 3"
    )


def test_bad_pattern_real_message() -> None:
    # real: serverless/serverless#5120
    assert message("CreateTable", {"TableName": "drucaas-dev,"}) == (
        "1 validation error detected: Value 'drucaas-dev,' at 'tableName' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
    )


def test_table_arn_is_not_held_to_name_rules() -> None:
    validate_request("PutItem", {"TableName": ARN, "Item": ITEM})
    assert "length less than or equal to 1024" in message("DescribeTable", {"TableName": "arn:" + "x" * 1100})


def test_enum_lists_the_model_values() -> None:
    assert message(
        "PutItem", {"TableName": "users", "Item": ITEM, "ReturnValuesOnConditionCheckFailure": "ALL"}
    ) == (
        "1 validation error detected: Value 'ALL' at 'returnValuesOnConditionCheckFailure' failed to satisfy "
        "constraint: Member must satisfy enum value set: [ALL_OLD, NONE]"
    )


def test_nested_enum_real_message() -> None:
    # real: "Value 'AES-256' at 'sSESpecification.sSEType' ... [AES256, KMS]"
    request = {"TableName": "users", "SSESpecification": {"SSEType": "AES-256"}}
    assert message("CreateTable", request) == (
        "1 validation error detected: Value 'AES-256' at 'sSESpecification.sSEType' failed to satisfy constraint: "
        "Member must satisfy enum value set: [AES256, KMS]"
    )


def test_empty_key_schema_real_message() -> None:
    # real: mandarzope/loopback-connector-dynamodb#5
    assert message("CreateTable", {"TableName": "users", "KeySchema": []}) == (
        "1 validation error detected: Value '[]' at 'keySchema' failed to satisfy constraint: "
        "Member must have length greater than or equal to 1"
    )


def test_transact_items_too_long() -> None:
    items = [{"Put": {"TableName": "users", "Item": ITEM}}] * 101
    text = message("TransactWriteItems", {"TransactItems": items})
    assert text.startswith("1 validation error detected: Value '[{Put={TableName=users, ")
    assert text.endswith(
        "...]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100"
    )
    assert len(text) < 1000  # the value is cut short, not printed in full


def test_list_member_paths_are_one_based() -> None:
    request = {
        "TableName": "users",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"KeyType": "SORT"}],
    }
    assert message("CreateTable", request) == (
        "2 validation errors detected: "
        "Value 'SORT' at 'keySchema.2.member.keyType' failed to satisfy constraint: "
        "Member must satisfy enum value set: [HASH, RANGE]; "
        "Value null at 'keySchema.2.member.attributeName' failed to satisfy constraint: Member must not be null"
    )


def test_errors_aggregate_with_count() -> None:
    text = message("Query", {"TableName": "a!", "Limit": 0})
    assert text == (
        "3 validation errors detected: "
        "Value 'a!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3; "
        "Value 'a!' at 'tableName' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; "
        "Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"
    )


def test_map_keys_real_message() -> None:
    # real: BotBuilderCommunity/botbuilder-community-js#294 (all key constraints listed, not just the failed one)
    text = message("BatchGetItem", {"RequestItems": {"web/conversations": {"Keys": [KEY]}}})
    assert text == (
        "1 validation error detected: Value '{web/conversations={Keys=[{pk={S=user#1}, sk={N=1}}]}}' at "
        "'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length "
        "less than or equal to 255, Member must have length greater than or equal to 3, "
        "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]"
    )


def test_map_value_real_message() -> None:
    # real: flow-lab/flow#5 (26 deletes in one BatchWriteItem)
    writes = [{"DeleteRequest": {"Key": KEY}}] * 26
    assert message("BatchWriteItem", {"RequestItems": {"users": writes}}).endswith(
        "at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: "
        "[Member must have length less than or equal to 25, Member must have length greater than or equal to 1]"
    )


def test_map_value_structures_are_checked_inside() -> None:
    assert message("BatchGetItem", {"RequestItems": {"users": {"Keys": []}}}) == (
        "1 validation error detected: Value '[]' at 'requestItems.users.member.keys' failed to satisfy constraint: "
        "Member must have length greater than or equal to 1"
    )


def test_simple_list_members_report_once() -> None:
    request = {"TableName": "users", "AttributesToGet": ["a", "x" * 65536, "y" * 70000]}
    text = message("GetItem", {**request, "Key": KEY})
    assert text.startswith("1 validation error detected: ")
    assert text.endswith(
        "at 'attributesToGet' failed to satisfy constraint: "
        "Member must satisfy constraint: [Member must have length less than or equal to 65535]"
    )


def test_lengths_count_utf16_units_like_java() -> None:
    request = {"TransactItems": [{"Get": {"TableName": "users", "Key": KEY}}]}
    validate_request(
        "TransactWriteItems",
        {
            "TransactItems": [{"Put": {"TableName": "users", "Item": ITEM}}],
            "ClientRequestToken": "\U0001f600" * 18,
        },
    )
    text = message(
        "TransactWriteItems",
        {
            "TransactItems": [{"Put": {"TableName": "users", "Item": ITEM}}],
            "ClientRequestToken": "\U0001f600" * 19,
        },
    )
    assert (
        "at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36"
        in text
    )
    validate_request("TransactGetItems", request)


def test_valid_values_seen_before_do_not_hide_later_failures() -> None:
    validate_request("DescribeTable", {"TableName": "users"})
    validate_request("DescribeTable", {"TableName": "users"})
    assert "regular expression" in message("DescribeTable", {"TableName": "users!"})


def test_attribute_values_are_only_checked_to_be_objects() -> None:
    # Deep checks belong to engine.types; a malformed value passes here...
    validate_request("PutItem", {"TableName": "users", "Item": {"a": "not an attribute value"}})
    validate_request("Scan", {"TableName": "users", "ExpressionAttributeValues": {":v": {"X": 1}}})
    # ...but the map itself must be a JSON object.
    text = message("PutItem", {"TableName": "users", "Item": ["pk"]}, SerializationException)
    assert text == "Start of list found where not expected at 'item'"


def test_unknown_members_are_ignored() -> None:
    validate_request("DescribeTable", {"TableName": "users", "Bogus": [1, 2]})


WRONG_TYPES = [
    ("DescribeTable", {"TableName": 12}, "NUMBER_VALUE cannot be converted to String at 'tableName'"),
    (
        "DescribeTable",
        {"TableName": {"S": "x"}},
        "Start of structure or map found where not expected at 'tableName'",
    ),
    (
        "Query",
        {"TableName": "users", "Limit": "10"},
        "STRING_VALUE cannot be converted to Integer at 'limit'",
    ),
    (
        "Query",
        {"TableName": "users", "Limit": True},
        "BOOLEAN_VALUE cannot be converted to Integer at 'limit'",
    ),
    (
        "Query",
        {"TableName": "users", "Limit": 2**31},
        "NUMBER_VALUE 2147483648 is not a whole number in the range of integer at 'limit'",
    ),
    (
        "GetItem",
        {"TableName": "users", "Key": KEY, "ConsistentRead": "true"},
        "STRING_VALUE cannot be converted to Boolean at 'consistentRead'",
    ),
    (
        "CreateTable",
        {"TableName": "users", "KeySchema": {"AttributeName": "pk"}},
        "Start of structure or map found where not expected at 'keySchema'",
    ),
    (
        "CreateTable",
        {"TableName": "users", "KeySchema": [{"AttributeName": 1, "KeyType": "HASH"}]},
        "NUMBER_VALUE cannot be converted to String at 'keySchema.1.member.attributeName'",
    ),
    (
        "BatchWriteItem",
        {"RequestItems": {"users": "x"}},
        "STRING_VALUE cannot be converted to List at 'requestItems.users.member'",
    ),
    (
        "GetItem",
        {"TableName": "users", "Key": KEY, "AttributesToGet": ["a", 2]},
        "NUMBER_VALUE cannot be converted to String at 'attributesToGet.2.member'",
    ),
    (
        "TransactWriteItems",
        {"TransactItems": ["Put"]},
        "STRING_VALUE cannot be converted to Structure at 'transactItems.1.member'",
    ),
    (
        "RestoreTableToPointInTime",
        {"TargetTableName": "abc", "RestoreDateTime": "2024-01-01"},
        "STRING_VALUE cannot be converted to Timestamp at 'restoreDateTime'",
    ),
    ("ListTables", [], "Start of list found where not expected at the top level of the request"),
]


@pytest.mark.parametrize(
    ("operation", "request_", "expected"), WRONG_TYPES, ids=[w[2][:40] for w in WRONG_TYPES]
)
def test_wrong_json_types_are_serialization_errors(operation: str, request_: object, expected: str) -> None:
    assert message(operation, request_, SerializationException) == expected


def test_serialization_error_wins_over_constraint_errors() -> None:
    # DynamoDB parses the whole body before validating it.
    assert message("Query", {"TableName": "a", "Limit": "x"}, SerializationException).endswith("at 'limit'")


def test_every_operation_compiles_and_reports_missing_members() -> None:
    rejected = set()
    for operation in sorted(OPERATIONS | STREAMS_OPERATIONS):
        try:
            validate_request(operation, {})
        except ValidationException as error:
            assert error.message.split(":")[0].endswith("detected")
            assert "Member must not be null" in error.message
            rejected.add(operation)
    assert {"PutItem", "DescribeTable", "GetRecords"} <= rejected
    assert "ListTables" not in rejected


def test_every_model_pattern_compiles_with_java_semantics() -> None:
    for service in ("dynamodb", "dynamodbstreams"):
        for shape in service_model(service).shapes.values():
            if "pattern" in shape:
                java_pattern(shape["pattern"])
    assert java_pattern(r"\p{Print}+").fullmatch("policy-1 x") is not None
    assert java_pattern(r"\p{Print}+").fullmatch("tab\there") is None
    supplementary = java_pattern(r"[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDC00-\uDBFF\uDFFF\r\n\t]*")
    assert supplementary.fullmatch("role \U0001f600") is not None
    assert supplementary.fullmatch("bad \x01") is None


def test_documentation_is_not_kept() -> None:
    model = service_model("dynamodb")
    assert all("documentation" not in shape for shape in model.shapes.values())
    assert all(
        "documentation" not in member
        for shape in model.shapes.values()
        for member in shape.get("members", {}).values()
    )


# An in-process caller can hand over what JSON cannot carry: a lone surrogate (no UTF-8 for it) and
# map keys that are not strings. Each is refused where it is, never an InternalServerError.
UNCARRIABLE = {
    "projection": (
        "GetItem",
        {"TableName": "users", "Key": KEY, "ProjectionExpression": "a\ud800"},
        "projectionExpression",
    ),
    "update": (
        "UpdateItem",
        {
            "TableName": "users",
            "Key": KEY,
            "UpdateExpression": "SET a\udfff = :v",
            "ExpressionAttributeValues": {":v": {"S": "x"}},
        },
        "updateExpression",
    ),
    "name value": (
        "Scan",
        {"TableName": "users", "ProjectionExpression": "#a", "ExpressionAttributeNames": {"#a": "x\ud800"}},
        "expressionAttributeNames.#a.member",
    ),
    "name key": (
        "Scan",
        {"TableName": "users", "ProjectionExpression": "#a", "ExpressionAttributeNames": {"#a\ud800": "x"}},
        "expressionAttributeNames (a key)",
    ),
    "statement": ("ExecuteStatement", {"Statement": "SELECT * FROM users WHERE pk = 'a\ud800'"}, "statement"),
    "token": (
        "TransactWriteItems",
        {"TransactItems": [{"Put": {"TableName": "users", "Item": ITEM}}], "ClientRequestToken": "t\ud800"},
        "clientRequestToken",
    ),
}


@pytest.mark.parametrize(("operation", "request_", "where"), UNCARRIABLE.values(), ids=UNCARRIABLE)
def test_a_lone_surrogate_is_refused_where_it_is(operation: str, request_: dict, where: str) -> None:
    text = message(operation, request_, SerializationException)
    assert text == f"STRING_VALUE is not valid UTF-8 (it holds a lone surrogate) at '{where}'"


def test_a_map_key_that_is_not_a_string_is_refused() -> None:
    request = {"TableName": "users", "ProjectionExpression": "#a", "ExpressionAttributeNames": {("#a",): "x"}}
    text = message("Scan", request, SerializationException)
    assert text == "tuple cannot be converted to String at 'expressionAttributeNames (a key)'"


ONE_KEY = {"pk": {"S": "u1"}}
MAP_WITH_KEY = {1: {"M": {1: {"S": "x"}}}, (2,): {"L": [{"M": {(2,): {"S": "x"}}}]}}


@pytest.mark.parametrize(("key", "says"), [(1, "NUMBER_VALUE"), ((2,), "tuple")])
@pytest.mark.parametrize("operation", ["PutItem", "UpdateItem", "TransactWriteItems", "BatchWriteItem"])
def test_a_key_of_an_attribute_map_that_is_not_a_string_is_refused(
    operation: str, key: object, says: str
) -> None:
    """An in-process caller's map payload keyed by a number or tuple: refused as JSON could never send
    it, by every write path (the shortcuts' included), never an InternalServerError."""
    from tablewright.engine import Engine

    engine = Engine()
    engine.handle(
        "CreateTable",
        {
            "TableName": "users",
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        },
    )
    item = {**ONE_KEY, "m": MAP_WITH_KEY[key]}
    requests = {
        "PutItem": {"TableName": "users", "Item": item},
        "UpdateItem": {
            "TableName": "users",
            "Key": ONE_KEY,
            "UpdateExpression": "SET m = :m",
            "ExpressionAttributeValues": {":m": MAP_WITH_KEY[key]},
        },
        "TransactWriteItems": {"TransactItems": [{"Put": {"TableName": "users", "Item": item}}]},
        "BatchWriteItem": {"RequestItems": {"users": [{"PutRequest": {"Item": item}}]}},
    }
    with pytest.raises(SerializationException) as raised:
        engine.handle(operation, requests[operation])
    assert str(raised.value.message).startswith(f"{says} cannot be converted to String")
    assert engine.handle("Scan", {"TableName": "users"})["Count"] == 0


def test_text_beyond_ascii_passes() -> None:
    validate_request(
        "GetItem",
        {
            "TableName": "users",
            "Key": KEY,
            "ProjectionExpression": "#é",
            "ExpressionAttributeNames": {"#é": "日本"},
        },
    )
