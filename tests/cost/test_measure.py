"""`cost --measure` runs the patterns on the embedded engine; the measured read units per call must
agree with the estimate within one eventual-read rounding step (0.5 RRU) on a design whose reads do
not depend on volumes (GetItem, Query with a limit, BatchGetItem)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewright.cli import main
from tablewright.cost import estimate
from tablewright.cost.measure import measure
from tablewright.design import load

TOLERANCE = 0.5  # read units: one 4 KB step of an eventually consistent read

DESIGN = """
version: 1
name: orders
tables:
  orders:
    partition_key: {name: customer_id, type: S}
    sort_key: {name: order_id, type: S}
entities:
  Order:
    table: orders
    attributes:
      customer_id: {type: string, format: uuid}
      order_id: {type: string, format: uuid}
      status: {type: string, enum: [new, paid]}
      note: {type: string, max_length: 2000}
patterns:
  order:
    params: {customer_id: string, order_id: string}
    returns: Order
    served: {op: get}
  latest:
    params: {customer_id: string}
    returns: Order
    means: {where: "customer_id = :customer_id", limit: 20}
    served: {op: query, forward: false}
volumes:
  entities: {Order: {items: 30, writes: 1/min}}
  patterns: {order: {reads: 1/s}, latest: {reads: 1/s}}
"""

GENERATOR = """
import uuid

CUSTOMER = "550e8400-e29b-41d4-a716-446655440000"


def order_id(i):
    return str(uuid.UUID(int=i + 1))


def generate(seed, scale):
    # Notes of 2,000 characters: the estimate sizes a bounded string at its typical length
    # (16), so the measurement below also checks that the declared bound is not what is priced.
    return {"Order": [
        {"customer_id": CUSTOMER, "order_id": order_id(i), "status": "new", "note": "x" * 16}
        for i in range(30)
    ]}


def params():
    return {"order": [{"customer_id": CUSTOMER, "order_id": order_id(3)}], "latest": [{"customer_id": CUSTOMER}]}
"""


@pytest.fixture()
def design_file(tmp_path: Path) -> Path:
    path = tmp_path / "orders.yaml"
    path.write_text(DESIGN, encoding="utf-8")
    (tmp_path / "orders.generate.py").write_text(GENERATOR, encoding="utf-8")
    return path


def test_measured_read_units_agree_with_the_estimate(design_file: Path) -> None:
    design = load(design_file)
    measured = measure(design, design_file)
    assert measured.source == "generator" and measured.items_written == 30
    estimated = {p.name: p.units_per_call for p in estimate(design).patterns}
    for name in ("order", "latest"):
        assert abs(measured.per_call[name] - estimated[name]) <= TOLERANCE, (
            name,
            measured.per_call,
            estimated,
        )
    assert measured.per_call["order"] == 0.5  # one small item, eventually consistent


def test_measure_without_a_generator_invents_data(tmp_path: Path) -> None:
    path = tmp_path / "bare.yaml"
    path.write_text(DESIGN, encoding="utf-8")
    measured = measure(load(path), path)
    assert measured.source == "synthetic" and measured.items_written == 30
    assert measured.per_call["order"] == 0.5


def test_cli_puts_measured_beside_estimated(design_file: Path) -> None:
    result = CliRunner().invoke(main, ["cost", "--measure", "--format", "json", str(design_file)])
    assert result.exit_code == 0, result.output
    patterns = {p["name"]: p for p in json.loads(result.output)["patterns"]}
    assert patterns["order"]["measured_read_units_per_call"] == 0.5
    assert patterns["order"]["read_units_per_call"] == 0.5
