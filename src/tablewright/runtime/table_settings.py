"""Bring an existing table's settings (tags, encryption, deletion protection, resource policy, PITR,
contributor insights, a Kinesis destination) to what its design declares.

The wanted values are the requests ``export --to create-table`` writes (``create_table.requests``),
so a table updated here ends where a table created from the design starts. Each setting is read
first and sent only where it differs: ``update_tables`` runs again and again against live tables,
and a call that changes nothing still costs an API call (and, for SSE, a table update on AWS).

Only what the design declares is applied: a setting it leaves out (no tags, the default encryption,
no deletion protection) is not switched off on a table where someone turned it on by hand.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from ..design.model import Table

Calls = dict[str, dict[str, Any]]
_ON_STATES = frozenset({"ENABLED", "ENABLING", "UPDATING", "ACTIVE"})


def apply_settings(client: Any, table: Table, current: dict[str, Any], calls: Calls) -> list[str]:
    """Send the settings calls ``table`` lacks; ``current`` is its DescribeTable, ``calls`` its
    ``create_table.requests``. Returns what was done, one line per call."""
    done: list[str] = []
    for setting in _SETTINGS:
        done += setting(client, table, current, calls)
    return done


def _tags(client: Any, table: Table, current: dict[str, Any], calls: Calls) -> list[str]:
    wanted = {tag["Key"]: tag["Value"] for tag in calls["CreateTable"].get("Tags", [])}
    if not wanted:
        return []
    present = _current_tags(client, current["TableArn"])
    differing = [{"Key": key, "Value": value} for key, value in wanted.items() if present.get(key) != value]
    if not differing:
        return []
    client.tag_resource(ResourceArn=current["TableArn"], Tags=differing)
    return [f"{table.table_name}: TagResource {', '.join(tag['Key'] for tag in differing)}"]


def _current_tags(client: Any, arn: str) -> dict[str, str]:
    tags: dict[str, str] = {}
    request: dict[str, Any] = {"ResourceArn": arn}
    while True:
        page = client.list_tags_of_resource(**request)
        tags.update({tag["Key"]: tag["Value"] for tag in page.get("Tags", [])})
        if not page.get("NextToken"):
            return tags
        request["NextToken"] = page["NextToken"]


def _deletion_protection(client: Any, table: Table, current: dict[str, Any], calls: Calls) -> list[str]:
    wanted = calls["CreateTable"].get("DeletionProtectionEnabled")
    if not wanted or current.get("DeletionProtectionEnabled"):
        return []
    client.update_table(TableName=table.table_name, DeletionProtectionEnabled=True)
    return [f"{table.table_name}: updated DeletionProtectionEnabled"]


def _encryption(client: Any, table: Table, current: dict[str, Any], calls: Calls) -> list[str]:
    wanted = calls["CreateTable"].get("SSESpecification")
    if not wanted or _sse_matches(current.get("SSEDescription", {}), wanted):
        return []
    client.update_table(TableName=table.table_name, SSESpecification=wanted)
    return [f"{table.table_name}: updated SSESpecification"]


def _sse_matches(description: dict[str, Any], wanted: dict[str, Any]) -> bool:
    if description.get("Status") not in _ON_STATES or description.get("SSEType") != wanted.get("SSEType"):
        return False
    key = wanted.get("KMSMasterKeyId")
    if key is None:
        # AWS describes its managed key by the key's own ARN, not the alias: any KMS key is on.
        return True
    # The design may name the key by id, alias or ARN; DescribeTable always gives an ARN.
    arn = description.get("KMSMasterKeyArn", "")
    return arn == key or arn.endswith(f"/{key.split('/')[-1]}")


def _resource_policy(client: Any, table: Table, current: dict[str, Any], calls: Calls) -> list[str]:
    wanted = calls["CreateTable"].get("ResourcePolicy")
    if not wanted:
        return []
    try:
        present = client.get_resource_policy(ResourceArn=current["TableArn"])["Policy"]
    except ClientError as error:
        if error.response["Error"]["Code"] != "PolicyNotFoundException":
            raise
        present = None
    # Compared as JSON: AWS may give the policy back spaced or ordered its own way.
    if present is not None and json.loads(present) == json.loads(wanted):
        return []
    client.put_resource_policy(ResourceArn=current["TableArn"], Policy=wanted)
    return [f"{table.table_name}: PutResourcePolicy"]


def _pitr(client: Any, table: Table, current: dict[str, Any], calls: Calls) -> list[str]:
    request = calls.get("UpdateContinuousBackups")
    if request is None:
        return []
    backups = client.describe_continuous_backups(TableName=table.table_name)["ContinuousBackupsDescription"]
    status = backups.get("PointInTimeRecoveryDescription", {}).get("PointInTimeRecoveryStatus")
    if status in _ON_STATES:
        return []
    client.update_continuous_backups(**request)
    return [f"{table.table_name}: UpdateContinuousBackups"]


def _contributor_insights(client: Any, table: Table, current: dict[str, Any], calls: Calls) -> list[str]:
    request = calls.get("UpdateContributorInsights")
    if request is None:
        return []
    insights = client.describe_contributor_insights(TableName=table.table_name)
    if insights.get("ContributorInsightsStatus") in _ON_STATES:
        return []
    client.update_contributor_insights(**request)
    return [f"{table.table_name}: UpdateContributorInsights"]


def _kinesis(client: Any, table: Table, current: dict[str, Any], calls: Calls) -> list[str]:
    request = calls.get("EnableKinesisStreamingDestination")
    if request is None:
        return []
    described = client.describe_kinesis_streaming_destination(TableName=table.table_name)
    destinations = described.get("KinesisDataStreamDestinations", [])
    if any(_streams_to(destination, request["StreamArn"]) for destination in destinations):
        return []
    client.enable_kinesis_streaming_destination(**request)
    return [f"{table.table_name}: EnableKinesisStreamingDestination"]


def _streams_to(destination: dict[str, Any], stream_arn: str) -> bool:
    return destination.get("StreamArn") == stream_arn and destination.get("DestinationStatus") in _ON_STATES


Setting = Callable[[Any, Table, dict[str, Any], Calls], list[str]]
# In the order create_tables sends them: CreateTable's own fields, then its follow-up calls.
_SETTINGS: tuple[Setting, ...] = (
    _tags,
    _encryption,
    _deletion_protection,
    _resource_policy,
    _pitr,
    _contributor_insights,
    _kinesis,
)
