"""AWS SAM's ``AWS::Serverless::SimpleTable`` read the way SAM defines it, as DynamoDB table
properties: ``PrimaryKey`` (default a string ``id``), on-demand unless ``ProvisionedThroughput`` is
given, ``Tags`` as a map; ``Globals: SimpleTable:`` applies to every SimpleTable of the template.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

RESOURCE_TYPE = "AWS::Serverless::SimpleTable"
_KEY_TYPES = {"String": "S", "Number": "N", "Binary": "B"}
_DEFAULT_KEY = {"Name": "id", "Type": "String"}
# SimpleTable properties that are DynamoDB table properties under the same name.
_SAME = ("TableName", "SSESpecification", "PointInTimeRecoverySpecification", "ProvisionedThroughput")


def with_globals(properties: dict[str, Any], globals_: dict[str, Any]) -> dict[str, Any]:
    """SAM's merge: the resource's own values win; maps merge key by key."""
    merged = dict(globals_)
    for key, value in properties.items():
        base = merged.get(key)
        merged[key] = {**base, **value} if isinstance(base, dict) and isinstance(value, dict) else value
    return merged


def table_properties(
    properties: dict[str, Any], globals_: dict[str, Any], resolve: Callable[[Any], Any]
) -> dict[str, Any]:
    """``AWS::DynamoDB::Table`` properties for a SimpleTable (``resolve`` decides intrinsics)."""
    props = with_globals(properties, globals_)
    key = resolve(props.get("PrimaryKey") or _DEFAULT_KEY)
    kind = _KEY_TYPES.get(str(key.get("Type", "String")))
    if kind is None:
        raise ValueError(f"PrimaryKey.Type {key.get('Type')!r}: SAM allows {', '.join(_KEY_TYPES)}")
    out: dict[str, Any] = {
        "AttributeDefinitions": [{"AttributeName": key["Name"], "AttributeType": kind}],
        "KeySchema": [{"AttributeName": key["Name"], "KeyType": "HASH"}],
        "BillingMode": "PROVISIONED" if "ProvisionedThroughput" in props else "PAY_PER_REQUEST",
    }
    out.update({name: props[name] for name in _SAME if name in props})
    tags = props.get("Tags")
    if isinstance(tags, dict):
        out["Tags"] = [{"Key": k, "Value": v} for k, v in tags.items()]
    return out
