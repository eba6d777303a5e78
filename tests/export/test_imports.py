"""Importers: round trips through export, tolerant CloudFormation reading, live endpoints, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import tablewright
from tablewright.cli import main
from tablewright.design import load
from tablewright.export import export
from tablewright.imports import import_file, to_yaml
from tablewright.imports.endpoint import import_tables

from .test_exports import DESIGNS, IDS, ROOT, _loadable


def _tables_part(design_text_or_design) -> dict:
    """The CloudFormation properties per physical table: the tables part, free of logical names."""
    template = yaml.safe_load(export(design_text_or_design, "cloudformation"))
    return {r["Properties"]["TableName"]: r["Properties"] for r in template["Resources"].values()}


def _round_trip(design, fmt: str, tmp_path: Path, suffix: str):
    source = tmp_path / f"exported{suffix}"
    source.write_text(export(design, fmt, design_path=None))
    imported = tmp_path / "imported.yaml"
    imported.write_text(import_file(source, fmt))
    return load(imported)


@pytest.mark.parametrize("path", DESIGNS, ids=IDS)
def test_cloudformation_round_trip_is_stable(path: Path, tmp_path: Path) -> None:
    design = _loadable(path)
    again = _round_trip(design, "cloudformation", tmp_path, ".yaml")
    assert _tables_part(again) == _tables_part(design)


@pytest.mark.parametrize("path", DESIGNS, ids=IDS)
def test_workbench_round_trip_keeps_tables_and_facets(path: Path, tmp_path: Path) -> None:
    design = _loadable(path)
    again = _round_trip(design, "nosql-workbench", tmp_path, ".json")

    # Workbench models carry no LSIs, TTL, streams or table class: compare what they carry.
    def carried(d) -> list:
        model = json.loads(export(d, "nosql-workbench"))
        return [
            {k: t[k] for k in ("TableName", "KeyAttributes", "GlobalSecondaryIndexes", "BillingMode")}
            for t in model["DataModel"]
        ]

    assert carried(again) == carried(design)
    assert set(again.entities) == set(design.entities)  # facets became entities
    for name, entity in design.entities.items():
        assert again.entities[name].keys["table"].pk.source == entity.keys["table"].pk.source


def test_cloudformation_short_form_tags_and_json(tmp_path: Path) -> None:
    template = tmp_path / "stack.yaml"
    template.write_text(
        """
Parameters: {Env: {Type: String}}
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub "orders-${Env}"
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}, {AttributeName: sk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}, {AttributeName: sk, KeyType: RANGE}]
      BillingMode: PROVISIONED
      ProvisionedThroughput: {ReadCapacityUnits: 3, WriteCapacityUnits: 2}
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
      TimeToLiveSpecification: {AttributeName: expires, Enabled: true}
      PointInTimeRecoverySpecification: {PointInTimeRecoveryEnabled: true}
  Queue:
    Type: AWS::SQS::Queue
Outputs: {Arn: {Value: !GetAtt Orders.Arn}}
"""
    )
    text = import_file(template, "cloudformation")
    assert "TODO" in text  # the skeleton says what to fill in
    design = load_text(text, tmp_path)
    (table,) = design.tables.values()
    assert table.table_name == "Orders"  # !Sub is not a literal name: the resource id stands in
    assert (table.billing.mode, table.billing.read, table.billing.write) == ("provisioned", 3, 2)
    assert (table.stream, table.ttl, table.pitr) == ("NEW_AND_OLD_IMAGES", "expires", True)

    as_json = tmp_path / "stack.json"
    as_json.write_text(
        json.dumps(
            {
                "Resources": {
                    "T": {
                        "Type": "AWS::DynamoDB::Table",
                        "Properties": {
                            "TableName": "things",
                            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
                            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
                            "BillingMode": "PAY_PER_REQUEST",
                        },
                    }
                }
            }
        )
    )
    assert (
        load_text(import_file(as_json, "cloudformation"), tmp_path).tables["things"].partition_key.type == "N"
    )


def load_text(text: str, folder: Path):
    path = folder / "design.yaml"
    path.write_text(text)
    return load(path)


def test_import_rejects_a_template_without_tables(tmp_path: Path) -> None:
    template = tmp_path / "empty.yaml"
    template.write_text("Resources: {Q: {Type: AWS::SQS::Queue}}\n")
    with pytest.raises(
        ValueError,
        match="no AWS::DynamoDB::Table or .* resource; found 1 other resource.*AWS::SQS::Queue",
    ):
        import_file(template, "cloudformation")


def test_endpoint_import_reproduces_the_tables(tmp_path: Path) -> None:
    design = load(ROOT / "examples/van-telemetry/design.yaml")
    client = tablewright.connect(tmp_path / "live.db")
    for calls in json.loads(export(design, "create-table")).values():
        client.create_table(**calls["CreateTable"])
        client.update_time_to_live(**calls["UpdateTimeToLive"])
    again = load_text(to_yaml(import_tables(client)), tmp_path)
    assert _tables_part(again) == _tables_part(design)

    result = CliRunner().invoke(
        main,
        [
            "import",
            "--from",
            "endpoint",
            "--db",
            str(tmp_path / "live.db"),
            "--table",
            "van-telemetry",
            "--name",
            "vans",
        ],
    )
    assert result.exit_code == 0, result.output
    assert _tables_part(load_text(result.output, tmp_path)) == _tables_part(design)


def test_cli_export_and_import(tmp_path: Path) -> None:
    runner = CliRunner()
    design = ROOT / "examples/van-telemetry/design.yaml"
    out = tmp_path / "cfn.yaml"
    assert (
        runner.invoke(main, ["export", str(design), "--to", "cloudformation", "--out", str(out)]).exit_code
        == 0
    )
    result = runner.invoke(
        main, ["import", str(out), "--from", "cloudformation", "--out", str(tmp_path / "d.yaml")]
    )
    assert result.exit_code == 0, result.output
    assert _tables_part(load(tmp_path / "d.yaml")) == _tables_part(load(design))

    folder = tmp_path / "requests"
    assert (
        runner.invoke(main, ["export", str(design), "--to", "create-table", "--out", str(folder)]).exit_code
        == 0
    )
    assert sorted(p.name for p in folder.iterdir()) == [
        "van-telemetry.CreateTable.json",
        "van-telemetry.UpdateTimeToLive.json",
    ]

    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nname: x\ntables: {t: {partition_key: {name: id, type: Q}}}\n")
    assert runner.invoke(main, ["export", str(bad), "--to", "terraform"]).exit_code == 2
