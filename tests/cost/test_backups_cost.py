"""`tablewright cost` prices point-in-time recovery and backups.

1,000,000 items of 1,000 B + 100 B overhead = 1.1e9 B = 1.0245 GB on the table; a local index of
KEYS_ONLY entries adds to what PITR and backups bill, a global index does not (rebuilt on restore).
Prices: PITR $0.20/GB-month, backups $0.10/GB-month, restore $0.15/GB, export $0.10/GB.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewright.cli import main
from tablewright.cost import build, default_prices, estimate, price
from tablewright.cost.prices import load_prices
from tablewright.design import loads

GB = 1024**3
DESIGN = """
version: 1
name: ledger
tables:
  ledger:
    partition_key: {name: pk, type: S}
    pitr: {pitr}
    indexes:
      ByOwner: {kind: global, partition_key: {name: owner, type: S}, projection: ALL}
entities:
  Entry:
    table: ledger
    attributes:
      pk: {type: string}
      owner: {type: string}
volumes:
  entities:
    Entry: {items: 1000000, item_size: 1000, writes: 1/s}
"""


def _design(pitr: bool):  # type: ignore[no-untyped-def]
    return loads(DESIGN.replace("{pitr}", "true" if pitr else "false"), "ledger.yaml")


def test_pitr_is_billed_on_the_table_size_and_joins_every_total() -> None:
    with_pitr = price(estimate(_design(True)), default_prices())
    without = price(estimate(_design(False)), default_prices())
    table_gb = estimate(_design(True)).targets["ledger"].storage_bytes / GB
    assert with_pitr.pitr == {"ledger": pytest.approx(table_gb * 0.20)}
    assert without.pitr == {}
    for total in ("on_demand", "provisioned", "declared"):
        assert getattr(with_pitr, total) - getattr(without, total) == pytest.approx(table_gb * 0.20)


def test_backup_restore_and_export_priced_per_gb_of_the_table() -> None:
    bill = price(estimate(_design(False)), default_prices())
    table_gb = 1_000_000 * 1100 / GB  # the global index is not part of a backup
    assert bill.backup_gb == pytest.approx(table_gb)
    assert bill.backup_month == pytest.approx(table_gb * 0.10)
    assert bill.restore == pytest.approx(table_gb * 0.15)
    assert bill.export == pytest.approx(table_gb * 0.10)


def test_prices_file_without_backup_prices_still_loads(tmp_path: Path) -> None:
    shipped = (Path(__file__).parents[2] / "src/tablewright/cost/prices.yaml").read_text()
    old = "\n".join(
        line
        for line in shipped.splitlines()
        if not line.startswith(("backup_", "restore_", "export_", "import_"))
    )
    (tmp_path / "prices.yaml").write_text(old.replace("pitr_gb_month: 0.20", "pitr_gb_month: 0.30"))
    prices = load_prices(tmp_path / "prices.yaml")
    assert prices.pitr_gb_month == 0.30 and prices.backup_gb_month == 0.10


def test_cost_command_reports_pitr_and_backups(tmp_path: Path) -> None:
    path = tmp_path / "ledger.yaml"
    path.write_text(DESIGN.replace("{pitr}", "true"))
    report = build(_design(True))
    assert report["backups"]["pitr_per_month"]["ledger"] > 0
    out = CliRunner().invoke(main, ["cost", str(path)])
    assert out.exit_code == 0, out.output
    assert "Point-in-time recovery (included above): ledger $" in out.output
    assert "each on-demand backup kept costs $" in out.output
