"""Import the tables of a live endpoint from DescribeTable / DescribeTimeToLive /
DescribeContinuousBackups, through ``tablewright.connect(endpoint_url=...)`` (or any client).

DescribeTable knows only key attributes; one page of a Scan (``sample`` items, default 25) adds the
non-key attributes with the types the items hold, and keeps those items as the design's sample data.
"""

from __future__ import annotations

import base64
from typing import Any

from botocore.exceptions import ClientError

from ..export.settings import design_values
from ..export.wire import WIRE_TO_DESIGN
from .writer import EntitySketch, Imported, ImportedTable, entity_name, unique_name

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


_SSE_ON = ("ENABLED", "ENABLING", "UPDATING")
KMS_KEY_NOTE = (
    "encryption with the KMS key {arn} is kept as a customer managed key; DescribeTable names the AWS"
    " managed key (alias/aws/dynamodb) the same way: if it is that one, write encryption: aws_managed"
)


def _settings(description: dict[str, Any], tags: list[dict[str, str]]) -> tuple[dict[str, Any], list[str]]:
    """Design settings DescribeTable reports (deletion protection, a KMS key), the table's tags, and
    the assumptions made."""
    create: dict[str, Any] = {"Tags": tags} if tags else {}
    if description.get("DeletionProtectionEnabled"):
        create["DeletionProtectionEnabled"] = True
    sse = description.get("SSEDescription") or {}
    arn = sse.get("KMSMasterKeyArn")
    if sse.get("Status") in _SSE_ON:
        create["SSESpecification"] = {"Enabled": True, "SSEType": "KMS"} | (
            {"KMSMasterKeyId": arn} if arn else {}
        )
    notes = [KMS_KEY_NOTE.format(arn=arn)] if arn and "SSESpecification" in create else []
    return design_values({"CreateTable": create}), notes


def _unheld(description: dict[str, Any]) -> list[str]:
    """What DescribeTable reports that a design cannot hold: replicas, on-demand maximums."""
    table = description["TableName"]
    regions = [r.get("RegionName", "?") for r in description.get("Replicas") or []]
    notes = (
        [f"table {table}: a global table: replicas in {', '.join(regions)} are not carried"]
        if regions
        else []
    )
    limits = {k: v for k, v in (description.get("OnDemandThroughput") or {}).items() if v not in (None, -1)}
    notes += [f"table {table}: OnDemandThroughput {limits} is not carried"] if limits else []
    return notes


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


def _tags(client: Any, table: str, arn: str | None) -> list[dict[str, str]]:
    """The table's tags (every page of ListTagsOfResource); none where the endpoint does not
    implement the call. A refusal is an error, as for backups: tags are not silently "none"."""
    if not arn:
        return []
    tags: list[dict[str, str]] = []
    request: dict[str, Any] = {"ResourceArn": arn}
    while True:
        try:
            page = client.list_tags_of_resource(**request)
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in _NOT_IMPLEMENTED:
                return []
            raise EndpointImportError(f"table {table}: {error}") from error
        tags += page.get("Tags", [])
        if not page.get("NextToken"):
            return tags
        request["NextToken"] = page["NextToken"]


def _json_safe(value: Any) -> Any:
    """A boto3 wire value with bytes as base64 text, as DynamoDB's JSON (and Workbench) writes them."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def _sampled(create: dict[str, Any], items: list[dict[str, Any]], taken: set[str]) -> EntitySketch:
    """One entity holding the table's key attributes and every attribute the sampled items carry."""
    types = {d["AttributeName"]: WIRE_TO_DESIGN[d["AttributeType"]] for d in create["AttributeDefinitions"]}
    for item in items:
        for attribute, value in item.items():
            types.setdefault(attribute, WIRE_TO_DESIGN.get(next(iter(value)), "string"))
    # Tables ``Orders`` and ``orders`` both give ``Orders``: the second entity (and its samples) is
    # ``Orders_2``, so neither overwrites the other.
    return EntitySketch(unique_name(entity_name(create["TableName"]), taken), types)


def import_tables(
    client: Any, tables: list[str] | None = None, name: str = "imported", sample: int = 25
) -> Imported:
    """The named tables (default: every table) of the endpoint behind ``client``, with up to
    ``sample`` items of each (0: none) as sample data.

    Raises :class:`EndpointImportError` when the endpoint refuses a call (access denied, a missing
    table); an endpoint that does not implement DescribeContinuousBackups reports PITR as off.
    """
    names = tables or _call(client, "list_tables", None)["TableNames"]
    imported = []
    samples: dict[str, list[dict[str, Any]]] = {}
    taken: set[str] = set()  # entity names given so far
    notes: list[str] = []
    for table in names:
        description = _call(client, "describe_table", table, TableName=table)["Table"]
        create = create_request(description)
        items = (
            [_json_safe(i) for i in _call(client, "scan", table, TableName=table, Limit=sample)["Items"]]
            if sample
            else []
        )
        sketch = _sampled(create, items, taken)
        if items:
            samples[sketch.name] = items
        settings, assumed = _settings(description, _tags(client, table, description.get("TableArn")))
        imported.append(
            ImportedTable(
                create=create,
                ttl=_ttl(client, table),
                pitr=_pitr(client, table),
                entities=[sketch],
                settings=settings,
                notes=assumed,
            )
        )
        notes += _unheld(description)
    return Imported(
        name=name,
        tables=imported,
        source="a live endpoint (DescribeTable, ListTagsOfResource and a sample Scan)",
        samples=samples,
        notes=notes,
    )
