"""SARIF 2.1.0 output: one run, the rules as ``tool.driver.rules``, one result per finding.

Severity maps to SARIF ``level`` (info -> note). Locations are the design file (relative URI) with
1-based line and column, as SARIF's ``region`` expects.
"""

from __future__ import annotations

from pathlib import Path

from .findings import Report
from .registry import RULES

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"info": "note", "warning": "warning", "error": "error"}
INFORMATION_URI = "https://github.com/tablewright/tablewright/blob/main/docs/lint.md"


def _uri(file: str) -> str:
    path = Path(file)
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def to_sarif(report: Report, version: str = "0.1.0") -> dict[str, object]:
    """The report as a SARIF 2.1.0 log (a JSON-ready dict)."""
    order = sorted(RULES)
    rules = [
        {
            "id": rule.id,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.why},
            "help": {"text": rule.fix},
            "helpUri": f"{INFORMATION_URI}#{rule.id.lower()}",
            "defaultConfiguration": {"level": LEVELS[rule.severity]},
            "properties": {"family": rule.family},
        }
        for rule in (RULES[i] for i in order)
    ]
    results = [
        {
            "ruleId": f.rule,
            "ruleIndex": order.index(f.rule),
            "level": LEVELS[f.severity],
            "message": {"text": f"{f.message}. Why: {f.why} Fix: {f.fix}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.file)},
                        "region": {"startLine": f.line, "startColumn": f.column},
                    }
                }
            ],
        }
        for f in report.findings
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "tablewright-lint",
                        "version": version,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "artifacts": [{"location": {"uri": _uri(file)}} for file in report.files],
                "results": results,
            }
        ],
    }
