"""Order-independent checksums of item sets.

Each item is hashed (SHA-256 of a canonical JSON form tagged with DynamoDB types, so ``1`` and
``Decimal("1.0")`` agree and ``"1"`` does not) and the hashes are **summed** modulo 2**256: unlike XOR,
a sum does not cancel an item written twice, and unlike a sorted list it needs no memory.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

_MOD = 2**256


def _number(value: int | Decimal) -> str:
    text = format(Decimal(value).normalize(), "f") if isinstance(value, Decimal) else str(value)
    return text.rstrip("0").rstrip(".") if "." in text else text


def canonical(value: Any) -> Any:
    """A JSON-ready, type-tagged, order-free form of a Python value."""
    if value is None:
        return ["NULL"]
    if isinstance(value, bool):
        return ["BOOL", value]
    if isinstance(value, (int, Decimal)):
        return ["N", _number(value)]
    if isinstance(value, str):
        return ["S", value]
    if isinstance(value, (bytes, bytearray)):
        return ["B", base64.b64encode(bytes(value)).decode()]
    if isinstance(value, (set, frozenset)):
        return ["SET", sorted(json.dumps(canonical(v)) for v in value)]
    if isinstance(value, dict):
        return ["M", {str(k): canonical(v) for k, v in value.items()}]
    if isinstance(value, (list, tuple)):
        return ["L", [canonical(v) for v in value]]
    raise TypeError(f"{type(value).__name__} has no DynamoDB type")


def item_hash(item: dict[str, Any]) -> int:
    """SHA-256 of the item's canonical JSON, as an integer."""
    text = json.dumps(canonical(item), sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest(), "big")


@dataclass
class Digest:
    """Count and summed hashes of a set of items."""

    count: int = 0
    total: int = 0

    def add(self, item: dict[str, Any]) -> None:
        self.count += 1
        self.total = (self.total + item_hash(item)) % _MOD

    def merge(self, other: Digest) -> None:
        self.count += other.count
        self.total = (self.total + other.total) % _MOD

    @property
    def hex(self) -> str:
        return f"{self.total:064x}"

    def as_dict(self) -> dict[str, Any]:
        return {"count": self.count, "checksum": self.hex}
