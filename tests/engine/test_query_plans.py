"""A Query served from its shape's plan answers exactly as the general code does, errors included.

Each generated request is answered twice: once with no plans (the general code: parse, check every
placeholder, bind the key condition), and once after a valid request of the same shape has left its
plan behind (only the values are checked and bound). Both answers, or both errors, must be the same.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewright.engine import Engine
from tablewright.engine.errors import DynamoDBError
from tablewright.engine.ops import query_plans

from .support.generated_items import DEFINITION, TABLE, with_keys

_STRINGS = st.sampled_from(["p0", "p1", "x", "y", "", "p", "é", "😀", "ｚ", "\uffff"]).map(lambda s: {"S": s})
_NUMBERS = st.integers(-3, 14).map(lambda n: {"N": str(n)})
_ODD = st.sampled_from(
    [
        {"N": "1.0"},
        {"N": "00003"},
        {"N": "-2.50"},
        {"B": "AAE="},
        {"B": "AQ=="},
        {"BOOL": True},
        {"SS": ["a"]},
    ]
)
_VALUES = st.one_of(_STRINGS, _NUMBERS, _NUMBERS, _ODD)
# (index, hash attribute, range attribute)
_KEYS = [(None, "pk", "sk"), ("by_l", "pk", "l"), ("by_g", "g", "sk"), ("by_l_keys", "pk", "l")]
_RANGE = ["=", "<", "<=", ">", ">=", "BETWEEN", "BETWEEN", "BETWEEN", "begins_with", None]

queries = st.fixed_dictionaries(
    {
        "key": st.sampled_from(_KEYS),
        "op": st.sampled_from(_RANGE),
        "hash": st.one_of(_STRINGS, _STRINGS, _VALUES),
        "misnamed": st.booleans(),  # "#r" names a non-key attribute
        "low": _VALUES,
        "high": _VALUES,
        "names": st.booleans(),
        "reversed": st.booleans(),
        "projection": st.sampled_from([None, "pk, sk", "#r"]),
        "unused": st.booleans(),
        "Limit": st.one_of(st.none(), st.integers(1, 4)),
    }
)


def _request(drawn: dict, low: dict, high: dict) -> dict[str, Any]:
    index, hash_name, range_name = drawn["key"]
    names: dict[str, str] = {}
    if drawn["names"]:
        names = {"#h": hash_name, "#r": "n" if drawn["misnamed"] else range_name}
        hash_ref, range_ref = "#h", "#r"
    else:
        hash_ref, range_ref = hash_name, range_name
    values = {":h": drawn["hash"]}
    op = drawn["op"]
    ranged = {
        None: None,
        "BETWEEN": f"{range_ref} BETWEEN :lo AND :hi",
        "begins_with": f"begins_with({range_ref}, :lo)",
    }.get(op, f"{range_ref} {op} :lo")
    if op is not None:
        values[":lo"] = low
    if op == "BETWEEN":
        values[":hi"] = high
    parts = [f"{hash_ref} = :h", *([ranged] if ranged else [])]
    condition = " AND ".join(reversed(parts) if drawn["reversed"] else parts)  # either order is allowed
    if drawn["unused"]:
        values[":spare"] = {"S": "unused"}
    request: dict[str, Any] = {"TableName": TABLE, "KeyConditionExpression": condition}
    request["ExpressionAttributeValues"] = values
    if drawn["projection"] == "#r" and not drawn["names"]:
        names = {"#r": range_name}
    if drawn["projection"]:
        request["ProjectionExpression"] = drawn["projection"]
    if names:
        request["ExpressionAttributeNames"] = names
    if index:
        request["IndexName"] = index
    if drawn["Limit"]:
        request["Limit"] = drawn["Limit"]
    return request


def _answer(engine: Engine, request: dict) -> dict:
    try:
        return engine.handle("Query", request)
    except DynamoDBError as error:
        return {"error": error.to_wire()}


def _engine() -> Engine:
    engine = Engine()
    engine.handle("CreateTable", DEFINITION)
    generated = [({"n": {"N": str(n)}}, "xyz"[n % 3], "xy"[n % 2]) for n in range(12)]
    for item in with_keys(generated):
        engine.handle("PutItem", {"TableName": TABLE, "Item": item})
    return engine


ENGINE = _engine()
# The plans are the general path's: Query's shortcut, which answers the plain requests here before
# they reach it, is held to the general path by test_query_shortcut.py.
ENGINE.fast_reads = False


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries)
def test_planned_queries_answer_like_the_general_code(drawn: dict) -> None:
    request = _request(drawn, drawn["low"], drawn["high"])
    query_plans.forget()
    general = _answer(ENGINE, request)
    # A valid request of the same shape (bounds in order, names right) leaves the shape's plan behind.
    ordered = sorted([drawn["low"], drawn["high"]], key=lambda v: (list(v), str(list(v.values()))))
    if list(ordered[0]) == ["N"] and list(ordered[1]) == ["N"]:
        ordered = sorted(ordered, key=lambda v: float(v["N"]))
    _answer(ENGINE, _request({**drawn, "misnamed": False}, *ordered))
    _answer(ENGINE, request)
    assert _answer(ENGINE, request) == general


def test_a_plan_is_reused_for_other_values() -> None:
    """The property above would pass without any plan: this checks that plans are made and used."""
    query_plans.forget()
    request = {
        "TableName": TABLE,
        "KeyConditionExpression": "pk = :h AND sk BETWEEN :lo AND :hi",
        "ExpressionAttributeValues": {":h": {"S": "p0"}, ":lo": {"N": "2"}, ":hi": {"N": "8"}},
    }
    assert [i["sk"]["N"] for i in ENGINE.handle("Query", request)["Items"]] == ["2", "4", "6", "8"]
    assert query_plans.planned() == 1
    later = {
        **request,
        "ExpressionAttributeValues": {":h": {"S": "p1"}, ":lo": {"N": "3"}, ":hi": {"N": "5"}},
    }
    assert [i["sk"]["N"] for i in ENGINE.handle("Query", later)["Items"]] == ["3", "5"]
    assert query_plans.planned() == 1
    backwards = {
        **request,
        "ExpressionAttributeValues": {":h": {"S": "p1"}, ":lo": {"N": "5"}, ":hi": {"N": "3"}},
    }
    assert (
        "upper bound to be greater than or equal to lower bound"
        in _answer(ENGINE, backwards)["error"]["message"]
    )
