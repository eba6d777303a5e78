"""Found linting the leaderboard design of the walkthrough: `--disable "TW502, reads-expired-items"`
and `--severity "TW502 = error"`, lists written the way people write them, were refused as naming an
unknown rule ' reads-expired-items' and a level ' error'."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tablewright.cli import main

DESIGN = """\
tables:
  scores:
    partition_key: PK
    sort_key: SK
    ttl: expires_at
entities:
  Run:
    table: scores
    attributes:
      board: {type: string, required: true}
      run_id: {type: string, required: true}
      expires_at: number
    keys: {table: {pk: "BOARD#{board}", sk: "RUN#{run_id}"}}
patterns:
  runs:
    params: {board: string}
    returns: Run
    means: {where: "board = :board", order: run_id asc}
    served: {op: query, sort: {begins_with: {}}}
"""


def _lint(tmp_path: Path, *options: str) -> tuple[int, dict[str, str]]:
    """Exit status and rule -> severity of what lint found."""
    path = tmp_path / "design.yaml"
    path.write_text(DESIGN, encoding="utf-8")
    result = CliRunner().invoke(main, ["lint", "--format", "json", *options, str(path)])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, {f["rule"]: f["severity"] for f in json.loads(result.output)["findings"]}


def test_rules_listed_with_spaces_after_the_commas_are_disabled(tmp_path: Path) -> None:
    assert "TW502" in _lint(tmp_path)[1]
    assert _lint(tmp_path, "--disable", "TW304, reads-expired-items") == (0, {})


def test_a_severity_written_with_spaces_around_the_equals_sign_applies(tmp_path: Path) -> None:
    assert _lint(tmp_path, "--severity", " TW502 = error ")[1]["TW502"] == "error"
