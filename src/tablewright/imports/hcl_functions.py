"""The Terraform functions import evaluates (``FUNCTIONS``: name -> Python function), the ones
table declarations use in practice; any other function names itself as unresolved."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def as_text(value: Any) -> str:
    """A value interpolated into a string, the way Terraform writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        raise ValueError(f"cannot interpolate {json.dumps(value)} into a string")
    return str(value)


def _merge(*maps: dict[str, Any]) -> dict[str, Any]:
    return {k: v for m in maps for k, v in (m or {}).items()}


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "lookup": lambda m, key, *default: m[key] if key in m or not default else default[0],
    "merge": _merge,
    "concat": lambda *lists: [item for items in lists for item in items],
    "format": lambda spec, *args: spec.replace("%s", "{}").replace("%d", "{}").format(*args),
    "lower": str.lower,
    "upper": str.upper,
    "title": str.title,
    "trimspace": str.strip,
    "replace": lambda text, old, new: str(text).replace(old, new),
    "join": lambda sep, items: str(sep).join(map(as_text, items)),
    "split": lambda sep, text: str(text).split(sep),
    "tostring": as_text,
    "tonumber": lambda value: json.loads(str(value)),
    "tobool": lambda value: value if isinstance(value, bool) else str(value) == "true",
    "tomap": dict,
    "tolist": list,
    "toset": lambda items: list(dict.fromkeys(items)),
    "length": len,
    "keys": lambda m: sorted(m),
    "values": lambda m: [m[k] for k in sorted(m)],
    "element": lambda items, index: items[int(index) % len(items)],
    "contains": lambda items, value: value in items,
    "coalesce": lambda *values: next(v for v in values if v not in (None, "")),
    "flatten": lambda items: [x for i in items for x in (i if isinstance(i, list) else [i])],
    "distinct": lambda items: list(dict.fromkeys(items)),
    "zipmap": lambda names, values: dict(zip(names, values)),
    "min": min,
    "max": max,
    "jsonencode": lambda value: json.dumps(value, separators=(",", ":")),
    "jsondecode": json.loads,
}
