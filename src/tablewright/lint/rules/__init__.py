"""Lint rules by family; importing this package registers every rule in ``registry.RULES``."""

from . import capacity, conventions, indexes, keys, limits, patterns, projection, static, temporal, ttl

__all__ = [
    "capacity",
    "conventions",
    "indexes",
    "keys",
    "limits",
    "patterns",
    "projection",
    "static",
    "temporal",
    "ttl",
]
