"""Reading and writing items through any DynamoDB client: parallel segmented scans and batched writes
with retry of ``UnprocessedItems`` under exponential back-off.

Items cross this boundary as Python values (``tablewright.export.wire`` is the one codec).
"""

from __future__ import annotations

import base64
import inspect
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from botocore.client import BaseClient

from ..export.wire import from_client, to_client
from .context import PlanFunctionError
from .steps import Item, Merge, Put

BATCH_LIMIT = 25  # BatchWriteItem: at most 25 put/delete requests
MAX_ATTEMPTS = 12


def scan_pages(
    client: Any, table: str, segment: int, total: int, start: dict[str, Any] | None, page_size: int
) -> Iterator[tuple[list[Item], dict[str, Any] | None]]:
    """Pages of one scan segment as ``(items, LastEvaluatedKey)``; the key is None on the last page."""
    request: dict[str, Any] = {
        "TableName": table,
        "Segment": segment,
        "TotalSegments": total,
        "Limit": page_size,
    }
    if start:
        request["ExclusiveStartKey"] = start
    while True:
        page = client.scan(**request)
        items = [decode(raw) for raw in page["Items"]]
        last = page.get("LastEvaluatedKey")
        yield items, _plain_key(last)
        if not last:
            return
        request["ExclusiveStartKey"] = last


def _plain_key(key: dict[str, Any] | None) -> dict[str, Any] | None:
    """A LastEvaluatedKey as JSON-storable wire form (binary values come back as bytes from boto3)."""
    if not key:
        return None
    return {
        name: {kind: base64.b64encode(v).decode() if isinstance(v, bytes) else v for kind, v in value.items()}
        for name, value in key.items()
    }


def start_key(stored: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored key back in the client's form (boto3 wants bytes for binary values)."""
    if not stored:
        return None
    return {
        name: {kind: base64.b64decode(v) if kind == "B" else v for kind, v in value.items()}
        for name, value in stored.items()
    }


def decode(raw: dict[str, Any]) -> Item:
    """An item from the client's wire form (numbers exactly as stored, integral ones as ``int``)."""
    return {k: from_client(v) for k, v in raw.items()}


def encode(item: Item) -> dict[str, Any]:
    """An item in the client's wire form (boto3 takes binary values as bytes)."""
    return {k: to_client(v) for k, v in item.items()}


def embedded_engine(client: Any) -> Any:
    """The in-process engine serving ``client`` (a ``tablewright.connect`` client), or None.

    A wrapper around a client (instrumentation, a test standing in for AWS's throttling) is not a
    botocore client: it keeps seeing every BatchWriteItem.
    """
    from .. import engine_of

    if not isinstance(client, BaseClient):
        return None
    try:
        return engine_of(client)
    except ValueError:
        return None


def _wire_binary(value: Any) -> str:
    return base64.b64encode(bytes(getattr(value, "value", value))).decode("ascii")


def to_wire(value: Any) -> Any:
    """A boto3-serialised item or value in DynamoDB's JSON wire form: binary values as base64 text."""
    if isinstance(value, dict):
        if len(value) == 1:
            ((kind, payload),) = value.items()
            if kind == "B" and not isinstance(payload, dict):
                return {"B": _wire_binary(payload)}
            if kind == "BS" and isinstance(payload, list):
                return {"BS": [_wire_binary(each) for each in payload]}
        return {name: to_wire(inner) for name, inner in value.items()}
    if isinstance(value, list):
        return [to_wire(each) for each in value]
    return value


class KeySchemas:
    """Key attribute names per table, from DescribeTable, cached (shared by threads)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self._cache: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def __call__(self, table: str) -> tuple[str, ...]:
        with self._lock:
            if table not in self._cache:
                schema = self.client.describe_table(TableName=table)["Table"]["KeySchema"]
                self._cache[table] = tuple(
                    k["AttributeName"] for k in sorted(schema, key=lambda k: k["KeyType"])
                )
            return self._cache[table]

    def key_of(self, table: str, item: Item) -> tuple:
        """The key values of an item (for de-duplication and comparison)."""
        names = self(table)
        missing = [n for n in names if n not in item]
        if missing:
            raise ValueError(
                f"item for table {table!r} lacks key attribute(s) {', '.join(missing)}: {item!r:.200}"
            )
        return tuple(repr(item[n]) for n in names)


def backoff(attempt: int, base: float = 0.05, cap: float = 5.0) -> float:
    """Full-jitter exponential back-off (AWS's recommendation) for the ``attempt``-th retry."""
    return random.uniform(0, min(cap, base * 2**attempt))


class Writer:
    """Puts in batches of 25 (retrying UnprocessedItems) and merges as UpdateItem; one per thread."""

    def __init__(self, client: Any, keys: KeySchemas, sleep: Callable[[float], None] = time.sleep) -> None:
        self.client = client
        self.keys = keys
        self.sleep = sleep
        self.retries = 0
        # The embedded engine takes puts through its bulk load (tablewright.engine.load_items); any other
        # endpoint (Amazon DynamoDB, a served engine, a wrapper around a client) gets BatchWriteItem.
        self.engine = embedded_engine(client)

    def _load(self, puts: list[Put]) -> None:
        """Puts through the embedded engine's bulk load, table by table; an item the engine refuses
        raises the ClientError BatchWriteItem would have raised."""
        from ..engine import DynamoDBError, load_items

        by_table: dict[str, list[dict[str, Any]]] = {}
        for put in puts:
            by_table.setdefault(put.table, []).append(to_wire(encode(put.item)))
        for table, items in by_table.items():
            try:
                load_items(self.engine, table, items)
            except DynamoDBError as error:
                response = {
                    "Error": {"Message": error.message, "Code": error.code},
                    "ResponseMetadata": {"HTTPStatusCode": error.status},
                }
                raise self.client.exceptions.from_code(error.code)(response, "BatchWriteItem") from None

    def write(self, writes: list[Put | Merge]) -> int:
        """Write everything and return how many writes were made; returns only when all are durable."""
        # Within one batch a key may appear once: the later put wins, as sequential puts would.
        puts: dict[tuple, Put] = {}
        for w in writes:
            if isinstance(w, Put):
                puts.pop((w.table, *self.keys.key_of(w.table, w.item)), None)
                puts[(w.table, *self.keys.key_of(w.table, w.item))] = w
        pending = list(puts.values())
        if self.engine is not None:
            self._load(pending)
        else:
            for start in range(0, len(pending), BATCH_LIMIT):
                self._batch(pending[start : start + BATCH_LIMIT])
        merges = [w for w in writes if isinstance(w, Merge)]
        for merge in merges:
            self._merge(merge)
        return len(pending) + len(merges)

    def _batch(self, puts: list[Put]) -> None:
        request: dict[str, list] = {}
        for put in puts:
            request.setdefault(put.table, []).append({"PutRequest": {"Item": encode(put.item)}})
        for attempt in range(MAX_ATTEMPTS):
            response = self.client.batch_write_item(RequestItems=request)
            request = response.get("UnprocessedItems") or {}
            if not request:
                return
            self.retries += 1
            self.sleep(backoff(attempt))
        raise RuntimeError(
            f"BatchWriteItem: items still unprocessed after {MAX_ATTEMPTS} attempts: {list(request)}"
        )

    def _merge(self, merge: Merge) -> None:
        names = self.keys(merge.table)
        key = {n: merge.item[n] for n in names}
        values = {k: v for k, v in merge.item.items() if k not in names}
        wire_key = encode(key)
        if not values:  # only a key: make sure the item exists
            self.client.update_item(TableName=merge.table, Key=wire_key)
            return
        placeholders = {f"#a{i}": name for i, name in enumerate(values)}
        expression = "SET " + ", ".join(f"#a{i} = :v{i}" for i in range(len(values)))
        self.client.update_item(
            TableName=merge.table,
            Key=wire_key,
            UpdateExpression=expression,
            ExpressionAttributeNames=placeholders,
            ExpressionAttributeValues=encode({f":v{i}": v for i, v in enumerate(values.values())}),
        )


def outputs(result: Any, target: str) -> list[Put | Merge]:
    """A transform's result as writes: None drops, a dict is put to ``target``, a ``Put`` or
    ``Merge`` is that write, a list holds items, ``(table, item)`` pairs or ``Put``/``Merge``."""
    if result is None:
        return []
    if isinstance(result, dict):
        return [Put(target, result)]
    if isinstance(result, (Put, Merge)):  # one write, returned bare rather than in a list
        return [result]
    if not isinstance(result, list | tuple):
        raise TypeError(
            f"transform returned {result!r:.100}: expected None, an item, a Put or Merge, or a list of them"
        )
    writes: list[Put | Merge] = []
    for entry in result:
        if isinstance(entry, (Put, Merge)):
            writes.append(entry)
        elif isinstance(entry, tuple) and len(entry) == 2:
            writes.append(Put(entry[0], entry[1]))
        elif isinstance(entry, dict):
            writes.append(Put(target, entry))
        else:
            raise TypeError(
                f"transform returned {entry!r:.100}: expected an item, (table, item), Put or Merge"
            )
    return writes


class Lookup:
    """Read-only GetItem access to a copy's source, for transforms that need a neighbour item.

    A transform declared with two parameters, ``transform(item, source)``, gets one. The source is
    not written during a copy, so a transform that reads it stays deterministic.
    """

    def __init__(self, client: Any, table: str) -> None:
        self.client = client
        self.table = table

    def get(self, key: Item) -> Item | None:
        """The source item with this key, or None."""
        found = self.client.get_item(TableName=self.table, Key=encode(key), ConsistentRead=True).get("Item")
        return decode(found) if found else None


def bind_transform(client: Any, table: str, transform: Callable[..., Any] | None) -> Callable[[Item], Any]:
    """The step's transform as ``item -> result`` (identity when None; a source Lookup bound if it takes two)."""
    if transform is None:
        return lambda item: item
    try:
        arity = len(inspect.signature(transform).parameters)
    except (TypeError, ValueError):
        arity = 1
    if arity >= 2:
        lookup = Lookup(client, table)
        return guarded(lambda item: transform(item, lookup), "transform", transform)
    return guarded(transform, "transform", transform)


def guarded(call: Callable[[Item], Any], role: str, function: Callable[..., Any]) -> Callable[[Item], Any]:
    """``call`` with what it raises turned into a PlanFunctionError naming ``function`` (the plan's
    own code) and the item, so that the step fails instead of the run ending in a traceback."""
    name = getattr(function, "__qualname__", repr(function))

    def checked(item: Item) -> Any:
        try:
            return call(item)
        except Exception as error:  # noqa: BLE001 - the plan's code may raise anything
            shown = repr(item)
            shown = shown if len(shown) <= 200 else shown[:197] + "..."
            raise PlanFunctionError(
                f"the plan's {role} {name} raised {type(error).__name__}: {error} (item {shown})"
            ) from error

    return checked
