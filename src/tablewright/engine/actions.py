"""Write actions shared by the single-item operations and TransactWriteItems.

Each action is prepared from its request outside the database (validation, parsing), then inside one
write transaction it is *evaluated* (reads the stored item, checks its condition, computes the new
item) and finally *applied* (stores it, maintains indexes, appends a stream record). Splitting the two
steps is what lets a transaction check every condition before it writes anything.
"""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from . import expressions as ex
from .capacity import Consumed
from .catalog import TableMeta
from .errors import (
    ConditionalCheckFailedException,
    ItemCollectionSizeLimitExceededException,
    ResourceNotFoundException,
    StaleDefinition,
    ValidationException,
)
from .types import Item, equal, invalid, validate_item, validate_item_sized

if TYPE_CHECKING:
    from .engine import Engine

RETURN_VALUES = {
    "PutItem": {"NONE", "ALL_OLD"},
    "DeleteItem": {"NONE", "ALL_OLD"},
    "UpdateItem": {"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"},
}
# Every field that parse() may read: a request with none of them has no expressions.
EXPRESSION_FIELDS = frozenset(
    {
        "ConditionExpression",
        "UpdateExpression",
        "ProjectionExpression",
        "KeyConditionExpression",
        "FilterExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
    }
)


@dataclass
class Expressions:
    """The parsed expressions of one request, with its placeholder maps, checked for unused placeholders."""

    names: dict[str, str] | None
    values: dict[str, Any] | None
    condition: Any = None
    update: Any = None
    projection: Any = None
    key_condition: Any = None
    scope: Any = None

    @classmethod
    def parse(cls, request: dict, **parsers: str) -> Expressions:
        """Parse the request's expression fields; ``parsers`` maps an attribute of this class to a field name."""
        if EXPRESSION_FIELDS.isdisjoint(request):
            return _NONE
        names = request.get("ExpressionAttributeNames")
        raw_values = request.get("ExpressionAttributeValues")
        texts = {attribute: request.get(field_name) for attribute, field_name in parsers.items()}
        if all(text is None for text in texts.values()):  # "" is an expression, and an invalid one
            if names is not None:
                raise ValidationException(
                    "ExpressionAttributeNames can only be specified when using expressions"
                )
            if raw_values is not None:
                raise ValidationException(_values_without_expressions(parsers.values()))
            return _NONE
        for key, name in (names or {}).items():
            if name == "":  # DynamoDB's check of the map's values, before any expression is parsed
                raise ValidationException(
                    f"ExpressionAttributeNames contains invalid value: Empty attribute name for key {key}"
                )
        values = validate_item(raw_values, "ExpressionAttributeValues") if raw_values else raw_values
        parsed = cls(names, values)
        for attribute, text in texts.items():
            if text is not None:
                setattr(parsed, attribute, _PARSERS[attribute](text, parsers[attribute]))
        present = [
            e
            for e in (parsed.condition, parsed.update, parsed.projection, parsed.key_condition)
            if e is not None
        ]
        ex.check_placeholders(present, names, values)
        if parsed.condition is not None:
            parsed.scope = ex.check_condition(parsed.condition, names, values)
        if parsed.projection is not None:
            ex.check_projection(parsed.projection, names)
        return parsed

    def check(self, item: Item) -> bool:
        """Whether an item satisfies the condition (or filter); True without one."""
        return self.condition is None or ex.evaluate_in_scope(self.condition, item, self.scope)


_NONE = Expressions(None, None)
# The expressions that could use values, in the order DynamoDB names them when none is given.
_VALUE_EXPRESSIONS = ("UpdateExpression", "ConditionExpression", "FilterExpression", "KeyConditionExpression")


def _values_without_expressions(fields: Any) -> str:
    """DynamoDB's message for ExpressionAttributeValues in a request without any expression using them."""
    given = set(fields)
    missing = [name for name in _VALUE_EXPRESSIONS if name in given]
    message = "ExpressionAttributeValues can only be specified when using expressions"
    if not missing:
        return message
    return f"{message}: {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} null"


_PARSERS = {
    "condition": lambda text, kind: ex.parse_condition(text, kind),
    "update": lambda text, kind: ex.parse_update(text),
    "projection": lambda text, kind: ex.parse_projection(text),
    "key_condition": lambda text, kind: ex.parse_key_condition(text),
}


@dataclass
class Action:
    """One write to one item; subclasses say how the new item is computed."""

    engine: Engine
    table: TableMeta
    key: Item
    expressions: Expressions
    return_on_failure: str = "NONE"
    transactional: bool = False
    encoded_key: tuple[int, bytes, bytes] | None = None
    old: Item | None = None
    new: Item | None = None
    old_size: int = 0
    size: int = 0
    collection_size: int | None = None
    # Capacity is computed only when someone asks (ReturnConsumedCapacity): the charges are recorded
    # as (old, new, old size, new size) and turned into units, index writes included, on first access.
    _consumed: Consumed | None = field(default=None, init=False, repr=False)
    _charges: list[tuple[Item | None, Item | None, int, int]] = field(
        default_factory=list, init=False, repr=False
    )

    def __post_init__(self) -> None:
        if self.encoded_key is None:
            self.encoded_key = self.table.encode_item_key(self.key, for_item=False)

    @property
    def consumed(self) -> Consumed:
        """The capacity this action consumed (on its table and each index)."""
        if self._consumed is None:
            self._consumed = Consumed(self.table, "write")
        for old, new, old_size, new_size in self._charges:
            self._consumed.write(old, new, old_size, new_size, transactional=self.transactional)
        self._charges.clear()
        return self._consumed

    # evaluate() may raise ConditionalCheckFailedException; it writes nothing.
    def evaluate(self, conn: sqlite3.Connection) -> None:
        self._check_table_unchanged()
        self._evaluate_on(self.engine.store.stored_row(conn, self.table, self.encoded_key))

    def _evaluate_on(self, row: tuple[bytes, int] | None) -> None:
        """:meth:`evaluate` on the stored row read (its JSON bytes and size, or None)."""
        self.old, self.old_size = (orjson.loads(row[0]), row[1]) if row else (None, 0)
        if not self.expressions.check(self.old or {}):
            self._charges.append((self.old, self.old, self.old_size, self.old_size))
            failed_item = self.old if self.return_on_failure == "ALL_OLD" else None
            raise ConditionalCheckFailedException(item=failed_item)
        self.new = self.compute(self.old)
        self.size = self.measure(self.new) if self.new is not None else 0

    def _check_table_unchanged(self) -> None:
        """The request was prepared against a table definition read before the write lock was taken;
        another process may have dropped or redefined the table since."""
        current = self.engine.store.table(self.table.name)
        if current is None:
            raise ResourceNotFoundException(
                f"Requested resource not found: Table: {self.table.name} not found"
            )
        if current is not self.table:
            raise StaleDefinition(self.table.name)

    def compute(self, old: Item | None) -> Item | None:
        raise NotImplementedError

    def measure(self, new: Item) -> int:
        """Check the new item against the table (keys, index keys, size limit); return its size."""
        return self.table.check_item(new)

    def apply(self, conn: sqlite3.Connection) -> None:
        store, table = self.engine.store, self.table
        self._charges.append((self.old, self.new, self.old_size, self.size))
        if self.new is None:
            if self.old is not None:
                store.delete(conn, table, self.encoded_key, self.old)
        else:
            store.put(conn, table, self.encoded_key, self.new, self.size, self.old)
            if table.has_local_indexes:
                self._check_collection(conn)
        if table.stream_view_type:
            record = stream_record(self.engine, table, self.key, self.old, self.new)
            if record is not None:
                store.append_stream(conn, table, record)

    def _check_collection(self, conn: sqlite3.Connection) -> None:
        """Tables with LSIs cap each item collection (10 GB in DynamoDB); the write is undone above it."""
        h, pk, _ = self.encoded_key
        self.collection_size = self.engine.store.collection_size(conn, self.table, h, pk)
        if self.collection_size > self.engine.item_collection_limit:
            raise ItemCollectionSizeLimitExceededException(
                "Collection size exceeded: the item collection of partition key "
                f"{self.table.key.hash_name} has reached the size limit"
            )

    def collection_metrics(self) -> dict[str, Any] | None:
        """ItemCollectionMetrics for ReturnItemCollectionMetrics=SIZE on a table with LSIs."""
        if not self.table.has_local_indexes or self.collection_size is None:
            return None
        gigabytes = self.collection_size / 1024**3
        return {
            "ItemCollectionKey": {self.table.key.hash_name: self.key[self.table.key.hash_name]},
            "SizeEstimateRangeGB": [round(gigabytes, 6), round(gigabytes + 1, 6)],
        }

    def run(self) -> None:
        """Evaluate and apply as one atomic write (the single-item operations)."""
        store = self.engine.store
        if store.crowded():
            self._run_read_ahead()
            return
        with store.write() as conn:
            self.evaluate(conn)
            self.apply(conn)

    def _run_read_ahead(self) -> None:
        """:meth:`run` for crowded writers (other processes got in the way lately): evaluate on the item
        read before the write lock, and under the lock only confirm that its stored bytes are unchanged.

        Evaluation (decoding, the condition, the update, the size) is most of a conditional write's
        work; done under the lock it kept the writers admitted at once, one per core, waiting for each
        other. Now the lock covers a read, a comparison and the write. Equal bytes are an equal item, so
        the result is the one an evaluation under the lock would give; a changed item is evaluated
        again under the lock. A condition that fails on the item read fails there, as of that read,
        which a request in flight may see (DynamoDB's own reads and writes order the same way).
        """
        store, table, key = self.engine.store, self.table, self.encoded_key
        seen = store.single_stored_row(table, key)
        self._evaluate_on(seen)
        with store.write() as conn:
            self._check_table_unchanged()
            now = store.stored_row(conn, table, key)
            if now != seen:
                self._evaluate_on(now)
            self.apply(conn)


@dataclass
class Put(Action):
    item: Item = field(default_factory=dict)
    item_size: int | None = None  # measured while validating the request

    def compute(self, old: Item | None) -> Item | None:
        return self.item

    def measure(self, new: Item) -> int:
        return self.table.check_item(new, self.item_size)


@dataclass
class Delete(Action):
    def compute(self, old: Item | None) -> Item | None:
        return None


@dataclass
class Update(Action):
    def compute(self, old: Item | None) -> Item | None:
        base = dict(old) if old is not None else dict(self.key)
        if self.expressions.update is None:
            return base
        if old is None and all(a.clause == "REMOVE" for a in self.expressions.update.actions):
            # DynamoDB creates nothing when an update of a missing item only removes attributes
            # (UpdateExpression REMOVE, or AttributeUpdates DELETE without a Value): no item, no record.
            return None
        new = ex.apply_update(
            self.expressions.update,
            base,
            self.expressions.names,
            self.expressions.values,
            key_names=tuple(self.table.key.names),
        )
        for name in self.table.key.names:
            if name not in new or not equal(new[name], self.key[name]):
                raise invalid(f"Cannot update attribute {name}. This attribute is part of the key")
        return new


@dataclass
class ConditionCheck(Action):
    """Checks a condition and writes nothing (TransactWriteItems' ConditionCheck)."""

    def compute(self, old: Item | None) -> Item | None:
        return old

    def apply(self, conn: sqlite3.Connection) -> None:
        self.consumed.table_units += 2.0 if self.transactional else 1.0


def stream_record(
    engine: Engine, table: TableMeta, key: Item, old: Item | None, new: Item | None
) -> dict | None:
    """A DynamoDB Streams record for a change, or None when nothing changed (DynamoDB writes none)."""
    if old is None and new is None:
        return None
    if old is not None and new is not None and _same(old, new):
        return None
    view = table.stream_view_type
    event = "INSERT" if old is None else "REMOVE" if new is None else "MODIFY"
    body: dict[str, Any] = {"Keys": key, "StreamViewType": view}
    if view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES") and new is not None:
        body["NewImage"] = new
    if view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES") and old is not None:
        body["OldImage"] = old
    return {
        "eventID": uuid.uuid4().hex,
        "eventName": event,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": engine.region,
        "dynamodb": body,
    }


def _same(left: Item, right: Item) -> bool:
    return left.keys() == right.keys() and all(equal(left[k], right[k]) for k in left)


def new_item_sized(table: TableMeta, raw: Any) -> tuple[Item, Item, tuple[int, bytes, bytes], int]:
    """Validate an item from a request; return it with its primary key, encoded key and size (measured in
    the same walk as the validation)."""
    item, size = validate_item_sized(raw)
    encoded = table.encode_item_key(item, for_item=True)
    return item, table.key_of(item), encoded, size


def key_from(table: TableMeta, raw: Any) -> Item:
    """Validate a Key map from a request (its match with the key schema is checked when it is encoded)."""
    return validate_item(raw, "key")


def check_return_values(operation: str, request: dict) -> str:
    value = request.get("ReturnValues", "NONE")
    if value not in RETURN_VALUES[operation]:
        raise ValidationException("Return values set to invalid value")
    return value
