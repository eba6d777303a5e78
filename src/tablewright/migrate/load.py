"""``Load``: a migration step whose source is not a DynamoDB table but rows from elsewhere (an SQL
database), resumable and verified like every copy.

The source hands out rows in the order of a unique key, a page at a time after a given key
(keyset pagination), so the checkpoint is the last key of the last page written: a run killed at
any moment resumes after it and re-writes at most one page, which is harmless because every write
is a put by the target key. The transform turns a row into the migration's writes (an item for the
target, ``(table, item)`` pairs, ``Put``/``Merge``) and must be deterministic.

Verification is row by row: every row is read again and transformed, and every item it yields is
read back by its key (BatchGetItem) and compared; a missing or different item fails the step with
the first keys named. Targets may be shared with other steps (single-table designs), so there is
no whole-table count to compare; the row-by-row read-back is the proof instead.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

from .context import Context, MigrationError
from .io import KeySchemas, Writer, decode, encode, guarded, outputs
from .progress import Bar
from .steps import Item, Merge, Put

BATCH_GET_LIMIT = 100  # BatchGetItem: at most 100 keys per call
MAX_GET_ATTEMPTS = 12
SHOWN_DIFFERENCES = 10
# Items found wrong that verification holds for a later page's Merge to complete; past this many
# the rest are counted at once (a Merge that would have completed one then counts it wrongly).
HELD_LIMIT = 10_000


class RowSource(Protocol):
    """Rows in the order of ``key`` (unique), read a page at a time after a key."""

    name: str
    key: tuple[str, ...]

    def count(self) -> int: ...

    def rows_after(self, after: list[Any] | None, limit: int) -> list[dict[str, Any]]: ...


@dataclass
class SqliteRows:
    """The rows of one table (or view) of an SQLite file, read-only, ordered by ``key``.

    ``key`` columns must be unique together and hold whole numbers or text (they are the
    checkpoint, kept as JSON). REAL values come back as ``Decimal`` (their shortest repr), which is
    what DynamoDB stores; NULL columns are left out of the row.
    """

    path: str | Path
    table: str
    key: tuple[str, ...] = ("id",)

    @property
    def name(self) -> str:
        return f"{Path(self.path).name}:{self.table}"

    def _connect(self) -> sqlite3.Connection:
        if not Path(self.path).is_file():
            raise MigrationError(f"source {self.name}: {self.path} is not a file")
        try:
            return sqlite3.connect(f"file:{Path(self.path).resolve()}?mode=ro", uri=True)
        except sqlite3.Error as error:
            raise MigrationError(f"source {self.name}: {error}") from None

    def _quoted(self, name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def count(self) -> int:
        with closing(self._connect()) as db:
            try:
                return int(db.execute(f"SELECT count(*) FROM {self._quoted(self.table)}").fetchone()[0])
            except sqlite3.Error as error:
                raise MigrationError(f"source {self.name}: {error}") from None

    def rows_after(self, after: list[Any] | None, limit: int) -> list[dict[str, Any]]:
        columns = ", ".join(self._quoted(k) for k in self.key)
        sql = f"SELECT * FROM {self._quoted(self.table)}"
        params: list[Any] = []
        if after is not None:
            marks = ", ".join("?" for _ in self.key)
            sql += f" WHERE ({columns}) > ({marks})"
            params = list(after)
        sql += f" ORDER BY {columns} LIMIT ?"
        with closing(self._connect()) as db:
            try:
                cursor = db.execute(sql, [*params, limit])
            except sqlite3.Error as error:
                raise MigrationError(f"source {self.name}: {error}") from None
            names = [d[0] for d in cursor.description]
            return [
                {
                    n: (Decimal(repr(v)) if isinstance(v, float) else v)
                    for n, v in zip(names, row)
                    if v is not None
                }
                for row in cursor.fetchall()
            ]


@dataclass
class Load:
    """Load every row of ``source`` through ``transform`` into ``target`` (see the module docstring)."""

    source: RowSource
    target: str
    transform: Callable[[dict[str, Any]], Any] | None = None
    name: str | None = None

    @property
    def id(self) -> str:
        return self.name or f"load:{self.source.name}->{self.target}"


def _pages(
    source: RowSource, after: list[Any] | None, size: int
) -> Iterator[tuple[list[dict[str, Any]], list[Any]]]:
    while True:
        rows = source.rows_after(after, size)
        if not rows:
            return
        missing = [k for k in source.key if k not in rows[-1]]
        if missing:
            raise MigrationError(f"source {source.name}: a row has no key column {', '.join(missing)}")
        after = [rows[-1][k] for k in source.key]
        yield rows, after


def _writes(step: Load, row: dict[str, Any]) -> list[Put | Merge]:
    if step.transform is None:
        return outputs(row, step.target)
    return outputs(_checked(step.transform)(row), step.target)


@functools.lru_cache(maxsize=16)
def _checked(transform: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], Any]:
    """The transform as ``guarded`` makes it, once per transform rather than once per row."""
    return guarded(transform, "transform", transform)


def run_load(ctx: Context, step: Load) -> dict[str, Any]:
    """Execute (or resume) a ``Load``, then verify it row by row."""
    recorded = ctx.state.step(step.id)
    if recorded.get("status") not in ("loaded", "verified"):
        cursor = recorded.get("cursors", {}).get("0", {})
        after = (cursor.get("key") or {}).get("after")
        writer = Writer(ctx.client, KeySchemas(ctx.client))
        with Bar(ctx.console, f"load {step.source.name} -> {step.target}", step.source.count()) as bar:
            for rows, last in _pages(step.source, after, ctx.page_size):
                written = writer.write([w for row in rows for w in _writes(step, row)])
                ctx.state.checkpoint(step.id, 0, {"after": last}, False, written)
                if bar is not None:
                    bar.advance(len(rows))
        ctx.state.update(step.id, status="loaded")
    if recorded.get("status") != "verified":
        verdict = verify_load(ctx.client, step, page_size=ctx.page_size)
        ctx.state.update(step.id, verification=verdict)
        if not verdict["ok"]:
            shown = "; ".join(f"{d['table']} {d['key']}: {d['problem']}" for d in verdict["differences"])
            raise MigrationError(
                f"{step.id}: verification failed: {verdict['missing']} missing, {verdict['different']} "
                f"different of {verdict['items']} items ({shown})"
            )
        ctx.state.update(step.id, status="verified")
    written = sum(c.get("written", 0) for c in ctx.state.step(step.id).get("cursors", {}).values())
    return {
        "source": step.source.name,
        "target": step.target,
        "writes": written,
        "verification": ctx.state.step(step.id).get("verification"),
    }


Expected = tuple[str, Item, bool]  # (table, item, partial: only the attributes a Merge sets)


def verify_load(client: Any, step: Load, *, page_size: int = 250) -> dict[str, Any]:
    """Every row transformed again and every resulting item read back by key and compared.

    An item that does not match when its page is checked may still be written by a later row (a
    Merge into the item an earlier row put): it is held, later rows' writes are folded into it, and
    it is read again at the end, so the verdict does not depend on where the pages break."""
    keys = KeySchemas(client)
    verdict: dict[str, Any] = {
        "ok": True,
        "rows": 0,
        "items": 0,
        "missing": 0,
        "different": 0,
        "differences": [],
    }
    held: dict[tuple, Expected] = {}
    for rows, _ in _pages(step.source, None, page_size):
        verdict["rows"] += len(rows)
        expected: dict[tuple, Expected] = {}
        for write in (w for row in rows for w in _writes(step, row)):
            key = (write.table, *keys.key_of(write.table, write.item))
            if key not in expected and key in held:
                expected[key] = held.pop(key)
            else:
                verdict["items"] += key not in expected
            if isinstance(write, Merge) and key in expected:
                expected[key][1].update(write.item)
            else:
                expected[key] = (write.table, dict(write.item), isinstance(write, Merge))
        for table, item, partial, problem in _compare(client, keys, list(expected.values())):
            if len(held) < HELD_LIMIT:
                held[(table, *keys.key_of(table, item))] = (table, item, partial)
            else:  # a load this far off is judged as it goes, not kept in memory whole
                _count(verdict, keys, table, item, problem)
    for table, item, _, problem in _compare(client, keys, list(held.values())):
        _count(verdict, keys, table, item, problem)
    verdict["ok"] = verdict["missing"] == 0 and verdict["different"] == 0
    return verdict


def _count(verdict: dict[str, Any], keys: KeySchemas, table: str, item: Item, problem: str) -> None:
    verdict[problem] += 1
    if len(verdict["differences"]) < SHOWN_DIFFERENCES:
        key = {n: item[n] for n in keys(table)}
        verdict["differences"].append({"table": table, "key": repr(key), "problem": problem})


def _compare(client: Any, keys: KeySchemas, expected: list[Expected]) -> list[tuple[str, Item, bool, str]]:
    """The expected items that are missing or different, each with its problem."""
    failed = []
    for start in range(0, len(expected), BATCH_GET_LIMIT):
        chunk = expected[start : start + BATCH_GET_LIMIT]
        stored = _batch_get(client, keys, chunk)
        for table, item, partial in chunk:
            found = stored.get((table, *keys.key_of(table, item)))
            wanted = decode(encode(item))
            if found is None:
                failed.append((table, item, partial, "missing"))
            elif (partial and any(found.get(k) != v for k, v in wanted.items())) or (
                not partial and found != wanted
            ):
                failed.append((table, item, partial, "different"))
    return failed


def _batch_get(client: Any, keys: KeySchemas, chunk: list[Expected]) -> dict[tuple, Item]:
    request: dict[str, dict[str, Any]] = {}
    for table, item, _ in chunk:
        request.setdefault(table, {"Keys": [], "ConsistentRead": True})
        wire_key = encode({n: item[n] for n in keys(table)})
        if wire_key not in request[table]["Keys"]:
            request[table]["Keys"].append(wire_key)
    found: dict[tuple, Item] = {}
    for _ in range(MAX_GET_ATTEMPTS):
        response = client.batch_get_item(RequestItems=request)
        for table, items in response.get("Responses", {}).items():
            for raw in items:
                item = decode(raw)
                found[(table, *keys.key_of(table, item))] = item
        request = response.get("UnprocessedKeys") or {}
        if not request:
            return found
    raise MigrationError(f"BatchGetItem: keys still unprocessed after {MAX_GET_ATTEMPTS} attempts")


def preview_load(ctx: Context, step: Load) -> dict[str, Any]:
    """Dry run: how many rows, and the first rows before and after the transform."""
    rows = step.source.rows_after(None, max(ctx.sample, 1))
    samples = [{"before": row, "after": [(w.table, w.item) for w in _writes(step, row)]} for row in rows]
    return {
        "source": step.source.name,
        "target": step.target,
        "rows": step.source.count(),
        "samples": samples,
    }
