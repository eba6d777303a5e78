"""Volumes and rates for cost estimation, normalised to items, bytes and per-second rates."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class EntityVolume:
    """How many items of an entity exist, their size, their growth and the write rate."""

    items: int = 0
    item_size: int | None = None  # bytes, average
    growth_per_month: int = 0  # items added per month net of TTL deletes
    writes_per_second: float = 0.0  # creates: new items
    transactional: bool = False  # written through TransactWriteItems (twice the write units)
    updates_per_second: float = 0.0  # updates of existing items
    update_changes: tuple[str, ...] | None = None  # attributes an update changes (None: not declared)
    # Share of items holding an optional attribute (0..1), or per enum value ({value: share}).
    shares: dict[str, float | dict[str, float]] = field(default_factory=dict)


@dataclass
class PatternVolume:
    """How often an access pattern runs (per second, average)."""

    reads_per_second: float = 0.0
    writes_per_second: float = 0.0


@dataclass
class Volumes:
    """All volumes of a design; ``peak_factor`` is peak rate / average rate."""

    peak_factor: float = 1.0
    entities: dict[str, EntityVolume] = field(default_factory=dict)
    patterns: dict[str, PatternVolume] = field(default_factory=dict)

    @property
    def declared(self) -> bool:
        """True when the volumes say how many items exist or how often anything is written or read
        (item sizes alone price nothing)."""
        return any(
            v.items or v.writes_per_second or v.updates_per_second for v in self.entities.values()
        ) or any(p.reads_per_second or p.writes_per_second for p in self.patterns.values())

    def peak(self, rate_per_second: float) -> float:
        """An average rate scaled to the peak."""
        return rate_per_second * self.peak_factor
