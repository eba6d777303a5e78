"""What DynamoDB returns for a sort-key condition, computed here from a partition's items.

Strings compare by their UTF-8 bytes, numbers as numbers: DynamoDB's key order.
"""

from __future__ import annotations

from decimal import Decimal


def _key(value: dict) -> object:
    kind, raw = next(iter(value.items()))
    return Decimal(raw) if kind == "N" else raw.encode("utf-8") if kind == "S" else raw


MATCHES = {
    "=": lambda v, a, b: v == a,
    "<": lambda v, a, b: v < a,
    "<=": lambda v, a, b: v <= a,
    ">": lambda v, a, b: v > a,
    ">=": lambda v, a, b: v >= a,
    "between": lambda v, a, b: a <= v <= b,
    "begins_with": lambda v, a, b: isinstance(v, bytes) and v.startswith(a),
}


def expected_count(items: list[dict], sort_name: str, op: str, low: dict, high: dict | None) -> int:
    """How many of ``items`` (DynamoDB JSON) the condition ``sort_name op low [high]`` selects."""
    a, b = _key(low), _key(high) if high else None
    return sum(1 for item in items if sort_name in item and MATCHES[op](_key(item[sort_name]), a, b))


def probes(items: list[dict], sort_name: str) -> tuple[dict, dict, dict]:
    """A low value, a high value (both taken from the items) and a prefix to try every operator with."""
    values = sorted((item[sort_name] for item in items if sort_name in item), key=_key)
    low, high = values[len(values) // 4], values[(3 * len(values)) // 4]
    kind, raw = next(iter(low.items()))
    prefix = {kind: raw[: max(1, len(raw) // 2)]} if kind == "S" else low
    return low, high, prefix
