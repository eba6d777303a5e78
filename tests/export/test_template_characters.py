"""Terraform export of design text holding HCL's template characters: ``${`` and ``%{`` in a tag value
or a resource policy (IAM's ``${aws:username}``) are text, not interpolations Terraform would
evaluate (or refuse)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tablewright.design import load
from tablewright.export import export
from tablewright.imports import import_file

DESIGN = """
version: 1
name: esc
description: settings whose text looks like a template
tables:
  t:
    name: things
    partition_key: {name: pk, type: S}
    billing: on_demand
    tags: {owner: "${team}", note: "100%{x}"}
    resource_policy:
      Version: "2012-10-17"
      Statement:
        - Effect: Allow
          Principal: {AWS: "arn:aws:iam::111122223333:root"}
          Action: dynamodb:GetItem
          Resource: "*"
          Condition: {StringEquals: {"aws:PrincipalTag/team": "${aws:username}"}}
entities:
  T: {table: t, attributes: {pk: string}}
patterns: {}
"""


def test_template_characters_survive_a_terraform_round_trip(tmp_path: Path) -> None:
    """Written as they were, ``"${team}"`` made Terraform look for a variable, and ``%{x}`` was a
    directive no parser took (our own import refused the file)."""
    source = tmp_path / "design.yaml"
    source.write_text(DESIGN)
    design = load(source)
    hcl = tmp_path / "main.tf"
    hcl.write_text(export(design, "terraform"))
    assert '"$${team}"' in hcl.read_text()
    table = yaml.safe_load(import_file(hcl, "terraform"))["tables"]["things"]
    assert table["tags"] == design.tables["t"].tags
    assert table["resource_policy"] == design.tables["t"].resource_policy


def test_topic_rule_sql_is_an_hcl_string(tmp_path: Path) -> None:
    """A rule's SQL went into the quotes as written: a regex's backslash (``\\d``) is an escape
    Terraform refuses, and ``${`` would be read as an interpolation."""
    root = Path(__file__).resolve().parents[2]
    design = tmp_path / "design.yaml"
    design.write_text((root / "examples/van-telemetry/design.yaml").read_text())
    sql = "SELECT * FROM 'van/+/t' WHERE regexp_matches(id, '^v\\d+$') AND tag = '${x}'"
    rule = {"topic_rules": {"r": {"sql": sql, "action": {"dynamodbv2": next(iter(load(design).tables))}}}}
    (tmp_path / "pipelines.yaml").write_text(yaml.safe_dump(rule))
    text = export(load(design), "terraform", design_path=design)
    assert "sql         = " + json.dumps(sql).replace("${", "$${") + "\n" in text


def test_a_kms_alias_is_looked_up_for_terraform(tmp_path: Path) -> None:
    """``kms_key_arn = "alias/orders"`` fails the provider's ARN check at plan: the export looks the
    alias up with a data source, and the import reads that data source back as the alias."""
    text = DESIGN.replace("    tags:", "    encryption: {kms_key: alias/orders}\n    tags:")
    source = tmp_path / "design.yaml"
    source.write_text(text)
    hcl = tmp_path / "main.tf"
    hcl.write_text(export(load(source), "terraform"))
    assert 'data "aws_kms_alias" "t" {\n  name = "alias/orders"\n}' in hcl.read_text()
    assert "kms_key_arn = data.aws_kms_alias.t.target_key_arn" in hcl.read_text()
    table = yaml.safe_load(import_file(hcl, "terraform"))["tables"]["things"]
    assert table["encryption"] == {"kms_key": "alias/orders"}
