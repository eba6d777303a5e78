"""Import the tables of a live endpoint from DescribeTable / DescribeTimeToLive /
DescribeContinuousBackups, through ``tablewright.connect(endpoint_url=...)`` (or any client)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from .writer import Imported, ImportedTable

_INDEX_FIELDS = ("IndexName", "KeySchema", "Projection")


def _index(index: dict[str, Any], provisioned: bool) -> dict[str, Any]:
    out = {k: index[k] for k in _INDEX_FIELDS}
    if provisioned and "ProvisionedThroughput" in index:
        units = index["ProvisionedThroughput"]
        out["ProvisionedThroughput"] = {
            "ReadCapacityUnits": units["ReadCapacityUnits"],
            "WriteCapacityUnits": units["WriteCapacityUnits"],
        }
    return out


def create_request(description: dict[str, Any]) -> dict[str, Any]:
    """The CreateTable request that would recreate a DescribeTable ``Table``."""
    billing = description.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED")
    create: dict[str, Any] = {
        "TableName": description["TableName"],
        "AttributeDefinitions": description["AttributeDefinitions"],
        "KeySchema": description["KeySchema"],
        "BillingMode": billing,
    }
    provisioned = billing == "PROVISIONED"
    if provisioned:
        units = description["ProvisionedThroughput"]
        create["ProvisionedThroughput"] = {
            "ReadCapacityUnits": units["ReadCapacityUnits"],
            "WriteCapacityUnits": units["WriteCapacityUnits"],
        }
    for field in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if description.get(field):
            create[field] = [
                _index(i, provisioned and field.startswith("Global")) for i in description[field]
            ]
    if description.get("StreamSpecification", {}).get("StreamEnabled"):
        create["StreamSpecification"] = description["StreamSpecification"]
    create["TableClass"] = description.get("TableClassSummary", {}).get("TableClass", "STANDARD")
    return create


# Answers of an endpoint that does not implement an operation at all (DynamoDB-compatible engines
# without backups): the setting is then reported as off. Any other error (access denied, throttling,
# a table that vanished) is an error, never a silent "off".
_NOT_IMPLEMENTED = frozenset({"UnknownOperationException", "NotImplementedException", "UnsupportedOperation"})


class EndpointImportError(Exception):
    """A call the import needs was refused by the endpoint; the message names the table and the call."""


def _call(client: Any, operation: str, table: str | None, **request: Any) -> dict[str, Any]:
    try:
        return getattr(client, operation)(**request)
    except ClientError as error:
        where = f"table {table}: " if table else ""
        raise EndpointImportError(f"{where}{error}") from error


def _ttl(client: Any, table: str) -> str | None:
    found = _call(client, "describe_time_to_live", table, TableName=table)["TimeToLiveDescription"]
    return found.get("AttributeName") if found.get("TimeToLiveStatus") in ("ENABLED", "ENABLING") else None


def _pitr(client: Any, table: str) -> bool:
    try:
        found = client.describe_continuous_backups(TableName=table)["ContinuousBackupsDescription"]
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in _NOT_IMPLEMENTED:
            return False
        raise EndpointImportError(f"table {table}: {error}") from error
    return found.get("PointInTimeRecoveryDescription", {}).get("PointInTimeRecoveryStatus") == "ENABLED"


def import_tables(client: Any, tables: list[str] | None = None, name: str = "imported") -> Imported:
    """The named tables (default: every table) of the endpoint behind ``client``.

    Raises :class:`EndpointImportError` when the endpoint refuses a call (access denied, a missing
    table); an endpoint that does not implement DescribeContinuousBackups reports PITR as off.
    """
    names = tables or _call(client, "list_tables", None)["TableNames"]
    imported = []
    for table in names:
        description = _call(client, "describe_table", table, TableName=table)["Table"]
        imported.append(
            ImportedTable(
                create=create_request(description), ttl=_ttl(client, table), pitr=_pitr(client, table)
            )
        )
    return Imported(name=name, tables=imported, source="a live endpoint (DescribeTable)")
