"""TransactWriteItems' shortcut answers exactly as the general path it bypasses.

The shortcut (``transact_write_shortcut``, engine/ops/transactions.py) skips request validation's
walk of the request: each Put's item is checked and measured in one walk (``plain_item_sized``, which
also takes flat maps of strings and numbers now), every other member by validation's compiled checks
(``structure_validator``), and a transaction's actions share the parse of equal expression members.
Here the same generated transactions, well-formed ones and ones with anything wrong anywhere, go to
an engine with the shortcut and to one without it (request validation, then the general path, with
every action's expressions parsed on their own): answers, errors, cancellation reasons, stored rows,
index entries, stream records and idempotency tokens must all be the same.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewright.engine import Engine
from tablewright.engine.actions import Expressions
from tablewright.engine.errors import DynamoDBError
from tablewright.engine.ops import transactions
from tablewright.engine.ops.transactions import transact_write_shortcut
from tablewright.engine.types import check_wire_json, plain_item_sized, validate_item_sized

from .support.generated_items import values as valid_values
from .support.tables import keyed_table

TABLES = ("plain_t", "hash_t", "indexed_t", "streamed_t")
HASHES = ("p1", "p2", "ä")
RANGES = ("1", "2", "2.50")


@pytest.fixture(autouse=True)
def _fresh_shortcut_checks() -> Iterator[None]:
    """Under mutation testing only (mutmut sets ``MUTANT_UNDER_TEST``), compile the shortcut's member
    checks again for each test: they are compiled on first use and kept in the module, so a mutant
    of ``structure_validator`` would otherwise meet only the first test to run."""
    if "MUTANT_UNDER_TEST" in os.environ:
        transactions._checks = None
    yield


def make_engine(*, fast: bool) -> Engine:
    engine = Engine()
    engine.fast_transactions = fast
    engine.handle("CreateTable", keyed_table("plain_t", "pk", "S", "sk", "N"))
    engine.handle("CreateTable", keyed_table("hash_t", "pk", "S"))
    indexed = keyed_table("indexed_t", "pk", "S", "sk", "N")
    indexed["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
    indexed["GlobalSecondaryIndexes"] = [
        {
            "IndexName": "by_g",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
        }
    ]
    engine.handle("CreateTable", indexed)
    streamed = keyed_table("streamed_t", "pk", "S", "sk", "N")
    streamed["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    engine.handle("CreateTable", streamed)
    return reset(engine)


def reset(engine: Engine) -> Engine:
    """Empty the engine's tables, stream and tokens, then store one item per table for conditions to find
    (cheaper than a new engine for every example)."""
    conn = engine.store.conn
    for name in data_tables(engine):
        conn.execute(f"DELETE FROM {name}")
    conn.execute("DELETE FROM tw_stream")
    conn.execute("DELETE FROM tw_tokens")
    for table in TABLES:
        item = {"pk": {"S": "p1"}, "n": {"N": "5"}, "g": {"S": "x"}}
        if table != "hash_t":
            item["sk"] = {"N": "1"}
        engine.handle("PutItem", {"TableName": table, "Item": item})
    return engine


def data_tables(engine: Engine) -> list[str]:
    """The SQLite tables of the engine's tables and indexes."""
    query = "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 't[0-9]*' ORDER BY name"
    return [name for (name,) in engine.store.conn.execute(query)]


_engines: dict[bool, Engine] = {}


def engine_pair() -> tuple[Engine, Engine]:
    """The shortcut's engine and the general path's, both reset."""
    if not _engines:
        _engines[True], _engines[False] = make_engine(fast=True), make_engine(fast=False)
    return reset(_engines[True]), reset(_engines[False])


# ------------------------------------------------------------------------------------ the requests

odd_strings = st.sampled_from(["", "é", "\ud800", "007", "2.50", "-0.50", "1e3", "x" * 5])
flat_members = st.one_of(
    st.sampled_from(["ok", "", "é"]).map(lambda s: {"S": s}),
    st.sampled_from(["21.5", "21.50", "0.0", "7", "100", "007", "-1.5", "1e2"]).map(lambda n: {"N": n}),
)
odd_members = st.sampled_from(
    [{"S": 5}, {"N": 1.5}, {"N": None}, {"N": "x"}, {"BOOL": True}, {"S": "a", "N": "1"}, {}, {"S": "\ud800"}]
)
map_names = st.sampled_from(["a", "", "é", "bme280_temp_c"])
flat_maps = st.dictionaries(map_names, flat_members, max_size=3).map(lambda m: {"M": m})
odd_maps = st.dictionaries(
    st.one_of(map_names, st.just("\ud800")), st.one_of(flat_members, odd_members), max_size=3
).map(lambda m: {"M": m})
plain_values = st.one_of(
    st.text("abc xyz", max_size=5).map(lambda s: {"S": s}),
    st.integers(0, 10**40).map(lambda n: {"N": str(n)}),
    st.sampled_from(["2.50", "0.5", "3.0", "-1"]).map(lambda n: {"N": n}),
    st.lists(st.text("abc", min_size=1, max_size=3), min_size=1, max_size=3, unique=True).map(
        lambda v: {"SS": v}
    ),
    flat_maps,
)
odd_values = st.one_of(
    st.dictionaries(
        st.sampled_from(["S", "N", "SS", "M", "L", "X"]),
        st.one_of(odd_strings, st.integers(0, 2)),
        max_size=2,
    ),
    st.sampled_from([None, "x", 5, [], {"M": []}, {"L": {}}]),
)
attribute_names = st.sampled_from(["n", "g", "tags", "bb"])
odd_names = st.sampled_from(["n", "é", "", "\ud800"])
plain_items = st.dictionaries(attribute_names, plain_values, max_size=4)
odd_items = st.dictionaries(
    st.one_of(attribute_names, odd_names), st.one_of(valid_values, odd_values, odd_maps), max_size=3
)


def pick(draw: st.DrawFn, options: Any) -> Any:
    """One of ``options`` (``st.sampled_from``, without making and validating a strategy per draw)."""
    indexes = _indexes.get(len(options))
    if indexes is None:
        indexes = _indexes[len(options)] = st.sampled_from(range(len(options)))
    return options[draw(indexes)]


def one_in(draw: st.DrawFn, n: int) -> bool:
    """True once in ``n`` draws (``st.integers`` would favour its bounds; this shrinks to False)."""
    return pick(draw, range(n)) == n - 1


_indexes: dict[int, st.SearchStrategy[int]] = {}


@st.composite
def keys(draw: st.DrawFn, table: Any, odd_ones: bool) -> dict[str, Any]:
    """A key of ``table``: mostly of stored or unstored items, some with a key attribute missing or
    wrong (in odd requests also of the wrong JSON type, which request validation refuses)."""
    wrong = [{"S": ""}, {"N": "1"}, {"S": "k" * 3000}, {"N": "x"}]
    if odd_ones:
        wrong += [{"S": 5}, {"N": 1}]
    key: dict[str, Any] = {}
    if not one_in(draw, 25):
        key["pk"] = {"S": pick(draw, HASHES)}
    else:
        key["pk"] = pick(draw, wrong)
    if table != "hash_t":
        if not one_in(draw, 25):
            key["sk"] = {"N": pick(draw, RANGES)}
        elif draw(st.booleans()):
            key["sk"] = pick(draw, [{"S": "1"}, *wrong])
    elif one_in(draw, 25):
        key["sk"] = {"N": "1"}  # not in the schema
    return key


CONDITIONS = [
    ("attribute_not_exists(#k)", {"#k": "pk"}, None),
    ("attribute_exists(#k)", {"#k": "pk"}, None),
    ("attribute_not_exists(pk)", None, None),
    ("#n = :v", {"#n": "n"}, {":v": {"N": "5"}}),
    ("#n = :v", {"#n": "n"}, {":v": {"N": "5.0"}}),
    ("#n = :v", {"#n": "n"}, {":v": {"N": "6"}}),
    ("#n = :v", {"#n": "g"}, {":v": {"S": "x"}}),
    ("attribute_exists(#k)", {"#k": "g"}, None),
    ("attribute_not_exists(n) OR n > :v", None, {":v": {"N": "1"}}),
    ("size(g) > :v", None, {":v": {"N": "0"}}),
]
BAD_CONDITIONS = [
    ("attribute_not_exists(#k)", {"#k": "pk", "#unused": "x"}, None),
    ("attribute_not_exists(#k)", None, None),  # undefined name
    ("n = :v", None, {":v": {"N": "x"}}),  # bad value
    ("n = :v", None, {}),
    ("n ==", None, None),
    ("", None, None),
]
UPDATES = [
    ("SET n = :v", {":v": {"N": "7"}}),
    ("SET g = :g", {":g": {"S": "y"}}),
    ("ADD n :v", {":v": {"N": "1"}}),
    ("REMOVE g", None),
    ("SET m = :m", {":m": {"M": {"t": {"N": "2.50"}}}}),
]
BAD_UPDATES = [
    ("SET pk = :p", {":p": {"S": "zz"}}),  # a key attribute
    ("SET n = n + :v", {":v": {"N": "1"}}),  # n may be missing
    ("SET", None),
]


@st.composite
def expression_members(draw: st.DrawFn, kind: str, odd_ones: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    names: dict[str, Any] = {}
    values: dict[str, Any] = {}
    if kind == "Update":
        update, update_values = pick(draw, BAD_UPDATES if one_in(draw, 6) else UPDATES)
        spec["UpdateExpression"] = update
        values.update(update_values or {})
    if kind == "ConditionCheck" or not one_in(draw, 4):
        if not one_in(draw, 8):
            conditions = CONDITIONS
        else:
            conditions = [*BAD_CONDITIONS, ("n = :v", None, {":v": {"S": 5}})] if odd_ones else BAD_CONDITIONS
        condition, condition_names, condition_values = pick(draw, conditions)
        spec["ConditionExpression"] = condition
        names.update(condition_names or {})
        values.update(condition_values or {})
    if names:
        spec["ExpressionAttributeNames"] = names
    if values or one_in(draw, 40):
        spec["ExpressionAttributeValues"] = values
    if one_in(draw, 40):
        maps = [{}, {"#k": ""}, {"#k": 5}, {"#k": None}] if odd_ones else [{}, {"#k": ""}]
        spec["ExpressionAttributeNames"] = pick(draw, maps)
    return spec


@st.composite
def actions(draw: st.DrawFn, odd_ones: bool) -> Any:
    """An action of a transaction: with ``odd_ones``, anything may be wrong with it (most requests have
    none: they are the shortcut's, whose errors are those of tables, keys, expressions and items)."""
    kind = pick(draw, ["Put", "Put", "Put", "Update", "Delete", "ConditionCheck"])
    tables = [*TABLES] * 5 + ["missing_t"]
    table = pick(draw, [*tables, "ab", "bad name!", 7] if odd_ones else tables)
    spec: dict[str, Any] = {"TableName": table}
    if kind == "Put":
        if not odd_ones or not one_in(draw, 3):
            item = draw(plain_items)
        else:
            item = draw(odd_items)
        item.update(draw(keys(table, odd_ones)))
        if one_in(draw, 30):
            item["big"] = {"S": "x" * 410_000}
        spec["Item"] = item
    else:
        spec["Key"] = draw(keys(table, odd_ones))
    spec.update(draw(expression_members(kind, odd_ones)))
    if one_in(draw, 6):
        spec["ReturnValuesOnConditionCheckFailure"] = pick(
            draw, ["ALL_OLD", "NONE", "BAD"] if odd_ones else ["ALL_OLD", "NONE"]
        )
    if not odd_ones:
        return {kind: spec}
    odd = pick(draw, range(10))
    if odd == 1:
        del spec["TableName"]
    elif odd == 2:
        spec.pop("Item" if kind == "Put" else "Key")
    elif odd == 3:
        spec["ConditionExpression"] = None
    elif odd == 4:
        spec["Unknown"] = "x"
    elif odd == 5:
        spec.pop("ConditionExpression", None)
    elif odd == 6:
        spec["Item" if kind == "Put" else "Key"] = pick(draw, [None, [], "item", {}])
    entry: Any = {kind: spec}
    odd = pick(draw, range(10))
    if odd == 1:
        entry["Delete"] = {"TableName": "plain_t", "Key": {"pk": {"S": "p1"}, "sk": {"N": "1"}}}
    elif odd == 2:
        entry = pick(draw, [{}, None, [], {"Get": spec}])
    elif odd == 3:
        entry[kind] = [spec]
    return entry


@st.composite
def requests(draw: st.DrawFn) -> Any:
    odd_ones = one_in(draw, 4)
    request: Any = {"TransactItems": draw(st.lists(actions(odd_ones), min_size=1, max_size=4))}
    if one_in(draw, 3):
        modes = ["TOTAL", "INDEXES", "NONE", "BAD", None] if odd_ones else ["TOTAL", "INDEXES", "NONE"]
        request["ReturnConsumedCapacity"] = pick(draw, modes)
    if one_in(draw, 4):
        tokens = ["token-1", "token-2", "t" * 37, "", None] if odd_ones else ["token-1", "token-2"]
        request["ClientRequestToken"] = pick(draw, tokens)
    if one_in(draw, 10):
        request["ReturnItemCollectionMetrics"] = pick(draw, ["SIZE", "NONE", "BAD"][: 3 if odd_ones else 2])
    if not odd_ones:
        return request
    odd = pick(draw, range(10))
    if odd == 1:
        request["TransactItems"] = pick(draw, [[], None, {}, "x"])
    elif odd == 2:
        request["Unknown"] = 1
    elif odd == 3:
        request["TransactItems"] = request["TransactItems"] * 21  # past 100 actions
    elif odd == 4:
        request = [request]
    return request


# ------------------------------------------------------------------------------------- the answers


@contextmanager
def each_parse_on_its_own() -> Iterator[None]:
    """The general path as it was: every action's expressions parsed, none shared."""
    shared = transactions._parsed
    transactions._parsed = lambda memo, spec, **parsers: Expressions.parse(spec, **parsers)
    try:
        yield
    finally:
        transactions._parsed = shared


def answer(engine: Engine, request: Any) -> Any:
    try:
        return ("ok", engine.handle("TransactWriteItems", copy.deepcopy(request)))
    except DynamoDBError as error:
        return (type(error).__name__, str(error), getattr(error, "extra", None))


def stored(engine: Engine) -> dict[str, Any]:
    """Every table's and index's rows, the stream records (without their ids and times), the tokens."""
    conn = engine.store.conn
    rows: dict[str, Any] = {}
    for name in data_tables(engine):
        rows[name] = conn.execute(f"SELECT * FROM {name} ORDER BY 1, 2, 3").fetchall()
    records = []
    for (record,) in conn.execute("SELECT record FROM tw_stream ORDER BY seq"):
        body = orjson.loads(record)
        records.append((body["eventName"], {k: v for k, v in body["dynamodb"].items() if k in _IMAGES}))
    rows["stream"] = records
    rows["tokens"] = conn.execute("SELECT token, digest, response FROM tw_tokens ORDER BY token").fetchall()
    return rows


_IMAGES = frozenset({"Keys", "NewImage", "OldImage", "StreamViewType", "SizeBytes"})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(requests(), min_size=1, max_size=4))
def test_shortcut_answers_and_stores_as_the_general_path(batch: list[Any]) -> None:
    fast, general = engine_pair()
    for request in batch:
        expected = None
        with each_parse_on_its_own():
            expected = answer(general, request)
        assert answer(fast, request) == expected, request
    assert stored(fast) == stored(general)


def test_shortcut_takes_well_formed_transactions_and_leaves_the_rest() -> None:
    engine = make_engine(fast=True)
    create = {"ConditionExpression": "attribute_not_exists(#k)", "ExpressionAttributeNames": {"#k": "pk"}}
    item = {"pk": {"S": "p2"}, "sk": {"N": "1"}, "m": {"M": {"t": {"N": "21.50"}, "s": {"S": "ok"}}}}
    request = {
        "TransactItems": [
            {"Put": {"TableName": "indexed_t", "Item": item, **create}},
            {"Put": {"TableName": "streamed_t", "Item": item, **create}},
            {"Update": {"TableName": "plain_t", "Key": {"pk": {"S": "p1"}, "sk": {"N": "1"}},
                        "UpdateExpression": "SET n = :v", "ExpressionAttributeValues": {":v": {"N": "6"}}}},
            {"ConditionCheck": {"TableName": "hash_t", "Key": {"pk": {"S": "p1"}},
                                "ConditionExpression": "attribute_exists(pk)"}},
            {"Delete": {"TableName": "plain_t", "Key": {"pk": {"S": "p3"}, "sk": {"N": "2"}}}},
        ],
        "ReturnConsumedCapacity": "INDEXES",
        "ClientRequestToken": "token-1",
    }  # fmt: skip
    response = transact_write_shortcut(engine, copy.deepcopy(request))
    assert response is not None
    assert [c["TableName"] for c in response["ConsumedCapacity"]] == [
        "indexed_t",
        "streamed_t",
        "plain_t",
        "hash_t",
    ]
    stored_item = engine.handle(
        "GetItem", {"TableName": "indexed_t", "Key": {"pk": {"S": "p2"}, "sk": {"N": "1"}}}
    )
    assert stored_item["Item"]["m"] == {"M": {"t": {"N": "21.5"}, "s": {"S": "ok"}}}
    assert item["m"]["M"]["t"] == {"N": "21.50"}  # the caller's item is not changed
    for odd in (
        {**request, "ReturnConsumedCapacity": "BAD"},
        {**request, "ClientRequestToken": None},
        {"TransactItems": []},
        {"TransactItems": [{"Put": {"TableName": "plain_t", "Item": {**item, "x": {"S": 5}}}}]},
        {"TransactItems": [{"Put": {"TableName": "plain_t", "Item": item, "ConditionExpression": 5}}]},
        {"TransactItems": [{"Put": {"TableName": "plain_t", "Item": item}, "Delete": {}}]},
        {"TransactItems": [{"ConditionCheck": {"TableName": "plain_t", "Key": item}}]},
    ):
        assert transact_write_shortcut(engine, copy.deepcopy(odd)) is None, odd


def test_a_failed_condition_shares_nothing_between_equal_expressions() -> None:
    """Actions with equal expression members share one parse; each is still checked on its own item."""
    fast, general = make_engine(fast=True), make_engine(fast=False)
    create = {"ConditionExpression": "attribute_not_exists(#k)", "ExpressionAttributeNames": {"#k": "pk"}}
    request = {
        "TransactItems": [
            {"Put": {"TableName": table, "Item": {"pk": {"S": pk}, "sk": {"N": "1"}}, **create,
                     "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}
            for table in ("plain_t", "streamed_t")
            for pk in ("p2", "p1")
        ]
    }  # fmt: skip
    with each_parse_on_its_own():
        expected = answer(general, request)
    assert answer(fast, request) == expected
    assert expected[0] == "TransactionCanceledException"
    codes = [reason["Code"] for reason in expected[2]["CancellationReasons"]]
    assert codes == ["None", "ConditionalCheckFailed", "None", "ConditionalCheckFailed"]


def test_equal_expression_texts_with_other_members_are_parsed_apart() -> None:
    """The shared parse is keyed on every expression member (and on the action's kind of parse)."""
    key = {"pk": {"S": "p1"}, "sk": {"N": "1"}}  # stored in every table with a sort key
    update = {"UpdateExpression": "SET n = :v", "ExpressionAttributeValues": {":v": {"N": "6"}}}

    def put(table: str, **members: Any) -> dict[str, Any]:
        return {"Put": {"TableName": table, "Item": {**key, "n": {"N": "1"}}, **members}}

    condition = "attribute_not_exists(#k)"
    compared = "#n = :v"
    for request in (
        {
            "TransactItems": [
                put("plain_t", ConditionExpression=condition, ExpressionAttributeNames={"#k": "zz"}),
                put("streamed_t", ConditionExpression=condition, ExpressionAttributeNames={"#k": "pk"}),
            ]
        },
        {
            "TransactItems": [
                put("plain_t", ConditionExpression=compared, ExpressionAttributeNames={"#n": "n"},
                    ExpressionAttributeValues={":v": {"N": "5"}}),
                put("streamed_t", ConditionExpression=compared, ExpressionAttributeNames={"#n": "n"},
                    ExpressionAttributeValues={":v": {"N": "6"}}),
            ]
        },
        {
            "TransactItems": [
                {"Update": {"TableName": "plain_t", "Key": key, **update}},
                put("streamed_t", **update),  # a Put reads no UpdateExpression: its values are unused
            ]
        },
    ):  # fmt: skip
        fast, general = engine_pair()
        with each_parse_on_its_own():
            expected = answer(general, request)
        assert expected[0] != "ok"
        assert answer(fast, request) == expected, request
        assert stored(fast) == stored(general)


# ---------------------------------------------------------------------- the one walk of a flat map


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.one_of(attribute_names, odd_names), st.one_of(odd_maps, plain_values, odd_values), max_size=4
    )
)
def test_plain_item_with_flat_maps_is_the_validated_item_or_nothing(raw: dict) -> None:
    plain = plain_item_sized(raw)  # never raises
    try:
        for value in raw.values():
            check_wire_json(value)
        general: Any = validate_item_sized(raw)
    except DynamoDBError:
        general = None
    if plain is None:  # declined only for something wrong, or a name it leaves to the general checks
        assert general is None or not "".join(raw).isascii()
    else:
        assert general is not None
        assert plain[1] == general[1]
        assert orjson.dumps(plain[0]) == orjson.dumps(general[0])  # the stored bytes


# ------------------------------------------------------------ found by mutation testing (docs/mutation.md)


def _put_spec(pk: str, table: str = "plain_t") -> dict[str, Any]:
    return {"TableName": table, "Item": {"pk": {"S": pk}, "sk": {"N": "1"}}}


def test_shortcut_takes_one_action_and_a_hundred() -> None:
    """The bounds of the shortcut's action count are DynamoDB's (1 to 100), both included."""
    engine = make_engine(fast=True)
    assert transact_write_shortcut(engine, {"TransactItems": [{"Put": _put_spec("one")}]}) == {}
    hundred = {"TransactItems": [{"Put": _put_spec(f"k{n}")} for n in range(100)]}
    assert transact_write_shortcut(engine, hundred) == {}
    assert transact_write_shortcut(engine, {"TransactItems": hundred["TransactItems"] * 2}) is None


def test_shortcut_leaves_malformed_members_and_entries_to_the_general_path() -> None:
    engine = make_engine(fast=True)
    put = {"Put": _put_spec("p9")}
    for odd in (
        {"TransactItems": [put], "ReturnConsumedCapacity": "BAD"},  # one member besides TransactItems
        {"TransactItems": [put], "ReturnItemCollectionMetrics": None},
        {"TransactItems": [[put]]},  # an entry that is no map
        {"TransactItems": [{"Put": [put["Put"]]}]},  # an action that is no map
        {"TransactItems": [{"Delete": "x"}]},
    ):
        assert transact_write_shortcut(engine, copy.deepcopy(odd)) is None, odd
    assert engine.handle("GetItem", {"TableName": "plain_t", "Key": put["Put"]["Item"]}) == {}


def test_equal_expression_members_are_parsed_once_per_request() -> None:
    condition = {"ConditionExpression": "attribute_not_exists(#k)", "ExpressionAttributeNames": {"#k": "pk"}}
    memo: dict[bytes, Expressions] = {}
    first = transactions._parsed(memo, {"TableName": "a", **condition}, condition="ConditionExpression")
    again = transactions._parsed(
        memo, {"TableName": "b", **copy.deepcopy(condition)}, condition="ConditionExpression"
    )
    assert again is first
    other = {**condition, "ExpressionAttributeNames": {"#k": "sk"}}
    assert transactions._parsed(memo, other, condition="ConditionExpression") is not first
    assert first.condition is not None
    # Without a memo (no request validation), or with a value that is not JSON, each is parsed on its own.
    alone = transactions._parsed(None, condition, condition="ConditionExpression")
    assert alone is not first and alone.condition is not None
    binary = {"ConditionExpression": "b = :b", "ExpressionAttributeValues": {":b": {"B": b"x"}}}
    parsed = transactions._parsed(memo, binary, condition="ConditionExpression")
    assert parsed.condition is not None
    assert transactions._parsed(memo, binary, condition="ConditionExpression") is not parsed


def test_structure_checks_leave_out_the_members_named_and_compile_from_cold(monkeypatch: Any) -> None:
    from tablewright.engine import validation

    monkeypatch.setattr(validation, "_compilers", {})  # the first check compiled in the process
    put = validation.structure_validator("Put", frozenset({"Item"}))
    assert put({"TableName": "plain_t"})  # Item is neither required nor checked here
    assert put({"TableName": "plain_t", "Item": 5})
    assert not put({"Item": {}})  # TableName still is
    assert not put([{"TableName": "plain_t"}])
    assert not put({"TableName": "plain_t", "ConditionExpression": None})
    assert validation.structure_validator("ListTablesInput")({"Limit": 5})  # a shape requiring nothing
    assert not validation.structure_validator("ListTablesInput")({"Limit": 0})
