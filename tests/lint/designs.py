"""A small, sound design to vary: each lint test changes one thing and expects one rule to fire."""

from __future__ import annotations

import copy
from typing import Any

import yaml

BASE: dict[str, Any] = {
    "version": 1,
    "name": "shop",
    "tables": {
        "orders": {
            "partition_key": {"name": "PK", "type": "S"},
            "sort_key": {"name": "SK", "type": "S"},
            "indexes": {
                "GSI1": {
                    "kind": "global",
                    "partition_key": {"name": "GSI1PK", "type": "S"},
                    "sort_key": {"name": "GSI1SK", "type": "S"},
                    "projection": "ALL",
                }
            },
        }
    },
    "entities": {
        "Order": {
            "table": "orders",
            "attributes": {
                "customer_id": {"type": "string", "required": True, "format": "uuid"},
                "order_id": {"type": "string", "required": True, "format": "uuid"},
                "status": {"type": "string", "enum": ["new", "paid", "shipped", "returned"]},
                "total": {"type": "number", "min": 0, "max": 100000},
                "created_at": {"type": "string", "format": "rfc3339"},
            },
            "keys": {
                "table": {"pk": "CUSTOMER#{customer_id}", "sk": "ORDER#{order_id}"},
                "GSI1": {"pk": "ORDER#{order_id}", "sk": "ORDER#{order_id}"},
            },
        }
    },
    "patterns": {
        "orders_of_customer": {
            "description": "A customer's latest orders.",
            "params": {"customer_id": "string"},
            "returns": "Order",
            "means": {"where": "customer_id = :customer_id", "limit": 20},
            "served": {"op": "query"},
        },
        "order_by_id": {
            "description": "One order by its id.",
            "params": {"order_id": "string"},
            "returns": "Order",
            "means": {"where": "order_id = :order_id"},
            "served": {"op": "query", "index": "GSI1"},
        },
    },
    "volumes": {
        "peak_factor": 3,
        "entities": {"Order": {"items": 100000, "writes": "1/s"}},
        "patterns": {"orders_of_customer": {"reads": "10/s"}, "order_by_id": {"reads": "10/s"}},
    },
}


def merge(base: Any, change: Any) -> Any:
    """Deep-merge ``change`` into a copy of ``base``; a None value deletes the key."""
    if not isinstance(base, dict) or not isinstance(change, dict):
        return copy.deepcopy(change)
    result = copy.deepcopy(base)
    for key, value in change.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge(result.get(key), value)
    return result


def design(change: dict[str, Any] | None = None) -> str:
    """The base design with ``change`` merged in, as YAML text."""
    return yaml.safe_dump(merge(BASE, change or {}), sort_keys=False)
