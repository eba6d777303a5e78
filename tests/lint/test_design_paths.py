"""Every command takes folders as ``check`` does, skips lint sidecars, and exits 2 on a design that
does not load, whatever the lint configuration says."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewright.cli import main
from tablewright.design.files import design_files

ROOT = Path(__file__).resolve().parents[2]
VAN = ROOT / "examples" / "van-telemetry"
BROKEN = """version: 1
name: broken
tables:
  readings: {partition_key: StationId, sort_key: "State#Date"}
entities:
  Reading:
    table: readings
    attributes: {StationId: string}
    keys: {table: {pk: "{StationId}", sk: "{State#Date}"}}
"""


def test_folders_expand_to_designs_without_sidecars(tmp_path: Path) -> None:
    shutil.copy(VAN / "design.yaml", tmp_path / "van.yaml")
    (tmp_path / "van.lint.yaml").write_text("disable: [TW304]\n")
    assert design_files([tmp_path]) == [tmp_path / "van.yaml"]
    assert design_files([VAN]) == [VAN / "design.yaml"]
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "only.lint.yaml").write_text("disable: []\n")
    with pytest.raises(FileNotFoundError, match="no design.yaml"):
        design_files([tmp_path / "empty"])


@pytest.mark.parametrize(
    "args",
    [["lint", "--brief"], ["cost"], ["export", "--to", "terraform"], ["check"]],
    ids=["lint", "cost", "export", "check"],
)
def test_every_command_takes_an_example_folder(args: list[str]) -> None:
    run = CliRunner().invoke(main, [*args, str(VAN)])
    assert run.exception is None or isinstance(run.exception, SystemExit), run.output
    assert run.exit_code in (0, 1), run.output  # 1: lint findings / check failures, never 2


@pytest.mark.parametrize(
    "args",
    [
        ["lint"],
        ["lint", "--disable", "TW001"],
        ["lint", "--severity", "TW001=info"],
        ["cost"],
        ["export", "--to", "terraform"],
    ],
)
def test_a_design_that_does_not_load_exits_2_with_its_location(args: list[str], tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN)
    run = CliRunner().invoke(main, [*args, str(path)])
    assert run.exit_code == 2, run.output
    assert "broken.yaml:9:" in run.output and "Traceback" not in run.output


HOSTILE_FILES = {
    "binary": b"\x00\x01\xff\xfe",
    "volumes in words": (
        b"version: 1\nname: x\ntables:\n  things: {partition_key: pk}\n"
        b"entities:\n  E: {table: things, attributes: {pk: string}}\n"
        b"volumes: {peak_factor: lots, entities: {E: {items: many, writes: fast}}}\n"
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE_FILES))
@pytest.mark.parametrize(
    "args",
    [["lint"], ["cost"], ["export", "--to", "terraform"], ["check"]],
    ids=["lint", "cost", "export", "check"],
)
def test_hostile_design_files_exit_2_without_a_traceback(case: str, args: list[str], tmp_path: Path) -> None:
    path = tmp_path / "design.yaml"
    path.write_bytes(HOSTILE_FILES[case])
    run = CliRunner().invoke(main, [*args, str(path)])
    assert run.exception is None or isinstance(run.exception, SystemExit), repr(run.exception)
    assert run.exit_code == 2, run.output


def test_cost_measure_on_tables_the_engine_refuses_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "short.yaml"
    path.write_text(
        "version: 1\nname: x\ntables:\n  t: {partition_key: pk}\nentities:\n  E: {table: t, attributes: {pk: string}}\n"
    )
    run = CliRunner().invoke(main, ["cost", "--measure", str(path)])
    assert run.exit_code == 2
    assert "cannot measure: create the tables failed" in run.output
    lint = CliRunner().invoke(main, ["lint", str(path)])
    assert lint.exit_code == 1 and "TW004" in lint.output  # lint says why before anything runs
