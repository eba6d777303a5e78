"""Time to Live: deleting items whose TTL attribute holds an epoch-seconds time in the past.

As in DynamoDB, only a top-level Number counts; strings, other types, and values so large they are
clearly milliseconds (a date tens of thousands of years away) never expire, and items that expired
more than five years ago are left alone. Deletions are free and appear in the stream as done by the
service (``userIdentity`` of type Service, principal ``dynamodb.amazonaws.com``).
"""

from __future__ import annotations

import threading
from decimal import Decimal
from typing import TYPE_CHECKING

import orjson

from .actions import stream_record

if TYPE_CHECKING:
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


def sweep(engine: Engine, now: float) -> int:
    """Delete every expired item of every table with TTL enabled; return how many were deleted."""
    deleted = 0
    store = engine.store
    with store.read():
        tables = [store.table(name) for name in store.tables()]
    for meta in tables:
        if meta is None or not meta.ttl_attribute:
            continue
        with store.write() as conn:
            meta = store.table(meta.name)
            if meta is None or not meta.ttl_attribute:
                continue
            rows = conn.execute(f"SELECT h, pk, sk, item FROM {meta.sql_name}").fetchall()
            for h, pk, sk, raw in rows:
                item = orjson.loads(raw)
                if not expired(item.get(meta.ttl_attribute), now):
                    continue
                store.delete(conn, meta, (h, pk, sk), item)
                deleted += 1
                if meta.stream_view_type:
                    record = stream_record(engine, meta, meta.key_of(item), item, None)
                    if record is not None:
                        record["userIdentity"] = SERVICE_IDENTITY
                        store.append_stream(conn, meta, record)
    return deleted


class Sweeper(threading.Thread):
    """A daemon thread that sweeps every ``interval`` seconds until stopped."""

    def __init__(self, engine: Engine, interval: float) -> None:
        super().__init__(name="tablewright-ttl", daemon=True)
        self.engine = engine
        self.interval = interval
        self._stop_event = threading.Event()

    def run(self) -> None:
        from .ops.streams import trim_streams  # the sweeper also drops stream records past 24 hours

        while not self._stop_event.wait(self.interval):
            try:
                self.engine.sweep_ttl()
                trim_streams(self.engine)
            except Exception:  # noqa: BLE001 - a failed sweep is retried on the next tick
                continue

    def stop(self) -> None:
        self._stop_event.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout=5)
