"""Bulk loading: a data set into one table at close to SQLite's own insert speed.

:func:`load_items` stores every item exactly as a PutItem without a condition would (same validation
and errors, same normalised item, size, index entries, stream records and point-in-time history), but
in large transactions and, where nothing needs the replaced item, one ``executemany`` per transaction:

* **fast path** - a table without secondary indexes and without a stream. A put there needs nothing of
  the item it replaces, so each item is validated in one walk (:func:`~.types.validate_item_sized`
  normalises and measures together), its key encoded, and the rows of a transaction go to SQLite in one
  statement. Point-in-time recovery's before-images are taken by SQLite triggers on the table
  (engine/snapshots.py), so they are kept on this path too.
* **general path** - a table with indexes or a stream. Index entries are maintained from the replaced
  item and stream records are built from both images, so each item is read and written as PutItem does
  (:class:`~.actions.Put`), still many items per transaction. :attr:`LoadResult.path` says which path
  a load took and why.

Items of one load may repeat a key: the later one wins, as sequential PutItem calls would.
This is an engine API: ImportTable, ``tablewright migrate`` and the runtime's sample-data loading use
it when their client is the embedded engine, and plain BatchWriteItem against any other endpoint.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .actions import Expressions, Put
from .catalog import TableMeta
from .errors import (
    AccessDeniedException,
    DynamoDBError,
    InternalServerError,
    ResourceNotFoundException,
    StaleDefinition,
    ThrottlingException,
)
from .storage import is_lock_timeout, item_row
from .types import validate_loaded_item_sized

if TYPE_CHECKING:
    from .engine import Engine

# Items per write transaction. Larger amortises the commit further but holds the write lock longer
# against other writers of the file; 500 items hold it ~5-10 ms.
TRANSACTION_ITEMS = 500

OnError = Callable[[int, Any, DynamoDBError], None]
"""Told ``(position in the input, the raw item, the error)`` for an item that was not stored."""


@dataclass
class LoadResult:
    """What a load did: items stored and refused, and which path it took."""

    loaded: int = 0
    rejected: int = 0
    path: str = "fast"  # "fast", or "general (<why>)"


def load_items(
    engine: Engine,
    table_name: str,
    items: Iterable[Any],
    *,
    on_error: OnError | None = None,
    on_progress: Callable[[int], None] | None = None,
    transaction_items: int = TRANSACTION_ITEMS,
) -> LoadResult:
    """Put every wire-form item of ``items`` into ``table_name``, as PutItem would, in bulk.

    An item that PutItem would refuse (invalid value, wrong key type, too large, ...) raises its
    ValidationException, with the transaction it was in not written (earlier ones are); with
    ``on_error`` it is reported there instead and the load goes on. ``on_progress(n)`` is told after
    each committed transaction of ``n`` items (stored and refused). Lock timeouts raise
    ThrottlingException, as every other write does.
    """
    if engine.read_only:
        raise AccessDeniedException(
            f"This database is open read-only ({engine.store.path}): a bulk load is not allowed"
        )
    table = _table(engine, table_name)
    result = LoadResult(path=_path_of(engine, table))
    chunk: list[tuple[int, Any]] = []
    try:
        for position, raw in enumerate(items):
            chunk.append((position, raw))
            if len(chunk) >= transaction_items:
                _load_chunk(engine, table_name, chunk, result, on_error)
                if on_progress is not None:
                    on_progress(len(chunk))
                chunk = []
        if chunk:
            _load_chunk(engine, table_name, chunk, result, on_error)
            if on_progress is not None:
                on_progress(len(chunk))
    except sqlite3.OperationalError as error:
        if is_lock_timeout(error):
            from .engine import lock_timeout_message  # the engine's own words; engine.py imports the ops

            raise ThrottlingException(lock_timeout_message(engine.store.lock_timeout)) from error
        raise InternalServerError(f"The storage could not complete the bulk load: {error}") from error
    return result


def _table(engine: Engine, name: str) -> TableMeta:
    engine.store.refresh()
    table = engine.store.table(name)
    if table is None:
        raise ResourceNotFoundException(f"Requested resource not found: Table: {name} not found")
    return table


def _path_of(engine: Engine, table: TableMeta) -> str:
    if engine.fast_writes and table.blind_writes:
        return "fast"
    reasons = []
    if table.indexes:
        reasons.append("secondary indexes are maintained from the replaced item")
    if table.stream_view_type:
        reasons.append("stream records carry the replaced item")
    if not engine.fast_writes:
        reasons.append("fast writes are switched off")
    return f"general ({'; '.join(reasons)})"


def _load_chunk(
    engine: Engine, name: str, chunk: list[tuple[int, Any]], result: LoadResult, on_error: OnError | None
) -> None:
    """Validate and store one transaction's items; prepared again if the table was redefined meanwhile.
    Refused items are told to ``on_error`` once the transaction committed (never twice on a retry)."""
    for _attempt in range(3):
        table = _table(engine, name)
        refused: list[tuple[int, Any, DynamoDBError]] = []
        prepared = _prepare(table, chunk, refused, raising=on_error is None)
        try:
            with engine.store.write() as conn:
                if engine.store.table(name) is not table:
                    raise StaleDefinition(name)
                if engine.fast_writes and table.blind_writes:
                    engine.store.put_rows(
                        conn, table, [item_row(key, size, item) for _, _, item, key, size in prepared]
                    )
                else:
                    _put_each(engine, conn, table, prepared, refused, raising=on_error is None)
        except StaleDefinition:
            continue
        result.loaded += len(chunk) - len(refused)
        result.rejected += len(refused)
        refused.sort(key=lambda entry: entry[0])  # in input order, wherever each was refused
        for position, raw, error in refused:
            on_error(position, raw, error)  # type: ignore[misc]  # refused is empty without on_error
        return
    raise InternalServerError(f"Table {name} was redefined three times during a bulk load; load again")


Prepared = tuple[int, Any, dict, tuple[int, bytes, bytes], int]  # position, raw, item, encoded key, size
Refused = list[tuple[int, Any, DynamoDBError]]  # position, raw item, why


def _prepare(
    table: TableMeta, chunk: list[tuple[int, Any]], refused: Refused, *, raising: bool
) -> list[Prepared]:
    """Each item validated, normalised, measured and keyed, in one walk; refused ones raised or collected."""
    prepared: list[Prepared] = []
    encode_key, check = table.encode_item_key, table.check_item
    for position, raw in chunk:
        try:
            item, size = validate_loaded_item_sized(raw)
            key = encode_key(item, for_item=True)
            size = check(item, size)
        except DynamoDBError as error:
            if raising:
                raise
            refused.append((position, raw, error))
            continue
        prepared.append((position, raw, item, key, size))
    return prepared


def _put_each(
    engine: Engine,
    conn: sqlite3.Connection,
    table: TableMeta,
    prepared: list[Prepared],
    refused: Refused,
    *,
    raising: bool,
) -> None:
    """The general path: each item read, replaced, indexed and streamed as PutItem does. An item that
    fails inside the transaction (an item collection over its limit) is undone alone."""
    none = Expressions(None, None)
    for position, raw, item, key, size in prepared:
        put = Put(engine, table, table.key_of(item), none, item=item, encoded_key=key, item_size=size)
        conn.execute("SAVEPOINT bulk_item")
        try:
            put.evaluate(conn)
            put.apply(conn)
        except DynamoDBError as error:
            conn.execute("ROLLBACK TO bulk_item")
            conn.execute("RELEASE bulk_item")
            if raising:
                raise
            refused.append((position, raw, error))
            continue
        conn.execute("RELEASE bulk_item")
