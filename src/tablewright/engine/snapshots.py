"""SQLite side of backups and point-in-time recovery: item copies and before-images.

* A backup is a copy of a table's rows (``tw_backup_items``, already key-encoded, so restoring is one
  ``INSERT ... SELECT``) and a JSON document (``tw_backups``) with the table's description at backup time.
* Point-in-time recovery keeps, while it is enabled, the before-image of every change to a table in
  ``tw_history``: SQLite triggers on the table's rows record ``(time, key, old row or NULL)``, so every
  write path (single writes, batches, transactions, PartiQL, the TTL sweeper) is covered without any of
  them knowing. The table as it was at time T is today's rows with, for each key changed after T, the
  before-image of its first change after T put back (or the row removed where there was none).
* Export and import jobs are JSON documents in ``tw_jobs``.

Every function takes the connection of the caller's transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import orjson

from .catalog import TableMeta

_OLD_IMAGE = "OLD.h, OLD.pk, OLD.sk, OLD.size, OLD.item"
_TRIGGER_EVENTS = {"put": "BEFORE INSERT", "change": "BEFORE UPDATE", "delete": "BEFORE DELETE"}


# ------------------------------------------------------------------------------------------- backups


def save_backup(conn: sqlite3.Connection, arn: str, meta: TableMeta, created: float, document: dict) -> None:
    """Record a backup of ``meta``'s table: its document and a copy of every row."""
    conn.execute(
        "INSERT INTO tw_backups (arn, table_name, created, document) VALUES (?, ?, ?, ?)",
        (arn, meta.name, created, orjson.dumps(document)),
    )
    conn.execute(
        f"INSERT INTO tw_backup_items (arn, h, pk, sk, size, item) SELECT ?, h, pk, sk, size, item FROM {meta.sql_name}",
        (arn,),
    )


def backup(conn: sqlite3.Connection, arn: str) -> dict | None:
    row = conn.execute("SELECT document FROM tw_backups WHERE arn = ?", (arn,)).fetchone()
    return orjson.loads(row[0]) if row else None


def backups(conn: sqlite3.Connection) -> Iterator[dict]:
    """Every backup's document, oldest first."""
    for (document,) in conn.execute("SELECT document FROM tw_backups ORDER BY created, arn"):
        yield orjson.loads(document)


def delete_backup(conn: sqlite3.Connection, arn: str) -> None:
    conn.execute("DELETE FROM tw_backup_items WHERE arn = ?", (arn,))
    conn.execute("DELETE FROM tw_backups WHERE arn = ?", (arn,))


def restore_backup_rows(conn: sqlite3.Connection, arn: str, target: TableMeta) -> None:
    """Fill an empty table with a backup's rows (same key schema, so the same key encoding)."""
    conn.execute(
        f"INSERT INTO {target.sql_name} (h, pk, sk, size, item) "
        "SELECT h, pk, sk, size, item FROM tw_backup_items WHERE arn = ?",
        (arn,),
    )


# --------------------------------------------------------------------------------- point in time


def start_history(conn: sqlite3.Connection, meta: TableMeta) -> None:
    """Record the before-image of every change to the table from now on."""
    table = meta.sql_name
    # INSERT OR REPLACE removes the replaced row without a DELETE trigger: the INSERT trigger reads it.
    replaced = f"FROM {table} WHERE h = NEW.h AND pk = NEW.pk AND sk = NEW.sk"
    images = {
        "put": f"NEW.h, NEW.pk, NEW.sk, (SELECT size {replaced}), (SELECT item {replaced})",
        "change": _OLD_IMAGE,
        "delete": _OLD_IMAGE,
    }
    for suffix, event in _TRIGGER_EVENTS.items():
        conn.execute(
            f"CREATE TRIGGER IF NOT EXISTS {table}_history_{suffix} {event} ON {table} BEGIN "
            "INSERT INTO tw_history (table_id, at, h, pk, sk, size, item) "
            f"VALUES ({meta.id}, tw_now(), {images[suffix]}); END"
        )


def forget_deleted_tables(conn: sqlite3.Connection) -> None:
    """Drop the before-images of tables deleted since (their rows went with them)."""
    conn.execute("DELETE FROM tw_history WHERE table_id NOT IN (SELECT id FROM tw_tables)")


def stop_history(conn: sqlite3.Connection, meta: TableMeta) -> None:
    """Stop recording and forget the table's before-images (PITR disabled: the window is gone)."""
    for suffix in _TRIGGER_EVENTS:
        conn.execute(f"DROP TRIGGER IF EXISTS {meta.sql_name}_history_{suffix}")
    conn.execute("DELETE FROM tw_history WHERE table_id = ?", (meta.id,))


def trim_history(conn: sqlite3.Connection, meta: TableMeta, before: float) -> int:
    """Forget before-images older than the recovery window (nothing can be restored to before it);
    return how many were forgotten."""
    return conn.execute("DELETE FROM tw_history WHERE table_id = ? AND at < ?", (meta.id, before)).rowcount


def has_history_before(conn: sqlite3.Connection, meta: TableMeta, before: float) -> bool:
    """Whether the table keeps a before-image older than ``before`` (a read, to spare a write)."""
    row = conn.execute("SELECT 1 FROM tw_history WHERE table_id = ? AND at < ? LIMIT 1", (meta.id, before))
    return row.fetchone() is not None


def restore_rows_at(conn: sqlite3.Connection, source: TableMeta, target: TableMeta, moment: float) -> None:
    """Fill an empty table with ``source``'s rows as they were at ``moment``."""
    conn.execute(
        f"INSERT INTO {target.sql_name} (h, pk, sk, size, item) SELECT h, pk, sk, size, item FROM {source.sql_name}"
    )
    earliest_changes = conn.execute(
        "SELECT h, pk, sk, size, item FROM tw_history WHERE seq IN "
        "(SELECT MIN(seq) FROM tw_history WHERE table_id = ? AND at > ? GROUP BY h, pk, sk)",
        (source.id, moment),
    ).fetchall()
    for h, pk, sk, size, item in earliest_changes:
        conn.execute(f"DELETE FROM {target.sql_name} WHERE h = ? AND pk = ? AND sk = ?", (h, pk, sk))
        if item is not None:
            conn.execute(
                f"INSERT INTO {target.sql_name} (h, pk, sk, size, item) VALUES (?, ?, ?, ?, ?)",
                (h, pk, sk, size, item),
            )


def rows_at(conn: sqlite3.Connection, meta: TableMeta, moment: float) -> list[tuple[int, Any]]:
    """``(size, item)`` of every item of a table as it was at ``moment`` (PITR history), in key order."""
    rows = {
        (h, pk, sk): (size, item)
        for h, pk, sk, size, item in conn.execute(f"SELECT h, pk, sk, size, item FROM {meta.sql_name}")
    }
    earliest_changes = conn.execute(
        "SELECT h, pk, sk, size, item FROM tw_history WHERE seq IN "
        "(SELECT MIN(seq) FROM tw_history WHERE table_id = ? AND at > ? GROUP BY h, pk, sk)",
        (meta.id, moment),
    )
    for h, pk, sk, size, item in earliest_changes:
        if item is None:
            rows.pop((h, pk, sk), None)
        else:
            rows[(h, pk, sk)] = (size, item)
    return [(size, orjson.loads(item)) for _, (size, item) in sorted(rows.items())]


def changes_between(
    conn: sqlite3.Connection, meta: TableMeta, start: float, end: float
) -> list[tuple[float, Any, Any]]:
    """``(last change time, image before start or None, image just before end or None)`` of every item
    changed at ``start <= time < end`` (an incremental export's view of the PITR history)."""
    changed = conn.execute(
        "SELECT h, pk, sk, MAX(at) FROM tw_history WHERE table_id = ? AND at >= ? AND at < ? GROUP BY h, pk, sk",
        (meta.id, start, end),
    ).fetchall()
    first_after = (
        "SELECT item FROM tw_history WHERE table_id = ? AND h = ? AND pk = ? AND sk = ? AND at >= ? "
        "ORDER BY seq LIMIT 1"
    )
    out = []
    for h, pk, sk, last in sorted(changed):
        (old,) = conn.execute(first_after, (meta.id, h, pk, sk, start)).fetchone()
        later = conn.execute(first_after, (meta.id, h, pk, sk, end)).fetchone()
        if later is None:
            later = conn.execute(
                f"SELECT item FROM {meta.sql_name} WHERE h = ? AND pk = ? AND sk = ?", (h, pk, sk)
            ).fetchone()
        new = later[0] if later else None
        if old is None and new is None:
            continue  # created and deleted inside the period
        out.append((last, old and orjson.loads(old), new and orjson.loads(new)))
    return out


# -------------------------------------------------------------------------------------- export jobs


def save_job(conn: sqlite3.Connection, arn: str, kind: str, created: float, document: dict) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO tw_jobs (arn, kind, created, document) VALUES (?, ?, ?, ?)",
        (arn, kind, created, orjson.dumps(document)),
    )


def job(conn: sqlite3.Connection, arn: str, kind: str) -> dict | None:
    row = conn.execute("SELECT document FROM tw_jobs WHERE arn = ? AND kind = ?", (arn, kind)).fetchone()
    return orjson.loads(row[0]) if row else None


def jobs(conn: sqlite3.Connection, kind: str) -> list[dict]:
    rows = conn.execute("SELECT document FROM tw_jobs WHERE kind = ? ORDER BY created, arn", (kind,))
    return [orjson.loads(document) for (document,) in rows]
