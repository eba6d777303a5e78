"""Single-item operations: PutItem, GetItem, UpdateItem, DeleteItem."""

from __future__ import annotations

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
from ..expressions.projections import project_paths
from ..expressions.resolve import Scope
from ..types import validate_item_sized
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
    if len(request) == 2 and not table.indexes and not table.stream_view_type:
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
        expressions.condition is None
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
