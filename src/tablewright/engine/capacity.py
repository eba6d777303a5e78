"""Consumed capacity by DynamoDB's rules: 4 KB read units, 1 KB write units, per-index writes.

See /work/shared/reference/dynamodb-facts.md section B (from the Developer Guide's pages on read/write
capacity and on secondary index capacity).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .catalog import IndexMeta, TableMeta
from .types import Item, item_size

READ_UNIT = 4096
WRITE_UNIT = 1024


def read_units(size: int, *, consistent: bool = False, transactional: bool = False) -> float:
    units = max(1, math.ceil(size / READ_UNIT))
    if transactional:
        return units * 2.0
    return float(units) if consistent else units / 2


def write_units(size: int, *, transactional: bool = False) -> float:
    units = max(1, math.ceil(size / WRITE_UNIT))
    return units * 2.0 if transactional else float(units)


def index_write_units(
    index: IndexMeta, old: Item | None, new: Item | None, *, transactional: bool = False
) -> float:
    """Write units an index consumes when an item changes from ``old`` to ``new``."""
    old_key = index.entry_key(old) if old else None
    new_key = index.entry_key(new) if new else None
    if old_key is None and new_key is None:
        return 0.0
    old_entry = index.project(old) if old_key else None
    new_entry = index.project(new) if new_key else None
    if old_key == new_key and old_entry == new_entry:
        return 0.0
    units = 0.0
    if old_key is not None and old_key != new_key:
        units += write_units(item_size(old_entry), transactional=transactional)
    if new_key is not None:
        units += write_units(item_size(new_entry), transactional=transactional)
    return units


@dataclass
class Consumed:
    """Capacity consumed on one table by one request, split by table and index."""

    table: TableMeta
    kind: str = "read"  # "read" or "write": which of Read/WriteCapacityUnits to report
    table_units: float = 0.0
    index_units: dict[str, float] = field(default_factory=dict)

    def add_index(self, index: IndexMeta, units: float) -> None:
        if units:
            self.index_units[index.name] = self.index_units.get(index.name, 0.0) + units

    def write(
        self, old: Item | None, new: Item | None, old_size: int, new_size: int, *, transactional: bool = False
    ) -> None:
        """Charge a write that turns ``old`` into ``new`` (either may be None), with its index writes."""
        self.table_units += write_units(max(old_size, new_size), transactional=transactional)
        for index in self.table.indexes.values():
            self.add_index(index, index_write_units(index, old, new, transactional=transactional))

    @property
    def total(self) -> float:
        return self.table_units + sum(self.index_units.values())

    def render(self, mode: str | None, *, split: bool = False) -> dict[str, Any] | None:
        """The ConsumedCapacity structure for ReturnConsumedCapacity ``mode`` (None/NONE: nothing).

        Real DynamoDB reports Read/WriteCapacityUnits beside CapacityUnits only for transactions
        (``split``); single-item, batch, query and scan responses carry the aggregate alone.
        """
        if mode not in ("TOTAL", "INDEXES"):
            return None
        unit_field = "ReadCapacityUnits" if self.kind == "read" else "WriteCapacityUnits"

        def units(value: float) -> dict[str, float]:
            return {"CapacityUnits": value, unit_field: value} if split else {"CapacityUnits": value}

        out: dict[str, Any] = {"TableName": self.table.name, **units(self.total)}
        if mode == "INDEXES":
            out["Table"] = units(self.table_units)
            for kind, key in (("GSI", "GlobalSecondaryIndexes"), ("LSI", "LocalSecondaryIndexes")):
                per_index = {
                    name: units(value)
                    for name, value in self.index_units.items()
                    if self.table.indexes[name].kind == kind
                }
                if per_index:
                    out[key] = per_index
        return out


def merge(consumed: list[Consumed], mode: str | None, *, split: bool = False) -> list[dict[str, Any]] | None:
    """One ConsumedCapacity entry per table, for batch and transaction responses."""
    if mode not in ("TOTAL", "INDEXES"):
        return None
    by_table: dict[str, Consumed] = {}
    for entry in consumed:
        target = by_table.setdefault(entry.table.name, Consumed(entry.table, entry.kind))
        target.table_units += entry.table_units
        for name, units in entry.index_units.items():
            target.index_units[name] = target.index_units.get(name, 0.0) + units
    return [entry.render(mode, split=split) for entry in by_table.values()]
