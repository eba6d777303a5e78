"""Lint findings a tester found missing or misplaced: a table TTL that no entity of the table stores
(TW503), and lint sidecar problems reported at the design's first line, only the first of them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tablewright.cli import main
from tablewright.lint import lint_text

SESSIONS = """\
version: 1
name: l8
tables:
  sessions:
    partition_key: {{name: sid, type: {sid_type}}}
    ttl: {ttl}
entities:
  Session:
    table: sessions
    additional_attributes: {additional}
    attributes:
      sid: {{type: {sid_attr_type}, required: true}}
      expires_at: {{type: number, format: epoch_s}}
volumes:
  entities:
    Session: {{items: 100000, item_size: 300, writes: 10/s}}
"""


def _sessions(ttl: str = "expiresAt", *, locked: bool = False, number_key: bool = False) -> str:
    return SESSIONS.format(
        ttl=ttl,
        additional="false" if locked else "true",
        sid_type="N" if number_key else "S",
        sid_attr_type="number" if number_key else "string",
    )


def _ttl_findings(text: str) -> list[tuple[str, int, int, str, str]]:
    return [
        (f.file, f.line, f.column, f.severity, f.message)
        for f in lint_text(text, "l8.yaml")
        if f.rule == "TW503"
    ]


def test_a_ttl_no_entity_declares_is_reported_at_the_ttl_naming_table_attribute_and_closest_name() -> None:
    [(file, line, column, severity, message)] = _ttl_findings(_sessions())
    assert (file, line, column) == ("l8.yaml", 6, 5)
    assert severity == "warning"  # the same name in another case convention: a slip
    assert message.startswith("table sessions expires items on expiresAt, which no entity of it declares")
    assert "Session declares expires_at" in message and "did you mean 'expires_at'?" in message


def test_ttl_attribute_undeclared_is_graded_by_what_the_entities_can_store() -> None:
    # Entities refusing undeclared attributes can never hold it: a warning whatever its name.
    [locked] = _ttl_findings(_sessions("purgeAfter", locked=True))
    assert locked[3] == "warning" and "no item ever expires" in locked[4]
    # An open entity may write it outside the design (additional_attributes is allowed by default).
    [open_entity] = _ttl_findings(_sessions("purgeAfter"))
    assert (
        open_entity[3] == "info" and "only if the application writes it outside the design" in open_entity[4]
    )


def test_ttl_attribute_undeclared_is_quiet_once_an_entity_of_the_table_stores_the_attribute() -> None:
    assert _ttl_findings(_sessions("expiresAt"))  # the undeclared name fires
    assert _ttl_findings(_sessions("expires_at")) == []  # declared
    assert _ttl_findings(_sessions("sid", number_key=True)) == []  # a Number key every item carries
    # A table mixing expiring and permanent items: only one entity needs the attribute.
    mixed = _sessions("expiresAt").replace(
        "volumes:",
        "  User:\n    table: sessions\n    attributes:\n      sid: {type: string, required: true}\n"
        "      expiresAt: {type: number, format: epoch_s}\nvolumes:",
    )
    assert _ttl_findings(mixed) == []


def _lint_json(*args: str) -> tuple[int, list[dict[str, object]]]:
    result = CliRunner().invoke(main, ["lint", "--format", "json", *args])
    return result.exit_code, json.loads(result.output)["findings"]


def test_every_sidecar_problem_is_reported_at_its_own_line_in_the_sidecar(tmp_path: Path) -> None:
    design = tmp_path / "design.yaml"
    design.write_text(_sessions("expires_at"), encoding="utf-8")
    sidecar = tmp_path / "design.lint.yaml"
    sidecar.write_text(
        "disable: [TW203, no-such-rule]\nseverity: {TW101: fatal, TW999: error}\n", encoding="utf-8"
    )
    code, findings = _lint_json(str(design))
    assert code == 2
    located = [(f["rule"], Path(str(f["file"])).name, f["line"], f["column"]) for f in findings]
    assert located == [
        ("TW002", "design.lint.yaml", 1, 18),  # no-such-rule
        ("TW002", "design.lint.yaml", 2, 12),  # TW101: fatal
        ("TW002", "design.lint.yaml", 2, 26),  # TW999
    ]
    messages = [str(f["message"]) for f in findings]
    assert "unknown lint rule 'no-such-rule'" in messages[0]
    assert "severity 'fatal' for TW101 is not one of info, warning, error" in messages[1]
    assert "unknown lint rule 'TW999'" in messages[2]


def test_a_sidecar_that_is_not_yaml_is_reported_where_it_breaks(tmp_path: Path) -> None:
    design = tmp_path / "design.yaml"
    design.write_text(_sessions("expires_at"), encoding="utf-8")
    (tmp_path / "design.lint.yaml").write_text("disable: [TW203]\nseverity: {TW101: [\n", encoding="utf-8")
    code, [finding] = _lint_json(str(design))
    assert code == 2
    assert (finding["rule"], Path(str(finding["file"])).name, finding["line"]) == (
        "TW002",
        "design.lint.yaml",
        3,
    )
    assert str(finding["message"]).startswith("lint sidecar is not YAML")


def test_every_problem_of_the_design_lint_section_is_reported_at_its_line() -> None:
    text = _sessions("expires_at") + "lint:\n  disable: [TW998]\n  severity: {TW999: error, TW101: loud}\n"
    findings = [(f.rule, f.line, f.column) for f in lint_text(text, "l8.yaml")]
    assert findings == [("TW002", 18, 13), ("TW002", 19, 14), ("TW002", 19, 28)]


def test_lint_refuses_a_local_index_on_a_table_without_a_sort_key_at_the_index() -> None:
    text = _sessions("expires_at").replace(
        "    ttl: expires_at\n",
        "    ttl: expires_at\n    indexes:\n      by_expiry:\n        kind: local\n"
        "        partition_key: {name: sid, type: S}\n        sort_key: {name: expires_at, type: N}\n",
    )
    [finding] = lint_text(text, "l1.yaml")
    assert (finding.rule, finding.severity, finding.line, finding.column) == ("TW001", "error", 8, 7)
    assert "local index by_expiry needs a table with a sort key" in finding.message
