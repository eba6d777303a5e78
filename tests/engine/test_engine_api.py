"""The direct Engine API and engine-level behaviour that boto3 cannot reach."""

from __future__ import annotations

import pytest

import tablewright
from tablewright.engine import Engine
from tablewright.engine.errors import DynamoDBError

KEYED = {
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
        {"AttributeName": "lsk", "AttributeType": "S"},
    ],
    "BillingMode": "PAY_PER_REQUEST",
    "LocalSecondaryIndexes": [
        {
            "IndexName": "by-lsk",
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "lsk", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "ALL"},
        }
    ],
}


def _item(sk: str) -> dict:
    return {"pk": {"S": "a"}, "sk": {"S": sk}, "lsk": {"S": "x" * 100}}


def test_snake_case_shortcuts_are_the_wire_api():
    engine = Engine()
    engine.create_table({"TableName": "things", **KEYED})
    engine.put_item({"TableName": "things", "Item": _item("1")})
    assert engine.get_item(TableName="things", Key={"pk": {"S": "a"}, "sk": {"S": "1"}})["Item"] == _item("1")
    assert engine.handle("ListTables", {}) == {"TableNames": ["things"]}


def test_unknown_operation_is_an_error_not_a_crash():
    with pytest.raises(DynamoDBError) as info:
        Engine().handle("DropEverything", {})
    assert info.value.code == "UnknownOperationException"


def test_a_new_engine_on_an_existing_file_sees_its_tables(tmp_path):
    path = str(tmp_path / "app.db")
    first = Engine(path)
    first.create_table({"TableName": "things", **KEYED})
    first.put_item({"TableName": "things", "Item": _item("1")})
    second = Engine(path)
    assert second.get_item({"TableName": "things", "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}}})["Item"]
    # A table created later by the other engine is visible without any refresh call.
    first.create_table({"TableName": "later", **KEYED})
    assert second.get_item({"TableName": "later", "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}}}) == {}


def test_item_collection_limit_refuses_the_write_that_crosses_it():
    engine = Engine(item_collection_limit=1500)
    engine.create_table({"TableName": "things", **KEYED})
    written = 0
    with pytest.raises(DynamoDBError) as info:
        for i in range(20):
            engine.put_item({"TableName": "things", "Item": _item(str(i))})
            written += 1
    assert info.value.code == "ItemCollectionSizeLimitExceededException"
    # Each item is ~110 bytes, stored twice (table + LSI): the crossing write was undone.
    assert 0 < written < 20
    count = engine.describe_table({"TableName": "things"})["Table"]["ItemCount"]
    assert count == written


def test_return_item_collection_metrics_names_the_collection():
    engine = Engine()
    engine.create_table({"TableName": "things", **KEYED})
    response = engine.put_item(
        {"TableName": "things", "Item": _item("1"), "ReturnItemCollectionMetrics": "SIZE"}
    )
    metrics = response["ItemCollectionMetrics"]
    assert metrics["ItemCollectionKey"] == {"pk": {"S": "a"}}
    low, high = metrics["SizeEstimateRangeGB"]
    assert 0 <= low < high


def test_engine_of_returns_the_engine_behind_a_client():
    client = tablewright.connect()
    client.create_table(TableName="things", **KEYED)
    assert tablewright.engine_of(client).list_tables({}) == {"TableNames": ["things"]}
    with pytest.raises(ValueError):
        tablewright.engine_of(object())


def _table_of_strings() -> Engine:
    engine = Engine()
    engine.handle(
        "CreateTable",
        {
            "TableName": "values",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    return engine


def test_raw_bytes_from_an_in_process_caller_are_stored_as_base64():
    """The wire carries binaries as base64; an in-process caller may hand the engine bytes instead."""
    engine = _table_of_strings()
    item = {"pk": {"S": "k"}, "b": {"B": b"\x00\xffab"}, "bs": {"BS": [bytearray(b"x"), b"yz"]}}
    engine.handle("PutItem", {"TableName": "values", "Item": item})
    stored = engine.handle("GetItem", {"TableName": "values", "Key": {"pk": {"S": "k"}}})["Item"]
    assert stored["b"] == {"B": "AP9hYg=="}
    assert stored["bs"] == {"BS": ["eA==", "eXo="]}


def test_an_attribute_value_of_an_unknown_type_is_refused_by_name():
    """botocore refuses to send one; over raw HTTP or in process it is a ValidationException, not a crash."""
    engine = _table_of_strings()
    for value in ({"X": "1"}, {"L": [{"Q": True}]}):
        with pytest.raises(DynamoDBError) as info:
            engine.handle("PutItem", {"TableName": "values", "Item": {"pk": {"S": "k"}, "a": value}})
        assert info.value.code == "ValidationException"
        assert "unknown datatype" in info.value.message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"S": b"abc"}, "Invalid string value: b'abc'"),
        ({"SS": ["a", b"b"]}, "Invalid string value: b'b'"),
        ({"N": b"5"}, "The parameter cannot be converted to a numeric value: b'5'"),
        ({"BOOL": b"x"}, "Invalid boolean value: b'x'"),
        ({"M": b"x"}, "Invalid map value: expected an object"),
        ({"L": b"x"}, "Invalid list value: expected an array"),
        (
            {"NULL": b"x"},
            "One or more parameter values were invalid: Null attribute value types must have the value of true",
        ),
    ],
    ids=["S", "SS member", "N", "BOOL", "M", "L", "NULL"],
)
def test_bytes_where_text_belongs_are_refused_in_process(value, message):
    """Only an in-process caller can send bytes for a string, number or flag: a ValidationException
    naming the value, never a crash (over the wire the deserializer refuses such JSON first)."""
    engine = _table_of_strings()
    with pytest.raises(DynamoDBError) as info:
        engine.handle("PutItem", {"TableName": "values", "Item": {"pk": {"S": "k"}, "a": value}})
    assert (info.value.code, info.value.message) == ("ValidationException", message)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"SS": ("a",)}, "Invalid string set: expected a list"),
        ({"NS": ("1",)}, "Invalid number set: expected a list"),
        ({"BS": (b"x",)}, "Invalid binary set: expected a list"),
        ({"L": ({"S": "a"},)}, "Invalid list value: expected an array"),
    ],
    ids=["SS", "NS", "BS", "L"],
)
def test_a_tuple_where_a_list_belongs_is_refused_in_process(value, message):
    """JSON has one array type; an in-process caller's tuple is refused by name, never half-read."""
    engine = _table_of_strings()
    with pytest.raises(DynamoDBError) as info:
        engine.handle("PutItem", {"TableName": "values", "Item": {"pk": {"S": "k"}, "a": value}})
    assert (info.value.code, info.value.message) == ("ValidationException", message)


@pytest.mark.parametrize("value", ["A=AA", "==AA", "AA=A"])
def test_base64_with_padding_inside_is_a_serialization_error(value):
    """DynamoDB has been recorded answering such text in two wordings, both SerializationException."""
    engine = _table_of_strings()
    with pytest.raises(DynamoDBError) as info:
        engine.handle("PutItem", {"TableName": "values", "Item": {"pk": {"S": "k"}, "b": {"B": value}}})
    assert info.value.code == "SerializationException"


def test_an_in_process_binary_of_another_python_type_is_refused_naming_its_start():
    """The message quotes the value's first 64 characters, whatever its length."""
    engine = _table_of_strings()
    with pytest.raises(DynamoDBError) as info:
        engine.handle(
            "PutItem", {"TableName": "values", "Item": {"pk": {"S": "k"}, "b": {"B": ("x" * 100,)}}}
        )
    assert (info.value.code, info.value.message) == (
        "ValidationException",
        "One or more parameter values were invalid: Invalid binary value: " + repr(("x" * 100,))[:64],
    )


def test_base64_with_unused_bits_set_is_refused_in_dynamodbs_words():
    """Only raw JSON (or an in-process caller) can send such text: botocore encodes bytes itself."""
    engine = _table_of_strings()
    for value in ({"B": "YR=="}, {"BS": ["+/+="]}):
        with pytest.raises(DynamoDBError) as info:
            engine.handle("PutItem", {"TableName": "values", "Item": {"pk": {"S": "k"}, "b": value}})
        assert (info.value.code, info.value.message) == (
            "SerializationException",
            "Invalid last non-pad Base64 character dectected",
        )


# A value of the wrong JSON type, or a B that is not base64: PutItem's answer comes from the
# deserializer (SerializationException); a bulk load, which has no request to deserialize, must still
# refuse the item in the same words.
WRONGLY_TYPED = [
    {"S": 5},
    {"S": True},
    {"S": None},
    {"N": 5},
    {"N": ["1"]},
    {"N": None},
    {"B": 5},
    {"B": {"x": 1}},
    {"B": None},
    {"B": "YR=="},
    {"B": "!!!!"},
    {"B": "abc"},
    {"BOOL": "true"},
    {"BOOL": 1},
    {"NULL": "x"},
    {"NULL": False},
    {"L": "x"},
    {"L": {"a": 1}},
    {"M": "x"},
    {"M": [1]},
    {"SS": "x"},
    {"SS": {"a": 1}},
    {"SS": [5]},
    {"NS": 5},
    {"NS": [1]},
    {"BS": "AAE="},
    {"BS": [5]},
    {"BS": ["!!!!"]},
    {"L": [{"S": 5}]},
    {"M": {"x": {"BOOL": "y"}}},
]


def _refusal(call) -> tuple[str, str]:
    with pytest.raises(DynamoDBError) as info:
        call()
    return info.value.code, str(info.value)


@pytest.mark.parametrize("value", WRONGLY_TYPED, ids=[repr(v) for v in WRONGLY_TYPED])
def test_a_bulk_load_refuses_a_wrongly_typed_value_as_put_item_does(value: dict) -> None:
    from tablewright.engine import load_items

    engine = Engine()
    engine.create_table({"TableName": "things", **KEYED})
    item = {"pk": {"S": "a"}, "sk": {"S": "1"}, "v": value}
    put = _refusal(lambda: engine.put_item({"TableName": "things", "Item": item}))
    loaded = _refusal(lambda: load_items(engine, "things", [item]))
    assert loaded == put
    assert engine.scan({"TableName": "things"})["Count"] == 0
