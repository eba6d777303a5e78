"""Import on inputs that cannot become a design: one line on stderr naming the file and what is
wrong, exit 2, no design written, never a traceback. And values the source leaves to deploy time."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewright.cli import main
from tablewright.design import load

CORPUS = Path(__file__).parent / "corpus"


def _run(tmp_path: Path, name: str, content: str | bytes, fmt: str) -> tuple[int, str, Path]:
    source = tmp_path / name
    source.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = tmp_path / "design.yaml"
    result = CliRunner().invoke(main, ["import", str(source), "--from", fmt, "--out", str(out)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr, out


TABLE = """
Resources:
  Things:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
"""

UNREADABLE = [
    (
        "hcl.yaml",
        'resource "aws_dynamodb_table" "t" {\n  name = "x"\n}\n',
        "cloudformation",
        "use --from terraform",
    ),
    ("main.tf", 'variable "x" {}\n', "cloudformation", "it looks like Terraform: use --from terraform"),
    ("string.yaml", "just some words\n", "cloudformation", "holds a string, not a mapping"),
    ("list.yaml", "- 1\n- 2\n", "sam", "holds a list"),
    ("broken.yaml", "Resources:\n  T: {Type: [\n", "cloudformation", "not valid YAML"),
    ("broken.json", '{"Resources": {', "cloudformation", "not valid JSON"),
    (
        "twice.yaml",
        TABLE.replace("      KeySchema:", "      TableName: one\n      TableName: two\n      KeySchema:"),
        "cloudformation",
        "the key 'TableName' is written twice in one mapping at line",
    ),
    (
        "twice.json",
        '{"Resources": {"T": {"Type": "AWS::DynamoDB::Table", "Type": "AWS::SQS::Queue"}}}',
        "cloudformation",
        "the key 'Type' is written twice in one object",
    ),
    (
        "model.json",
        '{"ModelName": "m", "DataModel": [], "DataModel": []}',
        "nosql-workbench",
        "written twice",
    ),
    ("binary.yaml", b"\x00\xff\xfe\x00", "cloudformation", "not a text file"),
    ("empty.yaml", "", "cloudformation", "holds nothing"),
    ("queue.yaml", "Resources: {Q: {Type: AWS::SQS::Queue}}\n", "cloudformation", "found 1 other resource"),
    ("bad.tf", 'resource "aws_dynamodb_table" "t" {\n  name = \n}\n', "terraform", "not valid HCL at line 2"),
    ("template.yaml", TABLE, "terraform", "use --from cloudformation"),
    (
        "nothing.tf",
        'resource "aws_s3_bucket" "b" {}\n',
        "terraform",
        "no aws_dynamodb_table resource (nor a dynamodb-table module); found resource aws_s3_bucket",
    ),
    (
        "nokey.yaml",
        TABLE.replace("      KeySchema: [{AttributeName: id, KeyType: HASH}]\n", ""),
        "cloudformation",
        "table Things: the table: KeySchema must be a list",
    ),
    (
        "props.yaml",
        "Resources:\n  Things: {Type: AWS::DynamoDB::Table, Properties: hello}\n",
        "cloudformation",
        "table Things: Properties is not a mapping",
    ),
    (
        "undefined.yaml",
        TABLE.replace("[{AttributeName: id, AttributeType: S}]", "[]"),
        "cloudformation",
        "table Things: key attribute 'id' of the table is not in AttributeDefinitions",
    ),
    (
        "range.tf",
        'resource "aws_dynamodb_table" "abc" {\n  hash_key = "id"\n  range_key = "sk"\n'
        '  attribute {\n    name = "id"\n    type = "S"\n  }\n}\n',
        "terraform",
        "table abc: key attribute 'sk' of the table is not in AttributeDefinitions",
    ),
    (  # a name DynamoDB refuses: no design that does not load is written
        "short.tf",
        'resource "aws_dynamodb_table" "t" {\n  name = "t"\n  hash_key = "id"\n'
        '  attribute {\n    name = "id"\n    type = "S"\n  }\n}\n',
        "terraform",
        "the design it makes would not load: tables/t/name: 't' does not match",
    ),
    (
        "misplaced.yml",
        "service: svc\nprovider: {name: aws}\nresources:\n  Todos:\n    Type: AWS::DynamoDB::Table\n",
        "serverless",
        "found Todos straight under resources:, one level too high; a Serverless Framework file declares"
        " its tables under resources: Resources:",
    ),
    (
        "serverless.yml",
        "service: svc\nprovider: {name: aws}\nfunctions: {hello: {handler: h.main}}\n",
        "serverless",
        "found 1 function(s) (hello) and no resources; a Serverless Framework file declares its tables"
        " under resources: Resources:",
    ),
]


@pytest.mark.parametrize(("name", "content", "fmt", "reason"), UNREADABLE, ids=[u[0] for u in UNREADABLE])
def test_unreadable_input_is_one_line_naming_the_file_and_exit_2(
    tmp_path: Path, name: str, content: str, fmt: str, reason: str
) -> None:
    code, stderr, out = _run(tmp_path, name, content, fmt)
    assert code == 2
    (line,) = stderr.splitlines()
    assert line.startswith(f"tablewright import: error: {tmp_path / name}: ")
    assert reason in line
    assert "Traceback" not in stderr and not out.exists()


def test_missing_file_and_folders(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(main, ["import", str(tmp_path / "nope.yaml"), "--from", "sam"])
    assert missing.exit_code == 2 and "nope.yaml: no such file" in missing.stderr
    folder = runner.invoke(main, ["import", str(tmp_path), "--from", "cloudformation"])
    assert folder.exit_code == 2 and "only --from terraform reads a folder" in folder.stderr
    empty = runner.invoke(main, ["import", str(tmp_path), "--from", "terraform"])
    assert empty.exit_code == 2 and "no .tf file in the folder" in empty.stderr


UNDECIDABLE = [
    (
        "cfn.yaml",
        "cloudformation",
        """
Parameters: {Rcu: {Type: Number}}
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      BillingMode: PROVISIONED
      ProvisionedThroughput: {ReadCapacityUnits: !Ref Rcu, WriteCapacityUnits: 1}
""",
        "table Orders: property ProvisionedThroughput: cannot decide !Ref Rcu (parameter Rcu has no default)",
    ),
    (
        "getatt.yaml",
        "cloudformation",
        """
Resources:
  Param: {Type: AWS::SSM::Parameter, Properties: {Type: String, Value: id}}
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{AttributeName: !GetAtt Param.Value, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
""",
        'table Orders: property AttributeDefinitions: cannot decide !GetAtt ["Param", "Value"]',
    ),
    (
        "condition.yaml",
        "cloudformation",
        """
Conditions: {InUs: !Equals [!Ref "AWS::Region", us-east-1]}
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      BillingMode: !If [InUs, PROVISIONED, PAY_PER_REQUEST]
""",
        "table Orders: property BillingMode: cannot decide !If",
    ),
    (
        "serverless.yml",
        "serverless",
        """
service: svc
provider: {name: aws}
resources:
  Resources:
    Orders:
      Type: AWS::DynamoDB::Table
      Properties:
        AttributeDefinitions: [{AttributeName: "${env:KEY_NAME}", AttributeType: S}]
        KeySchema: [{AttributeName: "${env:KEY_NAME}", KeyType: HASH}]
""",
        "table Orders: property AttributeDefinitions: cannot decide ${env:KEY_NAME}",
    ),
    (
        "main.tf",
        "terraform",
        """
variable "key" {}
resource "aws_dynamodb_table" "orders" {
  name     = "orders"
  hash_key = var.key
  attribute {
    name = "id"
    type = "S"
  }
}
""",
        "table orders: cannot evaluate hash_key = var.key: a variable without a default (var.key)",
    ),
    (
        "kms.tf",
        "terraform",
        """
resource "aws_dynamodb_table" "orders" {
  name         = "orders"
  billing_mode = data.aws_ssm_parameter.mode.value
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
""",
        "table orders: cannot evaluate billing_mode = data.aws_ssm_parameter.mode.value",
    ),
]


_CYCLE = """
Conditions: {A: !Condition B, B: !Condition A}
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      BillingMode: !If [A, PROVISIONED, PAY_PER_REQUEST]
"""
UNDECIDABLE += [
    ("cycle.yaml", "cloudformation", _CYCLE, "condition 'A' depends on itself"),
    (
        "macro.yaml",
        "cloudformation",
        _CYCLE.replace("!If [A, PROVISIONED, PAY_PER_REQUEST]", "{Fn::Transform: {Name: Billing}}"),
        "table Orders: property BillingMode: cannot decide !Transform",
    ),
]


@pytest.mark.parametrize(("name", "fmt", "content", "message"), UNDECIDABLE, ids=[u[0] for u in UNDECIDABLE])
def test_a_deciding_property_left_to_deploy_time_names_table_property_and_expression(
    tmp_path: Path, name: str, fmt: str, content: str, message: str
) -> None:
    code, stderr, out = _run(tmp_path, name, content, fmt)
    assert code == 2, stderr
    (line,) = stderr.splitlines()
    assert str(tmp_path / name) in line and message in line
    assert not out.exists()  # never a design that does not load


def test_a_serverless_file_given_as_cloudformation_is_read_as_serverless(tmp_path: Path) -> None:
    source = CORPUS / "serverless" / "serverless.yml"
    out = tmp_path / "design.yaml"
    result = CliRunner().invoke(main, ["import", str(source), "--from", "cloudformation", "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    assert load(out).name == "todo-api"


def test_a_name_decided_at_deploy_time_keeps_the_resource_id_and_records_the_expression(
    tmp_path: Path,
) -> None:
    code, _, out = _run(
        tmp_path,
        "t.yaml",
        TABLE.replace("Properties:\n", "Properties:\n      TableName: !Sub '${AWS::StackName}-things'\n"),
        "cloudformation",
    )
    assert code == 0
    table = load(out).tables["things"]
    assert (table.table_name, table.name_from) == ("Things", "!Sub '${AWS::StackName}-things'")
    runner = CliRunner()
    for fmt in ("cloudformation", "terraform"):  # the export says so rather than rename in silence
        exported = runner.invoke(main, ["export", str(out), "--to", fmt]).output
        assert "named at deploy time in its source, from !Sub '${AWS::StackName}-things'" in exported


@pytest.mark.parametrize(
    ("source", "fmt", "notes"),
    [
        (
            "cfn-unheld.yaml",
            "cloudformation",
            [
                "table T: OnDemandThroughput is not carried",
                "table T: GlobalSecondaryIndexes[g].ContributorInsightsSpecification is not carried",
                "table T: StreamSpecification.ResourcePolicy is not carried",
            ],
        ),
        (
            "terraform-unheld.tf",
            "terraform",
            [
                'table things: global_secondary_index "g": on_demand_throughput is not carried',
                "table things: point_in_time_recovery: recovery_period_in_days is not carried",
            ],
        ),
    ],
)
def test_fields_the_design_cannot_hold_are_listed_on_stderr_and_in_the_design(
    tmp_path: Path, source: str, fmt: str, notes: list[str]
) -> None:
    out = tmp_path / "design.yaml"
    result = CliRunner().invoke(main, ["import", str(CORPUS / source), "--from", fmt, "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [f"tablewright import: not carried: {note}" for note in notes]
    comments = [line for line in out.read_text().splitlines() if line.startswith("#   - ")]
    assert comments == [f"#   - {note}" for note in notes]
    design = load(out)
    (table,) = design.tables.values()
    assert table.indexes["g"].partition_key.name == "g" and table.billing.mode == "on_demand"


def test_values_spelled_the_ways_the_tools_accept_them(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "cfn.yaml"
    result = runner.invoke(
        main, ["import", str(CORPUS / "odd-spellings.yaml"), "--from", "cloudformation", "--out", str(out)]
    )
    assert result.exit_code == 0, result.stderr
    table = load(out).tables["odd_spellings"]
    assert (table.billing.read, table.billing.write) == (5, 7)  # "05" and a Number default " 7 "
    assert (table.pitr, table.ttl, table.deletion_protection) == (True, None, True)
    assert table.partition_key.type == "N"

    out = tmp_path / "tf.yaml"
    result = runner.invoke(
        main, ["import", str(CORPUS / "odd-spellings.tf"), "--from", "terraform", "--out", str(out)]
    )
    assert result.exit_code == 0, result.stderr
    table = load(out).tables["odd_spellings"]
    assert (table.billing.read, table.billing.write) == (5, 2)
    assert (table.stream, table.deletion_protection, table.pitr, table.ttl) == (None, False, True, None)


def test_a_value_of_the_wrong_kind_names_the_table_and_argument(tmp_path: Path) -> None:
    content = (CORPUS / "odd-spellings.tf").read_text().replace('"5"', '"five"')
    code, stderr, out = _run(tmp_path, "main.tf", content, "terraform")
    assert code == 2 and not out.exists()
    assert stderr.strip().endswith("table odd: read_capacity: 'five' is not a whole number")


@pytest.mark.parametrize(
    ("source", "fmt"),
    [
        ("terraform-single.tf", "terraform"),
        ("cfn-long-form.json", "cloudformation"),
        ("sam-template.yaml", "sam"),
    ],
)
def test_windows_line_endings_and_a_byte_order_mark_read_the_same(
    tmp_path: Path, source: str, fmt: str
) -> None:
    windows = tmp_path / Path(source).name
    windows.write_bytes(b"\xef\xbb\xbf" + (CORPUS / source).read_text().replace("\n", "\r\n").encode())
    runner = CliRunner()
    plain = runner.invoke(main, ["import", str(CORPUS / source), "--from", fmt])
    again = runner.invoke(main, ["import", str(windows), "--from", fmt])
    assert again.exit_code == plain.exit_code == 0, again.stderr
    assert again.stdout.replace(windows.name, "X") == plain.stdout.replace(Path(source).name, "X")


TYPED_VARIABLES = """
variable "tables" {
  type = map(object({
    hash_key = string
    billing  = optional(string, "PAY_PER_REQUEST")
    stream   = optional(string)
    rcu      = optional(number, " 05 ")
    pitr     = optional(bool, "true")
    extra    = optional(list(string), [])
  }))
  default = {
    orders  = { hash_key = "pk", ignored = "dropped by the type" }
    billing = { hash_key = "id", billing = "PROVISIONED", stream = "NEW_IMAGE", rcu = "3", pitr = null }
  }
}

resource "aws_dynamodb_table" "t" {
  for_each         = var.tables
  name             = each.key
  billing_mode     = each.value.billing
  hash_key         = each.value.hash_key
  read_capacity    = each.value.billing == "PROVISIONED" ? each.value.rcu : null
  write_capacity   = each.value.billing == "PROVISIONED" ? 1 : null
  stream_enabled   = each.value.stream != null
  stream_view_type = each.value.stream
  point_in_time_recovery {
    enabled = each.value.pitr
  }
  attribute {
    name = each.value.hash_key
    type = "S"
  }
}
"""


def test_a_variables_type_gives_omitted_optional_attributes_their_defaults(tmp_path: Path) -> None:
    # Terraform fills optional(T, default) and optional(T) (null) before any expression reads them, and
    # converts "05" to a number and "true" to a bool; a null given for an optional takes its default.
    code, stderr, out = _run(tmp_path, "main.tf", TYPED_VARIABLES, "terraform")
    assert code == 0, stderr
    tables = load(out).tables
    orders, billing = tables["orders"], tables["billing"]
    assert (orders.billing.mode, orders.stream, orders.pitr) == ("on_demand", None, True)
    assert (billing.billing.mode, billing.billing.read, billing.stream, billing.pitr) == (
        "provisioned",
        3,
        "NEW_IMAGE",
        True,
    )


@pytest.mark.parametrize(
    ("replace", "by", "said"),
    [
        (
            'orders  = { hash_key = "pk",',
            "orders  = {",
            "var.tables['orders'] (the attribute hash_key is required",
        ),
        ('rcu = "3"', 'rcu = "three"', "'three' is not a number"),
        ("optional(string)", "optional(stringg)", "a type constraint not read at import"),
    ],
)
def test_a_value_its_variables_type_refuses_is_named(
    tmp_path: Path, replace: str, by: str, said: str
) -> None:
    assert replace in TYPED_VARIABLES
    code, stderr, out = _run(tmp_path, "main.tf", TYPED_VARIABLES.replace(replace, by), "terraform")
    assert code == 2 and not out.exists() and said in stderr, stderr


def test_terraform_0_11_quoted_types_are_read_as_their_types(tmp_path: Path) -> None:
    legacy = """
variable "name" {
  type    = "string"
  default = "legacy_table"
}
variable "capacity" {
  type    = "map"
  default = { read = "3" }
}
resource "aws_dynamodb_table" "t" {
  name           = var.name
  hash_key       = "id"
  read_capacity  = var.capacity["read"]
  write_capacity = 1
  attribute {
    name = "id"
    type = "S"
  }
}
"""
    code, stderr, out = _run(tmp_path, "main.tf", legacy, "terraform")
    assert code == 0, stderr
    table = load(out).tables["legacy_table"]
    assert (table.billing.read, table.billing.write) == (3, 1)
