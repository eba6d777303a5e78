"""The seed documents' designs under examples/ (written by others): lint finds what the documents got
wrong, and cost reproduces (or refutes) the documents' figures. Skipped for an example not yet there."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tablewright.cost import build
from tablewright.design import load
from tablewright.lint import LintConfig, lint_file, lint_text
from tablewright.lint.rules.temporal import collision_probability

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _design(name: str) -> Path:
    path = EXAMPLES / name / "design.yaml"
    if not path.exists():
        pytest.skip(f"examples/{name}/design.yaml is not there yet")
    return path


def _rules(name: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for finding in lint_file(_design(name)):
        found.setdefault(finding.rule, []).append(finding.message)
    return found


def test_van_status_filter_and_ttl_reads() -> None:
    found = _rules("van-telemetry")
    assert "TW302" in found  # the "latest status" filter reads 3x what it returns
    # page_size 50 holds ~16 status messages for a limit of 1: TW303's own fix is in place.
    assert "TW303" not in found
    assert "TW501" not in found  # the design stores TTL in seconds (the seed wrote milliseconds)


def test_van_cost_at_todays_prices() -> None:
    data = build(load(_design("van-telemetry")))
    writes = sum(t["on_demand"]["write"] for t in data["targets"])
    # 87,600 writes/month, each paid on the table and on MessageTypeIndex, at $0.625/M: $0.11.
    assert writes == pytest.approx(87_600 * 2 * 0.625e-6)


def test_evse_local_time_sort_key_and_short_sc_id() -> None:
    found = _rules("evse")
    assert "TW601" in found
    [sc_id] = found["TW602"]
    assert "1,000" in sc_id and "10,000" in sc_id
    assert collision_probability(1000, 4) == pytest.approx(1.16e-4, rel=0.01)
    assert collision_probability(10000, 4) == pytest.approx(0.0116, rel=0.01)
    assert "TW301" not in found  # the fleet overview scans every item of a one-entity table


def test_woms_date_index_at_its_volumes_and_newest_first_reads_are_not_warnings() -> None:
    found = [f for f in lint_file(_design("woms")) if f.severity == "warning"]
    assert not [f for f in found if f.rule == "TW102"]  # 0.02 WCU/s per day key, against 1,000
    warned = {f.message.split()[1] for f in found if f.rule == "TW502"}
    assert warned == {"active_alerts_by_plant", "alert_by_id"}  # whole partitions, no limit


def test_woms_uniqueness_index_is_an_error_unless_markers_enforce_it() -> None:
    path = _design("woms")
    found = _rules("woms")
    assert "TW202" not in found  # the example enforces the constraint with `unique:` markers
    assert "TW205" not in found  # 15 GSIs over 5 tables, at most 4 per table
    text = path.read_text(encoding="utf-8")
    marker = "    unique: [[vendor_id, vendor_plant_id]]"
    assert marker in text
    seed_as_written = text.replace(marker, "", 1)  # the seed relies on the GSI alone
    messages = [f.message for f in lint_text(seed_as_written, str(path)) if f.rule == "TW202"]
    assert any("vendor-plant-unique-index" in m for m in messages)


def test_woms_is_not_within_the_free_tier_on_demand() -> None:
    data = build(load(_design("woms")))
    writes = sum(t["write_units_per_month"] for t in data["targets"])
    assert writes > 1.1e6 * 2  # GSI amplification at least doubles the document's 1.1M writes
    assert data["free_tier"]["on_demand_after_free_tier"] > 0


def test_sensor_batch_of_100_readings_plus_marker_is_101_actions() -> None:
    batch = LintConfig.from_mapping({"batches": {"Reading": {"items": 100, "extra_actions": 1}}})
    [finding] = [f for f in lint_file(_design("sensor-api"), batch) if f.rule == "TW402"]
    assert "= 101 actions" in finding.message and finding.severity == "error"
    # The example's sidecar declares what ingestion really sends (README D3): at most 100 actions.
    sidecar = LintConfig.from_mapping(
        yaml.safe_load((EXAMPLES / "sensor-api" / "design.lint.yaml").read_text(encoding="utf-8"))
    )
    assert sidecar.options["batches"]["Reading"] == (100, 0)
    assert not [f for f in lint_file(_design("sensor-api")) if f.rule == "TW402"]


def test_nexus_example_passes_the_checklist_its_sidecar_declares() -> None:
    path = _design("nexus")
    assert not lint_file(path)  # conventions from design.lint.yaml: year GSI1PK, GSI3 overloading, paging
    text = path.read_text(encoding="utf-8")
    month = text.replace("{startUtc|year}", "{startUtc|month}")  # the document's "WRONG" month bucket
    assert month != text
    sidecar = LintConfig.from_mapping(
        yaml.safe_load((EXAMPLES / "nexus" / "design.lint.yaml").read_text(encoding="utf-8"))
    )
    assert {f.rule for f in lint_text(month, str(path), sidecar)} == {"TW708"}
