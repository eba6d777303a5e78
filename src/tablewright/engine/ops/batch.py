"""BatchGetItem and BatchWriteItem: many independent single-item requests in one call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import expressions as ex
from ..actions import Delete, Expressions, Put, key_from, new_item_sized
from ..capacity import Consumed, merge, read_units
from ..errors import ValidationException
from ..types import item_size
from .tables import require_table

if TYPE_CHECKING:
    from ..engine import Engine

MAX_BATCH_GET = 100
MAX_BATCH_WRITE = 25
MAX_RESPONSE_BYTES = 16 * 1024 * 1024


def _no_duplicates(keys: list[tuple]) -> None:
    if len(set(keys)) != len(keys):
        raise ValidationException("Provided list of item keys contains duplicates")


def batch_get_item(engine: Engine, request: dict) -> dict:
    requests = request["RequestItems"]
    total = sum(len(spec.get("Keys", [])) for spec in requests.values())
    if total > MAX_BATCH_GET:
        raise ValidationException("Too many items requested for the BatchGetItem call")
    if total == 0:
        raise ValidationException("The requestItems parameter must contain at least one key")
    plans = []
    for name, spec in requests.items():
        table = require_table(engine, name)
        expressions = Expressions.parse(spec, projection="ProjectionExpression")
        keys = [key_from(table, raw) for raw in spec["Keys"]]
        encoded = [table.encode_item_key(k, for_item=False) for k in keys]
        _no_duplicates(encoded)
        plans.append((name, table, spec, expressions, keys, encoded))
    responses: dict[str, list] = {}
    unprocessed: dict[str, Any] = {}
    consumed: list[Consumed] = []
    returned, full = 0, False
    with engine.store.read() as conn:
        for name, table, spec, expressions, keys, encoded in plans:
            items = responses.setdefault(name, [])
            charge = Consumed(table, "read")
            for key, key_bytes in zip(keys, encoded):
                item = None if full else engine.store.get(conn, table, key_bytes)
                size = item_size(item) if item else 0
                if full or returned + size > MAX_RESPONSE_BYTES:
                    # DynamoDB returns at most 16 MB; the rest comes back as UnprocessedKeys.
                    full = True
                    left = unprocessed.setdefault(
                        name, {k: v for k, v in spec.items() if k != "Keys"} | {"Keys": []}
                    )
                    left["Keys"].append(key)
                    continue
                charge.table_units += read_units(size, consistent=bool(spec.get("ConsistentRead")))
                if item is not None:
                    returned += size
                    items.append(
                        ex.project(expressions.projection, item, expressions.names)
                        if expressions.projection
                        else item
                    )
            consumed.append(charge)
    response: dict[str, Any] = {"Responses": responses, "UnprocessedKeys": unprocessed}
    rendered = merge(consumed, request.get("ReturnConsumedCapacity"))
    if rendered:
        response["ConsumedCapacity"] = rendered
    return response


def batch_write_item(engine: Engine, request: dict) -> dict:
    requests = request["RequestItems"]
    total = sum(len(entries) for entries in requests.values())
    if total > MAX_BATCH_WRITE:
        raise ValidationException("Too many items requested for the BatchWriteItem call")
    if total == 0:
        raise ValidationException("The requestItems parameter must contain at least one write request")
    actions = []
    for name, entries in requests.items():
        table = require_table(engine, name)
        none = Expressions(None, None)
        table_actions = []
        for entry in entries:
            if len(entry) != 1 or not ({"PutRequest", "DeleteRequest"} & entry.keys()):
                raise ValidationException(
                    f"A WriteRequest of table {name} must contain exactly one of PutRequest or DeleteRequest"
                )
            if "PutRequest" in entry:
                item, key, encoded, size = new_item_sized(table, entry["PutRequest"]["Item"])
                table_actions.append(
                    Put(engine, table, key, none, item=item, encoded_key=encoded, item_size=size)
                )
            else:
                table_actions.append(
                    Delete(engine, table, key_from(table, entry["DeleteRequest"]["Key"]), none)
                )
        _no_duplicates([a.encoded_key for a in table_actions])
        actions.extend(table_actions)
    # The writes are independent in DynamoDB; one SQLite transaction simply makes the batch fast.
    with engine.store.write() as conn:
        for action in actions:
            action.evaluate(conn)
        for action in actions:
            action.apply(conn)
    response: dict[str, Any] = {"UnprocessedItems": {}}
    rendered = merge([a.consumed for a in actions], request.get("ReturnConsumedCapacity"))
    if rendered:
        response["ConsumedCapacity"] = rendered
    return response


OPERATIONS = {"BatchGetItem": batch_get_item, "BatchWriteItem": batch_write_item}
