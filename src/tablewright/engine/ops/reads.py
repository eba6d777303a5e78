"""Query and Scan: ordered reads of a table or index, paged by Limit and the 1 MB limit before filtering."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from .. import expressions as ex
from ..actions import Expressions
from ..capacity import READ_UNIT, Consumed
from ..catalog import IndexMeta, KeySchema, TableMeta, encode_component, encode_key_part, escape_component
from ..encoded import EncodedItems
from ..errors import ValidationException
from ..expressions.nodes import PathExpr
from ..expressions.resolve import Scope
from ..types import encode_key, invalid, partition_hash, validate_item
from . import query_plans
from .tables import require_table

if TYPE_CHECKING:
    from ..engine import Engine

PAGE_BYTES = 1024 * 1024
_FETCHING_SELECTS = frozenset({"ALL_ATTRIBUTES", "SPECIFIC_ATTRIBUTES"})
_RANGE_SQL = {"=": "x.sk = ?", "<": "x.sk < ?", "<=": "x.sk <= ?", ">": "x.sk > ?", ">=": "x.sk >= ?"}


@dataclass
class Source:
    """The table or index a read runs over, and what an item read from it looks like."""

    table: TableMeta
    index: IndexMeta | None

    @property
    def key(self) -> KeySchema:
        return self.index.key if self.index else self.table.key

    def last_key(self, item: dict) -> dict:
        names = set(self.table.key.names) | set(self.key.names)
        return {name: item[name] for name in names if name in item}

    def start_after(
        self,
        raw: Any,
        forward: bool,
        columns: str,
        partition: bytes | None = None,
        segment: tuple[int, int, int, int] | None = None,
    ) -> tuple[str, tuple]:
        """SQL continuing strictly after an ExclusiveStartKey, in read order.

        ``partition`` is the encoded partition a query reads, ``segment`` a parallel scan's
        (low hash, high hash, segment, total): DynamoDB refuses a start key outside either.
        """
        start = validate_item(raw, "ExclusiveStartKey")
        if columns == "query" and self.index is None and not self.key.range_attributes:
            # A query of a hash-only table reads at most one item: no page can follow another.
            raise ValidationException(
                f"The provided exclusive start key is invalid: ExclusiveStartKey: {_java_map(start)}"
            )
        needed = set(self.table.key.names) | set(self.key.names)
        if set(start) != needed:
            raise ValidationException(
                "The provided starting key is invalid: The provided key element does not match the schema"
            )
        h, pk, sk = self.table.encode_item_key(self.table.key_of(start), for_item=False)
        if self.index is None:
            values: tuple = (h, pk, sk)
        else:
            entry = self.index.entry_key(start)
            if entry is None:
                raise ValidationException("The provided starting key is invalid")
            values = (partition_hash(entry[0]), entry[0], entry[1], pk, sk)
        if partition is not None and values[1] != partition:
            raise ValidationException(
                "The provided starting key is outside query boundaries based on provided conditions"
            )
        if segment is not None and not segment[0] <= values[0] < segment[1]:
            raise ValidationException(
                "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey "
                f"with correct Segment. TotalSegments: {segment[3]} Segment: {segment[2]}"
            )
        chosen = _COLUMNS[columns][self.index is not None]
        picked = tuple(values[i] for i in chosen[1])
        return f"({chosen[0]}) {'>' if forward else '<'} ({', '.join('?' * len(picked))})", picked


def _java_map(item: dict) -> str:
    """A key as DynamoDB's Java service prints it in messages: ``{p=AttributeValue: {S:k}}``."""
    return (
        "{"
        + ", ".join(
            f"{name}=AttributeValue: {{{kind}:{payload}}}"
            for name, value in item.items()
            for kind, payload in value.items()
        )
        + "}"
    )


# Which columns order a read (query: within one partition; scan: everything) and which key values fill them.
_COLUMNS = {
    "query": {False: ("x.sk", (2,)), True: ("x.sk, x.tpk, x.tsk", (2, 3, 4))},
    "scan": {False: ("x.h, x.pk, x.sk", (0, 1, 2)), True: ("x.h, x.pk, x.sk, x.tpk, x.tsk", (0, 1, 2, 3, 4))},
}


# ORDER BY of a query, by (reads an index, forward).
_QUERY_ORDER = {
    (index, forward): ", ".join(
        c + ("" if forward else " DESC") for c in _COLUMNS["query"][index][0].split(", ")
    )
    for index in (False, True)
    for forward in (False, True)
}


@functools.lru_cache(maxsize=256)
def _key_names(key: KeySchema) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The HASH and the RANGE attribute names of a key schema."""
    return tuple(name for name, _ in key.hash_attributes), tuple(name for name, _ in key.range_attributes)


def _source(engine: Engine, request: dict, operation: str) -> Source:
    table = require_table(engine, request["TableName"])
    index = table.index(request["IndexName"]) if "IndexName" in request else None
    if index is not None and index.kind == "GSI" and request.get("ConsistentRead"):
        raise ValidationException("Consistent reads are not supported on global secondary indexes")
    return Source(table, index)


def _select(source: Source, request: dict, expressions: Expressions) -> str:
    select = request.get("Select")
    if select is None:
        select = (
            "SPECIFIC_ATTRIBUTES"
            if expressions.projection
            else ("ALL_PROJECTED_ATTRIBUTES" if source.index else "ALL_ATTRIBUTES")
        )
    # DynamoDB words these as model-validation errors on Query (with the envelope), plainly on Scan.
    envelope = "1 validation error detected: " if "KeyConditionExpression" in request else ""
    if expressions.projection is not None and select != "SPECIFIC_ATTRIBUTES":
        chosen = "only the Count" if select == "COUNT" else select
        raise ValidationException(
            f"{envelope}Cannot specify the ProjectionExpression when choosing to get {chosen}"
        )
    if select == "SPECIFIC_ATTRIBUTES" and expressions.projection is None:
        raise ValidationException(
            f"{envelope}Must specify the AttributesToGet or ProjectionExpression when choosing to get "
            "SPECIFIC_ATTRIBUTES"
        )
    if select == "ALL_PROJECTED_ATTRIBUTES" and source.index is None:
        raise ValidationException(
            "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"
        )
    if (
        select == "ALL_ATTRIBUTES"
        and source.index
        and source.index.kind == "GSI"
        and source.index.projection != "ALL"
    ):
        raise invalid(
            f"Select type ALL_ATTRIBUTES is not supported for global secondary index {source.index.name} "
            "because its projection type is not ALL"
        )
    if expressions.projection is not None and source.index is not None and source.index.kind == "GSI":
        _check_projected(source.index, source.table, expressions)
    return select


def _check_projected(index: IndexMeta, table: TableMeta, expressions: Expressions) -> None:
    """A GSI holds only its projection: asking it for another attribute is an error, not an empty item."""
    if index.projection == "ALL":
        return
    scope = Scope(expressions.projection.kind, expressions.names, None)
    stored = {name: {"NULL": True} for name in (*index.key.names, *table.key.names, *index.non_key)}
    wanted = [scope.path(path)[0] for path in expressions.projection.paths]
    missing = sorted({name for name in wanted if name not in index.project(stored)})
    if missing:
        raise invalid(f"Global secondary index {index.name} does not project [{', '.join(missing)}]")


def _passes_through(source: Source, select: str, expressions: Expressions) -> bool:
    """Whether a read returns its stored items unchanged: no filter, no projection of any kind."""
    if expressions.condition is not None or expressions.projection is not None:
        return False
    index = source.index
    return index is None or index.projection == "ALL" or (index.kind == "LSI" and select in _FETCHING_SELECTS)


def _last_key(source: Source, request: dict, item: dict) -> dict | None:
    """The LastEvaluatedKey after ``item``; None after a query of a hash-only table, which has read
    its one possible item (no page follows, and DynamoDB refuses a start key there)."""
    hash_only_query = "KeyConditionExpression" in request and source.index is None
    if hash_only_query and not source.key.range_attributes:
        return None
    return source.last_key(item)


def _read_encoded(
    source: Source, request: dict, rows: Iterator[tuple]
) -> tuple[list[bytes], int, int, dict | None]:
    """(stored items as they are, scanned, bytes read, last key): only the page's last item is decoded."""
    limit = request.get("Limit")
    items: list[bytes] = []
    size_read = 0
    last: dict | None = None
    for size, raw in rows:
        items.append(raw)
        size_read += size
        if (limit is not None and len(items) >= limit) or size_read >= PAGE_BYTES:
            last = _last_key(source, request, orjson.loads(raw))
            break
    return items, len(items), size_read, last


def _read_decoded(
    source: Source, request: dict, rows: Iterator[tuple], expressions: Expressions, select: str
) -> tuple[list[dict], int, int, dict | None]:
    """(items that pass the filter, scanned, bytes read, last key), each item decoded and checked."""
    limit = request.get("Limit")
    items: list[dict] = []
    scanned = size_read = 0
    last: dict | None = None
    for size, raw in rows:
        item = orjson.loads(raw)
        if source.index is not None and not (source.index.kind == "LSI" and select in _FETCHING_SELECTS):
            # A GSI holds only its projection; an LSI fetches other attributes from the table when asked.
            item = source.index.project(item)
        scanned += 1
        size_read += size
        if expressions.check(item):
            items.append(item)
        if (limit is not None and scanned >= limit) or size_read >= PAGE_BYTES:
            last = _last_key(source, request, item)
            break
    return items, scanned, size_read, last


def _page(
    engine: Engine, source: Source, request: dict, rows: Iterator[tuple], expressions: Expressions
) -> dict:
    """Read rows until Limit or 1 MB, filter, project, and build the response with its capacity.

    A read that returns stored items unchanged (see :func:`_passes_through`) answers with them as
    :class:`~tablewright.engine.encoded.EncodedItems`, never decoding them; ``Engine.handle``
    decodes them for callers that did not ask for ``encoded=True``.
    """
    select = _select(source, request, expressions)
    passes_through = _passes_through(source, select, expressions)
    if passes_through:
        items, scanned, size_read, last = _read_encoded(source, request, rows)
    else:
        items, scanned, size_read, last = _read_decoded(source, request, rows, expressions, select)
    consistent = bool(request.get("ConsistentRead"))
    units = max(1, math.ceil(size_read / READ_UNIT)) * (1.0 if consistent else 0.5)
    consumed = Consumed(source.table, "read")
    if source.index is not None:
        consumed.add_index(source.index, units)
    else:
        consumed.table_units = units
    response: dict[str, Any] = {"Count": len(items), "ScannedCount": scanned}
    if select != "COUNT":
        if passes_through:
            response["Items"] = EncodedItems(items)
        elif expressions.projection is not None:
            response["Items"] = [
                ex.project(expressions.projection, item, expressions.names) for item in items
            ]
        else:
            response["Items"] = items
    if last is not None:
        response["LastEvaluatedKey"] = last
    rendered = consumed.render(request.get("ReturnConsumedCapacity"))
    if rendered:
        response["ConsumedCapacity"] = rendered
    return response


def prefix_successor(prefix: bytes) -> bytes | None:
    """The smallest byte string greater than every string starting with ``prefix`` (None: unbounded)."""
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return None
    return stripped[:-1] + bytes([stripped[-1] + 1])


def _range_sql(source: Source, op: str | None, values: tuple) -> tuple[str, tuple]:
    if op is None:
        return "", ()
    key = source.key
    for value in values:
        if key.range_type not in value:
            raise invalid("Condition parameter type does not match schema type")
    encoded = tuple(encode_key(v) for v in values)
    if op == "BETWEEN":
        return " AND x.sk BETWEEN ? AND ?", encoded
    if op == "begins_with":
        if key.range_type == "N":
            raise ValidationException(
                "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
                "operator or function: begins_with, operand type: N"
            )
        upper = prefix_successor(encoded[0])
        if upper is None:
            return " AND x.sk >= ?", encoded
        return " AND x.sk >= ? AND x.sk < ?", (encoded[0], upper)
    return " AND " + _RANGE_SQL[op], encoded


def _check_types(attributes: tuple[tuple[str, str], ...], values: tuple) -> None:
    for (_, kind), value in zip(attributes, values, strict=False):
        if kind not in value:
            raise invalid("Condition parameter type does not match schema type")


def _refuse_empty_partition(attributes: tuple[tuple[str, str], ...], values: tuple) -> None:
    """DynamoDB refuses a Query for an empty string partition (on an index too, in these words; an
    empty binary is not refused: it matches nothing, as no item can have one)."""
    for (name, _), value in zip(attributes, values, strict=False):
        if value.get("S") == "":
            raise ValidationException(
                "One or more parameter values are not valid. The AttributeValue for a key attribute cannot "
                f"contain an empty string value. Key: {name}"
            )


# The bounds of a condition on one component of a multi-attribute sort key, as (lower inclusive, upper
# exclusive) byte strings, given the encoded equality prefix ``p`` and the condition's components ``c``
# (terminated values; for begins_with the escaped prefix without terminator). None: unbounded.
_COMPONENT_BOUNDS = {
    "=": lambda p, c: (c[0], prefix_successor(c[0])),
    "<": lambda p, c: (p, c[0]),
    "<=": lambda p, c: (p, prefix_successor(c[0])),
    ">": lambda p, c: (prefix_successor(c[0]), prefix_successor(p)),
    ">=": lambda p, c: (c[0], prefix_successor(p)),
    "BETWEEN": lambda p, c: (c[0], prefix_successor(c[1])),
    "begins_with": lambda p, c: (c[0], prefix_successor(c[0])),
}


def _composite_range_sql(key: KeySchema, condition: ex.KeyConditions) -> tuple[str, tuple]:
    """SQL bounds on a multi-attribute sort key: an equality prefix, then one condition (see catalog)."""
    if condition.range_op is None:
        return "", ()
    _check_types(key.range_attributes, condition.range_prefix)
    last = key.range_attributes[len(condition.range_prefix)]
    _check_types((last,) * len(condition.range_values), condition.range_values)
    if condition.range_op == "begins_with" and last[1] == "N":
        raise ValidationException(
            "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
            "operator or function: begins_with, operand type: N"
        )
    prefix = b"".join(encode_component(v) for v in condition.range_prefix)
    if condition.range_op == "begins_with":
        components = (prefix + escape_component(encode_key(condition.range_values[0])),)
    else:
        components = tuple(prefix + encode_component(v) for v in condition.range_values)
    lower, upper = _COMPONENT_BOUNDS[condition.range_op](prefix, components)
    sql, params = "", ()
    if lower:
        sql, params = " AND x.sk >= ?", (lower,)
    if upper is not None:
        sql, params = sql + " AND x.sk < ?", (*params, upper)
    return sql, params


def _attributes_in(node: Any, names: dict | None) -> Iterator[str]:
    """The top-level attribute names an expression tree reads (placeholders resolved)."""
    if isinstance(node, PathExpr):
        first = node.elements[0]
        yield (names or {}).get(first, first) if isinstance(first, str) else first
    elif isinstance(node, tuple):
        for element in node:
            yield from _attributes_in(element, names)
    elif dataclasses.is_dataclass(node):
        for item in dataclasses.fields(node):
            yield from _attributes_in(getattr(node, item.name), names)


def _reject_key_filters(source: Source, expressions: Expressions) -> None:
    if expressions.condition is None:
        return
    for name in _attributes_in(expressions.condition.root, expressions.names):
        if name in source.key.names:
            raise ValidationException(
                f"Filter Expression can only contain non-primary key attributes: Primary key attribute: {name}"
            )


def _read(
    engine: Engine,
    source: Source,
    request: dict,
    expressions: Expressions,
    where: str,
    params: tuple,
    order: str,
) -> dict:
    """One page of rows as the response. A read is one SELECT, which SQLite runs on one snapshot (no
    BEGIN/COMMIT needed); the rows are closed before the connection is let go, even after a page
    ended early, so no statement stays open on it."""
    with engine.store.read(single=True) as conn:
        rows = engine.store.rows(conn, source.table, source.index, where, params, order)
        try:
            return _page(engine, source, request, rows, expressions)
        finally:
            rows.close()


def query(engine: Engine, request: dict) -> dict:
    source = _source(engine, request, "Query")
    if "KeyConditionExpression" not in request:
        raise ValidationException(
            "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."
        )
    key = source.key
    hash_names, range_names = _key_names(key)
    if "FilterExpression" in request:
        expressions = Expressions.parse(
            request,
            condition="FilterExpression",
            projection="ProjectionExpression",
            key_condition="KeyConditionExpression",
        )
        _reject_key_filters(source, expressions)
        condition = ex.resolve_key_conditions(
            expressions.key_condition, expressions.names, expressions.values, hash_names, range_names
        )
    else:  # the same checks and answers, decided once per request shape
        expressions, condition = query_plans.key_condition(request, hash_names, range_names)
    _check_types(key.hash_attributes, condition.hash_values)
    _refuse_empty_partition(key.hash_attributes, condition.hash_values)
    pk = encode_key_part(key.hash_attributes, condition.hash_values)
    where = "x.h = ? AND x.pk = ?"
    params: tuple = (partition_hash(pk), pk)
    if len(key.range_attributes) > 1:
        range_sql, range_params = _composite_range_sql(key, condition)
    else:
        range_sql, range_params = _range_sql(source, condition.range_op, condition.range_values)
    where += range_sql
    params += range_params
    forward = request.get("ScanIndexForward", True)
    if "ExclusiveStartKey" in request:
        clause, values = source.start_after(request["ExclusiveStartKey"], forward, "query", partition=pk)
        where += " AND " + clause
        params += values
    order = _QUERY_ORDER[source.index is not None, bool(forward)]
    return _read(engine, source, request, expressions, where, params, order)


def scan(engine: Engine, request: dict) -> dict:
    source = _source(engine, request, "Scan")
    expressions = Expressions.parse(request, condition="FilterExpression", projection="ProjectionExpression")
    where, params = "1", ()
    bounds = None
    segment, total = request.get("Segment"), request.get("TotalSegments")
    if (segment is None) != (total is None):
        missing = "TotalSegments" if total is None else "Segment"
        present = "Segment" if total is None else "TotalSegments"
        raise ValidationException(
            f"The {missing} parameter is required but was not present in the request when {present} parameter is present"
        )
    if total is not None:
        if segment >= total:
            raise ValidationException(
                f"The Segment parameter is zero-based and must be less than parameter TotalSegments: "
                f"Segment: {segment} is not less than TotalSegments: {total}"
            )
        where = "x.h >= ? AND x.h < ?"
        params = (segment * 2**32 // total, (segment + 1) * 2**32 // total)
        bounds = (*params, segment, total)
    if "ExclusiveStartKey" in request:
        clause, values = source.start_after(request["ExclusiveStartKey"], True, "scan", segment=bounds)
        where += " AND " + clause
        params += values
    order = _COLUMNS["scan"][source.index is not None][0]
    return _read(engine, source, request, expressions, where, params, order)


OPERATIONS = {"Query": query, "Scan": scan}
