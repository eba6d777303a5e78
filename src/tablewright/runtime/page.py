"""``Page``: the result of running an access pattern, with the numbers that show what it cost."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from .wire import Record


@dataclass
class Stats:
    """What a run cost: requests sent, items DynamoDB read (ScannedCount) vs returned to the caller,
    items skipped because they were no entity (markers), read capacity units, wall time."""

    requests: int = 0
    items_read: int = 0
    items_returned: int = 0
    skipped: int = 0
    consumed_capacity: float = 0.0
    latency_ms: float = 0.0

    def add_capacity(self, consumed: object) -> None:
        """Add a ConsumedCapacity value (one dict or a list of them, as batch operations return)."""
        for entry in consumed if isinstance(consumed, list) else [consumed] if consumed else []:
            self.consumed_capacity += float(entry.get("CapacityUnits", 0.0))

    def as_dict(self) -> dict[str, object]:
        """Plain data for JSON output."""
        return {
            "requests": self.requests,
            "items_read": self.items_read,
            "items_returned": self.items_returned,
            "skipped": self.skipped,
            "consumed_capacity": round(self.consumed_capacity, 2),
            "latency_ms": round(self.latency_ms, 3),
        }


@dataclass
class Page:
    """Records of one run, the cursor of the next page (None when there is none), and stats."""

    items: list[Record] = field(default_factory=list)
    cursor: str | None = None
    stats: Stats = field(default_factory=Stats)

    def __iter__(self) -> Iterator[Record]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> Record:
        return self.items[index]
