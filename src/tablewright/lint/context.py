"""What a lint check sees: the design, the cost estimate and helpers over both."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

from tablewright.cost import analysis
from tablewright.cost.bill import Bill, price
from tablewright.cost.estimate import Estimate, estimate
from tablewright.cost.prices import Prices, default_prices
from tablewright.cost.sizes import EntitySize, entity_size
from tablewright.design.model import AccessPattern, Design, Entity, EntityKey, Index, Table


@dataclass(frozen=True)
class Placement:
    """An entity's key on the table (``index=None``) or on one index."""

    table_name: str
    table: Table
    index: Index | None
    entity: Entity
    key: EntityKey

    @property
    def key_name(self) -> str:
        """``table`` or the index name (the entity's ``keys:`` entry)."""
        return self.index.name if self.index else "table"

    @property
    def label(self) -> str:
        """Human name: ``table X`` or ``index Y of table X``."""
        return (
            f"index {self.index.name} of table {self.table_name}"
            if self.index
            else f"table {self.table_name}"
        )

    @property
    def path(self) -> tuple[object, ...]:
        """Where the entity's key for this placement is written."""
        return ("entities", self.entity.name, "keys", self.key_name)


@dataclass
class Context:
    """The design under review plus cached analyses."""

    design: Design
    options: dict[str, object] = field(default_factory=dict)

    @cached_property
    def estimate(self) -> Estimate:
        """Monthly capacity and peak partition load (tablewright.cost)."""
        return estimate(self.design)

    @cached_property
    def prices(self) -> Prices:
        """The price list cost-related findings state their monthly impact in."""
        return default_prices()

    @cached_property
    def bill(self) -> Bill:
        """The estimate priced (tablewright.cost): per table and GSI, the capacity its peak needs."""
        return price(self.estimate, self.prices)

    def target_dollars(self, table: str, index: str | None = None) -> float:
        """On-demand monthly cost of a table (or one index): its writes, reads and storage."""
        target = self.estimate.targets.get(table if index is None else f"{table}/{index}")
        if target is None:
            return 0.0
        prices = self.prices
        storage = target.storage_bytes / 1024**3 * prices.storage_gb_month.get(target.table_class, 0.25)
        return (
            target.write_units * prices.write_request_unit
            + target.read_units * prices.read_request_unit
            + storage
        )

    def pattern_impact(self, pattern: str, share: float = 1.0) -> str:
        """``impact`` of a share of a pattern's reads; says so when the pattern declares no rate."""
        if self.has_volumes and self.reads_per_second(pattern) is None:
            return f"monthly cost unknown: pattern {pattern} declares no rate"
        return self.impact(self.pattern_dollars(pattern) * share)

    def pattern_dollars(self, pattern: str) -> float:
        """On-demand monthly cost of a pattern's reads at the declared rate."""
        units = sum(p.read_units for p in self.estimate.patterns if p.name == pattern)
        return units * self.prices.read_request_unit

    def impact(self, dollars: float) -> str:
        """A finding's monthly dollar impact at the declared volumes, or why it cannot be stated."""
        if not self.has_volumes:
            return "monthly cost unknown: no volumes declared"
        if dollars >= 1:
            return f"${dollars:,.2f}/month at the declared volumes"
        return f"${dollars:.2g}/month at the declared volumes"

    def size(self, entity: str) -> EntitySize:
        """Typical and largest item size of an entity."""
        return entity_size(self.design, entity)

    def placements(self) -> Iterator[Placement]:
        """Every (entity, table or index) pair the entity has a key for."""
        for entity in self.design.entities.values():
            table = self.design.tables.get(entity.table)
            if table is None:
                continue
            for key_name, key in entity.keys.items():
                index = table.indexes.get(key_name) if key_name != "table" else None
                if key_name == "table" or index is not None:
                    yield Placement(entity.table, table, index, entity, key)

    def patterns_on(self, table: str, index: str | None) -> list[AccessPattern]:
        """Patterns that read a table (``index=None``: the base table) or one of its indexes."""
        return [
            p
            for p in self.design.patterns.values()
            if analysis.pattern_table(self.design, p) == table and (p.served.index or None) == index
        ]

    def reads_per_second(self, pattern: str) -> float | None:
        """A pattern's declared average rate, or None when the design declares none."""
        volume = self.design.volumes.patterns.get(pattern)
        return volume.reads_per_second if volume else None

    @property
    def has_volumes(self) -> bool:
        """True when the design declares any volumes (items or rates; item sizes alone are not)."""
        return self.design.volumes.declared


def index_path(table: str, index: str) -> tuple[object, ...]:
    """Document path of an index declaration."""
    return ("tables", table, "indexes", index)


def pattern_path(pattern: str, *rest: object) -> tuple[object, ...]:
    """Document path of a pattern (or a key inside it)."""
    return ("patterns", pattern, *rest)
