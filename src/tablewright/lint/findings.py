"""Located findings and the exit status they imply."""

from __future__ import annotations

from dataclasses import dataclass, field

from .registry import SEVERITIES

# The project's exit statuses (docs/cli.md): 0 clean or info only, 1 findings (warnings or errors),
# 2 unusable input. A design or lint configuration that does not load is unusable input, not a finding
# about a design: its rules are the ones below.
EXIT_STATUS: dict[str, int] = {"info": 0, "warning": 1, "error": 1}
UNUSABLE_INPUT_RULES = frozenset({"TW001", "TW002"})


@dataclass(frozen=True)
class Finding:
    """One problem: which rule, how severe, where (file, 1-based line and column), what, why and how to fix."""

    rule: str
    name: str
    severity: str
    file: str
    line: int
    column: int
    message: str
    why: str
    fix: str
    path: tuple[object, ...] = ()

    @property
    def location(self) -> str:
        """``file:line:column``."""
        return f"{self.file}:{self.line}:{self.column}"

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "why": self.why,
            "fix": self.fix,
            "path": [str(p) for p in self.path],
        }


@dataclass
class Report:
    """Findings for one or more design files."""

    files: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        """0 when clean (or info only), 1 with findings, 2 when a design or its lint configuration did
        not load (whatever severity the configuration gives those rules)."""
        if any(f.rule in UNUSABLE_INPUT_RULES for f in self.findings):
            return 2
        return max((EXIT_STATUS[f.severity] for f in self.findings), default=0)

    def counts(self) -> dict[str, int]:
        """Number of findings per severity."""
        counts = dict.fromkeys(SEVERITIES, 0)
        for finding in self.findings:
            counts[finding.severity] += 1
        return counts
