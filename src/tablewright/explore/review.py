"""The design's review beside its data: lint findings and the cost of each pattern."""

from __future__ import annotations

from typing import Any

from ..cost import build
from ..lint import lint_file
from ..lint.runner import load_design
from .workspace import Workspace


def review(workspace: Workspace) -> dict[str, Any]:
    """Lint findings (with the design's own lint configuration) and the cost report, JSON-ready."""
    findings = [f.as_dict() for f in lint_file(workspace.path)]
    try:
        report = build(load_design(workspace.path))
    except Exception as exc:  # cost cannot price every design (e.g. no volumes): say why, keep the lint
        report = {"error": f"{type(exc).__name__}: {exc}"}
    return {"findings": findings, "cost": report}
