"""The single-item shortcuts (issue 17 req 3) answer exactly as the general code they bypass.

Each shortcut is compared with the general path on generated values, errors included: validating an
item attribute by attribute (``validate_value_sized``), checking wire JSON types (``check_wire_json``),
recognising canonical numbers (the regular expression) and formatted decimals (``normalize_number``),
the one-walk item check of PutItem's shortcut (``plain_item_sized``), its table-name check, and the
shortcut end to end: the same PutItem requests on an engine with ``fast_writes`` and on one without
(request validation, then the read-then-write path) must answer and store the same; GetItem's shortcut
likewise against the general read (``fast_reads``), in memory and on a file.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewright.engine import Engine
from tablewright.engine.encoded import dumps as encoded_dumps
from tablewright.engine.errors import DynamoDBError
from tablewright.engine.ops.items import get_item_shortcut, put_item_shortcut
from tablewright.engine.types import (
    _CANONICAL,
    MAX_DIGITS,
    _plain_decimal_sized,
    _plain_map_sized,
    check_wire_json,
    is_canonical_number,
    normalize_number,
    number_size,
    plain_item_sized,
    validate_item_sized,
    validate_value_sized,
)
from tablewright.engine.validation import member_validator, validate_request

from .support.generated_items import values as valid_values
from .support.tables import keyed_table

odd_strings = st.one_of(
    st.text(max_size=6),
    st.sampled_from(["", "a", "é", "\ud800", "0", "007", "12", "1" * 39, "١٢", "²"]),
    st.sampled_from(["2.50", "3.0", "10.", "0.50", "-1.50", "1.500", "00.10", "-0.0", "5.0e1", ".50"]),
)
odd_payloads = st.one_of(
    odd_strings,
    st.integers(-5, 5),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False),
    st.lists(odd_strings, max_size=4),
    st.lists(st.one_of(odd_strings, st.integers(0, 3), st.none()), max_size=4),
    st.dictionaries(st.text(max_size=2), odd_strings, max_size=2),
)
odd_values = st.one_of(
    st.dictionaries(
        st.sampled_from(["S", "N", "SS", "NS", "BS", "B", "BOOL", "NULL", "X"]), odd_payloads, max_size=2
    ),
    odd_payloads,
)


def outcome(function: Any, *args: Any) -> Any:
    try:
        return ("ok", function(*args))
    except DynamoDBError as error:
        return (type(error).__name__, str(error))


def general_item(raw: dict) -> tuple[dict, int]:
    """validate_item_sized without its inline shortcuts: every attribute through validate_value_sized."""
    out, size = {}, 0
    for name, value in raw.items():
        out[name], value_size = validate_value_sized(value)
        size += len(name.encode("utf-8")) + value_size
    return out, size


@settings(deadline=None)  # no timing in tests: a loaded machine is slow, not wrong
@given(st.dictionaries(st.sampled_from(["a", "bb", "é", "x" * 20_000, "é" * 20_000]), odd_values, max_size=4))
def test_item_shortcuts_match_the_general_validation(raw: dict) -> None:
    assert outcome(validate_item_sized, raw) == outcome(general_item, raw)


@settings(deadline=None)  # no timing in tests: a loaded machine is slow, not wrong
@given(st.dictionaries(st.sampled_from(["a", "bb"]), odd_values, min_size=1, max_size=4))
def test_request_wire_check_matches_the_general_check(item: dict) -> None:
    def general() -> None:
        for value in item.values():
            check_wire_json(value)

    shortcut = outcome(validate_request, "PutItem", {"TableName": "tbl", "Item": item})
    expected = outcome(general)
    if expected[0] != "ok":  # a wrong JSON type is reported before anything else
        assert shortcut == expected
    else:
        assert shortcut[0] != "SerializationException"


@settings(deadline=None)  # no timing in tests: a loaded machine is slow, not wrong
@given(odd_payloads)
def test_integer_shortcut_agrees_with_the_canonical_form(text: Any) -> None:
    by_definition = (
        isinstance(text, str)
        and len(text) <= 40
        and _CANONICAL.fullmatch(text) is not None
        and text != "-0"
        and len(text.lstrip("-").replace(".", "").lstrip("0")) <= MAX_DIGITS
    )
    assert is_canonical_number(text) == by_definition


# ------------------------------------------------------------------------------ PutItem's shortcut

decimal_texts = st.one_of(
    odd_strings,
    st.from_regex(r"-?0*[0-9]{0,4}\.?[0-9]{0,4}0*", fullmatch=True),
    st.decimals(allow_nan=False, allow_infinity=False, places=4).map(lambda d: format(d, "f")),
    st.sampled_from(["0.0", "0.000", "10.0", "100.500", "0.05", "1." + "1" * 36, "1." + "1" * 37, "١.٥"]),
)


@settings(deadline=None)  # no timing in tests: a loaded machine is slow, not wrong
@given(decimal_texts)
def test_formatted_decimal_shortcut_matches_normalisation(text: str) -> None:
    sized = _plain_decimal_sized(text)
    expected = outcome(lambda: (normalize_number(text), number_size(text)))
    if sized is not None:
        assert ("ok", sized) == expected
    # It takes every non-negative decimal of ASCII digits with a point that fits in 38 characters.
    formatted = re.fullmatch(r"(0|[1-9][0-9]*)\.[0-9]+", text) is not None and len(text) <= MAX_DIGITS
    assert (sized is not None) == formatted


plain_names = st.sampled_from(["a", "bb", "pk", "x" * 300])
odd_names = st.one_of(
    plain_names, st.sampled_from(["", "é", "x" * 70_000, "\ud800", 1, None]), st.text(max_size=3)
)
plain_values = st.one_of(
    st.text("abc xyz", max_size=5).map(lambda s: {"S": s}),
    st.text(max_size=4).map(lambda s: {"S": s}),
    st.integers(0, 10**40).map(lambda n: {"N": str(n)}),
    st.decimals(min_value=0, max_value=10**6, places=3).map(lambda d: {"N": format(d, "f")}),
    st.lists(st.text("abc", min_size=1, max_size=3), min_size=1, max_size=3, unique=True).map(
        lambda v: {"SS": v}
    ),
)
any_values = st.one_of(plain_values, valid_values, odd_values)


def wire_check(raw: dict) -> Any:
    return outcome(lambda: [check_wire_json(value) for value in raw.values()])


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.dictionaries(odd_names, any_values, max_size=5))
def test_plain_item_is_the_validated_item_or_nothing(raw: dict) -> None:
    plain = plain_item_sized(raw)  # never raises
    if plain is not None:  # then both general checks pass, and it is their item and size
        assert wire_check(raw) == ("ok", [None] * len(raw))
        general = outcome(validate_item_sized, raw)
        assert general[0] == "ok"
        assert plain[1] == general[1][1]
        assert orjson.dumps(plain[0]) == orjson.dumps(general[1][0])  # the stored bytes


@settings(deadline=None)  # no timing in tests: a loaded machine is slow, not wrong
@given(st.dictionaries(plain_names, st.one_of(plain_values, valid_values), min_size=1, max_size=6))
def test_plain_item_takes_every_valid_item_with_ascii_names(raw: dict) -> None:
    if outcome(validate_item_sized, raw)[0] == "ok":
        assert plain_item_sized(raw) is not None


def test_plain_item_declines_what_it_does_not_check() -> None:
    for raw in (
        [],
        {1: {"S": "x"}},
        {"": {"S": "x"}},
        {"é": {"S": "x"}},
        {"a": {"S": "\ud800"}},
        {"a": {"S": 5}},
        {"a": {"SS": ["x", "x"]}},
        {"a": {"N": "1e400"}},
        {"a": {"M": {"b": {"N": 5}}}},
    ):
        assert plain_item_sized(raw) is None, raw
    item = {"a": {"N": "2.50"}, "b": {"NS": ["1.0", "2"]}, "c": {"S": "é"}}
    assert plain_item_sized(item) == validate_item_sized(item)
    assert item["a"] == {"N": "2.50"}  # the caller's item is not changed


# Found by mutation testing (docs/mutation.md): items whose every value the one walk takes inline.
INLINE_ITEMS = [
    {"s": {"S": "ascii"}, "u": {"S": "é€😀"}, "e": {"S": ""}},
    {"i": {"N": "7"}, "z": {"N": "1000"}, "big": {"N": "9" * MAX_DIGITS}, "d": {"N": "21.5"}},
    {"d": {"N": "2.50"}, "i": {"N": "12"}},  # "2.50" is stored as "2.5"
    {"ss": {"SS": ["a", "bc"]}, "s": {"S": "x"}},
    {"m": {"M": {"a": {"S": "x"}, "é": {"S": "ü"}, "n": {"N": "100"}, "d": {"N": "0.25"}}}, "s": {"S": "y"}},
    {"m": {"M": {"t": {"N": "21.50"}, "i": {"N": "12"}, "s": {"S": "ok"}}}, "n": {"N": "2.50"}},
    {"m": {"M": {}}, "k": {"M": {"a": {"S": ""}}}},
]


def test_plain_item_measures_inline_values_as_the_general_validation() -> None:
    for raw in INLINE_ITEMS:
        before = copy.deepcopy(raw)
        plain = plain_item_sized(raw)
        assert plain is not None, raw
        assert plain == validate_item_sized(copy.deepcopy(raw)), raw
        assert raw == before  # the caller's item is not changed
        for value in raw.values():
            if "M" in value:
                sized = _plain_map_sized(value["M"])
                assert sized is not None, value
                members, size = sized
                assert size == validate_value_sized(value)[1], value
                normalised = validate_value_sized(value)[0]["M"]
                assert (members or value["M"]) == normalised, value
                assert (members is None) == (normalised == value["M"]), value


def test_plain_item_keeps_the_callers_item_when_nothing_is_normalised() -> None:
    item = {"n": {"N": "21.5"}, "i": {"N": "7"}, "m": {"M": {"d": {"N": "0.5"}, "s": {"S": "x"}}}}
    plain = plain_item_sized(item)
    assert plain is not None and plain[0] is item
    assert _plain_map_sized(item["m"]["M"]) == (None, validate_value_sized(item["m"])[1])


def test_plain_item_refuses_what_the_general_checks_refuse() -> None:
    for raw in (
        {"a": {"S": "x", "N": "1"}},  # two types in one value
        {"a": {"N": "007"}},  # not refused: normalised, so not kept as it is
        {"a": {"SS": "ab"}},
        {"a": {"SS": ["a", 1]}},
        {"a": {"M": {"b": "x"}}},
        {"a": {"M": {"b": {"S": "x", "N": "1"}}}},
        {"a": {"M": {"b": {"S": "\ud800"}}}},
        {"a": {"M": {"\ud800": {"S": "x"}}}},
        {"a": {"M": {"b": {"N": "1e400"}}}},
        {"a": {"M": {"b": {"N": 5}}}},
    ):
        plain = plain_item_sized(raw)  # never raises
        general = outcome(lambda r=raw: ([check_wire_json(v) for v in r.values()], validate_item_sized(r)))
        if plain is None:
            assert general[0] != "ok" or not "".join(raw).isascii(), raw
        else:
            assert general[0] == "ok", raw
            assert orjson.dumps(plain) == orjson.dumps(general[1][1]), raw
    for members in (
        "x",
        [],
        {"b": "x"},
        {"b": {}},
        {1: {"S": "x"}},
        {"b": {"S": "x", "N": "1"}},
        {"b": {"N": 5}},
    ):
        assert _plain_map_sized(members) is None, members


@settings(deadline=None)  # no timing in tests: a loaded machine is slow, not wrong
@given(
    st.one_of(st.text(max_size=8), st.sampled_from(["abc", "ab", "a" * 255, "a" * 256, "a.b-c_d", "tbl!"]))
)
def test_table_name_check_is_the_request_validation(name: str) -> None:
    valid = outcome(validate_request, "PutItem", {"TableName": name, "Item": {}})[0] == "ok"
    assert member_validator("PutItem", "TableName")(name) == valid


TABLE_KEYS = {
    "plain_t": ("pk", "S", "sk", "N"),
    "hash_t": ("id", "S", None, None),
    "number_t": ("pk", "N", "sk", "S"),
    "streamed_t": ("pk", "S", "sk", "N"),
}


def put_engine(*, fast: bool) -> Engine:
    engine = Engine()
    engine.fast_writes = fast
    for name, (hash_name, hash_type, range_name, range_type) in TABLE_KEYS.items():
        request = keyed_table(name, hash_name, hash_type, range_name, range_type)
        if name == "streamed_t":
            request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
        engine.handle("CreateTable", request)
    return engine


key_values = st.one_of(
    st.sampled_from(
        [{"S": "p1"}, {"S": "ä"}, {"N": "1"}, {"N": "2.50"}, {"N": "-0.5"}, {"S": ""}, {"S": "k" * 3000}]
    ),
    st.just(None),  # absent
    odd_values,
)


good_keys = {
    "S": st.sampled_from([{"S": "p1"}, {"S": "ä"}, {"S": "p2"}]),
    "N": st.sampled_from([{"N": "1"}, {"N": "2.50"}, {"N": "2.5"}, {"N": "-0.5"}, {"N": "0"}]),
}


def draw_key(draw: st.DrawFn, table: Any, good: dict[str, Any] | None) -> dict[str, Any]:
    """The key attributes of ``table`` (a made-up key for a table not in TABLE_KEYS): values of the
    key types drawn from ``good``, or with ``None`` odd values, some of them absent."""
    hash_name, hash_type, range_name, range_type = TABLE_KEYS.get(table, ("pk", "S", "sk", "N"))
    key: dict[str, Any] = {}
    for name, kind in ((hash_name, hash_type), (range_name, range_type)):
        if name is None:
            continue
        value = draw(key_values if good is None else good[kind])
        if value is not None:
            key[name] = value
    return key


@st.composite
def put_requests(draw: st.DrawFn) -> Any:
    """Mostly well-formed puts (ASCII names, valid values, keys of the right type), which the shortcut
    takes; a quarter with anything wrong anywhere, which it must leave to the general path."""
    table = draw(
        st.sampled_from([*TABLE_KEYS, *TABLE_KEYS, *TABLE_KEYS, "missing_t", "ab", "bad name!", 7, None])
    )
    if draw(st.integers(0, 3)):
        item = draw(st.dictionaries(plain_names, st.one_of(plain_values, valid_values), max_size=4))
        item.update(draw_key(draw, table, good_keys))
    else:
        item = draw(st.dictionaries(odd_names, any_values, max_size=4))
        item.update(draw_key(draw, table, None))
    if draw(st.integers(0, 29)) == 7:
        item["big"] = {"S": "x" * 410_000}
    request: Any = {"TableName": table, "Item": item}
    extra = draw(st.integers(0, 19))
    if extra == 1:
        request["ReturnValues"] = draw(st.sampled_from([None, "NONE", "ALL_OLD", "NOPE"]))
    elif extra == 2:
        del request["TableName"]
    elif extra == 3:
        request["Item"] = draw(st.sampled_from([None, [], "item", {}]))
    elif extra == 4:
        request = [table, item]
    return request


def put_answer(engine: Engine, request: Any) -> Any:
    try:
        return ("ok", engine.handle("PutItem", copy.deepcopy(request)))
    except DynamoDBError as error:
        return (type(error).__name__, str(error))


def stored_rows(engine: Engine) -> dict[str, Any]:
    conn = engine.store.conn
    rows = {}
    for name, table_id in conn.execute("SELECT name, id FROM tw_tables").fetchall():
        rows[name] = conn.execute(f"SELECT * FROM t{table_id} ORDER BY h, pk, sk").fetchall()
    rows["stream"] = [
        orjson.loads(r)["dynamodb"]["NewImage"] for (r,) in conn.execute("SELECT record FROM tw_stream")
    ]
    return rows


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(put_requests(), min_size=1, max_size=6))
def test_put_shortcut_answers_and_stores_as_the_general_path(requests: list[Any]) -> None:
    fast, general = put_engine(fast=True), put_engine(fast=False)
    for request in requests:
        assert put_answer(fast, request) == put_answer(general, request), request
    assert stored_rows(fast) == stored_rows(general)


def test_put_shortcut_takes_plain_puts_and_leaves_the_rest() -> None:
    engine = put_engine(fast=True)
    item = {"pk": {"S": "p"}, "sk": {"N": "1"}, "score": {"N": "2.50"}, "tags": {"SS": ["a", "b"]}}
    assert put_item_shortcut(engine, {"TableName": "plain_t", "Item": item}) == {}
    assert engine.handle(
        "GetItem", {"TableName": "plain_t", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}}
    ) == {"Item": {**item, "score": {"N": "2.5"}}}
    for request in (
        {"TableName": "streamed_t", "Item": item},  # a stream record needs the general path
        {"TableName": "plain_t", "Item": {**item, "bad": {"S": 5}}},
        {"TableName": "plain_t", "Item": item, "ReturnValues": "ALL_OLD"},
        {"TableName": "missing_t", "Item": item},
        {"TableName": "plain_t"},
    ):
        assert put_item_shortcut(engine, request) is None, request
    assert engine.handle("Scan", {"TableName": "streamed_t"})["Count"] == 0


def test_put_shortcut_sees_a_table_redefined_by_another_connection(tmp_path: Any) -> None:
    path = str(tmp_path / "shared.db")
    first, second = Engine(path), Engine(path)
    definition = {
        "TableName": "tbl",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
    }
    first.handle("CreateTable", definition)
    first.handle("PutItem", {"TableName": "tbl", "Item": {"pk": {"S": "a"}}})  # caches the definition
    second.handle("DeleteTable", {"TableName": "tbl"})
    assert (
        put_answer(first, {"TableName": "tbl", "Item": {"pk": {"S": "b"}}})[0] == "ResourceNotFoundException"
    )
    stream = {"StreamSpecification": {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}}
    second.handle("CreateTable", {**definition, **stream})
    assert first.handle("PutItem", {"TableName": "tbl", "Item": {"pk": {"S": "c"}}}) == {}
    (arn,) = [s["StreamArn"] for s in second.handle("ListStreams", {})["Streams"]]
    shard = second.handle("DescribeStream", {"StreamArn": arn})["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = second.handle(
        "GetShardIterator", {"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}
    )["ShardIterator"]
    records = second.handle("GetRecords", {"ShardIterator": iterator})["Records"]
    assert [r["dynamodb"]["Keys"] for r in records] == [{"pk": {"S": "c"}}]  # the put saw the stream
    first.close()
    second.close()


# ------------------------------------------------------------------------------------------ GetItem


def get_engine(path: str | None, *, fast: bool) -> Engine:
    """The put tables on a file or in memory, each holding items under some of the good keys."""
    engine = put_engine(fast=True) if path is None else Engine(path)
    if path is not None:
        for name, (hash_name, hash_type, range_name, range_type) in TABLE_KEYS.items():
            engine.handle("CreateTable", keyed_table(name, hash_name, hash_type, range_name, range_type))
    for name, (hash_name, hash_type, range_name, range_type) in TABLE_KEYS.items():
        for number, hash_value in enumerate(["p1", "ä", "1"] if hash_type == "S" else ["1", "-0.5"]):
            item = {hash_name: {hash_type: hash_value}, "n": {"N": str(number)}, "s": {"SS": ["a", "b"]}}
            if range_name is not None:
                item[range_name] = {range_type: "2.5" if range_type == "N" else "p2"}
            engine.handle("PutItem", {"TableName": name, "Item": item})
    engine.fast_reads = fast
    return engine


stored_keys = {
    "S": st.sampled_from([{"S": "p1"}, {"S": "ä"}, {"S": "p2"}, {"S": "1"}]),
    "N": st.sampled_from([{"N": "1"}, {"N": "2.50"}, {"N": "2.5"}, {"N": "-0.5"}, {"N": "-.5"}]),
}


@st.composite
def get_requests(draw: st.DrawFn) -> Any:
    """Mostly GetItems of well-formed keys, found or not, which the shortcut takes; a quarter with
    anything wrong anywhere, and some with members it leaves to the general path."""
    table = draw(st.sampled_from([*TABLE_KEYS, *TABLE_KEYS, "missing_t", "ab", "bad name!", 7, None]))
    key: Any
    if draw(st.integers(0, 3)):
        key = draw_key(draw, table, stored_keys)
    else:
        key = draw(st.dictionaries(odd_names, any_values, max_size=3))
        key.update(draw_key(draw, table, None))
    request: Any = {"TableName": table, "Key": key}
    extra = draw(st.integers(0, 11))
    if extra == 1:
        request["ConsistentRead"] = draw(st.sampled_from([True, False, "yes"]))
    elif extra == 2:
        del request["TableName"]
    elif extra == 3:
        request["Key"] = draw(st.sampled_from([None, [], "key", {}, {"pk": {"S": "p1"}, "x": {"S": "1"}}]))
    elif extra == 4:
        request["ProjectionExpression"] = "n"
    elif extra == 5:
        request = [table, key]
    return request


def get_answer(engine: Engine, request: Any, *, encoded: bool = False) -> Any:
    try:
        return ("ok", encoded_dumps(engine.handle("GetItem", copy.deepcopy(request), encoded=encoded)))
    except DynamoDBError as error:
        return (type(error).__name__, str(error))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(get_requests(), min_size=1, max_size=6))
def test_get_shortcut_answers_as_the_general_path(requests: list[Any]) -> None:
    fast, general = get_engine(None, fast=True), get_engine(None, fast=False)
    for request in requests:
        assert get_answer(fast, request) == get_answer(general, request), request
        assert get_answer(fast, request, encoded=True) == get_answer(general, request, encoded=True), request


def test_get_shortcut_answers_from_a_file_as_the_general_path(tmp_path: Any) -> None:
    fast = get_engine(str(tmp_path / "fast.db"), fast=True)
    general = get_engine(str(tmp_path / "general.db"), fast=False)
    requests = [
        {"TableName": name, "Key": {k: v for k, v in key.items() if k is not None}}
        for name, (hash_name, hash_type, range_name, range_type) in TABLE_KEYS.items()
        for key in (
            {hash_name: {hash_type: "p1" if hash_type == "S" else "1"}, range_name: {range_type: "2.5"}},
            {hash_name: {hash_type: "-0.5" if hash_type == "N" else "ä"}, range_name: {range_type: "p2"}},
            {hash_name: {hash_type: "nope" if hash_type == "S" else "7"}, range_name: {range_type: "1"}},
        )
    ]
    found = 0
    for request in requests:
        answer = get_answer(fast, request)
        assert answer == get_answer(general, request), request
        found += answer[0] == "ok" and answer[1] != b"{}"
    assert found >= 4, "the requests found too few items to compare"
    fast.close()
    general.close()


def test_get_shortcut_takes_plain_gets_and_leaves_the_rest() -> None:
    engine = get_engine(None, fast=True)
    key = {"pk": {"S": "p1"}, "sk": {"N": "2.5"}}
    answer = get_item_shortcut(engine, {"TableName": "plain_t", "Key": key})
    assert answer is not None and answer["Item"].decode()["n"] == {"N": "0"}
    assert get_item_shortcut(engine, {"TableName": "plain_t", "Key": {**key, "pk": {"S": "none"}}}) == {}
    for request in (
        {"TableName": "plain_t", "Key": {**key, "sk": {"N": "2.50"}}},  # normalised by the general path
        {"TableName": "plain_t", "Key": {**key, "pk": {"S": "ä"}}},  # UTF-8: the checked path
        {"TableName": "plain_t", "Key": key, "ConsistentRead": True},
        {"TableName": "missing_t", "Key": key},
        {"TableName": "plain_t", "Key": {"pk": {"S": "p1"}}},
        {"TableName": "plain_t"},
    ):
        assert get_item_shortcut(engine, request) is None, request
    engine.fast_reads = False
    assert get_item_shortcut(engine, {"TableName": "plain_t", "Key": key}) is None


def test_get_shortcut_reads_a_table_recreated_by_another_connection(tmp_path: Any) -> None:
    path = str(tmp_path / "shared.db")
    first, second = Engine(path), Engine(path)
    first.handle("CreateTable", keyed_table("tbl", "pk", "S"))
    first.handle("PutItem", {"TableName": "tbl", "Item": {"pk": {"S": "a"}, "v": {"N": "1"}}})
    assert first.handle("GetItem", {"TableName": "tbl", "Key": {"pk": {"S": "a"}}})  # caches the definition
    second.handle("DeleteTable", {"TableName": "tbl"})
    second.handle("CreateTable", keyed_table("tbl", "pk", "S"))
    second.handle("PutItem", {"TableName": "tbl", "Item": {"pk": {"S": "a"}, "v": {"N": "2"}}})
    assert first.handle("GetItem", {"TableName": "tbl", "Key": {"pk": {"S": "a"}}}) == {
        "Item": {"pk": {"S": "a"}, "v": {"N": "2"}}
    }
    second.handle("DeleteTable", {"TableName": "tbl"})
    assert (
        get_answer(first, {"TableName": "tbl", "Key": {"pk": {"S": "a"}}})[0] == "ResourceNotFoundException"
    )
    first.close()
    second.close()
