"""Lint rules by family; importing this package registers every rule in ``registry.RULES``."""

from . import conventions, indexes, keys, limits, patterns, projection, static, temporal, ttl

__all__ = ["conventions", "indexes", "keys", "limits", "patterns", "projection", "static", "temporal", "ttl"]
