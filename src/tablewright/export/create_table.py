"""The DynamoDB control-plane requests that create a design's tables: the neutral form every exporter
(and, in reverse, every importer) maps from.

``requests(table)`` gives ``CreateTable``, ``UpdateTimeToLive`` (when the table has a TTL) and
``UpdateContinuousBackups`` (when it declares PITR) exactly as the API (and ``aws dynamodb ...
--cli-input-json``) takes them.
"""

from __future__ import annotations

from typing import Any

from ..design.model import Billing, Design, Index, Projection, Table
from . import settings

BILLING_MODES = {"on_demand": "PAY_PER_REQUEST", "provisioned": "PROVISIONED"}
_PROJECTIONS = {
    "ALL": lambda p: {"ProjectionType": "ALL"},
    "KEYS_ONLY": lambda p: {"ProjectionType": "KEYS_ONLY"},
    "INCLUDE": lambda p: {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(p.attributes)},
}
_INDEX_LISTS = {"global": "GlobalSecondaryIndexes", "local": "LocalSecondaryIndexes"}
# A provisioned table without explicit numbers gets DynamoDB's console default.
_DEFAULT_UNITS = 5


def key_schema(pk: Any, sk: Any) -> list[dict[str, str]]:
    """KeySchema for a partition key and an optional sort key."""
    schema = [{"AttributeName": pk.name, "KeyType": "HASH"}]
    if sk is not None:
        schema.append({"AttributeName": sk.name, "KeyType": "RANGE"})
    return schema


def throughput(billing: Billing) -> dict[str, int]:
    """ProvisionedThroughput of a provisioned billing."""
    return {
        "ReadCapacityUnits": billing.read or _DEFAULT_UNITS,
        "WriteCapacityUnits": billing.write or _DEFAULT_UNITS,
    }


def projection(value: Projection) -> dict[str, Any]:
    """An index Projection."""
    return _PROJECTIONS[value.type.upper()](value)


def index_request(index: Index, table: Table) -> dict[str, Any]:
    """One GSI/LSI as CreateTable describes it."""
    request: dict[str, Any] = {
        "IndexName": index.name,
        "KeySchema": key_schema(index.partition_key, index.sort_key),
        "Projection": projection(index.projection),
    }
    if index.kind == "global" and table.billing.mode == "provisioned":
        request["ProvisionedThroughput"] = throughput(index.throughput or table.billing)
    return request


def create_table(table: Table) -> dict[str, Any]:
    """The CreateTable request of a design table."""
    request: dict[str, Any] = {
        "TableName": table.table_name,
        "AttributeDefinitions": [
            {"AttributeName": name, "AttributeType": kind} for name, kind in table.key_attributes().items()
        ],
        "KeySchema": key_schema(table.partition_key, table.sort_key),
        "BillingMode": BILLING_MODES[table.billing.mode],
    }
    if table.billing.mode == "provisioned":
        request["ProvisionedThroughput"] = throughput(table.billing)
    for kind, field in _INDEX_LISTS.items():
        indexes = [index_request(i, table) for i in table.indexes.values() if i.kind == kind]
        if indexes:
            request[field] = indexes
    if table.stream:
        request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": table.stream}
    request["TableClass"] = table.table_class
    return request


def requests(table: Table) -> dict[str, dict[str, Any]]:
    """Operation name -> request, for every call that brings a table to its design."""
    calls: dict[str, dict[str, Any]] = {"CreateTable": create_table(table)}
    if table.ttl:
        calls["UpdateTimeToLive"] = {
            "TableName": table.table_name,
            "TimeToLiveSpecification": {"Enabled": True, "AttributeName": table.ttl},
        }
    if table.pitr:
        calls["UpdateContinuousBackups"] = {
            "TableName": table.table_name,
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
        }
    for operation, fields in settings.requests(table).items():  # SSE, tags, insights, Kinesis...
        calls.setdefault(operation, {}).update(fields)
    return calls


def export(design: Design, **_: Any) -> dict[str, dict[str, dict[str, Any]]]:
    """Physical table name -> operation -> request, for the whole design (JSON-ready)."""
    return {table.table_name: requests(table) for table in design.tables.values()}
