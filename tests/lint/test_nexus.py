"""The Nexus checklist (seed 004) as lint conventions: the compliant design is quiet, each breach of
the checklist is reported with its own rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewright.lint import lint_text

NEXUS = (Path(__file__).parent / "nexus.yaml").read_text(encoding="utf-8")


def _rules(text: str) -> set[str]:
    return {f.rule for f in lint_text(text, "nexus.yaml")}


def test_compliant_nexus_design_is_quiet() -> None:
    assert [(f.rule, f.message) for f in lint_text(NEXUS, "nexus.yaml")] == []


@pytest.mark.parametrize(
    ("old", "new", "rule"),
    [
        # "WRONG: GSI1PK = USER#user_123#2025-12 // Month-based"
        ('"USER#{userId}#{startUtc|year}"', '"USER#{userId}#{startUtc|month}"', "TW708"),
        # GSI3 must overload TYPE#STATUS#SORT
        ('"TASK#{status}#{priority}"', '"{priority}#{status}"', "TW708"),
        # "Queries use GSI (not Scan on base table)"
        ("      op: query\n      via: Event\n", "      op: scan\n      via: Event\n", "TW710"),
        # "Attributes use camelCase"
        (
            "      title: {type: string, required: true}\n",
            "      task_title: {type: string, required: true}\n",
            "TW701",
        ),
    ],
    ids=["gsi1-month", "gsi3-shape", "scan", "camel-case"],
)
def test_checklist_breaches_are_reported(old: str, new: str, rule: str) -> None:
    assert old in NEXUS
    assert rule in _rules(NEXUS.replace(old, new, 1))
