"""Which database a migration's saved progress belongs to, and where that progress lives by default.

Saved progress says "these steps are done on *this* target with *this* plan". Resumed against any
other database it would skip steps that never ran there (a fresh database would be left half
migrated, reported as done). So the progress file records:

- the target's location: the SQLite file's absolute path, or the endpoint URL;
- the plan's name and content hash (``plan_hash``: steps, specs and transform source code);
- the identity of each table of the plan that existed, as DynamoDB reports it (``TableId``, else
  ``CreationDateTime``): a database deleted and loaded again at the same path has new tables.

A run whose location or plan hash differs from the file's is refused (the file may belong to a
migration that can still be resumed elsewhere); a run whose tables were created again since starts
fresh and says so (that progress describes a database that no longer exists). docs/migrate.md.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError

from .steps import Copy, DeleteTable, Plan

MEMORY = ":memory:"


@dataclass(frozen=True)
class Target:
    """Where a migration runs: ``kind`` is ``db``, ``endpoint`` or ``memory``."""

    kind: str
    location: str

    @classmethod
    def of(cls, client: Any) -> Target:
        """The target behind a client made by ``tablewright.connect``."""
        from .. import engine_of

        try:
            path = engine_of(client).store.path
        except ValueError:
            url = str(getattr(getattr(client, "meta", None), "endpoint_url", "") or "")
            return cls("endpoint", url.rstrip("/"))
        if path is None or path == MEMORY:
            return cls("memory", MEMORY)
        return cls("db", str(Path(path).resolve()))

    def __str__(self) -> str:
        return {"db": "database {}", "endpoint": "endpoint {}", "memory": "an in-memory engine"}[
            self.kind
        ].format(self.location)


def plan_hash(plan: Plan) -> str:
    """SHA-256 of what the plan does: each step's kind and fields, transforms by their source code.

    A transform's helpers in other modules are not followed: change one and the hash stays the same.
    """
    described = [_describe(step) for step in plan.steps]
    text = json.dumps(described, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _describe(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return {
            "step": type(value).__name__,
            **{f.name: _describe(getattr(value, f.name)) for f in fields(value)},
        }
    if callable(value):
        try:
            source = inspect.getsource(value)
        except (OSError, TypeError):
            code = getattr(value, "__code__", None)
            source = code.co_code.hex() if code is not None else repr(value)
        # The qualified name and source, not the module: a plan file is imported under a per-run name.
        name = str(getattr(value, "__qualname__", type(value).__qualname__))
        return {"function": name, "source": hashlib.sha256(source.encode("utf-8")).hexdigest()}
    if isinstance(value, dict):
        return {str(k): _describe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_describe(v) for v in value]
    return value


def plan_tables(plan: Plan) -> list[str]:
    """Every table the plan's steps name (sources, targets, tables created, filled or deleted)."""
    names: list[str] = []
    for step in plan.steps:
        for attribute in ("source", "target", "table"):
            try:
                name = getattr(step, attribute, None)
            except ValueError:  # CreateTable(like=...) without a name: the plan says so when it runs
                name = None
            if isinstance(name, str):
                names.append(name)
    return list(dict.fromkeys(names))


def deletable_tables(plan: Plan, started: Iterable[str]) -> set[str]:
    """Tables that steps already started (ids in ``started``) may have deleted on purpose."""
    ids = set(started)
    gone: set[str] = set()
    for step in plan.steps:
        if step.id not in ids:
            continue
        if isinstance(step, DeleteTable):
            gone.add(step.table)
        elif isinstance(step, Copy) and step.delete_source:
            gone.add(step.source)
    return gone


def table_identities(client: Any, names: Iterable[str]) -> dict[str, str]:
    """``{table: TableId or CreationDateTime}`` for the tables of ``names`` that exist."""
    found: dict[str, str] = {}
    for name in names:
        try:
            table = client.describe_table(TableName=name)["Table"]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ResourceNotFoundException":
                continue
            raise
        found[name] = str(table.get("TableId") or table.get("CreationDateTime"))
    return found


def cache_dir() -> Path:
    """The user's cache folder for tablewright (``$XDG_CACHE_HOME``, ``~/Library/Caches``, ``%LOCALAPPDATA%``)."""
    if os.environ.get("TABLEWRIGHT_CACHE_DIR"):
        return Path(os.environ["TABLEWRIGHT_CACHE_DIR"])
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "tablewright"


def default_state_path(target: Target, plan_name: str, plan_file: str | Path | None = None) -> Path | None:
    """Where progress is kept unless ``--state`` says otherwise: the user's cache folder, one file per
    target and plan, never the source tree. None for an in-memory engine: nothing there survives the
    run, so there is nothing to resume."""
    if target.kind == "memory":
        return None
    origin = f"{target.kind}\n{target.location}\n{Path(plan_file).resolve() if plan_file else plan_name}"
    digest = hashlib.sha256(origin.encode("utf-8")).hexdigest()[:16]
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in plan_name) or "plan"
    return cache_dir() / "migrate" / f"{safe}-{digest}.migrate.json"


class ProgressMismatch(Exception):
    """A progress file belongs to another target or another version of the plan: refused, untouched."""


def bind_progress(state: Any, client: Any, plan: Plan, target: Target) -> str | None:
    """Check that ``state`` (a ``State``) was saved for this target and plan, and record the binding.

    Returns a line to show the user when the saved progress was discarded (the target's tables were
    created again since); raises ``ProgressMismatch`` when the file belongs to another target or plan.
    """
    digest = plan_hash(plan)
    names = plan_tables(plan)
    recorded = state.data.get("target")
    notice = None
    if state.data.get("steps") and recorded is None:
        notice = f"progress file {state.path} records no target (an older format); starting fresh"
    elif recorded is not None:
        if (recorded.get("kind"), recorded.get("location")) != (target.kind, target.location):
            raise ProgressMismatch(
                f"progress file {state.path} belongs to {Target(recorded.get('kind', 'db'), recorded.get('location', '?'))}, "
                f"not {target}: pass --state with another file for this target, or delete it to start over"
            )
        if recorded.get("plan_hash") != digest:
            raise ProgressMismatch(
                f"progress file {state.path} was saved by another version of plan "
                f"{recorded.get('plan', '?')!r} on {target} (the steps or transforms changed): restore "
                "that plan to resume, or delete the file to start over"
            )
        gone = deletable_tables(plan, state.data.get("steps", {}))
        saved = recorded.get("tables", {})
        now = table_identities(client, saved)
        changed = [n for n, ident in saved.items() if now.get(n, ident if n in gone else None) != ident]
        if changed:
            notice = (
                f"progress file {state.path} was saved for an earlier database at {recorded.get('location')} "
                f"(table {changed[0]} was created again since); starting fresh"
            )
    if notice is not None:
        state.reset()
    binding = {"kind": target.kind, "location": target.location, "plan": plan.name, "plan_hash": digest}
    known = (state.data.get("target") or {}).get("tables", {}) if notice is None else {}
    binding["tables"] = {**known, **table_identities(client, names)}
    state.bind(binding)
    return notice


def record_tables(state: Any, client: Any, plan: Plan) -> None:
    """After a step: remember the identity of tables it created, so a later run can recognise them."""
    binding = state.data.get("target")
    if binding is not None:
        binding["tables"] = {**binding.get("tables", {}), **table_identities(client, plan_tables(plan))}
        state.bind(binding)
