"""Single-item operations: PutItem, GetItem, UpdateItem, DeleteItem."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import expressions as ex
from ..actions import (
    Delete,
    Expressions,
    Put,
    Update,
    check_return_values,
)
from ..capacity import Consumed, read_units
from ..encoded import EncodedItem
from ..errors import StaleDefinition
from ..expressions.projections import project_paths
from ..expressions.resolve import Scope
from ..types import plain_item_sized, validate_item_sized
from ..validation import member_validator
from .tables import require_table

if TYPE_CHECKING:
    from ..actions import Action
    from ..engine import Engine


def _respond(action: Action, request: dict, attributes: dict | None) -> dict[str, Any]:
    response: dict[str, Any] = {}
    if attributes:
        response["Attributes"] = attributes
    mode = request.get("ReturnConsumedCapacity")
    if mode in ("TOTAL", "INDEXES"):  # capacity is computed only when asked for
        response["ConsumedCapacity"] = action.consumed.render(mode)
    if request.get("ReturnItemCollectionMetrics") == "SIZE":
        metrics = action.collection_metrics()
        if metrics:
            response["ItemCollectionMetrics"] = metrics
    return response


def put_item(engine: Engine, request: dict) -> dict:
    catalog_version = engine.store.catalog_version  # before the lookup: see Store.put_blind
    table = require_table(engine, request["TableName"])
    if engine.fast_writes and len(request) == 2 and not table.indexes and not table.stream_view_type:
        # Only TableName and Item (both required, nulls already dropped): no condition, nothing to
        # return, so nothing reads the replaced item; the checks below would all pass.
        item, size = validate_item_sized(request["Item"])
        encoded = table.encode_item_key(item, for_item=True)
        engine.store.put_blind(table, catalog_version, encoded, item, table.check_item(item, size))
        return {}
    returns = check_return_values("PutItem", request)
    item, size = validate_item_sized(request["Item"])
    encoded = table.encode_item_key(item, for_item=True)
    expressions = Expressions.parse(request, condition="ConditionExpression")
    blind = (  # nothing reads the replaced item: the commonest write, done in one statement
        engine.fast_writes
        and expressions.condition is None
        and returns == "NONE"
        and request.get("ReturnConsumedCapacity", "NONE") == "NONE"
        and not table.indexes
        and not table.stream_view_type
    )
    if blind:
        engine.store.put_blind(table, catalog_version, encoded, item, table.check_item(item, size))
        return {}
    action = Put(
        engine,
        table,
        table.key_of(item),
        expressions,
        request.get("ReturnValuesOnConditionCheckFailure", "NONE"),
        encoded_key=encoded,
        item=item,
        item_size=size,
    )
    action.run()
    return _respond(action, request, action.old if returns == "ALL_OLD" else None)


_table_name_valid: Callable[[Any], bool] | None = None  # PutItem's TableName check, compiled on first use


def put_item_shortcut(engine: Engine, request: Any) -> dict | None:
    """PutItem of only TableName and Item into a table without indexes or stream, the commonest write:
    what the engine answers, or ``None`` (nothing done) for any other request or when anything is
    wrong with it, which the general path (request validation, then :func:`put_item`) then answers.

    The general path walks the item twice, checking its wire JSON types with the request, then
    validating it; here :func:`~tablewright.engine.types.plain_item_sized` does both in one walk. Once
    the table name and the item have passed, the general path would run the same calls as below,
    so their errors (a key attribute missing, an item too large) are its errors.
    """
    global _table_name_valid
    if request.__class__ is not dict or len(request) != 2 or not engine.fast_writes:
        return None
    name = request.get("TableName")
    if name.__class__ is not str:
        return None
    if _table_name_valid is None:
        _table_name_valid = member_validator("PutItem", "TableName")
    store = engine.store
    catalog_version = store.catalog_version  # before the lookup: see Store.put_blind
    table = store.table(name)
    if table is None or not table.blind_writes or not _table_name_valid(name):
        return None
    plain = plain_item_sized(request.get("Item"))
    if plain is None:
        return None
    item, size = plain
    encoded = table.encode_item_key(item, for_item=True)
    try:
        store.put_blind(table, catalog_version, encoded, item, table.check_item(item, size))
    except StaleDefinition:  # the table was redefined meanwhile: nothing was written
        return None
    except sqlite3.OperationalError as error:  # dropped by another process: the general path refreshes
        if "no such table" in str(error):
            return None
        raise
    return {}


def get_item_shortcut(engine: Engine, request: Any) -> dict | None:
    """GetItem of only TableName and Key, the key in its common shapes (ASCII S or canonical N values):
    the stored item, undecoded, as :func:`get_item` answers it; ``None`` (nothing read) for any other
    request, or anything wrong with it, which the general path (request validation, then
    :func:`get_item`) then answers, errors included.

    A well-formed key passes request validation, so that walk of the request is skipped; the key is
    checked and encoded in one pass (``TableMeta.plain_key_and_encoding``).
    """
    if request.__class__ is not dict or len(request) != 2 or not engine.fast_reads:
        return None
    name = request.get("TableName")
    if name.__class__ is not str:
        return None
    store = engine.store
    table = store.table(name)  # a name that finds a table is valid: CreateTable checked it
    if table is None:
        return None
    plain = table.plain_key_and_encoding(request.get("Key"))
    if plain is None:
        return None
    try:
        stored = store.fetch_single_encoded(table, plain[1])
    except sqlite3.OperationalError as error:  # dropped by another process: the general path refreshes
        if "no such table" in str(error):
            return None
        raise
    return {} if stored is None else {"Item": EncodedItem(stored)}


def delete_item(engine: Engine, request: dict) -> dict:
    table = require_table(engine, request["TableName"])
    returns = check_return_values("DeleteItem", request)
    key, encoded = table.key_and_encoding(request["Key"])
    action = Delete(
        engine,
        table,
        key,
        Expressions.parse(request, condition="ConditionExpression"),
        request.get("ReturnValuesOnConditionCheckFailure", "NONE"),
        encoded_key=encoded,
    )
    action.run()
    return _respond(action, request, action.old if returns == "ALL_OLD" else None)


def update_item(engine: Engine, request: dict) -> dict:
    table = require_table(engine, request["TableName"])
    returns = check_return_values("UpdateItem", request)
    expressions = Expressions.parse(request, condition="ConditionExpression", update="UpdateExpression")
    key, encoded = table.key_and_encoding(request["Key"])
    action = Update(
        engine,
        table,
        key,
        expressions,
        request.get("ReturnValuesOnConditionCheckFailure", "NONE"),
        encoded_key=encoded,
    )
    action.run()
    return _respond(action, request, _returned(returns, action, expressions))


def _returned(returns: str, action: Update, expressions: Expressions) -> dict | None:
    if returns == "ALL_OLD":
        return action.old
    if returns == "ALL_NEW":
        return action.new
    if returns in ("UPDATED_OLD", "UPDATED_NEW") and expressions.update is not None:
        source = (action.old or {}) if returns == "UPDATED_OLD" else (action.new or {})
        # DynamoDB returns exactly the document paths the actions touched, nested ones included.
        scope = Scope(expressions.update.kind, expressions.names, None)
        paths = [scope.path(action.path) for action in expressions.update.actions]
        return project_paths(paths, source) or None
    return None


def get_item(engine: Engine, request: dict) -> dict:
    table = require_table(engine, request["TableName"])
    if len(request) == 2:  # only TableName and Key (both required): no projection, no capacity
        # The item as stored goes out undecoded (Engine.handle decodes it unless encoded=True).
        stored = engine.store.fetch_single_encoded(table, table.key_and_encoding(request["Key"])[1])
        return {} if stored is None else {"Item": EncodedItem(stored)}
    expressions = Expressions.parse(request, projection="ProjectionExpression")
    _, encoded = table.key_and_encoding(request["Key"])
    row = engine.store.fetch_single(table, encoded)
    response: dict[str, Any] = {}
    if row is not None:
        item = row[0]
        response["Item"] = (
            ex.project(expressions.projection, item, expressions.names) if expressions.projection else item
        )
    mode = request.get("ReturnConsumedCapacity")
    if mode in ("TOTAL", "INDEXES"):
        units = read_units(row[1] if row else 0, consistent=bool(request.get("ConsistentRead")))
        response["ConsumedCapacity"] = Consumed(table, "read", units).render(mode)
    return response


OPERATIONS = {"PutItem": put_item, "GetItem": get_item, "UpdateItem": update_item, "DeleteItem": delete_item}
# Tried before request validation; an answer of None sends the request down the general path.
SHORTCUTS = {"PutItem": put_item_shortcut, "GetItem": get_item_shortcut}
