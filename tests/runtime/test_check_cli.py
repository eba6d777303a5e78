"""``tablewright check`` on the test designs: a passing design and a broken served/means pair."""

import json
from pathlib import Path

from click.testing import CliRunner

from tablewright.cli import main

DESIGNS = Path(__file__).parent / "designs"


def test_check_passes_on_a_sound_design():
    result = CliRunner().invoke(main, ["check", str(DESIGNS / "van.yaml"), str(DESIGNS / "nexus.yaml")])
    assert result.exit_code == 0, result.output
    assert "latest_messages" in result.output and "agenda" in result.output
    assert " 0 failures" in result.output and "FAIL" not in result.output


def test_check_fails_and_reports_the_mismatch():
    result = CliRunner().invoke(main, ["check", str(DESIGNS / "van_broken.yaml"), "--format", "json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)["designs"][0]
    failed = {p["pattern"] for p in report["patterns"] if p["status"] == "fail"}
    assert failed == {"latest_messages"}
    row = next(p for p in report["patterns"] if p["pattern"] == "latest_messages")
    assert row["missing"] and row["extra"] and row["items_read"] == 10 and row["consumed_capacity"] > 0


def test_check_json_reports_stats_per_pattern():
    result = CliRunner().invoke(
        main, ["check", str(DESIGNS / "van.yaml"), "--format", "json", "--scale", "2"]
    )
    assert result.exit_code == 0
    report = json.loads(result.stdout)["designs"][0]
    assert report["items_loaded"] == 240
    status = next(p for p in report["patterns"] if p["pattern"] == "device_status" and p["returned"])
    assert status["items_read"] >= status["items_returned"] == 1


def test_check_refuses_an_invalid_design(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nname: bad\ntables: {t: {partition_key: 7}}\n")
    result = CliRunner().invoke(main, ["check", str(bad)])
    assert result.exit_code == 2


def test_a_design_whose_index_name_dynamodb_refuses_fails_that_design_not_the_endpoint(tmp_path):
    """An index named ``g`` (imported as a CloudFormation template wrote it): botocore refuses the
    CreateTable before sending, which is the design's problem, not an endpoint's."""
    design = tmp_path / "design.yaml"
    design.write_text(
        "version: 1\nname: short\ntables:\n  things:\n    partition_key: {name: pk, type: S}\n"
        "    indexes:\n      g:\n        kind: global\n        partition_key: {name: gpk, type: S}\n"
    )
    result = CliRunner().invoke(main, ["check", str(design), "--format", "json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)["designs"][0]
    assert report["status"] == "fail"
    assert report["error"].startswith("tables: DynamoDB refuses them:") and "IndexName" in report["error"]
    assert "endpoint" not in result.output
