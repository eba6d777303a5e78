"""Table settings that do not change how items are stored (encryption, tags, deletion protection,
contributor insights, a Kinesis destination, a resource policy) as DynamoDB API requests, and back.

``SETTINGS`` is one table: design key -> (operation, request field, to the API, from the API).
``create_table.requests`` adds ``requests(table)``; importers read the same table backwards with
``design_values(calls)``, so the two directions cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..design.model import Table

_SSE_BY_KIND = {"aws_owned": None, "aws_managed": {"Enabled": True, "SSEType": "KMS"}}


def _sse_to_api(table: Table) -> dict[str, Any] | None:
    if table.encryption == "customer_managed":
        return {"Enabled": True, "SSEType": "KMS", "KMSMasterKeyId": table.kms_key}
    return _SSE_BY_KIND.get(table.encryption)


def _sse_from_api(spec: dict[str, Any]) -> Any:
    if not spec.get("Enabled"):
        return None  # the default: a key AWS owns
    return {"kms_key": spec["KMSMasterKeyId"]} if spec.get("KMSMasterKeyId") else "aws_managed"


# design key -> (operation, request field, design table -> API value or None, API value -> design value)
Setting = tuple[str, str, Callable[[Table], Any], Callable[[Any], Any]]
SETTINGS: dict[str, Setting] = {
    "encryption": ("CreateTable", "SSESpecification", _sse_to_api, _sse_from_api),
    "tags": (
        "CreateTable",
        "Tags",
        lambda t: [{"Key": k, "Value": v} for k, v in t.tags.items()] or None,
        lambda tags: {str(t["Key"]): str(t["Value"]) for t in tags} or None,
    ),
    "deletion_protection": (
        "CreateTable",
        "DeletionProtectionEnabled",
        lambda t: True if t.deletion_protection else None,
        lambda value: True if value else None,
    ),
    "resource_policy": (
        "CreateTable",
        "ResourcePolicy",
        lambda t: json.dumps(t.resource_policy) if t.resource_policy else None,
        lambda text: json.loads(text) if isinstance(text, str) else text,
    ),
    "contributor_insights": (
        "UpdateContributorInsights",
        "ContributorInsightsAction",
        lambda t: "ENABLE" if t.contributor_insights else None,
        lambda action: True if action == "ENABLE" else None,
    ),
    "kinesis_stream": (
        "EnableKinesisStreamingDestination",
        "StreamArn",
        lambda t: t.kinesis_stream,
        lambda arn: arn or None,
    ),
}


def requests(table: Table) -> dict[str, dict[str, Any]]:
    """The settings of ``table`` as request fields per operation (CreateTable fields to merge)."""
    calls: dict[str, dict[str, Any]] = {}
    for operation, field, to_api, _ in SETTINGS.values():
        value = to_api(table)
        if value is not None:
            call = calls.setdefault(operation, {})
            if operation != "CreateTable":
                call.setdefault("TableName", table.table_name)
            call[field] = value
    return calls


def design_values(calls: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Design keys for the settings found in API requests (the inverse of ``requests``)."""
    values = {}
    for key, (operation, field, _, from_api) in SETTINGS.items():
        raw = calls.get(operation, {}).get(field)
        value = from_api(raw) if raw is not None else None
        if value is not None:
            values[key] = value
    return values
