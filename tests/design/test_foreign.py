"""Other tools' files where a design is expected: recognised from their contents, refused with one
problem that names the tool and the ``tablewright import`` for it, and imported without ``--from``."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewright.cli import main
from tablewright.design import DesignError, load
from tablewright.design.files import design_files
from tablewright.design.foreign import format_of_path

TESTS = Path(__file__).resolve().parents[1]
CORPUS = TESTS / "export" / "corpus"
MODELS = TESTS / "export" / "workbench_models"
ROOT = TESTS.parent

SOURCES = [
    (CORPUS / "cfn-short-form.yaml", "cloudformation"),
    (CORPUS / "cfn-long-form.json", "cloudformation"),
    (CORPUS / "cfn-foreach.yaml", "cloudformation"),
    (CORPUS / "cfn-global-table.yaml", "cloudformation"),
    (CORPUS / "odd-spellings.yaml", "cloudformation"),
    (CORPUS / "cfn-unheld.yaml", "cloudformation"),
    (CORPUS / "sam-template.yaml", "sam"),
    (CORPUS / "serverless" / "serverless.yml", "serverless"),
    (CORPUS / "terraform-single.tf", "terraform"),
    (CORPUS / "terraform-module.tf", "terraform"),
    (CORPUS / "odd-spellings.tf", "terraform"),
    (CORPUS / "terraform-folder", "terraform"),
    *[(model, "nosql-workbench") for model in sorted(MODELS.glob("*.json"))],
]
IDS = [f"{path.parent.name}/{path.name}" for path, _ in SOURCES]
FILES = [source for source in SOURCES if source[0].is_file()]


@pytest.mark.parametrize(("path", "fmt"), SOURCES, ids=IDS)
def test_each_tools_file_is_recognised(path: Path, fmt: str) -> None:
    found = format_of_path(path)
    assert found is not None and found[0] == fmt


@pytest.mark.parametrize(("path", "fmt"), FILES, ids=[f"{path.parent.name}/{path.name}" for path, _ in FILES])
def test_loading_it_as_a_design_is_one_problem_naming_the_import(path: Path, fmt: str) -> None:
    with pytest.raises(DesignError) as info:
        load(path)
    assert len(info.value.problems) == 1
    problem = info.value.problems[0]
    assert problem.message == f"this is {format_of_path(path)[1]}, not a tablewright design"  # type: ignore[index]
    assert problem.hint == f"write a design from it: tablewright import --from {fmt} {path}"


@pytest.mark.parametrize(
    ("path", "fmt"), SOURCES[:1] + SOURCES[8:9] + SOURCES[-1:], ids=["cfn", "tf", "workbench"]
)
def test_lint_and_check_say_so_and_exit_2(path: Path, fmt: str) -> None:
    for command in ("lint", "check", "cost"):
        result = CliRunner().invoke(main, [command, str(path)])
        assert result.exit_code == 2, (command, result.output)
        assert "not a tablewright design" in result.output and f"--from {fmt}" in result.output, command


@pytest.mark.parametrize(("path", "fmt"), SOURCES, ids=IDS)
def test_import_without_from_writes_what_import_with_from_writes(path: Path, fmt: str) -> None:
    named = CliRunner().invoke(main, ["import", str(path), "--from", fmt])
    recognised = CliRunner().invoke(main, ["import", str(path)])
    assert recognised.exit_code == named.exit_code
    assert recognised.stdout == named.stdout
    assert f"tablewright import: reading {path} as " in recognised.stderr


def test_a_design_is_never_taken_for_another_tools_file() -> None:
    designs = [*design_files([ROOT / "examples"]), *TESTS.glob("**/designs/*.yaml")]
    assert len(designs) >= 10
    assert [d for d in designs if format_of_path(d) is not None] == []


def test_a_file_nothing_recognises_asks_for_from(tmp_path: Path) -> None:
    unknown = tmp_path / "notes.yaml"
    unknown.write_text("todo:\n  - design the tables\n")
    result = CliRunner().invoke(main, ["import", str(unknown)])
    assert result.exit_code == 2
    assert f"cannot tell what {unknown} is" in result.output and "--from" in result.output
