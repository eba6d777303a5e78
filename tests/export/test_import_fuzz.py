"""Import on inputs nobody wrote: whatever the file holds, the answer is a design that loads or a
ValueError naming the file (the CLI's exit 2), never another exception."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewright.design.loader import loads
from tablewright.imports import checked_yaml, read

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 70000),
    st.sampled_from(["S", "N", "B", "HASH", "RANGE", "PROVISIONED", "PAY_PER_REQUEST", "id", "", "ALL"]),
    st.text(max_size=8),
)
_INTRINSICS = st.sampled_from(
    [
        {"Ref": "P"},
        {"Ref": "AWS::Region"},
        {"Fn::GetAtt": ["T", "Arn"]},
        {"Fn::Sub": "${P}-x"},
        {"Ref": "AWS::NoValue"},
    ]
)
_VALUES = st.recursive(
    st.one_of(_SCALARS, _INTRINSICS),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(
                [
                    "AttributeName",
                    "AttributeType",
                    "KeyType",
                    "IndexName",
                    "KeySchema",
                    "Projection",
                    "ProjectionType",
                    "ReadCapacityUnits",
                    "WriteCapacityUnits",
                    "Enabled",
                    "Key",
                    "Value",
                ]
            ),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
)
_PROPERTIES = st.dictionaries(
    st.sampled_from(
        [
            "TableName",
            "AttributeDefinitions",
            "KeySchema",
            "BillingMode",
            "ProvisionedThroughput",
            "GlobalSecondaryIndexes",
            "LocalSecondaryIndexes",
            "StreamSpecification",
            "TimeToLiveSpecification",
            "Tags",
            "SSESpecification",
            "TableClass",
            "PointInTimeRecoverySpecification",
            "Other",
        ]
    ),
    _VALUES,
    max_size=8,
)
_SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _import(path: Path, fmt: str) -> None:
    try:
        text = checked_yaml(read(path, fmt), path)
    except ValueError as error:
        assert str(path) in str(error)
        return
    loads(text)  # what import writes always loads


@_SETTINGS
@given(properties=_PROPERTIES)
def test_any_table_properties_import_or_are_refused_by_name(tmp_path: Path, properties: dict) -> None:
    template = {
        "Parameters": {"P": {"Type": "String", "Default": "abc"}},
        "Resources": {"T": {"Type": "AWS::DynamoDB::Table", "Properties": properties}},
    }
    path = tmp_path / "template.json"
    path.write_text(json.dumps(template))
    _import(path, "cloudformation")


@_SETTINGS
@given(content=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_any_bytes_import_or_are_refused_by_name(tmp_path: Path, content: bytes) -> None:
    for name, fmt in (
        ("any.yaml", "cloudformation"),
        ("any.tf", "terraform"),
        ("serverless.yml", "serverless"),
    ):
        path = tmp_path / name
        path.write_bytes(content)
        _import(path, fmt)


_HCL_VALUES = st.sampled_from(
    [
        '"id"',
        '"S"',
        "5",
        "true",
        "var.x",
        "local.y",
        '"${var.x}-t"',
        "[1, 2]",
        "{a = 1}",
        "null",
        "aws_kms_key.k.arn",
        '"PROVISIONED"',
        'var.x == "a" ? 1 : 2',
        "merge({}, {})",
        "-1",
        '"5"',
    ]
)


@_SETTINGS
@given(
    arguments=st.dictionaries(
        st.sampled_from(
            [
                "name",
                "hash_key",
                "range_key",
                "billing_mode",
                "read_capacity",
                "write_capacity",
                "stream_enabled",
                "stream_view_type",
                "tags",
                "table_class",
            ]
        ),
        _HCL_VALUES,
        max_size=6,
    ),
    attribute=st.tuples(_HCL_VALUES, _HCL_VALUES),
)
def test_any_terraform_table_imports_or_is_refused_by_name(
    tmp_path: Path, arguments: dict, attribute: tuple[str, str]
) -> None:
    body = "\n".join(f"  {k} = {v}" for k, v in arguments.items())
    text = (
        'variable "x" { default = "a" }\nlocals { y = 3 }\n'
        f'resource "aws_dynamodb_table" "abc" {{\n{body}\n'
        f"  attribute {{\n    name = {attribute[0]}\n    type = {attribute[1]}\n  }}\n}}\n"
    )
    path = tmp_path / "main.tf"
    path.write_text(text)
    _import(path, "terraform")


_SLS_VALUES = st.sampled_from(
    [
        "${self:custom.name}",
        "${opt:stage, 'dev'}",
        "${env:X}",
        "${env:X, 5}",
        "${self:custom.${sls:stage}}",
        "${self:missing}",
        "${ssm:/a/b}",
        "${file(./nope.yml)}",
        "${self:custom.loop}",
        "plain",
        "7",
        "${",
        "}",
        "${sls:instanceId}",
        "${opt:x, self:custom.name}",
        "${self:custom.name}-${sls:stage}",
    ]
)


@_SETTINGS
@given(name=_SLS_VALUES, units=_SLS_VALUES, key=_SLS_VALUES)
def test_any_serverless_variables_import_or_are_refused_by_name(
    tmp_path: Path, name: str, units: str, key: str
) -> None:
    document = {
        "service": "svc",
        "provider": {"name": "aws", "stage": "dev"},
        "custom": {"name": "things", "dev": 3, "loop": "${self:custom.loop}"},
        "resources": {
            "Resources": {
                "Table": {
                    "Type": "AWS::DynamoDB::Table",
                    "Properties": {
                        "TableName": name,
                        "AttributeDefinitions": [{"AttributeName": key, "AttributeType": "S"}],
                        "KeySchema": [{"AttributeName": key, "KeyType": "HASH"}],
                        "BillingMode": "PROVISIONED",
                        "ProvisionedThroughput": {"ReadCapacityUnits": units, "WriteCapacityUnits": 1},
                    },
                }
            }
        },
    }
    path = tmp_path / "serverless.yml"
    path.write_text(json.dumps(document))
    _import(path, "serverless")
