"""Query's shortcut (engine/ops/query_shortcut.py) answers exactly as the general path, errors included.

Each generated request is answered by an engine with ``fast_reads`` off (request validation, then the
general read) and, twice (the first may leave the shape's plan behind), by the same engine with it
on: the answers must be the same bytes as the HTTP server writes them (``encoded=True``), or the
same error and message. Requests are mostly of the shapes the shortcut takes, on tables of every key
schema it takes or refuses, with values of the right type and of every wrong one (empty strings,
numbers in other spellings, lone surrogates, other types), optional members right and wrong, start
keys inside and outside the partition, and a partition whose items fill a 1 MB page.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewright.engine import Engine, encoded
from tablewright.engine.errors import DynamoDBError
from tablewright.engine.ops import query_shortcut
from tablewright.engine.types import item_size

from .support.tables import keyed_table

# table: (hash attribute, its type, range attribute or None, its type)
TABLES = {
    "s_n": ("pk", "S", "sk", "N"),
    "s_s": ("pk", "S", "sk", "S"),
    "n_s": ("id", "N", "rk", "S"),
    "hash_only": ("pk", "S", None, None),
    "binary": ("pk", "S", "sk", "B"),
    "b_n": ("pk", "B", "sk", "N"),  # a binary partition key: left to the general path
    "indexed": ("pk", "S", "sk", "N"),  # with a GSI and an LSI: the table's own query is still taken
}
PARTITIONS = {"S": ["p0", "p1", "big", "é"], "N": ["1", "-2.5", "300"], "B": ["AAE="]}
SORT_KEYS = {
    "N": [
        "-3",
        "-1.5",
        "0",
        "1",
        "2",
        "2.5",
        "3",
        "10",
        "11",
        "100",
        "1000000000000000000000000000000000000",
    ],
    "S": ["a", "ab", "abc", "abd", "b", "ba", "é", "😀", "\uffff", "a b", "a\x00"],
    "B": [base64.b64encode(bytes([n])).decode() for n in (0, 1, 2, 255)],
}
BIG = "x" * 390_000  # three such items pass 1 MB: the page ends early


def _engine() -> Engine:
    engine = Engine()
    for name, (hash_name, hash_type, range_name, range_type) in TABLES.items():
        request = keyed_table(name, hash_name, hash_type, range_name, range_type)
        schema, definitions = request["KeySchema"], request["AttributeDefinitions"]
        if name == "indexed":
            definitions.append({"AttributeName": "g", "AttributeType": "S"})
            request["GlobalSecondaryIndexes"] = [
                {
                    "IndexName": "by_g",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ]
            request["LocalSecondaryIndexes"] = [
                {
                    "IndexName": "by_g_local",
                    "KeySchema": [schema[0], {"AttributeName": "g", "KeyType": "RANGE"}],
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                }
            ]
        engine.handle("CreateTable", request)
        for number, partition in enumerate(PARTITIONS[hash_type]):
            for position, sort_key in enumerate(SORT_KEYS[range_type] if range_name else [None]):
                item = {
                    hash_name: {hash_type: partition},
                    "n": {"N": str(position)},
                    "g": {"S": "xy"[position % 2]},
                }
                if range_name:
                    item[range_name] = {range_type: sort_key}
                if partition == "big" and position % 4 == 1:
                    item["blob"] = {"S": BIG}
                if number == 1:
                    item["tags"] = {"SS": ["a", "b"]}
                engine.handle("PutItem", {"TableName": name, "Item": item})
    return engine


ENGINE = _engine()


@pytest.fixture(autouse=True)
def _no_plans_yet() -> None:
    """Each test starts with the shortcut's caches empty, so that making a plan and compiling a
    member's check are tested too, whatever ran before in this process."""
    query_shortcut.forget()


_odd_values = st.sampled_from(
    [
        {"S": ""},
        {"S": "\ud800"},
        {"S": "k" * 1500},
        {"S": 5},
        {"N": "1.0"},
        {"N": "007"},
        {"N": "1e2"},
        {"N": "-0"},
        {"N": "abc"},
        {"N": "9" * 39},
        {"N": 3},
        {"B": "AAE="},
        {"B": "!!"},
        {"BOOL": True},
        {"SS": ["a"]},
        {"S": "a", "N": "1"},
        {},
        "p0",
        None,
        ["p0"],
    ]
)


def _typed(kind: str | None, pool: list[str]) -> st.SearchStrategy:
    return st.sampled_from(pool).map(lambda payload: {kind or "S": payload})


_RANGE_OPS = [None, "=", "<", "<=", ">", ">=", "BETWEEN", "BETWEEN", "BETWEEN", "begins_with"]


@st.composite
def queries(draw: st.DrawFn) -> Any:
    """Mostly requests the shortcut takes; a good share with something wrong, anywhere."""
    table = draw(st.sampled_from([*TABLES, *TABLES, *TABLES, "s_n", "s_n", "s_n", "missing", 7]))
    hash_name, hash_type, range_name, range_type = TABLES.get(table, ("pk", "S", "sk", "N"))  # type: ignore[arg-type]
    right = draw(st.integers(0, 9)) > 0  # values of the key's types, most of the time

    def value(kind: str | None, pool: list[str]) -> Any:
        return draw(_typed(kind, pool) if right and draw(st.integers(0, 19)) else _odd_values)

    named = draw(st.booleans())
    hash_ref = "#h" if named else hash_name
    range_ref = "#r" if named else (range_name or "sk")
    names = {"#h": hash_name} if named else {}
    values: dict[str, Any] = {":p": value(hash_type, PARTITIONS.get(hash_type, ["p0"]))}
    sort_pool = SORT_KEYS.get(range_type or "S", SORT_KEYS["S"]) + ["", "a", "1", "2"]
    op = draw(st.sampled_from(_RANGE_OPS if range_name or draw(st.integers(0, 3)) == 0 else [None]))
    condition = f"{hash_ref} = :p"
    if op is not None:
        values[":a"] = value(range_type, sort_pool)
        if op == "BETWEEN":
            values[":b"] = value(range_type, sort_pool)
            part = f"{range_ref} BETWEEN :a AND :b"
        elif op == "begins_with":
            part = f"begins_with({range_ref}, :a)"
        else:
            part = f"{range_ref} {op} :a"
        condition = f"{part} AND {condition}" if draw(st.booleans()) else f"{condition} AND {part}"
        if named:
            names["#r"] = range_name or "sk"
    request: dict[str, Any] = {"TableName": table, "KeyConditionExpression": condition}
    request["ExpressionAttributeValues"] = values
    if names:
        request["ExpressionAttributeNames"] = names
    for member, good, bad in (
        ("Limit", [1, 2, 3, 5, 100], [0, -1, True, 2.0, "3", 2**40, []]),
        ("ScanIndexForward", [True, False], ["false", None, {}]),
        ("ConsistentRead", [True, False], [1, [True]]),
        ("ReturnConsumedCapacity", ["NONE", "TOTAL", "INDEXES"], ["BOGUS", None, ["TOTAL"], {}]),
    ):
        if draw(st.integers(0, 2)) == 0:
            request[member] = draw(st.sampled_from(good * 6 + bad))
    if draw(st.integers(0, 3)) == 0:
        request["ExclusiveStartKey"] = _start_key(
            draw, values[":p"], hash_name, hash_type, range_name, range_type
        )
    wrong = draw(st.sampled_from([0] * 30 + list(range(1, 11))))  # something wrong: a quarter of them
    if wrong == 1:
        del values[draw(st.sampled_from(sorted(values)))]  # a placeholder left undefined
    elif wrong == 2:
        values[":spare"] = {"S": "unused"}
    elif wrong == 3:
        request["ExpressionAttributeNames"] = {**names, "#unused": "x"}
    elif wrong == 4:
        request["KeyConditionExpression"] = draw(st.sampled_from(["pk = ", "pk = :p AND", "", 5, "n = :p"]))
    elif wrong == 5:
        request[draw(st.sampled_from(["FilterExpression", "ProjectionExpression"]))] = "n"
    elif wrong == 6:
        request[draw(st.sampled_from(["Select", "IndexName", "Bogus"]))] = "COUNT"
    elif wrong == 7:
        request[draw(st.sampled_from(sorted(request)))] = None  # a null member is an absent one
    elif wrong == 8:
        request["ExpressionAttributeValues"] = draw(st.sampled_from([{}, [], "x"]))
    elif wrong == 9:
        request["ExpressionAttributeNames"] = draw(st.sampled_from([{}, [], {"#h": 5}, {"h": "pk"}]))
    elif wrong == 10:
        del request["TableName"]
    return request


def _start_key(
    draw: st.DrawFn, partition: Any, hash_name: str, hash_type: str, range_name: Any, range_type: Any
) -> Any:
    """A start key in the query's partition mostly; else in another, or of the wrong shape."""
    key = {
        hash_name: partition
        if draw(st.integers(0, 3))
        else draw(_typed(hash_type, PARTITIONS.get(hash_type, ["p0"])))
    }
    if range_name:
        key[range_name] = draw(_typed(range_type, SORT_KEYS[range_type]))
    shape = draw(st.sampled_from([0] * 8 + [1, 2, 3, 4]))
    if shape == 1 and range_name:
        del key[range_name]
    elif shape == 2:
        key["n"] = {"N": "1"}
    elif shape == 3:
        key[hash_name] = draw(_odd_values)
    elif shape == 4:
        return draw(st.sampled_from([{}, [], "key"]))
    return key


def _answer(engine: Engine, request: Any) -> tuple[str, Any]:
    try:
        return ("ok", encoded.dumps(engine.handle("Query", copy.deepcopy(request), encoded=True)))
    except DynamoDBError as error:
        return (type(error).__name__, str(error))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries())
def test_query_shortcut_answers_as_the_general_path(request: Any) -> None:
    ENGINE.fast_reads = False
    try:
        general = _answer(ENGINE, request)
    finally:
        ENGINE.fast_reads = True
    assert _answer(ENGINE, request) == general
    assert _answer(ENGINE, request) == general  # answered from the plan the first one left
    taken = query_shortcut.query_shortcut(ENGINE, copy.deepcopy(request))
    if taken is not None:  # then it is the general answer, not an error
        assert ("ok", encoded.dumps(taken)) == general


def _plain(table: str, condition: str, values: dict, **members: Any) -> dict[str, Any]:
    return {
        "TableName": table,
        "KeyConditionExpression": condition,
        "ExpressionAttributeValues": values,
        **members,
    }


def test_the_shortcut_takes_plain_queries_and_leaves_the_rest() -> None:
    """The property above would pass with a shortcut that never answers: this checks which it takes."""
    between = _plain(
        "s_n", "pk = :p AND sk BETWEEN :a AND :b", {":p": {"S": "p0"}, ":a": {"N": "0"}, ":b": {"N": "3"}}
    )
    taken = [
        between,
        {**between, "Limit": 2, "ScanIndexForward": False, "ReturnConsumedCapacity": "TOTAL"},
        {**between, "ExclusiveStartKey": {"pk": {"S": "p0"}, "sk": {"N": "1"}}, "ConsistentRead": True},
        _plain(
            "s_s",
            "#k = :p AND begins_with(#s, :a)",
            {":p": {"S": "p1"}, ":a": {"S": "ab"}},
            ExpressionAttributeNames={"#k": "pk", "#s": "sk"},
        ),  # fmt: skip
        _plain("n_s", "id = :p AND rk >= :a", {":p": {"N": "-2.5"}, ":a": {"S": "b"}}),
        _plain("hash_only", "pk = :p", {":p": {"S": "é"}}),
        _plain("indexed", "pk = :p", {":p": {"S": "p0"}}),
        _plain("s_n", "pk = :p", {":p": {"S": "big"}}),  # ends at 1 MB
    ]
    for request in taken:
        for _ in range(2):  # the first request of a shape makes its plan
            answer = query_shortcut.query_shortcut(ENGINE, copy.deepcopy(request))
        assert answer is not None, request
        assert encoded.dumps(answer) == _answer(ENGINE, request)[1]
    assert [item["sk"]["N"] for item in ENGINE.handle("Query", between)["Items"]] == [
        "0",
        "1",
        "2",
        "2.5",
        "3",
    ]
    paged = ENGINE.handle("Query", taken[-1])
    assert paged["Count"] == 10 and paged["LastEvaluatedKey"] == {"pk": {"S": "big"}, "sk": {"N": "100"}}
    left = [
        {**between, "FilterExpression": "n > :a"},
        {**between, "IndexName": "by_g"},
        {**between, "ExpressionAttributeValues": {":p": {"S": "p0"}, ":a": {"N": "3"}, ":b": {"N": "0"}}},
        {**between, "ExpressionAttributeValues": {":p": {"S": "p0"}, ":a": {"N": "3.0"}, ":b": {"N": "4"}}},
        {**between, "Limit": 0},
        _plain("binary", "pk = :p", {":p": {"S": "p0"}}),
        _plain("b_n", "pk = :p", {":p": {"B": "AAE="}}),
        _plain("s_n", "pk = :p AND begins_with(sk, :a)", {":p": {"S": "p0"}, ":a": {"N": "1"}}),
        _plain("missing", "pk = :p", {":p": {"S": "p0"}}),
    ]
    for request in left:
        for _ in range(2):
            assert query_shortcut.query_shortcut(ENGINE, copy.deepcopy(request)) is None, request


def _general(request: dict[str, Any]) -> tuple[str, Any]:
    ENGINE.fast_reads = False
    try:
        return _answer(ENGINE, request)
    finally:
        ENGINE.fast_reads = True


def test_chosen_requests_answer_as_the_general_path() -> None:
    """Cases the generated ones may miss: consistent reads' capacity, capacity modes of the wrong spelling
    or type, one key condition text under two names maps, begins_with on a number."""
    between = _plain(
        "s_n", "pk = :p AND sk BETWEEN :a AND :b", {":p": {"S": "p0"}, ":a": {"N": "0"}, ":b": {"N": "3"}}
    )
    consistent = {**between, "ConsistentRead": True, "ReturnConsumedCapacity": "TOTAL"}
    assert query_shortcut.query_shortcut(ENGINE, copy.deepcopy(consistent)) is not None
    assert ENGINE.handle("Query", consistent)["ConsumedCapacity"]["CapacityUnits"] == 1.0
    named = {":p": {"S": "p0"}}
    requests = [
        consistent,
        {**between, "ReturnConsumedCapacity": "total"},
        {**between, "ReturnConsumedCapacity": "ALL"},
        {**between, "ReturnConsumedCapacity": ["TOTAL"]},
        {**between, "ConsistentRead": True, "ReturnConsumedCapacity": ["TOTAL"]},
        _plain("s_n", "#k = :p", named, ExpressionAttributeNames={"#k": "pk"}),
        _plain("s_n", "#k = :p", named, ExpressionAttributeNames={"#k": "n"}),  # not a key: an error
        _plain("s_n", "pk = :p AND begins_with(sk, :a)", {":p": {"S": "p0"}, ":a": {"N": "1"}}),
    ]
    for request in requests:
        general = _general(request)
        assert _answer(ENGINE, request) == general, request
        assert _answer(ENGINE, request) == general, request  # from the plan
    assert _general(requests[5])[0] == "ok" and _general(requests[6])[0] == "ValidationException"


def _definition(name: str) -> dict[str, Any]:
    return keyed_table(name, "pk", "S", "sk", "N")


def test_a_redefined_table_gets_a_new_plan(tmp_path: Any) -> None:
    """A plan belongs to one definition of its table: after another process re-creates the table with
    another key schema, the same request is planned again against the new one."""
    path = str(tmp_path / "shared.db")
    first, second = Engine(path), Engine(path)
    definition = _definition("tbl")
    first.handle("CreateTable", definition)
    first.handle("PutItem", {"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}})
    request = _plain("tbl", "pk = :p AND sk > :a", {":p": {"S": "a"}, ":a": {"N": "0"}})
    assert first.handle("Query", request)["Count"] == 1
    second.handle("DeleteTable", {"TableName": "tbl"})
    assert _answer(first, request)[0] == "ResourceNotFoundException"
    definition["AttributeDefinitions"][1]["AttributeType"] = "S"
    second.handle("CreateTable", definition)
    second.handle("PutItem", {"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"S": "1"}}})
    assert _answer(first, request) == (
        "ValidationException",
        "One or more parameter values were invalid: Condition parameter type does not match schema type",
    )
    text = {**request, "ExpressionAttributeValues": {":p": {"S": "a"}, ":a": {"S": "0"}}}
    assert first.handle("Query", text)["Items"] == [{"pk": {"S": "a"}, "sk": {"S": "1"}}]
    first.close()
    second.close()


def test_a_page_ends_at_exactly_1_mb() -> None:
    """Items whose sizes add up to exactly 1 MB end the page with the last of them, on both paths."""
    engine = Engine()
    engine.handle("CreateTable", _definition("exact"))
    first = {"pk": {"S": "e"}, "sk": {"N": "1"}, "blob": {"S": "x" * 350_000}}
    second = {"pk": {"S": "e"}, "sk": {"N": "2"}, "blob": {"S": "x" * 350_000}}
    rest = 1024 * 1024 - item_size(first) - item_size(second)
    third = {
        "pk": {"S": "e"},
        "sk": {"N": "3"},
        "blob": {"S": "x" * (rest - item_size({**first, "blob": {"S": ""}}))},
    }
    assert item_size(first) + item_size(second) + item_size(third) == 1024 * 1024
    for item in (first, second, third, {"pk": {"S": "e"}, "sk": {"N": "4"}}):
        engine.handle("PutItem", {"TableName": "exact", "Item": item})
    request = _plain("exact", "pk = :p", {":p": {"S": "e"}})
    engine.fast_reads = False
    general = _answer(engine, request)
    engine.fast_reads = True
    assert query_shortcut.query_shortcut(engine, copy.deepcopy(request)) is not None
    assert _answer(engine, request) == general
    page = engine.handle("Query", request)
    assert page["Count"] == 3 and page["LastEvaluatedKey"] == {"pk": {"S": "e"}, "sk": {"N": "3"}}
    engine.close()
