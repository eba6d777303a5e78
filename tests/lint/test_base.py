"""The base design is sound: lint must stay quiet on it, or every rule test below is meaningless."""

from __future__ import annotations

from tablewright.lint import lint_text

from .designs import design


def test_base_design_is_quiet() -> None:
    findings = lint_text(design(), "base.yaml")
    assert [(f.rule, f.message) for f in findings] == []
