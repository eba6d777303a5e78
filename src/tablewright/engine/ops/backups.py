"""On-demand backups: CreateBackup, DescribeBackup, ListBackups, DeleteBackup, RestoreTableFromBackup.

A backup is a real copy of the table's items and of its definition at backup time (engine/snapshots.py);
restoring creates a new table from that definition (with the request's overrides) and fills it with the
copied items, its indexes rebuilt from them. As in DynamoDB, a restored table gets no tags, TTL, stream,
PITR or auto-scaling settings from its source; a backup outlives its table. A backup is AVAILABLE at
once (DynamoDB answers CREATING and becomes AVAILABLE shortly after). See docs/backups.md.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import snapshots
from ..errors import (
    BackupNotFoundException,
    TableAlreadyExistsException,
    TableNotFoundException,
    ValidationException,
)
from . import tables
from .tables import create_table_in, describe, table_name_from_arn

if TYPE_CHECKING:
    import sqlite3

    from ..catalog import TableMeta
    from ..engine import Engine

Filler = Callable[["sqlite3.Connection", "TableMeta"], None]
_DETAIL_FIELDS = (
    "BackupArn",
    "BackupName",
    "BackupSizeBytes",
    "BackupStatus",
    "BackupType",
    "BackupCreationDateTime",
    "BackupExpiryDateTime",
)
SYSTEM_BACKUP_DAYS = 35  # "This SYSTEM on-demand backup expires automatically 35 days after its creation."


def source_table(engine: Engine, name: str) -> TableMeta:
    """The table a backup or PITR request names (by name or ARN); these operations say
    TableNotFoundException."""
    if isinstance(name, str) and name.startswith("arn:"):
        name = table_name_from_arn(engine, name)
    meta = engine.store.table(name)
    if meta is None:
        raise TableNotFoundException(f"Table not found: {name}")
    return meta


# ---------------------------------------------------------------------------------------- restoring


def _index_request(index: dict, billing: str) -> dict:
    request = {k: index[k] for k in ("IndexName", "KeySchema", "Projection")}
    if billing == "PROVISIONED" and "ProvisionedThroughput" in index:
        throughput = index["ProvisionedThroughput"]
        request["ProvisionedThroughput"] = {
            "ReadCapacityUnits": throughput["ReadCapacityUnits"],
            "WriteCapacityUnits": throughput["WriteCapacityUnits"],
        }
    return request


def creation_request(description: dict, target: str, request: dict) -> dict:
    """The CreateTable request that makes a restored table: the source's definition at backup (or
    restore) time, with RestoreTableFromBackup's / RestoreTableToPointInTime's overrides applied."""
    billing = request.get(
        "BillingModeOverride", description.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED")
    )
    created: dict[str, Any] = {
        "TableName": target,
        "AttributeDefinitions": description["AttributeDefinitions"],
        "KeySchema": description["KeySchema"],
        "BillingMode": billing,
        "TableClass": description.get("TableClassSummary", {}).get("TableClass", "STANDARD"),
    }
    if billing == "PROVISIONED":
        throughput = request.get("ProvisionedThroughputOverride") or description["ProvisionedThroughput"]
        created["ProvisionedThroughput"] = {
            "ReadCapacityUnits": throughput["ReadCapacityUnits"] or 1,
            "WriteCapacityUnits": throughput["WriteCapacityUnits"] or 1,
        }
    gsis = request.get("GlobalSecondaryIndexOverride")
    if gsis is None:
        gsis = [_index_request(i, billing) for i in description.get("GlobalSecondaryIndexes", [])]
    lsis = request.get("LocalSecondaryIndexOverride")
    if lsis is None:
        lsis = [_index_request(i, "PAY_PER_REQUEST") for i in description.get("LocalSecondaryIndexes", [])]
    if gsis:
        created["GlobalSecondaryIndexes"] = gsis
    if lsis:
        created["LocalSecondaryIndexes"] = lsis
    used = {k["AttributeName"] for k in created["KeySchema"]}
    for index in gsis + lsis:
        used.update(k["AttributeName"] for k in index["KeySchema"])
    created["AttributeDefinitions"] = [
        d for d in description["AttributeDefinitions"] if d["AttributeName"] in used
    ]
    return created


def restore_into(
    engine: Engine, description: dict, request: dict, fill: Filler, summary: dict[str, Any]
) -> dict:
    """Create ``request['TargetTableName']`` from ``description`` and fill it, in one transaction:
    a restore that fails, or a process killed during it, leaves no table behind. DynamoDB's response."""
    target = request["TargetTableName"]
    with engine.store.read():
        if engine.store.table(target) is not None:
            raise TableAlreadyExistsException(f"Table already exists: {target}")
    with engine.store.write() as conn:
        meta = create_table_in(engine, conn, creation_request(description, target, request))
        fill(conn, meta)
        for index in meta.indexes.values():
            engine.store.backfill_index(conn, meta, index)
        document = copy.deepcopy(meta.extra)
        document["Description"]["RestoreSummary"] = {**summary, "RestoreInProgress": False}
        if "SSESpecificationOverride" in request:
            document["Description"]["SSEDescription"] = _sse(engine, request["SSESpecificationOverride"])
        meta = engine.store.save_table(conn, meta.id, document)
        return {"TableDescription": describe(engine, conn, meta)}


def _sse(engine: Engine, spec: dict) -> dict:
    # A restore states the override either way (DISABLED: the table is back on DynamoDB's own key).
    return tables.sse_description(engine, spec) or {"Status": "DISABLED"}


# ------------------------------------------------------------------------------------------ backups


def _summary(document: dict) -> dict:
    source = document["SourceTableDetails"]
    details = document["BackupDetails"]
    summary = {k: source[k] for k in ("TableName", "TableId", "TableArn")}
    summary.update({k: details[k] for k in _DETAIL_FIELDS if k in details})
    return summary


def _description(document: dict) -> dict:
    return {
        "BackupDetails": document["BackupDetails"],
        "SourceTableDetails": document["SourceTableDetails"],
        "SourceTableFeatureDetails": document["SourceTableFeatureDetails"],
    }


def _feature_details(described: dict, extra: dict) -> dict:
    features: dict[str, Any] = {}
    for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        if described.get(kind):
            features[kind] = [
                {k: i[k] for k in ("IndexName", "KeySchema", "Projection", "ProvisionedThroughput") if k in i}
                for i in described[kind]
            ]
    if described.get("StreamSpecification"):
        features["StreamDescription"] = described["StreamSpecification"]
    ttl = extra.get("TimeToLive", {})
    if ttl.get("TimeToLiveStatus") == "ENABLED":
        features["TimeToLiveDescription"] = ttl
    return features


def create_backup(engine: Engine, request: dict) -> dict:
    with engine.store.write() as conn:
        meta = source_table(engine, request["TableName"])
        return {"BackupDetails": _back_up(engine, conn, meta, request["BackupName"], "USER")}


def _back_up(engine: Engine, conn: Any, meta: TableMeta, backup_name: str, backup_type: str) -> dict:
    """Copy the table now; its BackupDetails."""
    described = describe(engine, conn, meta)
    now = engine.clock()
    arn = f"{engine.arn(meta.name)}/backup/{int(now * 1000):014d}-{os.urandom(4).hex()}"
    details = {
        "BackupArn": arn,
        "BackupName": backup_name,
        "BackupSizeBytes": described["TableSizeBytes"],
        "BackupStatus": "AVAILABLE",
        "BackupType": backup_type,
        "BackupCreationDateTime": now,
    }
    if backup_type == "SYSTEM":
        details["BackupExpiryDateTime"] = now + SYSTEM_BACKUP_DAYS * 86400
    throughput = described["ProvisionedThroughput"]
    document = {
        "BackupDetails": details,
        "SourceTableDetails": {
            "TableName": meta.name,
            "TableId": described["TableId"],
            "TableArn": described["TableArn"],
            "TableSizeBytes": described["TableSizeBytes"],
            "KeySchema": described["KeySchema"],
            "TableCreationDateTime": described["CreationDateTime"],
            "ProvisionedThroughput": {
                "ReadCapacityUnits": throughput["ReadCapacityUnits"],
                "WriteCapacityUnits": throughput["WriteCapacityUnits"],
            },
            "ItemCount": described["ItemCount"],
            "BillingMode": described["BillingModeSummary"]["BillingMode"],
        },
        "SourceTableFeatureDetails": _feature_details(described, meta.extra),
        "Definition": described,
    }
    snapshots.save_backup(conn, arn, meta, now, document)
    return details


def _expired(document: dict, now: float) -> bool:
    return document["BackupDetails"].get("BackupExpiryDateTime", float("inf")) <= now


def _require_backup(engine: Engine, conn: Any, arn: str) -> dict:
    document = snapshots.backup(conn, arn)
    if document is None or _expired(document, engine.clock()):
        raise BackupNotFoundException(f"Backup not found: {arn}")
    return document


def expire_backups(engine: Engine) -> int:
    """Delete the SYSTEM backups past their expiry (for the TTL sweeper; until then every operation
    already treats them as gone); return how many."""
    if engine.read_only:
        return 0
    now = engine.clock()
    with engine.store.read() as conn:
        expired = [d["BackupDetails"]["BackupArn"] for d in snapshots.backups(conn) if _expired(d, now)]
    if expired:
        with engine.store.write() as conn:
            for arn in expired:
                snapshots.delete_backup(conn, arn)
    return len(expired)


def describe_backup(engine: Engine, request: dict) -> dict:
    with engine.store.read() as conn:
        return {"BackupDescription": _description(_require_backup(engine, conn, request["BackupArn"]))}


def delete_backup(engine: Engine, request: dict) -> dict:
    with engine.store.write() as conn:
        document = _require_backup(engine, conn, request["BackupArn"])
        snapshots.delete_backup(conn, request["BackupArn"])
    description = _description(document)
    description["BackupDetails"] = {**description["BackupDetails"], "BackupStatus": "DELETED"}
    return {"BackupDescription": description}


def _listed(document: dict, request: dict) -> bool:
    details = document["BackupDetails"]
    wanted_type = request.get("BackupType", "USER")
    created = details["BackupCreationDateTime"]
    return (
        request.get("TableName") in (None, document["SourceTableDetails"]["TableName"])
        and wanted_type in ("ALL", details["BackupType"])
        and created >= request.get("TimeRangeLowerBound", float("-inf"))
        and created < request.get("TimeRangeUpperBound", float("inf"))  # the upper bound is exclusive
    )


def list_backups(engine: Engine, request: dict) -> dict:
    with engine.store.read() as conn:
        now = engine.clock()
        summaries = [
            _summary(d) for d in snapshots.backups(conn) if _listed(d, request) and not _expired(d, now)
        ]
    start = request.get("ExclusiveStartBackupArn")
    if start is not None:
        arns = [s["BackupArn"] for s in summaries]
        if start not in arns:
            raise ValidationException(f"Invalid ExclusiveStartBackupArn: {start}")
        summaries = summaries[arns.index(start) + 1 :]
    limit = request.get("Limit", 100)
    response: dict[str, Any] = {"BackupSummaries": summaries[:limit]}
    if len(summaries) > limit:
        response["LastEvaluatedBackupArn"] = summaries[limit - 1]["BackupArn"]
    return response


def restore_table_from_backup(engine: Engine, request: dict) -> dict:
    arn = request["BackupArn"]
    with engine.store.read() as conn:
        document = _require_backup(engine, conn, arn)
    return restore_into(
        engine,
        document["Definition"],
        request,
        lambda conn, meta: snapshots.restore_backup_rows(conn, arn, meta),
        {
            "SourceBackupArn": arn,
            "SourceTableArn": document["SourceTableDetails"]["TableArn"],
            "RestoreDateTime": engine.clock(),
        },
    )


def delete_table(engine: Engine, request: dict) -> dict:
    """DeleteTable, after a SYSTEM backup of a table with point-in-time recovery on: DynamoDB keeps
    one for 35 days, to restore a table deleted by mistake (with RestoreTableFromBackup)."""
    name = tables.table_name(engine, request.get("TableName"))
    with engine.store.write() as conn:
        meta = engine.store.table(name) if isinstance(name, str) else None
        keep = (
            meta is not None
            and meta.extra.get("PointInTimeRecovery", {}).get("Enabled")
            and not meta.description.get("DeletionProtectionEnabled")
        )
        system = _back_up(engine, conn, meta, f"{meta.name}$DeletedTableBackup", "SYSTEM") if keep else None
    try:
        return tables.delete_table(engine, request)
    except BaseException:
        if system is not None:  # the table stays: so does nothing of its deletion
            with engine.store.write() as conn:
                snapshots.delete_backup(conn, system["BackupArn"])
        raise


OPERATIONS = {
    "DeleteTable": delete_table,
    "CreateBackup": create_backup,
    "DescribeBackup": describe_backup,
    "ListBackups": list_backups,
    "DeleteBackup": delete_backup,
    "RestoreTableFromBackup": restore_table_from_backup,
}
