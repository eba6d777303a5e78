"""Planning a SELECT: GetItem for a full key, Query for a partition (one per IN value), else Scan.

A plan is the engine operation and one request per step; the operation module runs the steps in
order, carrying Limit and the pagination position across them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..catalog import KeySchema, TableMeta
from ..types import encode_key
from .errors import invalid
from .keys import attributes_in, conjuncts, equality_on, in_on, is_range_condition, join, oriented
from .nodes import Between, Call, Node, Select
from .values import bind
from .writer import Writer


@dataclass
class ReadPlan:
    """What a SELECT runs: ``operation`` (GetItem, Query or Scan) once per request in ``steps``."""

    operation: str
    table: str
    steps: list[dict[str, Any]] = field(default_factory=list)


def plan_select(select: Select, table: TableMeta, params: list[dict], consistent: bool = False) -> ReadPlan:
    """Translate a SELECT into engine requests over its table or index."""
    index = table.index(select.index) if select.index is not None else None
    key = index.key if index is not None else table.key
    parts = conjuncts(select.where)
    hash_values, rest = _partition(parts, key.hash_name)
    if hash_values is None:
        _check_scan_order(select)
        return ReadPlan("Scan", table.name, [_scan(select, params, consistent)])
    range_node = next(
        (node for node in rest if key.range_name and is_range_condition(node, key.range_name)), None
    )
    if range_node is not None:
        rest = [node for node in rest if node is not range_node]
    if attributes_in(join(rest)) & set(key.names):
        # A Query may not filter on key attributes; DynamoDB reads the whole table for such a WHERE.
        _check_scan_order(select)
        return ReadPlan("Scan", table.name, [_scan(select, params, consistent)])
    forward = _forward(select, key)
    if index is None and not rest and len(hash_values) == 1 and _pins_item(range_node, key):
        return ReadPlan(
            "GetItem", table.name, [_get(select, key, hash_values[0], range_node, params, consistent)]
        )
    bound = _distinct([bind(value, params) for value in hash_values])
    scalars = all(next(iter(value)) in ("S", "N", "B") for value in bound)
    if len(bound) > 1 and scalars and any(name == key.hash_name for name, _ in select.order):
        descending = next(desc for name, desc in select.order if name == key.hash_name)
        bound.sort(key=encode_key, reverse=descending)
    steps = [_query(select, key, value, range_node, rest, params, consistent, forward) for value in bound]
    return ReadPlan("Query", table.name, steps)


def _partition(parts: list[Node], hash_name: str) -> tuple[tuple[Node, ...] | None, list[Node]]:
    """The hash-key values the WHERE pins (by = or IN) and the other conjuncts."""
    for position, node in enumerate(parts):
        value = equality_on(node, hash_name)
        options = (value,) if value is not None else in_on(node, hash_name)
        if options is not None:
            return options, parts[:position] + parts[position + 1 :]
    return None, parts


def _pins_item(range_node: Node | None, key: KeySchema) -> bool:
    if key.range_name is None:
        return range_node is None
    compare = oriented(range_node) if range_node is not None else None
    return compare is not None and compare.op == "="


def _distinct(values: list[dict]) -> list[dict]:
    seen: list[dict] = []
    for value in values:
        if value not in seen:
            seen.append(value)
    return seen


def _forward(select: Select, key: KeySchema) -> bool:
    forward = True
    for name, descending in select.order:
        if name not in key.names:
            raise invalid(f"Variable reference {name} in ORDER BY clause must be part of the primary key")
        if name == key.range_name:
            forward = not descending
    return forward


def _check_scan_order(select: Select) -> None:
    if not select.order:
        return
    if select.where is None:
        raise invalid("Must have WHERE clause in the statement when using ORDER BY clause.")
    raise invalid(
        "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."
    )


def _base(select: Select, writer: Writer, consistent: bool) -> dict[str, Any]:
    request: dict[str, Any] = {"TableName": select.table}
    if select.index is not None:
        request["IndexName"] = select.index
    if consistent:
        request["ConsistentRead"] = True
    if select.projection:
        request["ProjectionExpression"] = writer.projection(select.projection)
    return request


def _scan(select: Select, params: list[dict], consistent: bool) -> dict[str, Any]:
    writer = Writer(params)
    request = _base(select, writer, consistent)
    if select.where is not None:
        request["FilterExpression"] = writer.condition(select.where)
    return writer.attach(request)


def _get(
    select: Select,
    key: KeySchema,
    hash_value: Node,
    range_node: Node | None,
    params: list[dict],
    consistent: bool,
) -> dict[str, Any]:
    writer = Writer(params)
    request = _base(select, writer, consistent)
    request["Key"] = {key.hash_name: bind(hash_value, params)}
    if range_node is not None and key.range_name:
        request["Key"][key.range_name] = bind(oriented(range_node).right, params)  # type: ignore[union-attr]
    return writer.attach(request)


def _query(
    select: Select,
    key: KeySchema,
    hash_value: dict,
    range_node: Node | None,
    rest: list[Node],
    params: list[dict],
    consistent: bool,
    forward: bool,
) -> dict[str, Any]:
    writer = Writer(params)
    request = _base(select, writer, consistent)
    condition = f"{writer.name(key.hash_name)} = {writer.value(hash_value)}"
    if range_node is not None:
        condition += " AND " + _range_text(writer, range_node)
    request["KeyConditionExpression"] = condition
    remaining = join(rest)
    if remaining is not None:
        request["FilterExpression"] = writer.condition(remaining)
    if not forward:
        request["ScanIndexForward"] = False
    return writer.attach(request)


def _range_text(writer: Writer, node: Node) -> str:
    if isinstance(node, (Between, Call)):
        return writer.condition(node)
    return writer.condition(oriented(node))  # type: ignore[arg-type]
