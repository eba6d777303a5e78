"""Found round-tripping the walkthrough's designs (the GitHub model of "The DynamoDB Book", a game
leaderboard): `export --to cloudformation` writes the design's description as the template's
Description, and the import left it behind, writing "TODO describe ..." in its place; and what
`export --to create-table` writes could not be imported at all ("cannot tell what ... is")."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tablewright.cli import main
from tablewright.design import loads
from tablewright.export import export
from tablewright.imports import read, result

DESIGN = """\
version: 1
name: github
description: |
  Repos, users, orgs, issues and pull requests in one table.
  Issue numbers are zero-padded so they sort.
tables:
  GitHub: {partition_key: PK, sort_key: SK}
"""


def test_the_description_comes_back_from_a_cloudformation_template(tmp_path: Path) -> None:
    template = tmp_path / "github.yaml"
    template.write_text(export(loads(DESIGN), "cloudformation"), encoding="utf-8")
    design = loads(result(read(template, "cloudformation")).design)
    assert design.description == (
        "Repos, users, orgs, issues and pull requests in one table.\nIssue numbers are zero-padded so they sort."
    )


LEADERBOARD = """\
version: 1
tables:
  scores:
    name: game.scores-v2
    partition_key: pk
    sort_key: sk
    billing: {mode: provisioned, read: 20, write: 10}
    ttl: expires_at
    pitr: true
    table_class: STANDARD_INFREQUENT_ACCESS
    deletion_protection: true
    encryption: aws_managed
    tags: {team: games}
    indexes:
      top-scores:
        partition_key: board_shard
        sort_key: {name: score, type: N}
        projection: {include: [player]}
        throughput: {read: 5, write: 5}
      by-player: {kind: local, partition_key: pk, sort_key: player_sk, projection: KEYS_ONLY}
"""


def test_create_table_json_imports_to_the_same_requests(tmp_path: Path) -> None:
    requests = export(loads(LEADERBOARD), "create-table")
    path = tmp_path / "scores.json"
    path.write_text(requests, encoding="utf-8")
    again = loads(result(read(path, "create-table")).design)
    assert json.loads(export(again, "create-table")) == json.loads(requests)


def test_one_request_file_of_an_out_folder_brings_its_sibling_requests(tmp_path: Path) -> None:
    calls = json.loads(export(loads(LEADERBOARD), "create-table"))["game.scores-v2"]
    for operation, request in calls.items():
        (tmp_path / f"game.scores-v2.{operation}.json").write_text(json.dumps(request), encoding="utf-8")
    outcome = CliRunner().invoke(main, ["import", str(tmp_path / "game.scores-v2.CreateTable.json")])
    assert outcome.exit_code == 0, outcome.output
    assert "as a file of CreateTable requests" in outcome.output
    table = loads(outcome.stdout).tables["game_scores_v2"]
    assert (table.ttl, table.pitr, table.tags) == ("expires_at", True, {"team": "games"})
