"""``tablewright import`` on other tools' models that used to lose or invent something in silence:
tables whose names fold together, an index named twice, a Terraform ttl block without ``enabled``,
Workbench sample values DynamoDB would refuse, facet aliases that are display names or bare fields,
Terraform's JSON syntax, unreadable or BOM-prefixed files, capacity and names the source leaves out.

Every test runs the real CLI on a file written to ``tmp_path`` and reads what it wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from tablewright.cli import main
from tablewright.design import load


def _import(tmp_path: Path, name: str, content: str | bytes, *options: str) -> tuple[int, str, Path]:
    """Run ``tablewright import`` on ``content`` saved as ``name``: (exit code, stderr, design path)."""
    source = tmp_path / name
    source.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = tmp_path / "out" / "design.yaml"
    out.parent.mkdir(exist_ok=True)
    result = CliRunner().invoke(main, ["import", str(source), *options, "--out", str(out)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr, out


def _design(out: Path) -> dict[str, Any]:
    return yaml.safe_load(out.read_text())


def _cfn_table(name: str | None, key: str, key_type: str = "S", **extra: Any) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "AttributeDefinitions": [{"AttributeName": key, "AttributeType": key_type}],
        "KeySchema": [{"AttributeName": key, "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
        **extra,
    }
    if name is not None:
        properties["TableName"] = name
    return {"Type": "AWS::DynamoDB::Table", "Properties": properties}


def _template(**resources: dict[str, Any]) -> str:
    return json.dumps({"Resources": resources})


def _model(*tables: dict[str, Any]) -> str:
    return json.dumps({"ModelName": "shop", "DataModel": list(tables)})


def _wb_table(name: str, *, sort: tuple[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    keys: dict[str, Any] = {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}}
    if sort:
        keys["SortKey"] = {"AttributeName": sort[0], "AttributeType": sort[1]}
    return {"TableName": name, "KeyAttributes": keys, "BillingMode": "PAY_PER_REQUEST", **extra}


# 1. Tables whose names fold to one logical name ------------------------------------------------------


def test_cloudformation_tables_differing_in_punctuation_are_both_kept(tmp_path: Path) -> None:
    template = _template(A=_cfn_table("my-orders", "id"), B=_cfn_table("my.orders", "key", "N"))
    code, stderr, out = _import(tmp_path, "t.json", template, "--from", "cloudformation")
    assert code == 0, stderr
    design = _design(out)
    assert {logical: t["name"] for logical, t in design["tables"].items()} == {
        "my_orders": "my-orders",
        "my_orders_2": "my.orders",
    }
    assert design["tables"]["my_orders_2"]["partition_key"] == {"name": "key", "type": "N"}
    assert {e: entity["table"] for e, entity in design["entities"].items()} == {
        "MyOrders": "my_orders",
        "MyOrders_2": "my_orders_2",
    }
    assert "'my.orders' is imported as 'my_orders_2'" in stderr
    assert "imported as 'MyOrders_2'" in stderr
    assert "'my.orders' is imported as 'my_orders_2'" in out.read_text()  # and in the design's comment
    assert set(load(out).tables) == {"my_orders", "my_orders_2"}


def test_workbench_tables_differing_in_case_are_both_kept(tmp_path: Path) -> None:
    model = _model(_wb_table("Orders"), _wb_table("orders", sort=("SK", "N")))
    code, stderr, out = _import(tmp_path, "m.json", model, "--from", "nosql-workbench")
    assert code == 0, stderr
    tables = _design(out)["tables"]
    assert {logical: t["name"] for logical, t in tables.items()} == {"orders": "Orders", "orders_2": "orders"}
    assert "sort_key" in tables["orders_2"]
    assert "'orders' is imported as 'orders_2'" in stderr


# 2. An index name written twice ---------------------------------------------------------------------


def test_cloudformation_index_named_twice_is_refused_naming_table_and_index(tmp_path: Path) -> None:
    index = {
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
    }
    table = _cfn_table(
        "things",
        "id",
        GlobalSecondaryIndexes=[{"IndexName": "byX", **index}, {"IndexName": "byX", **index}],
    )
    code, stderr, out = _import(tmp_path, "t.json", _template(Things=table), "--from", "cloudformation")
    assert code == 2
    assert "table Things: two indexes are named 'byX'" in stderr
    assert "Traceback" not in stderr and not out.exists()


def test_workbench_gsi_named_twice_is_refused_naming_table_and_index(tmp_path: Path) -> None:
    gsi = {
        "IndexName": "byG",
        "KeyAttributes": {"PartitionKey": {"AttributeName": "g", "AttributeType": "S"}},
        "Projection": {"ProjectionType": "ALL"},
    }
    model = _model(_wb_table("things", GlobalSecondaryIndexes=[gsi, {**gsi}]))
    code, stderr, out = _import(tmp_path, "m.json", model, "--from", "nosql-workbench")
    assert code == 2
    assert "(things): two GSIs are named 'byG'" in stderr
    assert not out.exists()


# 3. Terraform ttl without enabled -------------------------------------------------------------------

TF_TABLE = """resource "aws_dynamodb_table" "t" {
  name         = "things"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  ttl {
    attribute_name = "exp"%s
  }
}
"""


def test_terraform_ttl_without_enabled_is_off_and_said(tmp_path: Path) -> None:
    code, stderr, out = _import(tmp_path, "main.tf", TF_TABLE % "", "--from", "terraform")
    assert code == 0, stderr
    assert "ttl" not in _design(out)["tables"]["things"]
    assert "ttl names attribute 'exp' without enabled = true: TTL is off as written" in stderr
    # enabled = true still turns it on, and says nothing
    code, stderr, out = _import(tmp_path, "main.tf", TF_TABLE % "\n    enabled = true", "--from", "terraform")
    assert code == 0, stderr
    assert _design(out)["tables"]["things"]["ttl"] == "exp"
    assert "TTL is off" not in stderr


# 4. Workbench sample values DynamoDB would refuse ---------------------------------------------------

BAD_VALUES = [
    ({"N": "0x10"}, "N '0x10' is not a decimal number"),
    ({"NS": ["1", "x"]}, "NS member 'x' is not a decimal number"),
    ({"N": "Infinity"}, "N 'Infinity' is not a decimal number"),
    ({"N": "1e200"}, "N '1e200' is out of DynamoDB's range"),
    ({"N": 42}, "N 42 (int): a number is written as a string"),
    ({"M": []}, "M [] (list) is not a mapping"),
    ({"BOOL": "false"}, "BOOL 'false' is not true or false"),
    ({"SS": "abc"}, "SS 'abc' (str) is not a list of members"),
    ({"NS": ["1", "1.0"]}, "NS members '1' and '1.0' are the same value twice"),
    ({"S": 5}, "S 5 (int) is not a string"),
    ({"B": "aGVsbG8"}, "B 'aGVsbG8' is not base64"),
    ({"SS": []}, "SS an empty set"),
    ({"M": {"a": {"L": [{"N": "x"}]}}}, "M in .a: L in [0]: N 'x' is not a decimal number"),
]


@pytest.mark.parametrize(("value", "said"), BAD_VALUES, ids=[json.dumps(v) for v, _ in BAD_VALUES])
def test_workbench_sample_value_dynamodb_refuses_drops_the_item_naming_it(
    tmp_path: Path, value: dict[str, Any], said: str
) -> None:
    items = [{"PK": {"S": "good"}, "v": {"N": "1.5"}}, {"PK": {"S": "bad"}, "v": value}]
    facet = {
        "FacetName": "Thing",
        "KeyAttributeAlias": {"PartitionKeyAlias": "PK"},
        "NonKeyAttributes": ["v"],
        "TableData": items,
    }
    model = _model(_wb_table("things", TableFacets=[facet]))
    code, stderr, out = _import(tmp_path, "m.json", model, "--from", "nosql-workbench")
    assert code == 0, stderr
    assert "Traceback" not in stderr
    assert f"table things, facet Thing: sample item TableData[1]: attribute 'v': {said}" in stderr, stderr
    generator = out.with_name("design.generate.py").read_text()
    assert '"good"' in generator and '"bad"' not in generator


# 5. Facet key aliases -------------------------------------------------------------------------------


def test_workbench_display_name_sort_alias_takes_the_default_template(tmp_path: Path) -> None:
    facet = {
        "FacetName": "Order",
        "KeyAttributeAlias": {"PartitionKeyAlias": "ORDER#{orderId}", "SortKeyAlias": "Created"},
        "NonKeyAttributes": [],
    }
    model = _model(_wb_table("orders", sort=("SK", "S"), TableFacets=[facet]))
    code, stderr, out = _import(tmp_path, "m.json", model, "--from", "nosql-workbench")
    assert code == 0, stderr
    assert _design(out)["entities"]["Order"]["keys"]["table"] == {"pk": "ORDER#{orderId}", "sk": "{SK}"}


def test_workbench_bare_field_alias_on_a_number_key_is_a_number(tmp_path: Path) -> None:
    facet = {
        "FacetName": "Event",
        "KeyAttributeAlias": {"PartitionKeyAlias": "DEV#{device}", "SortKeyAlias": "{ts}"},
        "NonKeyAttributes": [],
        "TableData": [{"PK": {"S": "DEV#a"}, "SK": {"N": "5"}}],
    }
    model = _model(_wb_table("events", sort=("SK", "N"), TableFacets=[facet]))
    code, stderr, out = _import(tmp_path, "m.json", model, "--from", "nosql-workbench")
    assert code == 0, stderr
    entity = _design(out)["entities"]["Event"]
    assert entity["attributes"]["ts"] == "number"
    assert entity["keys"]["table"] == {"pk": "DEV#{device}", "sk": "{ts}"}
    check = CliRunner().invoke(main, ["check", str(out)])  # the sample item fits the design
    assert check.exit_code == 0, check.output + check.stderr


# 6. Terraform JSON syntax ---------------------------------------------------------------------------

TF_JSON = {
    "//": "synthesized",
    "variable": {"prefix": {"type": "string", "default": "shop"}},
    "locals": {"rcu": 3},
    "resource": {
        "aws_dynamodb_table": {
            "orders": {
                "name": "${var.prefix}-orders",
                "billing_mode": "PROVISIONED",
                "read_capacity": "${local.rcu}",
                "write_capacity": 2,
                "hash_key": "pk",
                "attribute": [{"name": "pk", "type": "S"}, {"name": "g", "type": "N"}],
                "global_secondary_index": {
                    "name": "byG",
                    "hash_key": "g",
                    "projection_type": "ALL",
                    "read_capacity": 1,
                    "write_capacity": 1,
                },
                "ttl": {"attribute_name": "exp", "enabled": True},
                "tags": {"team": "a"},
            }
        }
    },
}


def test_terraform_json_file_is_read(tmp_path: Path) -> None:
    code, stderr, out = _import(tmp_path, "cdk.tf.json", json.dumps(TF_JSON))
    assert code == 0, stderr
    design = _design(out)
    assert design["name"] == "cdk"
    table = design["tables"]["shop_orders"]
    assert table["name"] == "shop-orders"
    assert table["billing"] == {"mode": "provisioned", "read": 3, "write": 2}
    assert table["ttl"] == "exp" and table["tags"] == {"team": "a"}
    assert table["indexes"]["byG"]["partition_key"] == {"name": "g", "type": "N"}


def test_terraform_folder_of_only_json_files_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "stack"
    folder.mkdir()
    (folder / "cdk.tf.json").write_text(json.dumps(TF_JSON))
    out = tmp_path / "design.yaml"
    result = CliRunner().invoke(main, ["import", str(folder), "--from", "terraform", "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    assert "shop_orders" in _design(out)["tables"]


# 7. Recognising and reading files -------------------------------------------------------------------


def test_recognising_a_file_that_is_not_utf8_says_so(tmp_path: Path) -> None:
    code, stderr, _ = _import(tmp_path, "model.json", b'{"DataModel": [\xff\xfe]}')
    assert code == 2
    assert "not a text file (not UTF-8)" in stderr and "cannot tell" not in stderr


def test_workbench_file_that_is_not_utf8_says_so(tmp_path: Path) -> None:
    code, stderr, _ = _import(tmp_path, "m.json", b'{"DataModel": [\xff\xfe]}', "--from", "nosql-workbench")
    assert code == 2
    assert "m.json: not a text file (not UTF-8)" in stderr and "codec" not in stderr


def test_recognising_a_file_too_large_says_so(tmp_path: Path) -> None:
    source = tmp_path / "big.json"
    with source.open("wb") as stream:
        stream.truncate(65 * 1024 * 1024)  # sparse: no disk used
    result = CliRunner().invoke(main, ["import", str(source)])
    assert result.exit_code == 2
    assert "larger than 64 MiB" in result.stderr and "cannot tell" not in result.stderr


def test_workbench_model_with_a_bom_is_read(tmp_path: Path) -> None:
    model = _model(_wb_table("things"))
    code, stderr, out = _import(tmp_path, "m.json", "\ufeff" + model)  # recognised, then read
    assert code == 0, stderr
    assert _design(out)["tables"]["things"]["name"] == "things"


# 8. Capacity the source leaves out ------------------------------------------------------------------


def test_cloudformation_table_without_billing_or_throughput_says_capacity_is_assumed(tmp_path: Path) -> None:
    table = _cfn_table("things", "id")
    del table["Properties"]["BillingMode"]
    code, stderr, out = _import(tmp_path, "t.json", _template(T=table), "--from", "cloudformation")
    assert code == 0, stderr
    assert _design(out)["tables"]["things"]["billing"] == {"mode": "provisioned", "read": 5, "write": 5}
    assert "no billing mode (so provisioned, the default) without ReadCapacityUnits" in out.read_text()


def test_terraform_table_without_billing_or_capacity_says_capacity_is_assumed(tmp_path: Path) -> None:
    tf = TF_TABLE.replace('  billing_mode = "PAY_PER_REQUEST"\n', "") % "\n    enabled = true"
    code, stderr, out = _import(tmp_path, "main.tf", tf, "--from", "terraform")
    assert code == 0, stderr
    assert _design(out)["tables"]["things"]["billing"] == {"mode": "provisioned", "read": 5, "write": 5}
    assert "5 units each are assumed" in out.read_text()


# 9. A table name CloudFormation generates -----------------------------------------------------------


def test_cloudformation_table_without_table_name_says_the_name_was_generated(tmp_path: Path) -> None:
    code, stderr, out = _import(tmp_path, "t.json", _template(OrdersTable1A2B=_cfn_table(None, "id")))
    assert code == 0, stderr
    assert _design(out)["tables"]["orderstable1a2b"]["name"] == "OrdersTable1A2B"
    assert (
        "OrdersTable1A2B: no TableName: CloudFormation generates the name at deploy (stack name, "
        "resource id, random suffix); this design fixes it as 'OrdersTable1A2B'" in out.read_text()
    )
