"""The steps of a migration plan: plain data. What each step does lives in ``tablewright.migrate.execute``.

A transform is ``item -> item | [(table, item), ...] | [Put/Merge, ...] | None`` over Python values
(``int``/``Decimal`` numbers, ``str``, ``bytes``, ``set``, ``dict``, ``list``, ``bool``, ``None``).
Writes are puts by the target key, so re-running a page is harmless; ``Merge`` is an UpdateItem SET of
the given attributes, for folding several source items into one target item (also idempotent).
Transforms must be deterministic: the same source item always gives the same writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Item = dict[str, Any]


@dataclass(frozen=True)
class Put:
    """Write ``item`` to ``table`` (PutItem by its key)."""

    table: str
    item: Item


@dataclass(frozen=True)
class Merge:
    """Set the non-key attributes of ``item`` on the item with the same key in ``table`` (UpdateItem)."""

    table: str
    item: Item


Transform = Callable[[Item], Any]


@dataclass
class CreateTable:
    """Create a table from a raw CreateTable request (``spec``), a design table (``from_design``), or
    with the same keys and indexes as an existing table (``like``). Existing tables are left alone."""

    spec: dict[str, Any] | None = None
    like: str | None = None
    name: str | None = None  # the new table's name with ``like``
    ttl: str | None = None
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # extra requests (UpdateTimeToLive, ...)

    @classmethod
    def from_design(cls, design: Any, table: str) -> CreateTable:
        """The table ``table`` (logical or physical name) of a design (a ``Design`` or a path)."""
        from ..design import load
        from ..export.create_table import requests

        loaded = load(design) if isinstance(design, (str, Path)) else design
        found = loaded.tables.get(table) or next(
            (t for t in loaded.tables.values() if t.table_name == table), None
        )
        if found is None:
            known = ", ".join(t.table_name for t in loaded.tables.values())
            raise KeyError(f"design {loaded.name!r} has no table {table!r} (tables: {known})")
        calls = requests(found)
        spec = calls.pop("CreateTable")
        return cls(spec=spec, ttl=found.ttl, calls=calls)

    @property
    def table(self) -> str:
        """The name of the table this step creates."""
        if self.spec is not None:
            return self.spec["TableName"]
        if self.name is None:
            raise ValueError("CreateTable(like=...) needs name=")
        return self.name

    @property
    def id(self) -> str:
        return f"create_table:{self.table}"


@dataclass
class CreateIndex:
    """Add a GSI to an existing table (UpdateTable); DynamoDB backfills it."""

    table: str
    index: dict[str, Any]  # the GlobalSecondaryIndexUpdates ``Create`` body
    attribute_definitions: list[dict[str, str]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"create_index:{self.table}/{self.index['IndexName']}"


@dataclass
class Copy:
    """Copy every item of ``source`` through ``transform`` (identity by default) into ``target``.

    Verified at the end (counts and checksums of source-under-transform versus the target tables);
    ``delete_source`` deletes the source only after verification passes.
    """

    source: str
    target: str
    transform: Transform | None = None
    delete_source: bool = False
    name: str | None = None

    @property
    def id(self) -> str:
        return self.name or f"copy:{self.source}->{self.target}"


@dataclass
class Backfill:
    """Set ``attribute`` to ``function(item)`` on every item of ``table`` (None: leave the item alone).

    With ``only_missing`` items that already hold the attribute are skipped; otherwise ``function``
    must be idempotent (``f(item with f's value) == f's value``), as a resumed page is re-applied.
    """

    table: str
    attribute: str
    function: Transform
    only_missing: bool = True

    @property
    def id(self) -> str:
        return f"backfill:{self.table}.{self.attribute}"


@dataclass
class DeleteTable:
    """Delete a table. A table that a Copy of the same plan reads is deleted only once that copy verified."""

    table: str

    @property
    def id(self) -> str:
        return f"delete_table:{self.table}"


@dataclass
class Rename:
    """Create-migrate-swap: create ``new`` (like ``old`` unless ``create`` says otherwise), copy, verify,
    and delete ``old`` only when ``delete_old``."""

    old: str
    new: str
    create: CreateTable | None = None
    transform: Transform | None = None
    delete_old: bool = False

    def expand(self) -> list[Any]:
        """The plain steps this rename stands for."""
        create = self.create or CreateTable(like=self.old, name=self.new)
        copy = Copy(
            self.old,
            self.new,
            self.transform,
            delete_source=self.delete_old,
            name=f"rename:{self.old}->{self.new}",
        )
        return [create, copy]


Step = CreateTable | CreateIndex | Copy | Backfill | DeleteTable


class Plan:
    """An ordered list of steps (a ``Rename`` expands into its steps). Step ids must be unique: they key
    the checkpoint state."""

    def __init__(self, steps: Iterable[Any], *, name: str = "plan") -> None:
        self.name = name
        self.steps: list[Step] = []
        for step in steps:
            self.steps += step.expand() if isinstance(step, Rename) else [step]
        seen: set[str] = set()
        for step in self.steps:
            if isinstance(step, Copy) and step.source == step.target:
                # With delete_source the table would be "verified" against itself and then deleted.
                raise ValueError(
                    f"plan {name!r}: step {step.id!r} reads and writes the same table {step.source!r}"
                )
            if step.id in seen:
                raise ValueError(f"plan {name!r}: two steps have the id {step.id!r}; give a Copy a name=")
            seen.add(step.id)

    def copies_from(self, table: str) -> list[Copy]:
        """The copies of this plan that read ``table``."""
        return [s for s in self.steps if isinstance(s, Copy) and s.source == table]
