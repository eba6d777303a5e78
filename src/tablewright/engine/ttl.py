"""Time to Live: deleting items whose TTL attribute holds an epoch-seconds time in the past.

As in DynamoDB, only a top-level Number counts; strings, other types, and values so large they are
clearly milliseconds (a date tens of thousands of years away) never expire, and items that expired
more than five years ago are left alone. Deletions are free and appear in the stream as done by the
service (``userIdentity`` of type Service, principal ``dynamodb.amazonaws.com``).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from decimal import Decimal
from typing import TYPE_CHECKING

import orjson

from .actions import stream_record
from .storage import is_lock_timeout

if TYPE_CHECKING:
    from .catalog import TableMeta
    from .engine import Engine

FIVE_YEARS = 5 * 365 * 24 * 3600
SERVICE_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def expired(value: dict | None, now: float) -> bool:
    if not value or "N" not in value:
        return False
    try:
        seconds = Decimal(value["N"])
    except ArithmeticError:
        return False
    return now - FIVE_YEARS <= seconds < now


BATCH = 500  # rows read per step of a sweep; the write lock is held only to delete a batch's expired items
log = logging.getLogger(__name__)


def sweep(engine: Engine, now: float, batch: int = BATCH) -> int:
    """Delete every expired item of every table with TTL enabled; return how many were deleted.

    Each table is read in key order, ``batch`` rows at a time, outside the write lock; only the expired
    items of a batch are then deleted, in one write transaction that checks each of them again. What
    cannot be read or deleted is logged (logger ``tablewright.engine.ttl``) and left for the next sweep.
    """
    deleted = 0
    store = engine.store
    # Outside any transaction, so that the catalog is re-read: an engine that has served no request
    # yet (a server just started on an existing file) has not loaded it.
    tables = [store.table(name) for name in store.tables()]
    for meta in tables:
        if meta is None or not meta.ttl_attribute:
            continue
        try:
            deleted += _sweep_table(engine, meta.name, now, batch)
        except Exception as error:  # noqa: BLE001 - one table's failure must not stop the others
            log.warning("TTL sweep of table %s stopped, to be retried: %s", meta.name, error)
    return deleted


def _sweep_table(engine: Engine, name: str, now: float, batch: int) -> int:
    store = engine.store
    after: tuple[int, bytes, bytes] = (-(2**63), b"", b"")
    deleted = 0
    while True:
        meta = store.table(name)
        if meta is None or not meta.ttl_attribute:
            return deleted
        with store.read(single=True) as conn:
            rows = conn.execute(
                f"SELECT h, pk, sk, item FROM {meta.sql_name} WHERE (h, pk, sk) > (?, ?, ?) "
                "ORDER BY h, pk, sk LIMIT ?",
                (*after, batch),
            ).fetchall()
        if not rows:
            return deleted
        after = rows[-1][:3]
        due = [(h, pk, sk) for h, pk, sk, raw in rows if _due(meta, (h, pk, sk), raw, now)]
        if due:
            deleted += _delete(engine, name, due, now)


def _due(meta: TableMeta, key: tuple[int, bytes, bytes], raw: bytes, now: float) -> bool:
    try:
        item = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        log.warning(
            "TTL: item %s of table %s cannot be read, left in place: %s", _shown(key), meta.name, error
        )
        return False
    return expired(item.get(meta.ttl_attribute), now)


def _delete(engine: Engine, name: str, keys: list[tuple[int, bytes, bytes]], now: float) -> int:
    store = engine.store
    deleted = 0
    with store.write() as conn:
        meta = store.table(name)
        if meta is None or not meta.ttl_attribute:
            return 0
        for key in keys:
            conn.execute("SAVEPOINT ttl_item")  # one item's failure undoes that item only
            try:
                deleted += _delete_item(engine, conn, meta, key, now)
            except Exception as error:  # noqa: BLE001 - logged, and the item is left for the next sweep
                conn.execute("ROLLBACK TO ttl_item")
                log.warning("TTL: cannot delete expired item %s of table %s: %s", _shown(key), name, error)
            conn.execute("RELEASE ttl_item")
    return deleted


def _delete_item(engine: Engine, conn: sqlite3.Connection, meta: TableMeta, key: tuple, now: float) -> int:
    store = engine.store
    found = store.fetch(conn, meta, key)
    # Checked again under the write lock: the item may have been updated or deleted since it was read.
    if found is None or not expired(found[0].get(meta.ttl_attribute), now):
        return 0
    item = found[0]
    store.delete(conn, meta, key, item)
    if meta.stream_view_type:
        record = stream_record(engine, meta, meta.key_of(item), item, None)
        if record is not None:
            record["userIdentity"] = SERVICE_IDENTITY
            store.append_stream(conn, meta, record)
    return 1


def _shown(key: tuple[int, bytes, bytes]) -> str:
    return f"(pk {key[1].hex()}, sk {key[2].hex() or '-'})"


class Sweeper(threading.Thread):
    """A daemon thread that sweeps every ``interval`` seconds until stopped."""

    def __init__(self, engine: Engine, interval: float) -> None:
        super().__init__(name="tablewright-ttl", daemon=True)
        self.engine = engine
        self.interval = interval
        self._stop_event = threading.Event()

    def run(self) -> None:
        # The sweeper also drops stream records past 24 hours, before-images past the PITR window and
        # expired SYSTEM backups.
        from .ops.backups import expire_backups
        from .ops.pitr import trim_recovery_history
        from .ops.streams import trim_streams

        while not self._stop_event.wait(self.interval):
            try:
                self.engine.sweep_ttl()
                trim_streams(self.engine)
                trim_recovery_history(self.engine)
                expire_backups(self.engine)
            except sqlite3.OperationalError as error:
                if not is_lock_timeout(error):
                    log.exception("TTL sweep failed; retrying in %s s", self.interval)
                else:  # another process held the file's write lock throughout: routine, no traceback
                    log.warning(
                        "TTL sweep waited too long for the write lock; retrying in %s s", self.interval
                    )
            except Exception:  # noqa: BLE001 - a failed sweep is retried on the next tick
                log.exception("TTL sweep failed; retrying in %s s", self.interval)

    def stop(self) -> None:
        self._stop_event.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout=5)
