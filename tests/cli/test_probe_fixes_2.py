"""``tablewright init`` whose input ends mid-dialogue: an error line and status 2 (unusable input),
not click's "Aborted!" and 1, which this project reserves for findings (docs/cli.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewright.cli import main


@pytest.mark.parametrize(
    "answers",
    [
        pytest.param("", id="no input at all"),
        pytest.param("shop\nCustomer\n", id="input ending after two answers"),
    ],
)
def test_init_whose_input_ends_is_an_input_error_writing_nothing(tmp_path: Path, answers: str) -> None:
    folder = tmp_path / "new"
    result = CliRunner().invoke(main, ["init", str(folder)], input=answers)
    assert result.exit_code == 2, result.output
    assert "Aborted!" not in result.output
    [line] = result.stderr.splitlines()
    assert line.startswith("tablewright init: error: the input ended before the questions were answered")
    assert "--entity" in line and "--yes" in line  # how to run it without a terminal
    assert not (folder / "design.yaml").exists()
