"""Transforms named by the YAML plan in test_steps.py (``transforms_for_tests:name``)."""

from __future__ import annotations


def upper_name(item: dict) -> dict:
    """Renames ``name`` to ``title`` in upper case; drops items marked ``skip``."""
    if item.get("skip"):
        return None
    new = {k: v for k, v in item.items() if k != "name"}
    new["title"] = item["name"].upper()
    return new


def score(item: dict) -> int:
    """A derived attribute: the length of the title."""
    return len(item["title"])
