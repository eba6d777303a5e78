"""`tablewright cost`: formats and the price list as data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tablewright.cli import main
from tablewright.cost.prices import default_prices

VAN = Path(__file__).parent / "designs" / "van.yaml"


def _cost(*args: str) -> str:
    result = CliRunner().invoke(main, ["cost", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_json_has_every_section() -> None:
    data = json.loads(_cost("--format", "json", str(VAN)))
    assert {t["name"] for t in data["targets"]} == {"telemetry", "telemetry/MessageTypeIndex"}
    assert data["prices"]["effective"] == "2024-11-01"
    # 2 writes/min for 730 h, each on the table and the ALL-projection GSI, at $0.625 per million.
    writes = sum(t["on_demand"]["write"] for t in data["targets"])
    assert writes == pytest.approx(2 * 60 * 730 * 2 * 0.625e-6)
    assert data["ttl_deletes_per_month"] == {"telemetry": pytest.approx(87_600)}


def test_markdown_and_text_render_the_same_report() -> None:
    markdown = _cost("--format", "markdown", str(VAN))
    assert "| telemetry/MessageTypeIndex |" in markdown and "Break-even utilisation 28.9%" in markdown
    text = _cost(str(VAN))
    assert "telemetry/MessageTypeIndex" in text and "Break-even utilisation 28.9%" in text


def test_a_price_change_is_one_edit(tmp_path: Path) -> None:
    shipped = Path(__import__("tablewright.cost", fromlist=["x"]).__file__).with_name("prices.yaml")
    data = yaml.safe_load(shipped.read_text(encoding="utf-8"))
    data["on_demand"]["write_request_unit"] = 1.25e-6  # the pre-November-2024 price
    edited = tmp_path / "prices.yaml"
    edited.write_text(yaml.safe_dump(data), encoding="utf-8")
    old = json.loads(_cost("--format", "json", "--prices", str(edited), str(VAN)))
    new = json.loads(_cost("--format", "json", str(VAN)))
    old_writes = sum(t["on_demand"]["write"] for t in old["targets"])
    new_writes = sum(t["on_demand"]["write"] for t in new["targets"])
    assert old_writes == pytest.approx(2 * new_writes)
    assert default_prices().write_request_unit == 0.625e-6


def test_invalid_design_is_reported_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "version: 1\nname: x\ntables:\n  t: {partition_key: {name: pk, type: Q}}\n", encoding="utf-8"
    )
    result = CliRunner().invoke(main, ["cost", str(bad)])
    assert result.exit_code == 2 and "bad.yaml:4" in result.output  # unusable input, not a finding
