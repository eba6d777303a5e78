"""The SQLite layout of the engine: one file (or memory) holds tables, index entries and stream records.

Layout (documented for users in docs/storage.md):

* ``tw_meta(key, value)`` - format version and the catalog version, bumped on every control-plane change
  so that other processes sharing the file reload table definitions;
* ``tw_tables(name, id, document)`` - one JSON document per table (its TableDescription and more);
* ``t<id>(h, pk, sk, size, item)`` - the items of table ``id``; ``pk``/``sk`` are the key values encoded so
  that SQLite's byte order is DynamoDB's key order, ``h`` a 32-bit hash of ``pk`` (scan order, segments);
* ``t<id>_i<n>(h, pk, sk, th, tpk, tsk, size)`` - entries of secondary index ``n``: index key, table key;
* ``tw_stream(seq, table_id, created, record)`` - stream records, for tables with a stream;
* ``tw_streams(arn, table_id, ..., after_seq, end_seq, closed)`` - stream generations: which ``seq`` range
  of a table's records each StreamArn holds, kept 24 hours after the stream is disabled or its table deleted;
* ``tw_tokens(token, digest, response, created)`` - TransactWriteItems client request tokens;
* ``tw_backups``/``tw_backup_items``, ``tw_history``, ``tw_jobs`` - on-demand backups, point-in-time
  recovery's before-images and export/import jobs (see engine/snapshots.py).

Writes run in ``BEGIN IMMEDIATE`` transactions, so a read-check-write of one request is atomic against
every other thread and process using the file; writers queue for it at the write gate (write_gate.py),
not in SQLite's sleeping busy handler. WAL with ``synchronous=NORMAL`` keeps every committed
transaction across a process crash (``kill -9``); ``durable=True`` selects ``synchronous=FULL`` for power loss.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from .catalog import IndexMeta, TableMeta, table_meta_from
from .errors import StaleDefinition, WouldBlock
from .opening import (
    FORMAT_VERSION,
    BadDatabaseFile,
    DatabaseUnavailable,
    Found,
    how_to_check,
    inspect,
    read_only_uri,
)
from .types import Item, item_size, partition_hash
from .wal_upkeep import WalUpkeep
from .write_gate import GateBusy, WriteGate, gate_for

_NO_END = 2**63 - 1  # an open stream generation: no upper bound on its sequence numbers
_GENERATION_COLUMNS = "arn, table_id, table_name, label, view_type, key_schema, after_seq, end_seq, closed"

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS tw_meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tw_tables (name TEXT PRIMARY KEY, id INTEGER NOT NULL UNIQUE, document BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS tw_stream (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, table_id INTEGER NOT NULL, created REAL NOT NULL, record BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS tw_stream_table ON tw_stream (table_id, seq);
CREATE TABLE IF NOT EXISTS tw_streams (
    arn TEXT PRIMARY KEY, table_id INTEGER NOT NULL, table_name TEXT NOT NULL, label TEXT NOT NULL,
    view_type TEXT, key_schema BLOB NOT NULL, after_seq INTEGER NOT NULL, end_seq INTEGER, closed REAL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tw_tokens (
    token TEXT PRIMARY KEY, digest BLOB NOT NULL, response BLOB NOT NULL, created REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tw_backups (
    arn TEXT PRIMARY KEY, table_name TEXT NOT NULL, created REAL NOT NULL, document BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tw_backup_items (arn TEXT NOT NULL, h INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL,
    size INTEGER NOT NULL, item BLOB NOT NULL, PRIMARY KEY (arn, h, pk, sk)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tw_history (seq INTEGER PRIMARY KEY AUTOINCREMENT, table_id INTEGER NOT NULL,
    at REAL NOT NULL, h INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, size INTEGER, item BLOB);
CREATE INDEX IF NOT EXISTS tw_history_table ON tw_history (table_id, at);
CREATE TABLE IF NOT EXISTS tw_jobs (
    arn TEXT PRIMARY KEY, kind TEXT NOT NULL, created REAL NOT NULL, document BLOB NOT NULL) WITHOUT ROWID;
INSERT OR IGNORE INTO tw_meta VALUES ('format', {FORMAT_VERSION}), ('catalog', 0), ('next_table_id', 1);
"""
# What the script creates: a file that has all of it is opened without running the script.
_SCHEMA_NAMES = frozenset(re.findall(r"CREATE (?:TABLE|INDEX) IF NOT EXISTS (\w+)", _SCHEMA))


def item_row(
    key: tuple[int, bytes, bytes], size: int, item: Item
) -> tuple[int, bytearray, bytearray, int, bytearray]:
    """The ``(h, pk, sk, size, item JSON)`` parameters that store ``item`` under ``key``.

    Blobs are bound as bytearray: CPython's sqlite3 binds a bytearray as it is, but first offers a
    bytes object to its adapters (building and discarding an AttributeError each time), which costs
    more than the copy (about 2.5 µs per row of 500 in one transaction, measured against bytes).
    """
    h, pk, sk = key
    return (h, bytearray(pk), bytearray(sk), size, bytearray(orjson.dumps(item)))


class Store:
    """SQLite access for one engine: connections, transactions, catalog and item rows."""

    # Stamps stream records (their ApproximateCreationDateTime and 24-hour retention); the engine sets it
    # to its own clock so that a test clock moves stream time too.
    clock: Callable[[], float] = time.time

    def __init__(
        self,
        path: str | None = None,
        *,
        durable: bool = False,
        lock_timeout: float = 30.0,
        read_only: bool = False,
    ) -> None:
        self.path = path
        self._durable = durable
        self.lock_timeout = lock_timeout  # seconds a write waits for another connection's write lock
        self.read_only = read_only and path is not None
        self._local = _ThreadState()
        # Every thread's connection with its thread, so that close() closes them all (and a connection
        # whose thread has ended is closed when the next one opens).
        self._connections: list[tuple[threading.Thread, sqlite3.Connection]] = []
        self._closed = False
        self._lock = threading.RLock()  # serialises the single connection of an in-memory store
        self._shared: sqlite3.Connection | None = None
        self._catalog: dict[str, TableMeta] = {}
        self._documents: set[tuple[int, bytes]] = set()
        self._catalog_version = -1
        # Writers of the file queue here before BEGIN IMMEDIATE rather than in SQLite's busy handler.
        self._gate: WriteGate | None = gate_for(path) if path and not self.read_only else None
        # Checkpoints and WAL syncs, done by a thread of its own rather than by write requests.
        self._upkeep = (
            WalUpkeep(path, self._gate, synchronous="FULL" if durable else "NORMAL")
            if path and self._gate is not None
            else None
        )
        if self._upkeep is not None:  # a store dropped without close() leaves no thread and connection
            weakref.finalize(self, self._upkeep.close)
        # Checked before SQLite touches the file: a wrong file is refused, never written (opening.py).
        self._init_schema(
            Found.NEW if path is None else inspect(path, read_only=read_only, schema=_SCHEMA_NAMES)
        )

    # ----------------------------------------------------------------------------------- connections

    def _connect(self) -> sqlite3.Connection:
        if self.read_only:
            return self._connect_read_only()
        conn = sqlite3.connect(
            self.path or ":memory:",
            isolation_level=None,
            check_same_thread=False,  # used by one thread at a time; closed by whichever thread closes the store
            timeout=self.lock_timeout,
        )
        if self.path:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={'FULL' if self._durable else 'NORMAL'}")
        # The time point-in-time recovery's triggers stamp before-images with (engine/snapshots.py).
        # Through a weak reference: the connection holds its functions where the garbage collector cannot
        # see them, so a closure over the store would keep a store dropped without close() for good.
        conn.create_function("tw_now", 0, _clock_of(weakref.ref(self)))
        never_wait = self._local.never_wait
        conn.execute(f"PRAGMA busy_timeout={int((0 if never_wait else self.lock_timeout) * 1000)}")
        if self.path:
            conn.execute(f"PRAGMA wal_autocheckpoint={_NET_FRAMES}")
        return conn

    def never_wait(self) -> None:
        """From now on, this thread never waits for a lock another thread or process holds: SQLite's
        busy error, or :class:`WouldBlock` for the in-memory store's lock, comes at once instead."""
        if self._local.never_wait:
            return
        self._local.never_wait = True
        conn = self._local.conn
        if conn is not None:
            conn.execute("PRAGMA busy_timeout=0")

    @property
    def waits(self) -> bool:
        """Whether this thread waits for locks (see :meth:`never_wait`)."""
        return not self._local.never_wait

    def _acquire(self) -> None:
        """Take the in-memory store's lock; on a :meth:`never_wait` thread only if it is free."""
        if not self._lock.acquire(blocking=self.waits):
            raise WouldBlock("the in-memory database is in use by another thread")

    def _connect_read_only(self) -> sqlite3.Connection:
        """A connection that cannot write; immutable (no locks, no -wal/-shm files) only where SQLite
        could not create those files and no writer can therefore be using the database."""
        file = Path(str(self.path))
        immutable = not os.access(file.parent, os.W_OK) and not Path(f"{file}-wal").exists()
        conn = sqlite3.connect(
            read_only_uri(file, immutable=immutable),
            uri=True,
            isolation_level=None,
            check_same_thread=False,
            timeout=self.lock_timeout,
        )
        conn.execute("PRAGMA query_only=1")
        conn.execute(f"PRAGMA busy_timeout={int(self.lock_timeout * 1000)}")
        return conn

    @property
    def conn(self) -> sqlite3.Connection:
        if self.path is None:
            if self._shared is None:
                self._shared = self._connect()
            return self._shared
        conn = self._local.conn
        if conn is None or self._closed:
            conn = self._local.conn = self._open_for_thread()
        return conn

    def _open_for_thread(self) -> sqlite3.Connection:
        with self._lock:
            if self._closed:
                raise sqlite3.ProgrammingError(f"the engine of {self.path} is closed")
            conn = self._connect()
            ended = [entry for entry in self._connections if not entry[0].is_alive()]
            for entry in ended:
                self._connections.remove(entry)
                entry[1].close()
            self._connections.append((threading.current_thread(), conn))
            return conn

    def _init_schema(self, found: Found) -> None:
        with self._lock:
            try:
                conn = self.conn
                if found is not Found.READY and not self.read_only:
                    conn.executescript(_SCHEMA)
                else:
                    conn.execute("SELECT 1 FROM tw_meta LIMIT 1").fetchall()  # can it be read at all
            except sqlite3.OperationalError as error:
                self.close()
                raise DatabaseUnavailable(str(self.path), f"{self.path} cannot be opened: {error}") from None
            except sqlite3.DatabaseError as error:  # damage the header check could not see
                self.close()
                raise BadDatabaseFile(
                    str(self.path), f"{self.path} is corrupt ({error}); {how_to_check(self.path)}"
                ) from None

    def close(self) -> None:
        """Close every thread's connection; the store cannot be used afterwards (a file-backed one)."""
        with self._lock:
            if self._shared is not None:
                self._shared.close()
                self._shared = None
            self._closed = self.path is not None
            for _, conn in self._connections:
                conn.close()
            self._connections.clear()
            self._local.conn = None
        if self._upkeep is not None:
            self._upkeep.close()

    def write(self) -> _WriteTransaction:
        """An atomic read-modify-write transaction, exclusive against other writers (``with`` it)."""
        return _WriteTransaction(self)

    def crowded(self) -> bool:
        """Whether writers of this file got in each other's way lately, so that a write request should
        run :meth:`admitted` (cheap: the engine asks before every write request)."""
        gate = self._gate
        return gate is not None and gate.crowded and self.waits

    @contextlib.contextmanager
    def admitted(self) -> Iterator[None]:
        """Run a whole write request as one of the few writers of the file admitted at once (the write
        gate's queue, engine/write_gate.py), waiting in order of arrival. The wait counts against
        ``lock_timeout`` like the gate's; a timeout is SQLite's busy error, as at the gate."""
        gate = self._gate
        assert gate is not None
        started = time.monotonic()
        try:
            turn = gate.admit(self.lock_timeout)
        except GateBusy as error:
            raise WriteLockBusy(str(error)) from None
        local = self._local
        local.admission_wait = time.monotonic() - started
        try:
            yield
        finally:
            local.admission_wait = 0.0
            gate.leave(turn)

    @contextlib.contextmanager
    def read(self, *, single: bool = False) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for the statements of one read request.

        ``single``: the request runs one statement, which SQLite already runs on one snapshot, so the
        BEGIN/COMMIT round trip is skipped. Reads use the cached catalog (see :meth:`table`).
        """
        if self.path is None:
            self._acquire()
        try:
            conn = self.conn
            if single:
                yield conn
                return
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")
        finally:
            if self.path is None:
                self._lock.release()

    # --------------------------------------------------------------------------------------- catalog

    def _refresh_catalog(self, conn: sqlite3.Connection) -> None:
        if self.path is None:
            if self._catalog_version < 0:
                self._load_catalog(conn)
            return  # one process, one connection: the cache is always current
        # PRAGMA data_version changes only when another connection committed: then ask for the catalog version.
        (data_version,) = conn.execute("PRAGMA data_version").fetchone()
        if data_version == self._local.data_version and self._catalog_version >= 0:
            return
        self._local.data_version = data_version
        self._load_catalog(conn)

    def _load_catalog(self, conn: sqlite3.Connection) -> None:
        (version,) = conn.execute("SELECT value FROM tw_meta WHERE key = 'catalog'").fetchone()
        if version != self._catalog_version:
            rows = conn.execute("SELECT id, document FROM tw_tables").fetchall()
            # An unchanged table keeps its TableMeta object: a request prepared against it can tell,
            # by identity, whether its table was redefined before it took the write lock.
            previous = self._documents
            self._documents = {(table_id, bytes(document)) for table_id, document in rows}
            kept = {meta.id: meta for meta in self._catalog.values()}
            catalog = {}
            for table_id, document in rows:
                same = (table_id, bytes(document)) in previous and table_id in kept
                meta = kept[table_id] if same else table_meta_from(table_id, orjson.loads(document))
                catalog[meta.name] = meta
            # Swapped in whole, catalog before version: a thread that reads the version and then a
            # definition never pairs an old definition with the new version (see put_blind).
            self._catalog = catalog
            self._catalog_version = version

    @property
    def catalog_version(self) -> int:
        """The version of the cached catalog (read it before looking a table up, for :meth:`put_blind`)."""
        return self._catalog_version

    def table(self, name: str) -> TableMeta | None:
        """A table's definition from the cached catalog, re-read first if the table is not in it.

        The cache is not checked against the file on every call (that is a statement per request).
        A stale definition cannot go unnoticed: writes re-check it inside their transaction, table
        and index ids are never reused, so a read of a dropped table or index fails with "no such
        table", and :class:`~tablewright.engine.engine.Engine` then calls :meth:`refresh` and runs the
        request again. Operations that report definitions (DescribeTable, ...) refresh first.
        """
        meta = self._catalog.get(name)
        if meta is None and self.path is not None and not self.conn.in_transaction:
            self._refresh_catalog(self.conn)
            meta = self._catalog.get(name)
        return meta

    def refresh(self) -> bool:
        """Re-read the catalog if another connection changed it; return whether any definition changed."""
        if self.path is None:
            return False
        before = self._catalog_version
        if not self.conn.in_transaction:
            self._refresh_catalog(self.conn)
        return self._catalog_version != before

    def tables(self) -> list[str]:
        if self.path is not None and not self.conn.in_transaction:
            self._refresh_catalog(self.conn)
        return sorted(self._catalog)

    def _bump_catalog(self, conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE tw_meta SET value = value + 1 WHERE key = 'catalog'")
        self._catalog_version = -1
        self._load_catalog(conn)

    def next_table_id(self, conn: sqlite3.Connection) -> int:
        (value,) = conn.execute("SELECT value FROM tw_meta WHERE key = 'next_table_id'").fetchone()
        conn.execute("UPDATE tw_meta SET value = value + 1 WHERE key = 'next_table_id'")
        return value

    def save_table(self, conn: sqlite3.Connection, table_id: int, document: dict[str, Any]) -> TableMeta:
        name = document["Description"]["TableName"]
        conn.execute(
            "INSERT INTO tw_tables (name, id, document) VALUES (?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET document = excluded.document",
            (name, table_id, orjson.dumps(document)),
        )
        self._bump_catalog(conn)
        return self._catalog[name]

    def create_table_storage(self, conn: sqlite3.Connection, meta: TableMeta) -> None:
        conn.execute(
            f"CREATE TABLE {meta.sql_name} (h INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, "
            "size INTEGER NOT NULL, item BLOB NOT NULL, PRIMARY KEY (h, pk, sk)) WITHOUT ROWID"
        )
        for index in meta.indexes.values():
            self.create_index_storage(conn, meta, index)

    def create_index_storage(self, conn: sqlite3.Connection, meta: TableMeta, index: IndexMeta) -> None:
        conn.execute(
            f"CREATE TABLE {meta.index_sql_name(index)} (h INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, "
            "th INTEGER NOT NULL, tpk BLOB NOT NULL, tsk BLOB NOT NULL, size INTEGER NOT NULL, "
            "PRIMARY KEY (h, pk, sk, tpk, tsk)) WITHOUT ROWID"
        )

    def drop_index_storage(self, conn: sqlite3.Connection, meta: TableMeta, index: IndexMeta) -> None:
        conn.execute(f"DROP TABLE IF EXISTS {meta.index_sql_name(index)}")

    def drop_table(self, conn: sqlite3.Connection, meta: TableMeta) -> None:
        for index in meta.indexes.values():
            self.drop_index_storage(conn, meta, index)
        conn.execute(f"DROP TABLE IF EXISTS {meta.sql_name}")
        conn.execute("DELETE FROM tw_tables WHERE name = ?", (meta.name,))
        # Stream records stay: a deleted table's stream is readable for 24 hours (trim_streams drops them).
        self._bump_catalog(conn)

    # ------------------------------------------------------------------------------------------ items

    def get(self, conn: sqlite3.Connection, meta: TableMeta, key: tuple[int, bytes, bytes]) -> Item | None:
        row = self.fetch(conn, meta, key)
        return row[0] if row else None

    def fetch(
        self, conn: sqlite3.Connection, meta: TableMeta, key: tuple[int, bytes, bytes]
    ) -> tuple[Item, int] | None:
        """The stored item and its size, or None."""
        row = self.stored_row(conn, meta, key)
        return (orjson.loads(row[0]), row[1]) if row else None

    def stored_row(
        self, conn: sqlite3.Connection, meta: TableMeta, key: tuple[int, bytes, bytes]
    ) -> tuple[bytes, int] | None:
        """The stored item as its JSON bytes, undecoded, and its size, or None."""
        h, pk, sk = key
        # bytearray: no adapter lookup (see item_row)
        return conn.execute(meta.select_item_sql, (h, bytearray(pk), bytearray(sk))).fetchone()

    def fetch_single(self, meta: TableMeta, key: tuple[int, bytes, bytes]) -> tuple[Item, int] | None:
        """:meth:`fetch` as a request's only statement: SQLite runs one statement on one snapshot, so
        no BEGIN/COMMIT is needed (the caller looked its table up through :meth:`table`)."""
        row = self.single_stored_row(meta, key)
        return (orjson.loads(row[0]), row[1]) if row else None

    def fetch_single_encoded(self, meta: TableMeta, key: tuple[int, bytes, bytes]) -> bytes | None:
        """:meth:`fetch_single`'s item as its stored JSON bytes, undecoded (GetItem's pass-through)."""
        row = self.single_stored_row(meta, key)
        return row[0] if row else None

    def single_stored_row(self, meta: TableMeta, key: tuple[int, bytes, bytes]) -> tuple[bytes, int] | None:
        """:meth:`stored_row` as a request's own statement, outside any transaction."""
        h, pk, sk = key
        params = (h, bytearray(pk), bytearray(sk))  # bytearray: no adapter lookup (see item_row)
        if self.path is None:  # the in-memory store's connection is shared: one thread at a time
            self._acquire()
            try:
                return self.conn.execute(meta.select_item_sql, params).fetchone()
            finally:
                self._lock.release()
        return self.conn.execute(meta.select_item_sql, params).fetchone()  # fetch(), inlined: every GetItem

    def put(
        self,
        conn: sqlite3.Connection,
        meta: TableMeta,
        key: tuple[int, bytes, bytes],
        item: Item,
        size: int,
        old: Item | None,
    ) -> None:
        """Store an item (replacing ``old``, which the caller read in this transaction) and its index entries."""
        conn.execute(meta.upsert_item_sql, item_row(key, size, item))
        if meta.indexes:
            self._reindex(conn, meta, key, old, item)

    def put_blind(
        self, meta: TableMeta, catalog_version: int, key: tuple[int, bytes, bytes], item: Item, size: int
    ) -> None:
        """Store an item whose replaced version matters to nobody (its table has no index or stream, and
        the request has no condition and returns nothing): one statement in its own transaction.

        Other writes spend a statement on checking the catalog; here the check is folded into the INSERT,
        which inserts nothing unless the catalog is still at ``catalog_version`` (read before ``meta`` was
        looked up). Then the definition is re-read and :class:`StaleDefinition` makes the engine prepare
        the request again.
        """
        row = item_row(key, size, item)
        if self.path is None:  # one shared connection, whose cache is the catalog
            self._acquire()
            try:
                if self._catalog.get(meta.name) is not meta:
                    raise StaleDefinition(meta.name)
                self.conn.execute(meta.upsert_item_sql, row)  # one statement: its own transaction
            finally:
                self._lock.release()
            return
        conn = self.conn
        # The INSERT alone, which SQLite runs as a transaction of its own: BEGIN IMMEDIATE and COMMIT
        # around it would be two more statements, an eighth of a blind PutItem's time.
        cursor = self._begin_write(conn, meta.guarded_upsert_item_sql, (*row, catalog_version))
        self._end_write(conn, None)
        if not cursor.rowcount:
            with self.read() as snapshot:  # the catalog's statements on one snapshot
                self._refresh_catalog(snapshot)
            raise StaleDefinition(meta.name)

    def _begin_write(
        self, conn: sqlite3.Connection, statement: str = "BEGIN IMMEDIATE", parameters: tuple = ()
    ) -> sqlite3.Cursor:
        """Run ``statement`` on a file after queueing at the write gate (engine/write_gate.py): ``BEGIN
        IMMEDIATE``, or a write of one statement, which SQLite runs as a transaction of its own. End it
        with :meth:`_end_write`, unless it raised (then the gate is open again).

        The gate and SQLite's busy handler share one ``lock_timeout``: what the gate took of it is not
        given again to SQLite (which waits only for writers that do not use the gate). Both failures are
        SQLite's busy error, so callers see what they saw before the gate existed.
        """
        gate = self._gate
        if gate is None:
            return conn.execute(statement, parameters)
        # Free right now, with no long wait for a turn before it: SQLite gets the whole timeout, as
        # nothing of it was spent (the usual case, without the arithmetic below).
        if self._local.admission_wait <= _GATE_WAIT_ALLOWANCE and gate.take_now():
            try:
                return conn.execute(statement, parameters)
            except BaseException:
                gate.release()
                raise
        waits = self.waits
        try:
            timeout = self.lock_timeout - self._local.admission_wait
            remaining = gate.acquire(timeout if waits else None)
        except GateBusy as error:
            raise WriteLockBusy(str(error)) from None
        try:
            if waits and self.lock_timeout - remaining > _GATE_WAIT_ALLOWANCE:
                conn.execute(f"PRAGMA busy_timeout={int(remaining * 1000)}")
                try:
                    return conn.execute(statement, parameters)
                finally:
                    conn.execute(f"PRAGMA busy_timeout={int(self.lock_timeout * 1000)}")
            return conn.execute(statement, parameters)
        except BaseException:
            gate.release()
            raise

    def _end_write(self, conn: sqlite3.Connection, statement: str | None) -> None:
        """Run ``statement`` (``COMMIT`` or ``ROLLBACK``; ``None`` after a write of one statement) to end
        a write begun by :meth:`_begin_write`, then open the gate."""
        try:
            if statement is not None:
                conn.execute(statement)
        finally:
            if self._gate is not None:
                self._gate.release()
        if self._upkeep is not None:
            self._upkeep.after_commit()

    def put_rows(self, conn: sqlite3.Connection, meta: TableMeta, rows: list[tuple]) -> None:
        """Store rows made by :func:`item_row` of a table without indexes or stream, replacing any
        item with the same key: one executemany, the bulk form of :meth:`put_blind` (in the caller's
        transaction)."""
        if rows:
            conn.executemany(meta.upsert_item_sql, rows)

    def delete_rows(
        self, conn: sqlite3.Connection, meta: TableMeta, keys: list[tuple[int, bytes, bytes]]
    ) -> None:
        """Delete the items with these keys from a table without indexes or stream (missing ones are no-ops)."""
        if keys:
            conn.executemany(f"DELETE FROM {meta.sql_name} WHERE h = ? AND pk = ? AND sk = ?", keys)

    def stored_size(self, conn: sqlite3.Connection, meta: TableMeta, key: tuple[int, bytes, bytes]) -> int:
        """The size of the stored item with this key, 0 if there is none (capacity of a blind write)."""
        row = conn.execute(
            f"SELECT size FROM {meta.sql_name} WHERE h = ? AND pk = ? AND sk = ?", key
        ).fetchone()
        return row[0] if row else 0

    def delete(
        self, conn: sqlite3.Connection, meta: TableMeta, key: tuple[int, bytes, bytes], old: Item
    ) -> None:
        conn.execute(f"DELETE FROM {meta.sql_name} WHERE h = ? AND pk = ? AND sk = ?", key)
        if meta.indexes:
            self._reindex(conn, meta, key, old, None)

    def _reindex(
        self,
        conn: sqlite3.Connection,
        meta: TableMeta,
        key: tuple[int, bytes, bytes],
        old: Item | None,
        new: Item | None,
    ) -> None:
        _, tpk, tsk = key
        for index in meta.indexes.values():
            old_entry = index.entry_key(old) if old else None
            new_entry = index.entry_key(new) if new else None
            table_name = meta.index_sql_name(index)
            if old_entry and old_entry != new_entry:
                conn.execute(
                    f"DELETE FROM {table_name} WHERE h = ? AND pk = ? AND sk = ? AND tpk = ? AND tsk = ?",
                    (partition_hash(old_entry[0]), *old_entry, tpk, tsk),
                )
            if new_entry:
                size = item_size(index.project(new))
                conn.execute(
                    f"INSERT OR REPLACE INTO {table_name} (h, pk, sk, th, tpk, tsk, size) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (partition_hash(new_entry[0]), *new_entry, key[0], tpk, tsk, size),
                )

    def backfill_index(self, conn: sqlite3.Connection, meta: TableMeta, index: IndexMeta) -> None:
        """Index every existing item, as DynamoDB does when a GSI is added to a table."""
        rows = conn.execute(f"SELECT h, pk, sk, item FROM {meta.sql_name}").fetchall()
        table_name = meta.index_sql_name(index)
        for h, pk, sk, raw in rows:
            item = orjson.loads(raw)
            entry = index.entry_key(item)
            if entry is None or not index.indexable(item):
                continue
            conn.execute(
                f"INSERT OR REPLACE INTO {table_name} (h, pk, sk, th, tpk, tsk, size) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (partition_hash(entry[0]), *entry, h, pk, sk, item_size(index.project(item))),
            )

    # ---------------------------------------------------------------------------------------- reading

    def rows(
        self,
        conn: sqlite3.Connection,
        meta: TableMeta,
        index: IndexMeta | None,
        where: str,
        params: tuple,
        order: str,
    ) -> sqlite3.Cursor:
        """A cursor over ``(size, item)`` rows in order (only what a read uses: each column fetched
        costs); close it when done if it may not have been read to the end.

        ``where`` and ``order`` speak of the columns ``x.h, x.pk, x.sk`` (for indexes also ``x.tpk, x.tsk``)
        of the table or index being read; the item itself always comes from the table.
        """
        if index is None:
            sql = f"SELECT x.size, x.item FROM {meta.sql_name} AS x"
        else:
            sql = (
                f"SELECT x.size, t.item FROM {meta.index_sql_name(index)} AS x "
                f"JOIN {meta.sql_name} AS t ON t.h = x.th AND t.pk = x.tpk AND t.sk = x.tsk"
            )
        sql += f" WHERE {where} ORDER BY {order}"
        return conn.execute(sql, params)

    def read_page(
        self, sql: str, params: tuple, limit: int | None, page_bytes: int
    ) -> tuple[list[bytes], int, bytes | None]:
        """The items of one ``SELECT size, item ...`` as a request's only statement (as
        :meth:`fetch_single`: one statement, one snapshot, no BEGIN/COMMIT), read until ``limit``
        items or ``page_bytes`` bytes, as Query and Scan page: (the items' stored JSON, bytes read,
        the last item's JSON when the page ended there, else None)."""
        if self.path is None:  # the in-memory store's connection is shared: one thread at a time
            self._acquire()
        try:
            cursor = self.conn.execute(sql, params)
            items: list[bytes] = []
            append = items.append
            size_read = 0
            for size, raw in cursor:
                append(raw)
                size_read += size
                if size_read >= page_bytes or len(items) == limit:
                    cursor.close()  # no statement stays open on the connection
                    return items, size_read, raw
            return items, size_read, None
        finally:
            if self.path is None:
                self._lock.release()

    def collection_size(self, conn: sqlite3.Connection, meta: TableMeta, h: int, pk: bytes) -> int:
        """Bytes of one item collection: the items of a partition key plus their local index entries."""
        total = conn.execute(
            f"SELECT COALESCE(SUM(size), 0) FROM {meta.sql_name} WHERE h = ? AND pk = ?", (h, pk)
        )
        size = total.fetchone()[0]
        for index in meta.indexes.values():
            if index.kind == "LSI":
                query = (
                    f"SELECT COALESCE(SUM(size), 0) FROM {meta.index_sql_name(index)} WHERE h = ? AND pk = ?"
                )
                size += conn.execute(query, (h, pk)).fetchone()[0]
        return size

    def counts(
        self, conn: sqlite3.Connection, meta: TableMeta, index: IndexMeta | None = None
    ) -> tuple[int, int]:
        """(item count, size in bytes) of a table or index; DynamoDB adds 100 bytes of overhead per item."""
        name = meta.sql_name if index is None else meta.index_sql_name(index)
        count, size = conn.execute(f"SELECT COUNT(*), COALESCE(SUM(size), 0) FROM {name}").fetchone()
        return count, size + 100 * count

    # ---------------------------------------------------------------------------------------- streams

    def append_stream(self, conn: sqlite3.Connection, meta: TableMeta, record: dict[str, Any]) -> int:
        cursor = conn.execute(
            "INSERT INTO tw_stream (table_id, created, record) VALUES (?, ?, ?)",
            (meta.id, self.clock(), orjson.dumps(record)),
        )
        return cursor.lastrowid or 0

    # Reading streams (used by ops/streams.py). The trim watermark is the highest sequence number
    # removed by the 24-hour retention; it outlives the rows so that a stale position is detectable.
    # A stream generation (one StreamArn) holds the table's records with after < seq <= until.

    def stream_read(
        self, conn: sqlite3.Connection, table_id: int, after: int, limit: int, until: int = _NO_END
    ) -> list[tuple[int, float, bytes]]:
        """Up to ``limit`` ``(seq, created, record)`` rows of a table's stream with ``after < seq <= until``."""
        return conn.execute(
            "SELECT seq, created, record FROM tw_stream WHERE table_id = ? AND seq > ? AND seq <= ? "
            "ORDER BY seq LIMIT ?",
            (table_id, after, until, limit),
        ).fetchall()

    def stream_bounds(
        self, conn: sqlite3.Connection, table_id: int, after: int = 0, until: int = _NO_END
    ) -> tuple[int | None, float | None, int | None]:
        """(oldest seq, its created time, newest seq) of a table's retained records in ``(after, until]``."""
        span = (table_id, after, until)
        oldest = conn.execute(
            "SELECT seq, created FROM tw_stream WHERE table_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT 1",
            span,
        ).fetchone()
        newest = conn.execute(
            "SELECT MAX(seq) FROM tw_stream WHERE table_id = ? AND seq > ? AND seq <= ?", span
        ).fetchone()[0]
        return (oldest[0], oldest[1], newest) if oldest else (None, None, None)

    def stream_before(
        self, conn: sqlite3.Connection, table_id: int, created: float, after: int = 0, until: int = _NO_END
    ) -> int | None:
        """The newest of a table's records in ``(after, until]`` written before ``created``, or None."""
        return conn.execute(
            "SELECT MAX(seq) FROM tw_stream WHERE table_id = ? AND seq > ? AND seq <= ? AND created < ?",
            (table_id, after, until, created),
        ).fetchone()[0]

    def stream_tables(self, conn: sqlite3.Connection) -> list[int]:
        """Ids of the tables (live or deleted) that have stream records."""
        return [row[0] for row in conn.execute("SELECT DISTINCT table_id FROM tw_stream")]

    def stream_generation(self, conn: sqlite3.Connection, arn: str) -> tuple | None:
        """The ``tw_streams`` row of a StreamArn (see :meth:`stream_save` for its columns), or None."""
        return conn.execute(f"SELECT {_GENERATION_COLUMNS} FROM tw_streams WHERE arn = ?", (arn,)).fetchone()

    def stream_generations(self, conn: sqlite3.Connection) -> list[tuple]:
        """Every ``tw_streams`` row."""
        return conn.execute(f"SELECT {_GENERATION_COLUMNS} FROM tw_streams").fetchall()

    def stream_save(self, conn: sqlite3.Connection, row: tuple) -> None:
        """Insert or replace a stream generation: ``(arn, table_id, table_name, label, view_type,
        key_schema JSON, after_seq, end_seq or None while open, closed time or None while open)``."""
        conn.execute(
            f"INSERT OR REPLACE INTO tw_streams ({_GENERATION_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)", row
        )

    def stream_end(self, conn: sqlite3.Connection, table_id: int, after: int) -> int:
        """Where a generation starting after ``after`` ends if closed now: its last record, or (with none)
        the last sequence number assigned."""
        row = conn.execute(
            "SELECT MAX(seq) FROM tw_stream WHERE table_id = ? AND seq > ?", (table_id, after)
        ).fetchone()
        return row[0] if row[0] is not None else self.stream_last_seq(conn)

    def stream_expire(self, conn: sqlite3.Connection, before: float) -> int:
        """Forget generations closed before ``before``, and the trim watermarks nothing refers to any more."""
        gone = conn.execute("DELETE FROM tw_streams WHERE closed < ?", (before,)).rowcount
        if gone:
            conn.execute(
                "DELETE FROM tw_meta WHERE key LIKE 'stream_trim:%' AND CAST(substr(key, 13) AS INTEGER) NOT IN "
                "(SELECT id FROM tw_tables UNION SELECT table_id FROM tw_streams UNION SELECT table_id FROM tw_stream)"
            )
        return gone

    def stream_last_seq(self, conn: sqlite3.Connection) -> int:
        """The highest sequence number ever assigned (AUTOINCREMENT never reuses one, even after trimming)."""
        row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'tw_stream'").fetchone()
        return row[0] if row else 0

    def stream_watermark(self, conn: sqlite3.Connection, table_id: int) -> int:
        row = conn.execute("SELECT value FROM tw_meta WHERE key = ?", (f"stream_trim:{table_id}",)).fetchone()
        return row[0] if row else 0

    def stream_trim(self, conn: sqlite3.Connection, table_id: int, before: float) -> int:
        """Delete a table's stream records created before ``before``; return the new trim watermark."""
        row = conn.execute(
            "SELECT MAX(seq) FROM tw_stream WHERE table_id = ? AND created < ?", (table_id, before)
        ).fetchone()
        watermark = self.stream_watermark(conn, table_id)
        if row[0] is not None and row[0] > watermark:
            watermark = row[0]
            conn.execute("DELETE FROM tw_stream WHERE table_id = ? AND seq <= ?", (table_id, watermark))
            conn.execute(
                "INSERT OR REPLACE INTO tw_meta (key, value) VALUES (?, ?)",
                (f"stream_trim:{table_id}", watermark),
            )
        return watermark

    def stored_stream_secret(self, conn: sqlite3.Connection) -> bytes | None:
        """The database's key for signing shard iterators, or None if none was created yet."""
        row = conn.execute("SELECT value FROM tw_meta WHERE key = 'stream_secret'").fetchone()
        return bytes.fromhex(row[0]) if row else None

    def stream_secret(self, conn: sqlite3.Connection) -> bytes:
        """The database's random key for signing shard iterators, created on first use (in a write transaction)."""
        conn.execute(
            "INSERT OR IGNORE INTO tw_meta (key, value) VALUES ('stream_secret', ?)", (os.urandom(32).hex(),)
        )
        (value,) = conn.execute("SELECT value FROM tw_meta WHERE key = 'stream_secret'").fetchone()
        return bytes.fromhex(value)


# Seconds a write may wait at the gate before SQLite's busy timeout is shortened by what it waited there
# (the PRAGMA costs two statements, so short waits, the usual case under contention, skip it).
_GATE_WAIT_ALLOWANCE = 0.05
# SQLite's own checkpoint in COMMIT stays as the net, for large commits and for an upkeep thread that
# cannot keep up or could not open the file, far above the upkeep's thresholds.
_NET_FRAMES = 8000


def _clock_of(store: Callable[[], Store | None]) -> Callable[[], float]:
    def now() -> float:
        alive = store()
        return alive.clock() if alive is not None else time.time()

    return now


class _ThreadState(threading.local):
    """Each thread's connection and settings. The class attributes are the defaults, so a thread that
    never set one reads it without an AttributeError raised and caught (a few microseconds each: these
    are read on every write)."""

    conn: sqlite3.Connection | None = None
    never_wait = False
    data_version: int | None = None
    admission_wait = 0.0  # seconds the running write request waited for its turn (Store.admitted)


class WriteLockBusy(sqlite3.OperationalError):
    """The write gate was not free in time: SQLite's busy error, as if SQLite's own lock had been waited
    for (the engine answers ThrottlingException, or WouldBlock on a thread that never waits)."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"database is locked ({detail})")
        self.sqlite_errorcode = sqlite3.SQLITE_BUSY
        self.sqlite_errorname = "SQLITE_BUSY"


def is_lock_timeout(error: sqlite3.OperationalError) -> bool:
    """Whether ``error`` is SQLite giving up on a lock another connection held past the busy timeout."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "locked" in str(error)


class _WriteTransaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any exception) around a block.

    A class rather than a generator-based context manager: it runs around every write request, and the
    generator machinery costs more than the Python work of a blind PutItem's statements.
    """

    __slots__ = ("_store", "_conn", "_locked")

    def __init__(self, store: Store) -> None:
        self._store = store
        self._locked = False

    def __enter__(self) -> sqlite3.Connection:
        store = self._store
        if store.path is None:  # one shared in-memory connection: serialise the threads using it
            store._acquire()
            self._locked = True
        try:
            conn = self._conn = store.conn
            store._begin_write(conn)
        except BaseException:
            self._release()
            raise
        try:
            store._refresh_catalog(conn)
        except BaseException:
            self._finish("ROLLBACK")
            raise
        return conn

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self._finish("COMMIT" if kind is None else "ROLLBACK")

    def _finish(self, statement: str) -> None:
        try:
            self._store._end_write(self._conn, statement)
        finally:
            self._release()

    def _release(self) -> None:
        if self._locked:
            self._locked = False
            self._store._lock.release()
