"""CreateTable / UpdateTable / UpdateTimeToLive requests built from a design's tables, with the
table's settings (tags, encryption, deletion protection, PITR, contributor insights, a Kinesis
destination, a resource policy) as ``export --to create-table`` writes them.

``create_request(table)`` is pure (useful to print or diff); ``create_tables`` and ``update_tables``
send requests through any client and wait for ACTIVE, which is immediate on the embedded engine
and takes seconds on AWS.
"""

from __future__ import annotations

import re
import time
from typing import Any

from botocore.exceptions import ClientError

from ..design.model import Table
from ..export.create_table import create_table, index_request
from ..export.create_table import requests as table_requests
from .table_settings import apply_settings

# The requests themselves are the export package's neutral form (pure functions of the design), so
# what `tablewright export --to create-table` prints is exactly what the runtime sends: CreateTable
# with its settings merged in (``table_requests``), then the calls that follow it.
create_request = create_table
# Sent by ``_set_ttl``, which also knows how to switch a TTL off or to another attribute.
_SENT_APART = frozenset({"CreateTable", "UpdateTimeToLive"})


def _wait_active(client: Any, name: str, timeout: float = 300.0) -> dict:
    # The embedded engine answers ACTIVE at once; AWS takes seconds per table and per new GSI.
    deadline = time.monotonic() + timeout
    while True:
        description = client.describe_table(TableName=name)["Table"]
        busy = description["TableStatus"] != "ACTIVE" or any(
            g.get("IndexStatus", "ACTIVE") != "ACTIVE" for g in description.get("GlobalSecondaryIndexes", [])
        )
        if not busy or time.monotonic() > deadline:
            return description
        time.sleep(1.0)


def _set_ttl(client: Any, table: Table, current: str | None) -> list[str]:
    if table.ttl == current:
        return []
    if current is not None:
        client.update_time_to_live(
            TableName=table.table_name, TimeToLiveSpecification={"Enabled": False, "AttributeName": current}
        )
    if table.ttl is not None:
        client.update_time_to_live(
            TableName=table.table_name, TimeToLiveSpecification={"Enabled": True, "AttributeName": table.ttl}
        )
    return [f"{table.table_name}: TTL on {table.ttl or 'off'}"]


def _current_ttl(client: Any, name: str) -> str | None:
    description = client.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    return (
        description.get("AttributeName")
        if description.get("TimeToLiveStatus") in ("ENABLED", "ENABLING")
        else None
    )


def create_tables(client: Any, tables: list[Table], *, exist_ok: bool = True) -> list[str]:
    """Create every table (and its TTL); returns what was done. Existing tables are left as they are
    when ``exist_ok`` (use ``update_tables`` to bring them in line)."""
    done: list[str] = []
    for table in tables:
        calls = table_requests(table)
        try:
            client.create_table(**calls["CreateTable"])
        except ClientError as error:
            if error.response["Error"]["Code"] == "ResourceInUseException" and exist_ok:
                done.append(f"{table.table_name}: exists")
                continue
            raise
        _wait_active(client, table.table_name)
        done.append(f"{table.table_name}: created")
        done += _set_ttl(client, table, None)
        done += _send_follow_ups(client, table, calls)
    return done


def _send_follow_ups(client: Any, table: Table, calls: dict[str, dict[str, Any]]) -> list[str]:
    """The calls a new table needs after CreateTable (UpdateContinuousBackups for PITR,
    UpdateContributorInsights, EnableKinesisStreamingDestination), in the export's order."""
    done: list[str] = []
    for operation, request in calls.items():
        if operation in _SENT_APART:
            continue
        getattr(client, _method_name(operation))(**request)
        done.append(f"{table.table_name}: {operation}")
    return done


def _method_name(operation: str) -> str:
    # boto3's method for an API operation: UpdateContinuousBackups -> update_continuous_backups.
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation).lower()


def update_tables(client: Any, tables: list[Table], *, delete_indexes: bool = False) -> list[str]:
    """Bring existing tables in line with the design: billing, table class, stream, new GSIs (one per
    UpdateTable call, as DynamoDB requires), removed GSIs when ``delete_indexes``, TTL, and the
    settings ``create_tables`` sends (tags, encryption, deletion protection, resource policy, PITR,
    contributor insights, Kinesis) where the table lacks them (``table_settings``). Missing tables
    are created. LSIs cannot change after creation: a difference raises ``ValueError``."""
    done: list[str] = []
    for table in tables:
        try:
            current = _wait_active(client, table.table_name)
        except ClientError as error:
            if error.response["Error"]["Code"] != "ResourceNotFoundException":
                raise
            done += create_tables(client, [table])
            continue
        done += _update_one(client, table, current, delete_indexes)
        done += _set_ttl(client, table, _current_ttl(client, table.table_name))
        done += apply_settings(client, table, _wait_active(client, table.table_name), table_requests(table))
    return done


def _update_one(client: Any, table: Table, current: dict, delete_indexes: bool) -> list[str]:
    name, done = table.table_name, []
    wanted = create_request(table)
    lsis_now = sorted(i["IndexName"] for i in current.get("LocalSecondaryIndexes", []))
    lsis_wanted = sorted(i.name for i in table.indexes.values() if i.kind == "local")
    if lsis_now != lsis_wanted:
        raise ValueError(
            f"table {name}: local secondary indexes {lsis_now} cannot become {lsis_wanted} "
            "(LSIs are fixed at CreateTable; create a new table and migrate)"
        )
    settings: dict[str, Any] = {}
    mode_now = current.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED")
    if mode_now != wanted["BillingMode"] or (
        "ProvisionedThroughput" in wanted
        and {k: current["ProvisionedThroughput"][k] for k in wanted["ProvisionedThroughput"]}
        != wanted["ProvisionedThroughput"]
    ):
        settings["BillingMode"] = wanted["BillingMode"]
        if "ProvisionedThroughput" in wanted:
            settings["ProvisionedThroughput"] = wanted["ProvisionedThroughput"]
    if current.get("TableClassSummary", {}).get("TableClass", "STANDARD") != table.table_class:
        settings["TableClass"] = table.table_class
    stream_now = current.get("StreamSpecification", {})
    stream_type_now = stream_now.get("StreamViewType") if stream_now.get("StreamEnabled") else None
    if stream_type_now != table.stream:
        settings["StreamSpecification"] = (
            {"StreamEnabled": True, "StreamViewType": table.stream}
            if table.stream
            else {"StreamEnabled": False}
        )
    if settings:
        client.update_table(TableName=name, **settings)
        _wait_active(client, name)
        done.append(f"{name}: updated {', '.join(sorted(settings))}")
    gsis_now = {g["IndexName"] for g in current.get("GlobalSecondaryIndexes", [])}
    wanted_gsis = {i.name: i for i in table.indexes.values() if i.kind == "global"}
    definitions = wanted["AttributeDefinitions"]
    for index_name in sorted(set(wanted_gsis) - gsis_now):
        create = index_request(wanted_gsis[index_name], table)
        client.update_table(
            TableName=name, AttributeDefinitions=definitions, GlobalSecondaryIndexUpdates=[{"Create": create}]
        )
        _wait_active(client, name)
        done.append(f"{name}: created index {index_name}")
    if delete_indexes:
        for index_name in sorted(gsis_now - set(wanted_gsis)):
            client.update_table(
                TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": index_name}}]
            )
            _wait_active(client, name)
            done.append(f"{name}: deleted index {index_name}")
    return done
