"""Run the rules over a design file: load it, apply the configuration, locate every hit.

Locations come from the YAML itself (``tablewright.design.yamlsource``): a hit names a path in the
document (``("tables", "t", "indexes", "GSI1")``) and the runner turns it into file, line and column,
so rules never deal with positions.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tablewright.design import DesignError, load, loads
from tablewright.design.files import read_text
from tablewright.design.foreign import foreign_problem, format_of_text
from tablewright.design.model import Design
from tablewright.design.yamlsource import Source, load_source

from . import rules as _rules  # noqa: F401  (registers every rule)
from .config import LintConfig, LintConfigError, sidecar_for
from .context import Context
from .findings import Finding, Report
from .registry import RULES, Hit, Rule, rule
from .rules.conventions import CONVENTION_IDS

_CONVENTION = re.compile(r"^convention (\w+): ")


@rule(
    "TW001",
    "design-invalid",
    "design",
    "error",
    "The design file does not load.",
    "Nothing else can be checked until the design loads; the loader lists every problem it found.",
    "Fix the problem the message names (docs/design-file.md documents every key).",
)
def _design_invalid(ctx: Context) -> list[Hit]:
    return []  # reported by the runner from DesignError, not by a check


@rule(
    "TW002",
    "lint-config-invalid",
    "design",
    "error",
    "The lint configuration (lint: section or sidecar) is invalid.",
    "An override that names an unknown rule or severity would silently do nothing.",
    "Use rule ids (TW101) or names (low-cardinality-partition-key) and info, warning or error.",
)
def _config_invalid(ctx: Context) -> list[Hit]:
    return []  # reported by the runner from LintConfigError


def _finding(
    rule_: Rule, severity: str, source: Source, path: tuple[object, ...], message: str, fix: str | None
) -> Finding:
    line, column = source.where(path, key=True) if path else (1, 1)
    return Finding(
        rule_.id, rule_.name, severity, source.file, line, column, message, rule_.why, fix or rule_.fix, path
    )


def lint_design(design: Design, source: Source, config: LintConfig | None = None) -> list[Finding]:
    """Run every enabled rule over a loaded design; ``source`` locates the hits."""
    config = config or LintConfig()
    ctx = Context(design, dict(config.options))
    findings: list[Finding] = []
    for rule_ in RULES.values():
        if rule_.id in config.disable:
            continue
        for hit in rule_.check(ctx):
            severity = config.severity.get(rule_.id) or hit.severity or rule_.severity
            findings.append(_finding(rule_, severity, source, hit.path, hit.message, hit.fix))
    return sorted(findings, key=lambda f: (f.file, f.line, f.column, f.rule))


def load_design(path: str | Path) -> Design:
    """Load a design file; ``design.lint`` holds its ``lint:`` section with the sidecar's keys over it,
    so ``tablewright cost`` sees what the sidecar declares (``transactional``)."""
    file = Path(path)
    design = load(file)
    sidecar = sidecar_for(file)
    if sidecar.exists():
        extra = yaml.safe_load(read_text(sidecar))
        if isinstance(extra, dict):
            design.lint = {**design.lint, **extra}
    return design


def _load_failure(rule_id: str, source: Source, error: DesignError, config: LintConfig) -> list[Finding]:
    findings = []
    for problem in error.problems:
        match = _CONVENTION.match(problem.message)
        rule_ = RULES[CONVENTION_IDS.get(match.group(1), rule_id) if match else rule_id]
        # A problem that stops the load cannot be disabled or re-graded: nothing else can read the
        # design, so lint must not exit 0 or 1 on it. Warnings the loader keeps follow the config.
        if problem.severity != "error" and rule_.id in config.disable:
            continue
        severity = (
            "error" if problem.severity == "error" else config.severity.get(rule_.id) or problem.severity
        )
        findings.append(
            Finding(
                rule_.id,
                rule_.name,
                severity,
                problem.file,
                problem.line,
                problem.column,
                problem.message,
                rule_.why,
                problem.hint or rule_.fix,
            )
        )
    return findings


def lint_text(text: str, file: str = "<design>", config: LintConfig | None = None) -> list[Finding]:
    """Lint design YAML text. ``config`` (e.g. from the command line) overrides the file's ``lint:``."""
    try:
        source = load_source(text, file)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        invalid = RULES["TW001"]
        foreign = foreign_problem(format_of_text(text, file), file)
        if foreign is not None:  # another tool's file (CloudFormation's !Ref is no YAML we read)
            line, column, message, fix = foreign.line, foreign.column, foreign.message, foreign.hint
            return [Finding("TW001", invalid.name, "error", file, line, column, message, invalid.why, fix)]
        return [
            Finding(
                "TW001",
                invalid.name,
                "error",
                file,
                line,
                column,
                f"YAML syntax: {exc.problem}",
                invalid.why,
                invalid.fix,
            )
        ]
    section = source.data.get("lint") if isinstance(source.data, dict) else None
    errors = _config_errors(section, ("lint",))
    if errors:
        return [_finding(RULES["TW002"], "error", source, e.path, str(e), None) for e in errors]
    own = LintConfig.from_mapping(section, ("lint",))
    effective = own.merged(config or LintConfig())
    try:
        design = loads(text, file)
    except DesignError as exc:
        return _load_failure("TW001", source, exc, effective)
    return lint_design(design, source, effective)


def lint_file(path: str | Path, config: LintConfig | None = None) -> list[Finding]:
    """Lint a design file with its ``lint:`` section, its sidecar and then ``config``."""
    file = Path(path)
    sidecar, problems = _read_sidecar(sidecar_for(file))
    if problems:
        return problems
    try:
        text = read_text(file)
    except UnicodeDecodeError as exc:
        invalid = RULES["TW001"]
        message = f"not UTF-8 text (byte {exc.start}): not a design file"
        return [Finding("TW001", invalid.name, "error", str(file), 1, 1, message, invalid.why, invalid.fix)]
    return lint_text(text, str(file), sidecar.merged(config or LintConfig()))


def _read_sidecar(path: Path) -> tuple[LintConfig, list[Finding]]:
    """A sidecar's configuration, or every problem it has, each at its own line in the sidecar."""
    if not path.exists():
        return LintConfig(), []
    invalid = RULES["TW002"]

    def unreadable(line: int, column: int, message: str) -> list[Finding]:
        return [
            Finding(
                invalid.id, invalid.name, "error", str(path), line, column, message, invalid.why, invalid.fix
            )
        ]

    try:
        source = load_source(read_text(path), str(path))
    except UnicodeDecodeError as exc:
        return LintConfig(), unreadable(1, 1, f"lint sidecar is not UTF-8 text (byte {exc.start})")
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = " ".join(str(exc.problem or exc).split())
        return LintConfig(), unreadable(line, column, f"lint sidecar is not YAML: {problem}")
    errors = _config_errors(source.data)
    if errors:
        return LintConfig(), [_finding(invalid, "error", source, e.path, str(e), None) for e in errors]
    return LintConfig.from_mapping(source.data), []


def _config_errors(data: object, base: tuple[object, ...] = ()) -> list[LintConfigError]:
    """Every fault of a lint configuration, not only the first ``LintConfig.from_mapping`` raises: each
    key, and each entry of a key holding a mapping or a list, is validated on its own."""
    try:
        LintConfig.from_mapping(data, base)
    except LintConfigError as first:
        if not isinstance(data, dict):
            return [first]
        errors: list[LintConfigError] = []
        for key, value in data.items():
            pieces: list[tuple[tuple[object, ...], dict[object, object]]]
            if isinstance(value, dict):
                pieces = [((key, entry), {key: {entry: item}}) for entry, item in value.items()]
            elif isinstance(value, list):
                pieces = [((key, position), {key: [item]}) for position, item in enumerate(value)]
            else:
                pieces = [((key,), {key: value})]
            for where, piece in pieces:
                try:
                    LintConfig.from_mapping(piece, base)
                except LintConfigError as exc:
                    # The piece's own path, then whatever the fault names inside the entry (a list
                    # entry is validated as position 0 of a list of one).
                    inner = exc.path[len(base) + len(where) :]
                    errors.append(LintConfigError(str(exc), (*base, *where, *inner)))
        return errors or [first]  # a fault only the whole shows
    return []


def lint_paths(paths: list[str | Path], config: LintConfig | None = None) -> Report:
    """Lint several design files into one report."""
    report = Report()
    for path in paths:
        report.files.append(str(path))
        report.findings.extend(lint_file(path, config))
    return report
