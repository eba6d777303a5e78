"""Found exporting the GitHub model of "The DynamoDB Book": the NoSQL Workbench export dropped each
GSI's own capacity (the import then gave every GSI the table's), the table's tags and the entities'
`entity_type` without a word; it left the design's `samples:` out, and its facets did not list the
discriminator or the index keys their items hold, so the import dropped every such sample item
(examples/nexus: all 52); and the Markdown document, which claims to carry everything, showed none
of these nor the unique constraints. Tables `Scores` and `scores` (production and development) both
became the CloudFormation resource `ScoresTable`: the template kept one and lost the other in silence
(Terraform likewise labelled `game-scores` and `game_scores` alike, which it refuses)."""

from __future__ import annotations

import json
from pathlib import Path

import hcl2
import yaml

from tablewright.design import loads
from tablewright.export import export, losses
from tablewright.imports import read

GITHUB = """\
version: 1
entity_type_attribute: entityType
tables:
  GitHub:
    name: github-model
    partition_key: PK
    sort_key: SK
    billing: {mode: provisioned, read: 50, write: 25}
    tags: {team: platform, cost-center: "42"}
    deletion_protection: true
    indexes:
      GSI1: {partition_key: GSI1PK, sort_key: GSI1SK, throughput: {read: 10, write: 5}}
      GSI2: {partition_key: GSI2PK, sort_key: GSI2SK, throughput: {read: 50, write: 25}}
entities:
  Star:
    table: GitHub
    entity_type: STAR
    attributes:
      owner: {type: string, required: true}
      repo_name: {type: string, required: true}
      username: {type: string, required: true}
      weight: {type: number, default: 1}
    keys:
      table: {pk: "REPO#{owner}#{repo_name}", sk: "STAR#{username}"}
      GSI1: {pk: "ACCOUNT#{username}", sk: "STAR#{owner}#{repo_name}"}
    unique: [[owner, repo_name, username]]
samples:
  Star:
    - {owner: alexdebrie, repo_name: dynamodb-book, username: rauchg}
    - {owner: socketio, repo_name: socket.io, username: ada}
"""


def test_workbench_export_names_what_it_drops() -> None:
    said = "\n".join(losses(loads(GITHUB), "nosql-workbench"))
    # GSI2 has the table's units, which is what the import gives it back: not a loss.
    assert "index capacity other than the table's: left out (GitHub.GSI1 (10 RCU / 5 WCU))" in said
    assert "GitHub (tags, deletion protection)" in said
    assert "entity type discriminators: left out (Star (entityType = STAR))" in said


def test_formats_that_carry_the_settings_say_nothing_of_them() -> None:
    design = loads(GITHUB)
    for fmt in ("cloudformation", "terraform", "create-table"):
        said = "\n".join(losses(design, fmt))
        assert "capacity" not in said and "settings" not in said
        # The entities are reported lost as a whole; their discriminators go with them.
        assert "discriminators" not in said and "cannot carry entities" in said
    assert losses(design, "markdown") == []


def test_markdown_shows_what_it_claims_to_carry() -> None:
    document = export(loads(GITHUB), "markdown")
    assert "| GSI1 | GSI | `GSI1PK` (S) | `GSI1SK` (S) | ALL | 10 RCU / 5 WCU |" in document
    assert "- tags: `team` = `platform`, `cost-center` = `42`" in document
    assert "- deletion protection: on" in document
    assert "- entity type: `entityType` = `STAR` on every item" in document
    assert "- unique: `owner` + `repo_name` + `username`" in document
    assert "default=1" in document


def test_workbench_round_trip_keeps_the_design_samples_in_their_facet(tmp_path: Path) -> None:
    model = tmp_path / "github.json"
    model.write_text(export(loads(GITHUB), "nosql-workbench"), encoding="utf-8")
    (facet,) = json.loads(model.read_text())["DataModel"][0]["TableFacets"]
    assert {"entityType", "GSI1PK", "GSI1SK"} <= set(facet["NonKeyAttributes"])
    imported = read(model, "nosql-workbench")
    assert not [w for w in imported.warnings if "fit no facet" in w]
    stars = imported.samples["Star"]
    assert sorted(s["username"]["S"] for s in stars) == ["ada", "rauchg"]
    assert {s["entityType"]["S"] for s in stars} == {"STAR"}


TWO_NAMES_ALIKE = """\
tables:
  Scores: {name: scores-prod, partition_key: PK}
  scores: {name: scores-dev, partition_key: PK}
  game-scores: {partition_key: PK}
  game_scores: {partition_key: PK}
"""


def test_cloudformation_keeps_every_table_whose_name_cleans_alike() -> None:
    text = export(loads(TWO_NAMES_ALIKE), "cloudformation")
    resources = yaml.safe_load(text.split("\n", 1)[1])["Resources"]
    names = {r["Properties"]["TableName"] for r in resources.values()}
    assert names == {"scores-prod", "scores-dev", "game-scores", "game_scores"}
    assert {"ScoresTable", "Scores2Table", "GameScoresTable", "GameScores2Table"} == set(resources)


def test_terraform_labels_every_table_apart() -> None:
    parsed = hcl2.loads(export(loads(TWO_NAMES_ALIKE), "terraform"))
    # python-hcl2 8 keeps the quotes of block labels; older versions drop them.
    tables = [
        body for block in parsed["resource"] for kind, body in block.items() if "aws_dynamodb_table" in kind
    ]
    labels = [label.strip('"') for body in tables for label in body]
    assert labels == ["Scores", "scores", "game_scores", "game_scores_2"]
