"""The engine: DynamoDB's API over a :class:`~tablewright.engine.storage.Store`.

``Engine.handle(operation, request)`` is the one entry point; every protocol adapter (the in-process
boto3 client, the HTTP server) calls it. Operations are looked up in a table built from the modules of
``tablewright.engine.ops``, each of which maps operation names to functions.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable
from typing import Any

from . import legacy, ttl
from .encoded import decoded
from .errors import (
    AccessDeniedException,
    DynamoDBError,
    InternalServerError,
    StaleDefinition,
    StorageFailure,
    ThrottlingException,
    UnknownIndexException,
    UnknownOperationException,
    WouldBlock,
)
from .opening import how_to_check
from .ops import OPERATIONS, SHORTCUTS
from .storage import Store, is_lock_timeout
from .types import nesting_error
from .validation import validate_request

Request = dict[str, Any]
# The data plane runs on the cached catalog (see Store.table); every other operation re-reads it first.
CACHED_CATALOG_OPERATIONS = frozenset(
    {
        "GetItem",
        "PutItem",
        "UpdateItem",
        "DeleteItem",
        "Query",
        "Scan",
        "BatchGetItem",
        "BatchWriteItem",
        "TransactGetItems",
        "TransactWriteItems",
    }
)
# Refused at once by a read-only engine; PartiQL writes and anything else that tries to write are refused
# when SQLite reports the read-only connection's error.
WRITE_OPERATIONS = frozenset(
    {
        "CreateTable",
        "UpdateTable",
        "DeleteTable",
        "PutItem",
        "UpdateItem",
        "DeleteItem",
        "BatchWriteItem",
        "TransactWriteItems",
        "UpdateTimeToLive",
        "TagResource",
        "UntagResource",
        "UpdateContinuousBackups",
        "RestoreTableToPointInTime",
        "CreateBackup",
        "DeleteBackup",
        "RestoreTableFromBackup",
        "ExportTableToPointInTime",
        "ImportTable",
        "UpdateContributorInsights",
        "EnableKinesisStreamingDestination",
        "UpdateKinesisStreamingDestination",
        "DisableKinesisStreamingDestination",
        "PutResourcePolicy",
        "DeleteResourcePolicy",
    }
)
_DAMAGE = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB"})  # SQLite's codes for a damaged file
_ATTEMPTS = 3  # runs of a request whose table definitions another process keeps changing
Response = dict[str, Any]


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class Engine:
    """An embedded DynamoDB-compatible database.

    ``Engine()`` keeps everything in memory; ``Engine("app.db")`` persists to one SQLite file that several
    threads and processes may share. ``ttl_interval`` (seconds) starts a background sweeper that deletes
    expired items; ``None`` leaves sweeping to :meth:`sweep_ttl`. ``item_collection_limit`` is DynamoDB's
    10 GB cap on an item collection of a table with local secondary indexes (smaller in tests).
    ``lock_timeout`` (seconds) bounds how long a write waits for another process's write lock on the
    file; then the request fails with a retryable ThrottlingException and nothing of it is applied.
    ``read_only=True`` opens an existing database file without ever writing to it: writes are refused
    with DynamoDB's ``AccessDeniedException`` and expired items are not swept.

    Opening a file checks it first and refuses, without writing to it, a file that is not a SQLite
    database, is corrupt, belongs to another application or has another format version
    (:class:`~tablewright.engine.opening.BadDatabaseFile`), or cannot be used now
    (:class:`~tablewright.engine.opening.DatabaseUnavailable`).
    """

    # Writes that need nothing of the item they replace take the one-statement paths (PutItem's shortcut
    # and blind put, BatchWriteItem's executemany, bulk loads). False sends them through the general
    # read-then-write path, which the differential tests compare them with.
    fast_writes: bool = True
    # Queries of a table by key condition alone take Query's shortcut (engine/ops/query_shortcut.py),
    # GetItems of a plain key GetItem's (engine/ops/items.py). False sends them through request
    # validation and the general read, which the differential tests compare them with.
    fast_reads: bool = True
    # TransactWriteItems of a well-formed request takes its shortcut (engine/ops/transactions.py): its
    # members checked by request validation's compiled checks, each Put's item in one walk. False sends
    # it through request validation and the general path, which the differential tests compare it with.
    fast_transactions: bool = True

    def __init__(
        self,
        path: str | None = None,
        *,
        region: str = "us-east-1",
        account: str = "000000000000",
        ttl_interval: float | None = None,
        durable: bool = False,
        item_collection_limit: int = 10 * 1024**3,
        validate: bool = True,
        clock: Callable[[], float] = time.time,
        lock_timeout: float = 30.0,
        read_only: bool = False,
    ) -> None:
        self.store = Store(
            None if path in (None, ":memory:") else str(path),
            durable=durable,
            lock_timeout=lock_timeout,
            read_only=read_only,
        )
        self.read_only = self.store.read_only
        self.region = region
        self.account = account
        self.clock = clock
        self.store.clock = clock  # stream records are stamped with the engine's time
        self.item_collection_limit = item_collection_limit
        self._validate = validate
        self._sweeper: ttl.Sweeper | None = None
        if ttl_interval and not self.read_only:
            self._sweeper = ttl.Sweeper(self, ttl_interval)
            self._sweeper.start()

    # ---------------------------------------------------------------------------------------- dispatch

    def handle(self, operation: str, request: Request | None = None, *, encoded: bool = False) -> Response:
        """Run one DynamoDB operation on a wire-shaped request and return the wire-shaped response.

        The response is plain Python structures (dicts, lists, strings, numbers, booleans), as
        ``orjson.loads`` of DynamoDB's JSON answer would give. ``encoded=True`` is for protocol
        adapters that write or parse the JSON themselves: a Query or Scan that neither filters nor
        projects then answers ``Items`` as :class:`~tablewright.engine.encoded.EncodedItems`, the
        stored items' JSON bytes as they are (``encoded.dumps`` writes them into a response unread,
        ``encoded.decoded`` turns them into the plain list). Nothing else differs.
        """
        function = OPERATIONS.get(operation)
        if function is None:
            raise UnknownOperationException(f"Unknown operation: {operation}")
        if self.read_only and operation in WRITE_OPERATIONS:
            raise self._refusal(operation)
        try:
            response = self._run(operation, function, {} if request is None else request)
        except (DynamoDBError, WouldBlock):
            raise
        except RecursionError:
            raise nesting_error() from None
        except sqlite3.OperationalError as error:  # a lock held past the timeout, a full disk, ...
            if self.read_only and getattr(error, "sqlite_errorname", "") == "SQLITE_READONLY":
                raise self._refusal(operation) from None
            if is_lock_timeout(error):
                if not self.store.waits:
                    raise WouldBlock(str(error)) from error
                raise ThrottlingException(lock_timeout_message(self.store.lock_timeout)) from error
            raise StorageFailure(f"The storage could not complete the request: {error}") from error
        except sqlite3.DatabaseError as error:
            if getattr(error, "sqlite_errorname", "") not in _DAMAGE:  # e.g. the engine was closed
                raise InternalServerError(f"{operation} failed: {error}") from error
            raise StorageFailure(  # damage in a page that no earlier request had read
                f"The database file is corrupt ({error}); {how_to_check(self.store.path)}"
            ) from error
        except Exception as error:  # noqa: BLE001 - a bug must not take the caller down with a bare traceback
            raise InternalServerError(f"Internal error while processing {operation}: {error!r}") from error
        return response if encoded or not response else decoded(response)

    def _run(
        self, operation: str, function: Callable[[Engine, Request], Response], request: Request
    ) -> Response:
        if operation in WRITE_OPERATIONS and self.store.crowded():
            # Writers of the file got in each other's way lately: the whole request, validation included,
            # runs as one of the few writers admitted at once, so that none is preempted by another
            # while it holds the write lock (Store.admitted).
            with self.store.admitted():
                return self._execute(operation, function, request)
        return self._execute(operation, function, request)

    def _execute(
        self, operation: str, function: Callable[[Engine, Request], Response], request: Request
    ) -> Response:
        shortcut = SHORTCUTS.get(operation)
        if shortcut is not None:
            response = shortcut(self, request)
            if response is not None:
                return response
        if self._validate:
            validate_request(operation, request)
        if operation == "BatchGetItem" or not legacy.LEGACY_FIELDS.isdisjoint(request):
            request = legacy.translate(operation, request)  # pre-expression parameters -> expressions
        if operation not in CACHED_CATALOG_OPERATIONS:
            self.store.refresh()
        for attempt in range(_ATTEMPTS):
            try:
                return function(self, request)
            except StaleDefinition:
                continue  # the write's transaction re-read the catalog: prepare it again on the new definition
            except UnknownIndexException:
                if attempt or not self.store.refresh():
                    raise
            except sqlite3.OperationalError as error:
                # A table or index dropped by another process since this one cached its definition (ids
                # are never reused, so the statement fails rather than reading another table).
                if "no such table" not in str(error) or attempt or not self.store.refresh():
                    raise
        raise InternalServerError(
            f"Table definitions changed {_ATTEMPTS} times while {operation} ran; retry the request"
        )

    def try_handle(
        self, operation: str, request: Request | None = None, *, encoded: bool = False
    ) -> Response:
        """:meth:`handle` without ever waiting for a lock: raise :class:`WouldBlock` instead.

        For an event loop, which must not wait: it runs requests here first and hands the ones that
        raise WouldBlock to a thread that may wait. The calling thread stays a never-waiting one.
        Safe to run again elsewhere only for operations of one transaction (a request of several,
        such as BatchExecuteStatement, may have committed part of itself before it would block).
        """
        self.store.never_wait()
        return self.handle(operation, request, encoded=encoded)

    def __getattr__(self, name: str) -> Callable[[Request], Response]:
        operation = _SNAKE_TO_OPERATION.get(name)
        if operation is None:
            raise AttributeError(name)
        return lambda request=None, **kwargs: self.handle(
            operation, request if request is not None else kwargs
        )

    @property
    def validates(self) -> bool:
        """Whether requests are validated before they run (``Engine(validate=False)`` skips it)."""
        return self._validate

    # -------------------------------------------------------------------------------------- lifecycle

    def _refusal(self, operation: str) -> DynamoDBError:
        return AccessDeniedException(
            f"This database is open read-only ({self.store.path}): {operation} is not allowed"
        )

    def sweep_ttl(self, now: float | None = None) -> int:
        """Delete every item whose TTL has passed (as DynamoDB's background process would); return the count.

        A read-only engine deletes nothing (DynamoDB, too, returns expired items until it deletes them)."""
        if self.read_only:
            return 0
        return ttl.sweep(self, self.clock() if now is None else now)

    def arn(self, table: str) -> str:
        return f"arn:aws:dynamodb:{self.region}:{self.account}:table/{table}"

    def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.stop()
        self.store.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def lock_timeout_message(seconds: float) -> str:
    """What a request that could not get the database's write lock is told."""
    return (
        f"The database file's write lock stayed with another writer for {seconds:g} s; "
        "nothing of this request was applied. Retry it."
    )


_SNAKE_TO_OPERATION = {_snake(name): name for name in OPERATIONS}
