"""Tests written to kill mutants that survived mutation testing (docs/mutation.md)."""

from __future__ import annotations
