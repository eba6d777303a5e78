"""Planning INSERT, UPDATE, DELETE and EXISTS: each becomes one single-item engine request.

The same request body serves ExecuteStatement (PutItem, UpdateItem, DeleteItem) and ExecuteTransaction
(the Put, Update, Delete and ConditionCheck entries of TransactWriteItems), so both paths share every
rule. PartiQL semantics added on top, as DynamoDB has them:

* INSERT never overwrites: the Put carries ``attribute_not_exists(<hash key>)``.
* UPDATE never creates: the Update carries ``attribute_exists(<hash key>)``.
* DELETE of a missing item succeeds (no implicit condition).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..catalog import TableMeta
from .errors import invalid
from .keys import split_key
from .nodes import Call, Delete, Exists, Insert, Node, Path, Update
from .values import bind
from .writer import SET_OPERATIONS, Writer, grouped


@dataclass
class WritePlan:
    """One write: the single-item ``operation``, the TransactWriteItems entry ``kind``, and the body."""

    operation: str
    kind: str
    table: str
    request: dict[str, Any]
    returning: str | None = None


def plan_insert(statement: Insert, table: TableMeta, params: list[dict]) -> WritePlan:
    item = bind(statement.item, params)
    if "M" not in item:
        raise invalid(
            "Unsupported format in item expression. Please use struct format {...} to express item values "
            "for insert statement."
        )
    writer = Writer(params)
    request = {
        "TableName": statement.table,
        "Item": item["M"],
        "ConditionExpression": f"attribute_not_exists({writer.name(table.key.hash_name)})",
    }
    return WritePlan("PutItem", "Put", table.name, writer.attach(request))


def plan_update(statement: Update, table: TableMeta, params: list[dict]) -> WritePlan:
    key, rest = split_key(statement.where, table.key, params)
    writer = Writer(params)
    clauses: dict[str, list[str]] = {"SET": [], "REMOVE": [], "ADD": [], "DELETE": []}
    for action in statement.actions:
        if action.kind == "REMOVE":
            clauses["REMOVE"].append(writer.path(action.path))
        elif isinstance(action.value, Call) and action.value.name in SET_OPERATIONS:
            clause = SET_OPERATIONS[action.value.name]
            clauses[clause].append(_set_operation(writer, action.path, action.value, params))
        else:
            clauses["SET"].append(f"{writer.path(action.path)} = {writer.set_value(action.value)}")  # type: ignore[arg-type]
    update = " ".join(f"{kind} {', '.join(parts)}" for kind, parts in clauses.items() if parts)
    condition = f"attribute_exists({writer.name(table.key.hash_name)})"
    if rest is not None:
        condition += f" AND {grouped(writer.condition(rest))}"
    request = {
        "TableName": statement.table,
        "Key": key,
        "UpdateExpression": update,
        "ConditionExpression": condition,
    }
    return WritePlan("UpdateItem", "Update", table.name, writer.attach(request), statement.returning)


def _set_operation(writer: Writer, path: Path, call: Call, params: list[dict]) -> str:
    """``SET s = set_add(s, <<...>>)`` -> ``ADD s :v`` (``set_delete`` -> ``DELETE``)."""
    label = call.name.split("_")[1].upper()
    if len(call.args) != 2:
        raise invalid(f"SET_{label} must have exactly two arguments")
    target, operand = call.args
    if target != path:
        raise invalid(f"The first argument to SET_{label} must equal the assignment value")
    value = bind(operand, params)
    if not {"SS", "NS", "BS"} & value.keys():
        raise invalid(f"The second argument to SET_{label} must be a value with type SET")
    return f"{writer.path(path)} {writer.value(value)}"


def plan_delete(statement: Delete, table: TableMeta, params: list[dict]) -> WritePlan:
    key, rest = split_key(statement.where, table.key, params)
    writer = Writer(params)
    request: dict[str, Any] = {"TableName": statement.table, "Key": key}
    if rest is not None:
        request["ConditionExpression"] = writer.condition(rest)
    return WritePlan("DeleteItem", "Delete", table.name, writer.attach(request), statement.returning)


def plan_exists(statement: Exists, table: TableMeta, params: list[dict]) -> WritePlan:
    """``EXISTS(SELECT ... WHERE <full key> AND <condition>)`` -> a ConditionCheck."""
    select = statement.select
    if select.index is not None:
        raise invalid("Operations on indices are not supported in transactions")
    key, rest = split_key(select.where, table.key, params)
    if rest is None:
        raise invalid("EXISTS() must contain a single item read with additional condition")
    writer = Writer(params)
    request = {"TableName": select.table, "Key": key, "ConditionExpression": writer.condition(rest)}
    return WritePlan("", "ConditionCheck", table.name, writer.attach(request))


PLANNERS: dict[type, Any] = {
    Insert: plan_insert,
    Update: plan_update,
    Delete: plan_delete,
    Exists: plan_exists,
}


def plan_write(statement: Node, table: TableMeta, params: list[dict]) -> WritePlan:
    """The write plan of any write statement (INSERT, UPDATE, DELETE, EXISTS)."""
    return PLANNERS[type(statement)](statement, table, params)
