"""The engine's hot-path shortcuts give exactly the results of the general code they bypass."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tablewright
from tablewright.engine import Engine
from tablewright.engine.catalog import table_meta_from
from tablewright.engine.errors import SerializationException, ValidationException
from tablewright.engine.types import (
    MAX_DIGITS,
    _plain_decimal_sized,
    check_wire_json,
    equal,
    item_size,
    plain_item_sized,
    validate_item,
    validate_item_sized,
    validate_loaded_item_sized,
    validate_value_sized,
)

numbers = st.one_of(
    st.integers(-(10**20), 10**20).map(str),
    st.decimals(allow_nan=False, allow_infinity=False, places=4).map(lambda d: format(d, "f")),
    st.sampled_from(["1E2", "0.000", "-0", "5.0", "00012", "1e-5"]),
)
scalars = st.one_of(
    st.builds(lambda s: {"S": s}, st.text(max_size=8)),
    st.builds(lambda n: {"N": n}, numbers),
    st.builds(lambda b: {"B": b}, st.sampled_from(["", "AAE=", "AQID"])),
    st.builds(lambda b: {"BOOL": b}, st.booleans()),
    st.just({"NULL": True}),
    st.builds(lambda s: {"SS": sorted(s)}, st.sets(st.text(min_size=1, max_size=4), min_size=1, max_size=3)),
    st.builds(
        lambda s: {"NS": [str(n) for n in sorted(s)]}, st.sets(st.integers(-99, 99), min_size=1, max_size=3)
    ),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.builds(lambda m: {"M": m}, st.dictionaries(st.text(min_size=1, max_size=4), inner, max_size=3)),
        st.builds(lambda items: {"L": items}, st.lists(inner, max_size=3)),
    ),
    max_leaves=8,
)
items = st.dictionaries(st.text(min_size=1, max_size=6), values, max_size=5)


@given(items)
def test_sized_validation_measures_like_item_size(raw: dict) -> None:
    item, size = validate_item_sized(raw)
    assert item == validate_item(raw)
    assert size == item_size(item)


TABLE = table_meta_from(
    1,
    {
        "Description": {
            "TableName": "tbl",
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "N"},
            ],
        }
    },
)


def _slow(raw: object) -> object:
    try:
        key = validate_item(raw, "key")
        return key, TABLE.encode_item_key(key, for_item=False)
    except ValidationException as error:
        return str(error)


def _fast(raw: object) -> object:
    try:
        return TABLE.key_and_encoding(raw)
    except ValidationException as error:
        return str(error)


@given(st.text(max_size=12), numbers)
def test_key_shortcut_matches_full_validation_for_any_key(pk: str, sk: str) -> None:
    raw = {"pk": {"S": pk}, "sk": {"N": sk}}
    assert _fast(raw) == _slow(raw)


@given(st.text(min_size=1, max_size=12), numbers, items)
def test_item_key_shortcut_matches_the_checked_encoding(pk: str, sk: str, rest: dict) -> None:
    try:
        item = validate_item({**rest, "pk": {"S": pk}, "sk": {"N": sk}})
    except ValidationException:
        return
    try:
        checked: object = TABLE._encode_key_checked(item, for_item=True)
    except ValidationException as error:
        checked = str(error)
    try:
        fast: object = TABLE.encode_item_key(item, for_item=True)
    except ValidationException as error:
        fast = str(error)
    assert fast == checked


@pytest.mark.parametrize(
    "raw",
    [
        {"pk": {"S": "a"}, "sk": {"N": "5"}},
        {"pk": {"S": "a"}, "sk": {"N": "9" * 38 + "0" * 88}},  # the largest magnitude, as an integer
        {"pk": {"S": "a"}, "sk": {"N": "9.9999999999999999999999999999999999999E+125"}},
        {"pk": {"S": "é"}, "sk": {"N": "1"}},  # not ASCII: measured in UTF-8 bytes
        {"pk": {"S": "\ud800"}, "sk": {"N": "1"}},  # a lone surrogate is not a string DynamoDB stores
        {"pk": {"S": "x" * 2048}, "sk": {"N": "1"}},
        {"pk": {"S": "x" * 2049}, "sk": {"N": "1"}},
        {"pk": {"S": "a"}, "sk": {"N": "5.0"}},  # normalised by the slow path
        {"pk": {"S": "a"}, "sk": {"N": "-0"}},
        {"pk": {"S": ""}, "sk": {"N": "1"}},
        {"pk": {"S": "a"}},
        {"pk": {"S": "a"}, "sk": {"S": "1"}},
        {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"S": "b"}},
        {"pk": {"S": "a", "N": "1"}, "sk": {"N": "1"}},
        {"pk": {"S": "a"}, "other": {"N": "1"}},
        {"pk": {"S": "a"}, "sk": {"N": "1e400"}},
        "not a map",
    ],
)
def test_request_key_shortcut_matches_full_validation(raw: object) -> None:
    assert _fast(raw) == _slow(raw)


def test_fast_key_is_a_copy() -> None:
    raw = {"pk": {"S": "a"}, "sk": {"N": "5"}}
    key, _ = TABLE.key_and_encoding(raw)
    key["pk"]["S"] = "changed"
    assert raw["pk"]["S"] == "a"


def test_in_process_client_sends_a_fixed_user_agent_with_the_users_extra() -> None:
    from botocore.config import Config

    seen: list[str] = []
    client = tablewright.connect(config=Config(user_agent_extra="myapp/1.0"))
    client.meta.events.register_first(
        "before-call.dynamodb", lambda params, **_: seen.append(params["headers"]["User-Agent"])
    )
    client.list_tables()
    assert seen[0].startswith(f"tablewright/{tablewright.__version__}")
    assert seen[0].endswith("myapp/1.0")


def test_capacity_is_computed_on_request_with_index_units() -> None:
    engine = Engine()
    engine.create_table(
        TableName="tbl",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    item = {"pk": {"S": "a"}, "g": {"S": "x"}, "blob": {"S": "y" * 1500}}
    first = engine.put_item(TableName="tbl", Item=item, ReturnConsumedCapacity="INDEXES")
    assert first["ConsumedCapacity"]["Table"]["CapacityUnits"] == 2.0
    assert first["ConsumedCapacity"]["GlobalSecondaryIndexes"] == {"byG": {"CapacityUnits": 2.0}}
    # Moving the item to another index key deletes one entry and writes another.
    moved = engine.put_item(TableName="tbl", Item={**item, "g": {"S": "z"}}, ReturnConsumedCapacity="INDEXES")
    assert moved["ConsumedCapacity"]["GlobalSecondaryIndexes"] == {"byG": {"CapacityUnits": 4.0}}
    assert "ConsumedCapacity" not in engine.put_item(TableName="tbl", Item=item)


def test_a_users_stubber_still_answers_first_on_an_in_process_client() -> None:
    from botocore.stub import Stubber

    client = tablewright.connect()
    with Stubber(client) as stub:
        stub.add_response("list_tables", {"TableNames": ["stubbed"]})
        assert client.list_tables()["TableNames"] == ["stubbed"]
    assert client.list_tables()["TableNames"] == []  # the engine answers again once the stubber is gone


def test_in_process_answers_are_parsed_by_botocore() -> None:
    client = tablewright.connect()
    client.create_table(
        TableName="blobs",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "B"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName="blobs", Item={"pk": {"B": b"\x00\xff"}, "set": {"BS": [b"a"]}})
    got = client.get_item(TableName="blobs", Key={"pk": {"B": b"\x00\xff"}})
    assert got["Item"] == {"pk": {"B": b"\x00\xff"}, "set": {"BS": [b"a"]}}  # base64 decoded
    assert got["ResponseMetadata"]["HTTPStatusCode"] == 200
    created = client.describe_table(TableName="blobs")["Table"]["CreationDateTime"]
    assert created.tzinfo is not None  # a datetime, as botocore parses timestamps
    with pytest.raises(client.exceptions.ConditionalCheckFailedException) as failed:
        client.put_item(
            TableName="blobs",
            Item={"pk": {"B": b"\x00\xff"}},
            ConditionExpression="attribute_not_exists(pk)",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    assert failed.value.response["Item"]["set"] == {"BS": [b"a"]}  # a modeled error field, parsed
    assert failed.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


# --- PutItem's one-walk check (types.plain_item_sized) against the two walks it replaces -------------

_ascii_names = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=6)
_plain_values = st.one_of(
    st.builds(lambda s: {"S": s}, st.text(max_size=8).filter(lambda s: s.encode("utf-8", "ignore") or not s)),
    st.builds(lambda n: {"N": str(n)}, st.integers(1, 10**37)),
    st.builds(
        lambda i, f: {"N": f"{i}.{f}"},
        st.integers(0, 10**15),
        st.text(alphabet="0123456789", min_size=1, max_size=15),
    ),
    st.builds(
        lambda s: {"SS": sorted(s)},
        st.sets(
            st.text(alphabet=st.characters(max_codepoint=127), min_size=1, max_size=4), min_size=1, max_size=3
        ),
    ),
)


def _two_walks(item: dict) -> tuple[dict, int] | None:
    """What the general path makes of an item: the wire check of every value, then validation."""
    try:
        for value in item.values():
            check_wire_json(value)
        return validate_item_sized(item)
    except Exception:  # noqa: BLE001 - any refusal: the shortcut must decline (None)
        return None


@given(st.dictionaries(_ascii_names, _plain_values, min_size=1, max_size=6))
def test_plain_items_take_the_one_walk_and_get_the_general_answer(item: dict) -> None:
    expected = _two_walks(item)
    assert expected is not None  # every value drawn here is valid
    found = plain_item_sized(item)
    assert found == expected
    # Checked inline, not by the general checks: the caller's item itself comes back unless a value
    # had to be normalised ("2.50"), as the docstring promises (a copy per put is what it saves).
    assert (found[0] is item) == (found[0] == item)  # type: ignore[index]


@given(items)
def test_any_item_gets_the_general_answer_or_goes_the_general_way(item: dict) -> None:
    found = plain_item_sized(item)
    assert found is None or found == _two_walks(item)


@pytest.mark.parametrize(
    ("item", "plain"),
    [
        ({}, True),
        ({"": {"S": "x"}}, False),  # an empty name: the general path words the error
        ({"é": {"S": "x"}}, False),  # a name the one walk does not size
        ({"a": {"S": "\ud800"}}, False),  # a lone surrogate
        ({"a": {"N": "012"}}, True),  # not canonical: normalised by the general check inside
        ({"a": {"N": "2.50"}, "b": {"N": "3.0"}}, True),
        ({"a": {"SS": ["x", "x"]}}, False),  # a duplicate: refused
        ({"a": {"SS": []}}, False),
        ({"a": {"S": "x", "N": "1"}}, False),  # two types
        ({1: {"S": "x"}}, False),
        ([("a", {"S": "x"})], False),
        ({"a" * 65536: {"S": "x"}}, False),
        ({"a" * 65535: {"S": "x"}}, True),
        ({"a": {"N": "9" * 38}}, True),  # the most digits a number may have
        ({"a": {"N": "12345678901234567890123456789012345.6"}}, True),  # 38 characters
        ({"a" * 65534: {"S": "x"}, "b": {"S": "y"}}, True),
    ],
)
def test_plain_item_edges(item: object, plain: bool) -> None:
    found = plain_item_sized(item)
    assert (found is not None) is plain
    if plain:
        assert found == _two_walks(item)  # type: ignore[arg-type]
        assert (found[0] is item) == (found[0] == item)  # type: ignore[index]


def test_a_normalised_value_leaves_the_callers_item_as_it_was() -> None:
    item = {"price": {"N": "2.50"}, "name": {"S": "x"}}
    found = plain_item_sized(item)
    assert found is not None and found[0] == {"price": {"N": "2.5"}, "name": {"S": "x"}}
    assert item == {"price": {"N": "2.50"}, "name": {"S": "x"}}


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ([], "Invalid item: expected a map of attribute names to values"),
        ({"": {"S": "x"}}, "One or more parameter values were invalid: Empty attribute name"),
        (
            {"n" * 65536: {"S": "x"}},
            "Attribute name is too long; it must be at most 65535 bytes: " + "n" * 64 + "...",
        ),
    ],
)
def test_item_validation_words_its_refusals(item: object, message: str) -> None:
    with pytest.raises(ValidationException) as raised:
        validate_item_sized(item)
    assert str(raised.value).endswith(message)


@given(st.integers(0, 10**18), st.text(alphabet="0123456789", min_size=1, max_size=19))
def test_formatted_decimals_are_sized_and_written_as_numbers_are(integer: int, fraction: str) -> None:
    text = f"{integer}.{fraction}"
    found = _plain_decimal_sized(text)
    if len(text) > MAX_DIGITS:
        assert found is None
        return
    assert found is not None
    (stored, size) = found
    assert validate_item_sized({"n": {"N": text}})[0]["n"] == {"N": stored}
    assert size == item_size({"n": {"N": stored}}) - 1  # the name "n" is one byte


@pytest.mark.parametrize(
    "text", ["", ".", "1.", ".5", "01.5", "-1.5", "1.5e3", "1,5", "١.٥", " 1.5", "1.2.3"]
)
def test_other_spellings_are_left_to_the_general_path(text: str) -> None:
    assert _plain_decimal_sized(text) is None


def _answer(validate: object, raw: object) -> object:
    try:
        return validate(raw)  # type: ignore[operator]
    except (ValidationException, SerializationException) as error:
        return type(error).__name__, str(error)


LOADED_ITEMS = [
    {"a": {"S": "x"}, "b": {"S": ""}, "c": {"S": "é€"}},  # sizes by UTF-8 bytes
    {"n": {"N": "12"}, "m": {"N": "1200"}, "o": {"N": "1" + "0" * 37}, "p": {"N": "9" * 38}},
    {"n": {"N": "5"}, "m": {"N": "-5"}, "o": {"N": "0"}, "p": {"N": "1.25"}, "q": {"N": "-0.5"}},
    {"n": {"N": "2.50"}, "m": {"N": "007"}, "o": {"N": "1e3"}, "p": {"N": "-0"}, "r": {"N": "0.0"}},
    {"n": {"N": "00"}, "m": {"N": "0"}},
    {"n": {"N": " 1"}},
    {"n": {"N": "1" * 39}},  # 39 digits
    {"n": {"N": "١٢"}},  # digits, but not ASCII: not a DynamoDB number
    {"n": {"N": "0" * 39 + "1"}},
    {"s": {"SS": ["a", "bc"]}, "t": {"SS": ["é"]}, "u": {"NS": ["1", "2.0"]}, "v": {"BS": ["AAE="]}},
    {"s": {"SS": ["a", "a"]}},
    {"s": {"SS": []}},
    {"s": {"SS": ["a", 1]}},
    {"s": {"SS": "ab"}},
    {"s": {"SS": [""]}},
    {"m": {"M": {"x": {"S": "y"}}}, "l": {"L": [{"N": "1"}]}, "b": {"BOOL": True}, "z": {"NULL": True}},
    {"a": {"S": "x"}, "e": {}},
    {"a": {"S": "x"}, "e": {"S": "a", "N": "1"}},
    {"a": {"S": "x"}, "e": "x"},
    {"a": {"S": "x"}, "e": {"S": 5}},
    {"a": {"S": "x"}, "e": {"S": ["a"]}},
    {"a": {"S": "x"}, "e": {"N": 5}},
    {"a": {"S": "x"}, "e": {"B": "AAE="}},
    {"a": {"S": "x"}, "e": {"B": "12"}},  # a canonical number's text, but not base64
    {"a": {"S": "x"}, "e": {"BOOL": "1"}},
    {"é": {"S": "x"}},  # a name not in ASCII: measured in UTF-8 bytes
    {"": {"S": "x"}},
    {5: {"S": "x"}},
    {"x" * 16383: {"S": "x"}},
    {"x" * 65536: {"S": "x"}},
    {"x" * 16382: {"N": "1"}, "y": {"SS": ["a"]}},
    ["not", "a", "map"],
    {},
]


@pytest.mark.parametrize("raw", LOADED_ITEMS, ids=range(len(LOADED_ITEMS)))
def test_loaded_item_validation_answers_like_the_general_validation(raw: object) -> None:
    assert _answer(validate_loaded_item_sized, raw) == _answer(validate_item_sized, raw)


@pytest.mark.parametrize(
    "value",
    [{"S": "x"}, {"S": "é"}, {"N": "12"}, {"N": "1.5"}, {"N": "-3"}, {"SS": ["a", "b"]}],
    ids=["S", "S-utf8", "N-integer", "N-decimal", "N-negative", "SS"],
)
def test_a_loaded_item_keeps_the_callers_common_values(value: dict) -> None:
    """Bulk loads keep the caller's value dicts for the common kinds (no copy per attribute);
    every other kind is a fresh, normalised value."""
    raw = {"pk": {"S": "p"}, "a": value, "m": {"M": {"x": {"N": "1.0"}}}}
    item, _ = validate_loaded_item_sized(raw)
    assert item["pk"] is raw["pk"] and item["a"] is value
    assert item["m"] == {"M": {"x": {"N": "1"}}}


@pytest.mark.parametrize(("what", "words"), [((), "Invalid item:"), (("Key",), "Invalid Key:")])
def test_item_validation_names_what_it_validated(what: tuple, words: str) -> None:
    with pytest.raises(ValidationException, match=f"^{words} expected a map"):
        validate_item([], *what)


def test_a_dict_subclass_from_an_in_process_caller_is_validated_as_a_dict() -> None:
    from collections import OrderedDict

    value = OrderedDict({"M": OrderedDict({"n": OrderedDict({"N": "2.50"})})})
    assert validate_value_sized(value) == validate_value_sized({"M": {"n": {"N": "2.50"}}})
    assert validate_value_sized(OrderedDict({"S": "x"}), 3) == ({"S": "x"}, 1)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ({"N": "1.50"}, {"N": "1.5"}),
        ({"N": "-0.000"}, {"N": "0"}),
        ({"NS": ["1.0", "2"]}, {"NS": ["2.00", "1"]}),
    ],
)
def test_numbers_spelled_two_ways_are_equal(left: dict, right: dict) -> None:
    assert equal(left, right)
    assert not equal(left, {"N": "7"} if "N" in left else {"NS": ["7"]})
