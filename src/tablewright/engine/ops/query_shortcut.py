"""Query's shortcut: the commonest Query, a table's items by key condition, without the general path.

Applications send the same Query again and again with other values: ``pk = :p AND sk BETWEEN :a
AND :b`` on a table, no filter, no projection, no index. Its answer costs little more than reading
the rows, but the general path (request validation, parsing or a cached plan, binding, the page
loop) cost three times the reading. So a plan is made once per table, key condition text and
names map, from the general code's own decisions (its request validation, its parse and binding
of the expression): which placeholder holds the partition value, which the sort key's bounds,
under which operator, and the SQL. A later request of that shape is then checked only in what
depends on it: its values (exactly the plan's placeholders, each of the key attribute's type, in
the forms the general checks certainly accept), its optional members, the bounds' order.

Anything the shortcut does not recognise, or anything wrong with a request, is answered by the
general path, which words the error: the shortcut returns ``None`` (nothing done). What it answers
is byte for byte the general path's answer (tests/engine/test_query_shortcut.py compares the two
on generated requests). ``Engine.fast_reads = False`` turns it off.
"""

from __future__ import annotations

import math
import sqlite3
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from ..capacity import READ_UNIT, Consumed
from ..catalog import TableMeta
from ..encoded import EncodedItems
from ..errors import DynamoDBError
from ..types import encode_number_key, is_canonical_number
from ..validation import member_validator, validate_request
from . import query_plans
from .reads import PAGE_BYTES, Source, prefix_successor

if TYPE_CHECKING:
    from ..engine import Engine

# The members a request may have for the shortcut to take it (others, IndexName, FilterExpression,
# ProjectionExpression, Select, the legacy KeyConditions, ... go the general way).
_MEMBERS = frozenset(
    {
        "TableName",
        "KeyConditionExpression",
        "ExpressionAttributeValues",
        "ExpressionAttributeNames",
        "Limit",
        "ScanIndexForward",
        "ConsistentRead",
        "ReturnConsumedCapacity",
        "ExclusiveStartKey",
    }
)
_CAPACITY_MODES = frozenset({"NONE", "TOTAL", "INDEXES"})
# The SQL of a sort key condition, by operator (reads._range_sql's, for a table's single sort key).
_RANGE_SQL = {
    None: "",
    "=": " AND x.sk = ?",
    "<": " AND x.sk < ?",
    "<=": " AND x.sk <= ?",
    ">": " AND x.sk > ?",
    ">=": " AND x.sk >= ?",
    "BETWEEN": " AND x.sk BETWEEN ? AND ?",
    "begins_with": " AND x.sk >= ? AND x.sk < ?",
}
MAX_PLANS = 1024  # distinct shapes remembered; beyond that the cache starts again


@dataclass(frozen=True, slots=True)
class _Plan:
    """A request shape's decisions: its table, which placeholder feeds which key part, its SQL."""

    table: TableMeta
    hash_value: str  # the placeholder of the partition key's value
    hash_type: str  # "S" or "N"
    range_values: tuple[str, ...]  # the placeholders of the sort key condition's values, in order
    range_type: str | None
    op: str | None
    select: str  # "SELECT ... WHERE" up to the key condition
    order: dict[bool, str]  # " ORDER BY ..." by ScanIndexForward


_plans: dict[tuple, _Plan | None] = {}
_checks: dict[str, Callable[[Any], bool]] = {}  # request validation's check of one member, compiled once


def forget() -> None:
    """Drop every plan and compiled member check (the next request of each shape is planned anew)."""
    _plans.clear()
    _checks.clear()


def planned() -> int:
    """How many request shapes have a plan."""
    return sum(plan is not None for plan in _plans.values())


def _valid(member: str, value: Any) -> bool:
    check = _checks.get(member)
    if check is None:
        check = _checks[member] = member_validator("Query", member)
    return check(value)


def _make_plan(table: TableMeta, request: dict) -> _Plan | None | bool:
    """The plan of ``request``'s shape, from the general code's checks and binding; None if the
    shape is not one the shortcut takes; False if the request fails the checks (the general path
    then raises the error; another request of the shape may pass them)."""
    key = table.key
    if key.composite or key.hash_type == "B" or key.range_type == "B":
        return None
    hash_names = (key.hash_name,)
    range_names = (key.range_name,) if key.range_name else ()
    try:
        validate_request("Query", request)
        expressions, _ = query_plans.key_condition(request, hash_names, range_names)
    except DynamoDBError:
        return False
    if expressions.projection is not None or expressions.condition is not None:
        return None
    (hash_value,), _, op, range_values = query_plans.bind(
        expressions.key_condition, expressions.names, hash_names, range_names
    )
    if op == "begins_with" and key.range_type == "N":
        return None  # an error, whatever the values: the general path words it
    select = f"SELECT x.size, x.item FROM {table.sql_name} AS x WHERE x.h = ? AND x.pk = ?"
    return _Plan(
        table,
        hash_value,
        key.hash_type,
        range_values,
        key.range_type,
        op,
        select + _RANGE_SQL[op],
        {True: " ORDER BY x.sk", False: " ORDER BY x.sk DESC"},
    )


def _key(value: Any, kind: str | None) -> bytes | None:
    """The stored bytes of a key condition value of type ``kind``, or None if it is not one that
    request validation and the key condition's checks certainly accept as it is."""
    if value.__class__ is not dict or len(value) != 1:
        return None
    payload = value.get(kind)
    if payload.__class__ is not str or not payload:  # an empty partition: the general path refuses it
        return None
    if kind == "N":
        return encode_number_key(payload) if is_canonical_number(payload) else None
    try:
        return payload.encode()
    except UnicodeEncodeError:  # a lone surrogate: the general path says what is wrong
        return None


def query_shortcut(engine: Engine, request: Any) -> dict | None:
    """A Query of a table by key condition (see the module's docstring): what the engine answers,
    or ``None`` (nothing done) for a request the general path must answer."""
    if request.__class__ is not dict or not _MEMBERS.issuperset(request) or not engine.fast_reads:
        return None
    if None in request.values():  # request validation drops nulls: the general path does
        return None
    name = request.get("TableName")
    condition = request.get("KeyConditionExpression")
    names = request.get("ExpressionAttributeNames")
    table = engine.store.table(name) if name.__class__ is str else None
    if table is None or condition.__class__ is not str:
        return None
    try:
        shape = (id(table), condition, names and tuple(names.items()))
        plan = _plans.get(shape, False)
    except (TypeError, AttributeError):  # an unhashable or malformed member: the general path words it
        return None
    if plan is False:
        plan = _make_plan(table, request)
        if plan is False:
            return None
        if len(_plans) >= MAX_PLANS:
            _plans.clear()
        _plans[shape] = plan
    if plan is None:
        return None
    return _answer(engine, plan, request)


def _answer(engine: Engine, plan: _Plan, request: dict) -> dict | None:
    values = request.get("ExpressionAttributeValues")
    if values.__class__ is not dict or len(values) != 1 + len(plan.range_values):
        return None
    pk = _key(values.get(plan.hash_value), plan.hash_type)
    if pk is None:
        return None
    bounds = []
    for placeholder in plan.range_values:
        bound = _key(values.get(placeholder), plan.range_type)
        if bound is None:
            return None
        bounds.append(bound)
    if plan.op == "BETWEEN" and bounds[0] > bounds[1]:
        return None  # bounds out of order: the general path's error (the keys' bytes sort as values)
    if plan.op == "begins_with":
        upper = prefix_successor(bounds[0])
        if upper is None:
            return None
        bounds.append(upper)
    # bytearray, not bytes: sqlite3 binds both as a blob, but looks for an adapter for bytes first.
    params = (zlib.crc32(pk), bytearray(pk), *map(bytearray, bounds))
    limit = request.get("Limit")
    forward = request.get("ScanIndexForward", True)
    consistent = request.get("ConsistentRead", False)
    capacity = request.get("ReturnConsumedCapacity", "NONE")
    if (
        (limit is not None and (limit.__class__ is not int or not _valid("Limit", limit)))
        or (forward is not True and forward is not False)
        or (consistent is not True and consistent is not False)
        or capacity.__class__ is not str
        or capacity not in _CAPACITY_MODES
    ):
        return None
    sql = plan.select
    if "ExclusiveStartKey" in request:
        start = request["ExclusiveStartKey"]
        if not _valid("ExclusiveStartKey", start):
            return None
        try:
            clause, after = Source(plan.table, None).start_after(start, forward, "query", partition=pk)
        except DynamoDBError:
            return None
        sql += " AND " + clause
        params += after
    try:
        items, size_read, last = engine.store.read_page(sql + plan.order[forward], params, limit, PAGE_BYTES)
    except sqlite3.OperationalError as error:  # dropped by another process: the general path refreshes
        if "no such table" in str(error):
            return None
        raise
    response: dict[str, Any] = {"Count": len(items), "ScannedCount": len(items), "Items": EncodedItems(items)}
    if last is not None and plan.range_type is not None:  # a hash-only table's query has no next page
        response["LastEvaluatedKey"] = Source(plan.table, None).last_key(orjson.loads(last))
    if capacity != "NONE":
        consumed = Consumed(plan.table, "read")
        consumed.table_units = max(1, math.ceil(size_read / READ_UNIT)) * (1.0 if consistent else 0.5)
        response["ConsumedCapacity"] = consumed.render(capacity)
    return response


SHORTCUTS = {"Query": query_shortcut}
