"""Volumes and rates for cost estimation, normalised to items, bytes and per-second rates."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class EntityVolume:
    """How many items of an entity exist, their size, their growth and the write rate."""

    items: int = 0
    item_size: int | None = None  # bytes, average
    growth_per_month: int = 0  # items added per month net of TTL deletes
    writes_per_second: float = 0.0
    transactional: bool = False  # written through TransactWriteItems (twice the write units)


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

    def peak(self, rate_per_second: float) -> float:
        """An average rate scaled to the peak."""
        return rate_per_second * self.peak_factor
