"""BatchGetItem and BatchWriteItem: many independent single-item requests in one call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import expressions as ex
from ..actions import Action, Delete, Expressions, Put, key_from, new_item_sized
from ..capacity import Consumed, merge, read_units
from ..catalog import TableMeta
from ..errors import StaleDefinition, ValidationException
from ..storage import item_row
from ..types import Item, item_size, validate_loaded_item_sized
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
    # Entries in request order: general Actions, or, on tables whose writes are blind, plain rows
    # written by one executemany per table (BlindPut, BlindDelete).
    plan: list[Action | BlindPut | BlindDelete] = []
    blind_tables: list[TableMeta] = []
    for name, entries in requests.items():
        table = require_table(engine, name)
        blind = engine.fast_writes and table.blind_writes
        if blind:
            blind_tables.append(table)
        none = Expressions(None, None)
        table_plan: list[Action | BlindPut | BlindDelete] = []
        for entry in entries:
            if len(entry) != 1 or not ({"PutRequest", "DeleteRequest"} & entry.keys()):
                raise ValidationException(
                    f"A WriteRequest of table {name} must contain exactly one of PutRequest or DeleteRequest"
                )
            if "PutRequest" in entry and blind:  # the item is only serialised: see validate_loaded_item_sized
                item, size = validate_loaded_item_sized(entry["PutRequest"]["Item"])
                table_plan.append(BlindPut(table, table.encode_item_key(item, for_item=True), item, size))
            elif "PutRequest" in entry:
                item, key, encoded, size = new_item_sized(table, entry["PutRequest"]["Item"])
                table_plan.append(
                    Put(engine, table, key, none, item=item, encoded_key=encoded, item_size=size)
                )
            elif blind:
                _, encoded = table.key_and_encoding(entry["DeleteRequest"]["Key"])
                table_plan.append(BlindDelete(table, encoded))
            else:
                table_plan.append(Delete(engine, table, key_from(table, entry["DeleteRequest"]["Key"]), none))
        _no_duplicates([a.encoded_key for a in table_plan])
        plan.extend(table_plan)
    mode = request.get("ReturnConsumedCapacity")
    measured = mode in ("TOTAL", "INDEXES")
    # The writes are independent in DynamoDB; one SQLite transaction simply makes the batch fast.
    with engine.store.write() as conn:
        for table in blind_tables:
            if engine.store.table(table.name) is not table:  # redefined since the request was prepared
                raise StaleDefinition(table.name)
        for entry in plan:  # every check before any write, in request order, as the general path does
            if entry.__class__ is BlindPut:
                entry.table.check_item(entry.item, entry.size)
            elif entry.__class__ is not BlindDelete:
                entry.evaluate(conn)
        if measured:  # capacity is charged on the larger of the old and new item: read the old sizes
            for entry in plan:
                if entry.__class__ is BlindPut or entry.__class__ is BlindDelete:
                    entry.old_size = engine.store.stored_size(conn, entry.table, entry.encoded_key)
        for entry in plan:
            if entry.__class__ is not BlindPut and entry.__class__ is not BlindDelete:
                entry.apply(conn)
        for table in blind_tables:
            engine.store.put_rows(
                conn, table, [e.row() for e in plan if e.__class__ is BlindPut and e.table is table]
            )
            engine.store.delete_rows(
                conn, table, [e.encoded_key for e in plan if e.__class__ is BlindDelete and e.table is table]
            )
    response: dict[str, Any] = {"UnprocessedItems": {}}
    if measured:
        response["ConsumedCapacity"] = merge([e.consumed for e in plan], mode)
    return response


class BlindPut:
    """A PutRequest on a table whose writes are blind: the row it stores, measured and keyed."""

    __slots__ = ("table", "encoded_key", "item", "size", "old_size")

    def __init__(
        self, table: TableMeta, encoded_key: tuple[int, bytes, bytes], item: Item, size: int
    ) -> None:
        self.table, self.encoded_key, self.item, self.size, self.old_size = table, encoded_key, item, size, 0

    def row(self) -> tuple:
        return item_row(self.encoded_key, self.size, self.item)

    @property
    def consumed(self) -> Consumed:
        charge = Consumed(self.table, "write")
        charge.write(None, None, self.old_size, self.size)  # no index: the images are not needed
        return charge


class BlindDelete:
    """A DeleteRequest on a table whose writes are blind."""

    __slots__ = ("table", "encoded_key", "old_size")

    def __init__(self, table: TableMeta, encoded_key: tuple[int, bytes, bytes]) -> None:
        self.table, self.encoded_key, self.old_size = table, encoded_key, 0

    @property
    def consumed(self) -> Consumed:
        charge = Consumed(self.table, "write")
        charge.write(None, None, self.old_size, 0)
        return charge


OPERATIONS = {"BatchGetItem": batch_get_item, "BatchWriteItem": batch_write_item}
