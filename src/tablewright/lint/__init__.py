"""``tablewright lint``: review a design against DynamoDB's limits, costs and the team's conventions.

``lint_file(path)`` returns located ``Finding`` objects; every rule has a stable id (``TW101``) and
lives in ``tablewright.lint.rules`` (one module per family). docs/lint.md lists the rules.
"""

from .config import LintConfig, LintConfigError
from .findings import EXIT_STATUS, Finding, Report
from .registry import RULES, Rule
from .runner import lint_design, lint_file, lint_paths, lint_text

__all__ = [
    "EXIT_STATUS",
    "RULES",
    "Finding",
    "LintConfig",
    "LintConfigError",
    "Report",
    "Rule",
    "lint_design",
    "lint_file",
    "lint_paths",
    "lint_text",
]
