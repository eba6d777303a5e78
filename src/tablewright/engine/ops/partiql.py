"""ExecuteStatement, BatchExecuteStatement and ExecuteTransaction: PartiQL over the engine's own operations.

Each statement is parsed and planned by :mod:`tablewright.engine.partiql` into ordinary requests that
run through ``Engine.handle``, so validation, conditions, indexes, streams, capacity and TTL behave
exactly as for the item API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import (
    ConditionalCheckFailedException,
    DynamoDBError,
    TransactionCanceledException,
    ValidationException,
)
from ..partiql import DuplicateItemException, check_parameter_count, parse, plan_select, plan_write
from ..partiql.errors import DUPLICATE_ITEM, INCOMPLETE_KEY, MIXED_BATCH, MIXED_TRANSACTION, invalid
from ..partiql.nodes import Exists, Select, Statement
from ..partiql.tokens import issue, redeem, request_digest
from ..types import validate_value
from .tables import require_table

if TYPE_CHECKING:
    from ..engine import Engine

# The Code of a BatchStatementError, by the engine error that a statement raised.
_BATCH_CODES = {
    "ConditionalCheckFailedException": "ConditionalCheckFailed",
    "DuplicateItemException": "DuplicateItem",
    "ValidationException": "ValidationError",
    "ResourceNotFoundException": "ResourceNotFound",
    "ItemCollectionSizeLimitExceededException": "ItemCollectionSizeLimitExceeded",
    "TransactionConflictException": "TransactionConflict",
    "ProvisionedThroughputExceededException": "ProvisionedThroughputExceeded",
    "RequestLimitExceeded": "RequestLimitExceeded",
    "ThrottlingException": "ThrottlingError",
}


def _statement(entry: dict) -> tuple[Statement, list[dict]]:
    statement = parse(entry["Statement"])
    # Validated up front (types, nesting depth), as DynamoDB does before it plans the statement.
    params = [validate_value(param) for param in entry.get("Parameters") or []]
    check_parameter_count(statement.params, params)
    return statement, params


def _with_capacity(request: dict, mode: str | None) -> dict:
    return {**request, "ReturnConsumedCapacity": mode} if mode else request


def merge_capacity(entries: list[dict]) -> list[dict]:
    """Sum ConsumedCapacity entries per table (numbers added, nested index maps merged)."""
    by_table: dict[str, dict] = {}
    for entry in entries:
        by_table[entry["TableName"]] = _add(by_table.get(entry["TableName"], {}), entry)
    return list(by_table.values())


def _add(total: dict, entry: dict) -> dict:
    result = dict(total)
    for name, value in entry.items():
        if isinstance(value, dict):
            result[name] = _add(result.get(name, {}), value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            result[name] = result.get(name, 0) + value
        else:
            result[name] = value
    return result


# ------------------------------------------------------------------------------------ ExecuteStatement


def execute_statement(engine: Engine, request: dict) -> dict:
    statement, params = _statement(request)
    if isinstance(statement, Exists):
        raise invalid("EXISTS can only be used in ExecuteTransaction write requests.")
    mode = request.get("ReturnConsumedCapacity")
    capacity: list[dict] = []
    if isinstance(statement, Select):
        response = _select(engine, statement, params, request, capacity)
    else:
        response = _write(
            engine, statement, params, request.get("ReturnValuesOnConditionCheckFailure"), mode, capacity
        )
    if mode in ("TOTAL", "INDEXES") and capacity:
        response["ConsumedCapacity"] = merge_capacity(capacity)[0]
    return response


def _select(engine: Engine, select: Select, params: list[dict], request: dict, capacity: list[dict]) -> dict:
    table = require_table(engine, select.table)
    plan = plan_select(select, table, params, bool(request.get("ConsistentRead")))
    mode = request.get("ReturnConsumedCapacity")
    digest = request_digest(request["Statement"], params)
    step, start = redeem(request["NextToken"], digest) if "NextToken" in request else (0, None)
    if plan.operation == "GetItem":
        answer = engine.handle("GetItem", _with_capacity(plan.steps[0], mode))
        capacity.extend([answer["ConsumedCapacity"]] if "ConsumedCapacity" in answer else [])
        return {"Items": [answer["Item"]] if "Item" in answer else []}
    limit = request.get("Limit")
    items: list[dict] = []
    scanned = 0
    resume: tuple[int, dict | None] | None = None
    last: dict | None = None
    while step < len(plan.steps):
        sub = _with_capacity(dict(plan.steps[step]), mode)
        if start is not None:
            sub["ExclusiveStartKey"] = start
        if limit is not None:
            sub["Limit"] = limit - scanned
        answer = engine.handle(plan.operation, sub)
        capacity.extend([answer["ConsumedCapacity"]] if "ConsumedCapacity" in answer else [])
        items.extend(answer.get("Items", []))
        scanned += answer.get("ScannedCount", 0)
        last = answer.get("LastEvaluatedKey")
        if last is not None:
            resume = (step, last)
            break
        step, start = step + 1, None
        if limit is not None and scanned >= limit and step < len(plan.steps):
            resume = (step, None)
            break
    response: dict[str, Any] = {"Items": items}
    if resume is not None:
        response["NextToken"] = issue(digest, *resume)
        if last is not None:
            response["LastEvaluatedKey"] = last
    return response


def _write(
    engine: Engine,
    statement: Statement,
    params: list[dict],
    on_failure: str | None,
    mode: str | None,
    capacity: list[dict],
) -> dict:
    table = require_table(engine, statement.table)  # type: ignore[union-attr]
    plan = plan_write(statement, table, params)
    sub = _with_capacity(dict(plan.request), mode)
    if plan.returning:
        sub["ReturnValues"] = plan.returning
    if on_failure:
        sub["ReturnValuesOnConditionCheckFailure"] = on_failure
    try:
        answer = engine.handle(plan.operation, sub)
    except ConditionalCheckFailedException:
        if plan.operation == "PutItem":
            raise DuplicateItemException(DUPLICATE_ITEM) from None
        raise
    capacity.extend([answer["ConsumedCapacity"]] if "ConsumedCapacity" in answer else [])
    return {"Items": [answer["Attributes"]] if "Attributes" in answer else []}


# ------------------------------------------------------------------------------- BatchExecuteStatement


def batch_execute_statement(engine: Engine, request: dict) -> dict:
    parsed: list[tuple[dict, Statement | None, list[dict], DynamoDBError | None]] = []
    for entry in request["Statements"]:
        try:
            statement, params = _statement(entry)
            parsed.append((entry, statement, params, None))
        except DynamoDBError as error:
            parsed.append((entry, None, [], error))
    if len({isinstance(statement, Select) for _, statement, _, _ in parsed if statement is not None}) > 1:
        raise ValidationException(MIXED_BATCH)
    mode = request.get("ReturnConsumedCapacity")
    capacity: list[dict] = []
    responses = []
    for entry, statement, params, error in parsed:
        if statement is not None:
            try:
                responses.append(_batch_one(engine, entry, statement, params, mode, capacity))
                continue
            except DynamoDBError as raised:
                error = raised
        responses.append(_batch_error(error, statement))  # type: ignore[arg-type]
    response: dict[str, Any] = {"Responses": responses}
    if mode in ("TOTAL", "INDEXES") and capacity:
        response["ConsumedCapacity"] = merge_capacity(capacity)
    return response


def _batch_one(
    engine: Engine,
    entry: dict,
    statement: Statement,
    params: list[dict],
    mode: str | None,
    capacity: list[dict],
) -> dict:
    if isinstance(statement, Exists):
        raise invalid("EXISTS can only be used in ExecuteTransaction write requests.")
    if isinstance(statement, Select):
        table = require_table(engine, statement.table)
        plan = plan_select(statement, table, params, bool(entry.get("ConsistentRead")))
        if plan.operation != "GetItem":
            raise invalid(INCOMPLETE_KEY)
        answer = engine.handle("GetItem", _with_capacity(plan.steps[0], mode))
        capacity.extend([answer["ConsumedCapacity"]] if "ConsumedCapacity" in answer else [])
        return {"TableName": table.name, **({"Item": answer["Item"]} if "Item" in answer else {})}
    on_failure = entry.get("ReturnValuesOnConditionCheckFailure")
    _write(engine, statement, params, on_failure, mode, capacity)
    return {"TableName": statement.table}


def _batch_error(error: DynamoDBError, statement: Statement | None) -> dict:
    body: dict[str, Any] = {
        "Code": _BATCH_CODES.get(error.code, "InternalServerError"),
        "Message": error.message,
    }
    item = getattr(error, "item", None)
    if item is not None:
        body["Item"] = item
    response: dict[str, Any] = {"Error": body}
    table = getattr(statement, "table", None) or getattr(getattr(statement, "select", None), "table", None)
    if table:
        response["TableName"] = table
    return response


# ---------------------------------------------------------------------------------- ExecuteTransaction


def execute_transaction(engine: Engine, request: dict) -> dict:
    entries = request["TransactStatements"]
    statements = [_statement(entry) for entry in entries]
    reads = [isinstance(statement, Select) for statement, _ in statements]
    if any(reads) and not all(reads):
        raise ValidationException(MIXED_TRANSACTION)
    mode = request.get("ReturnConsumedCapacity")
    body: dict[str, Any] = {"ReturnConsumedCapacity": mode} if mode else {}
    if all(reads):
        body["TransactItems"] = [{"Get": _transact_get(engine, s, p)} for s, p in statements]  # type: ignore[arg-type]
        answer = engine.handle("TransactGetItems", body)
        response: dict[str, Any] = {"Responses": answer["Responses"]}
    else:
        items, inserts = [], []
        for (statement, params), entry in zip(statements, entries):
            if getattr(statement, "returning", None):
                raise invalid("RETURNING is not supported in ExecuteTransaction statements")
            plan = plan_write(statement, require_table(engine, _table_of(statement)), params)
            spec = dict(plan.request)
            if entry.get("ReturnValuesOnConditionCheckFailure"):
                spec["ReturnValuesOnConditionCheckFailure"] = entry["ReturnValuesOnConditionCheckFailure"]
            items.append({plan.kind: spec})
            inserts.append(plan.kind == "Put")
        body["TransactItems"] = items
        if "ClientRequestToken" in request:
            body["ClientRequestToken"] = request["ClientRequestToken"]
        try:
            answer = engine.handle("TransactWriteItems", body)
        except TransactionCanceledException as error:
            raise TransactionCanceledException(_reasons(error.reasons, inserts)) from None
        response = {}
    if "ConsumedCapacity" in answer:
        response["ConsumedCapacity"] = answer["ConsumedCapacity"]
    return response


def _table_of(statement: Statement) -> str:
    return statement.select.table if isinstance(statement, Exists) else statement.table


def _transact_get(engine: Engine, select: Select, params: list[dict]) -> dict:
    if select.index is not None:
        raise invalid("Reads on indices are not supported within transactions.")
    plan = plan_select(select, require_table(engine, select.table), params)
    if plan.operation != "GetItem":
        raise invalid(
            "Select statements within ExecuteTransaction must specify the primary key in the where clause."
        )
    return plan.steps[0]


def _reasons(reasons: list[dict], inserts: list[bool]) -> list[dict]:
    """An INSERT's failed existence check is DynamoDB's DuplicateItem reason, not ConditionalCheckFailed."""
    return [
        {"Code": "DuplicateItem", "Message": DUPLICATE_ITEM}
        if insert and reason.get("Code") == "ConditionalCheckFailed"
        else reason
        for reason, insert in zip(reasons, inserts)
    ]


OPERATIONS = {
    "ExecuteStatement": execute_statement,
    "BatchExecuteStatement": batch_execute_statement,
    "ExecuteTransaction": execute_transaction,
}
