"""``AWS::DynamoDB::GlobalTable`` read as one table: the shared properties, plus the settings of its
first replica (PITR, tags, deletion protection, class...). The other replicas, and write
auto-scaling, are listed as not carried; provisioned capacity takes the auto-scaling minimums.
"""

from __future__ import annotations

from typing import Any

from .intrinsics import describe

RESOURCE_TYPE = "AWS::DynamoDB::GlobalTable"
_SHARED = (
    "TableName",
    "AttributeDefinitions",
    "KeySchema",
    "BillingMode",
    "LocalSecondaryIndexes",
    "StreamSpecification",
    "TimeToLiveSpecification",
    "SSESpecification",
)
_PER_REPLICA = (
    "PointInTimeRecoverySpecification",
    "Tags",
    "DeletionProtectionEnabled",
    "ContributorInsightsSpecification",
    "TableClass",
    "KinesisStreamSpecification",
    "ResourcePolicy",
)


def _units(settings: dict[str, Any], fixed: str, scaled: str) -> Any:
    """Fixed units, or the minimum of the auto-scaling settings."""
    return settings.get(fixed, (settings.get(scaled) or {}).get("MinCapacity"))


def _region(replica: Any) -> str:
    region = replica.get("Region") if isinstance(replica, dict) else None
    return region if isinstance(region, str) else describe(region)


# What the reading below takes from the resource, a replica and an index; any other field is listed.
_READ = {*_SHARED, "Replicas", "GlobalSecondaryIndexes", "WriteProvisionedThroughputSettings"}
_READ_REPLICA = {
    *_PER_REPLICA,
    "Region",
    "SSESpecification",
    "ReadProvisionedThroughputSettings",
    "GlobalSecondaryIndexes",
}
_READ_INDEX = {"IndexName", "KeySchema", "Projection", "WriteProvisionedThroughputSettings"}
_READ_REPLICA_INDEX = {"IndexName", "ReadProvisionedThroughputSettings"}


def _unread(fields: Any, read: set[str], where: str) -> list[str]:
    """One note per field of a mapping (or of each mapping of a list) the reading does not take."""
    items = fields if isinstance(fields, list) else [fields]
    notes = []
    for item in (i for i in items if isinstance(i, dict)):
        name = f"{where}[{item['IndexName']}]" if "IndexName" in item else where
        notes += [f"{name}.{key} is not carried" for key in item if key not in read]
    return notes


def _unread_notes(rid: str, props: dict[str, Any], first: dict[str, Any]) -> list[str]:
    """The fields of the resource, its first replica and their indexes that no design key holds
    (a global table's on-demand maximums, warm throughput, a replica's index settings...)."""
    region = f"replica in {_region(first)}"
    notes = [f"{key} is not carried" for key in props if key not in _READ]
    notes += _unread(props.get("GlobalSecondaryIndexes"), _READ_INDEX, "GlobalSecondaryIndexes")
    replica_notes = [note.removeprefix("replica.") for note in _unread(first, _READ_REPLICA, "replica")]
    replica_notes += _unread(
        first.get("GlobalSecondaryIndexes"), _READ_REPLICA_INDEX, "GlobalSecondaryIndexes"
    )
    notes += [f"{region}: {note}" for note in replica_notes]
    return [f"table {rid}: {note}" for note in notes]


def _sse(props: dict[str, Any], replica: dict[str, Any]) -> dict[str, Any] | None:
    """The shared SSESpecification with the replica's KMS key: a global table names its customer
    managed key per replica (a key is regional), not in the shared specification."""
    shared = props.get("SSESpecification")
    key = (replica.get("SSESpecification") or {}).get("KMSMasterKeyId")
    if not isinstance(shared, dict) or key is None:
        return shared
    return {**shared, "KMSMasterKeyId": key}


def table_properties(rid: str, props: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """``AWS::DynamoDB::Table`` properties for a global table (what it drops goes to ``notes``)."""
    out = {key: props[key] for key in _SHARED if key in props}
    replicas = [r for r in props.get("Replicas") or [] if isinstance(r, dict)]
    first = replicas[0] if replicas else {}
    out.update({key: first[key] for key in _PER_REPLICA if key in first})
    sse = _sse(props, first)
    if sse is not None:
        out["SSESpecification"] = sse
    notes += _unread_notes(rid, props, first)
    regions = [_region(r) for r in replicas]
    notes.append(
        f"table {rid}: a global table (AWS::DynamoDB::GlobalTable) read as one table with the settings of"
        f" its replica in {regions[0] if regions else '?'}; replicas in {', '.join(regions[1:]) or 'no other region'}"
        " are not carried"
    )
    write = props.get("WriteProvisionedThroughputSettings") or {}
    provisioned = props.get("BillingMode") == "PROVISIONED"
    if provisioned:
        read = first.get("ReadProvisionedThroughputSettings") or {}
        out["ProvisionedThroughput"] = {
            "ReadCapacityUnits": _units(read, "ReadCapacityUnits", "ReadCapacityAutoScalingSettings"),
            "WriteCapacityUnits": (write.get("WriteCapacityAutoScalingSettings") or {}).get("MinCapacity"),
        }
        notes.append(f"table {rid}: write auto-scaling of the global table is not carried (its minimum is)")
    replica_indexes = {
        i.get("IndexName"): i for i in first.get("GlobalSecondaryIndexes") or [] if isinstance(i, dict)
    }
    indexes = []
    for index in props.get("GlobalSecondaryIndexes") or []:
        shared = {k: v for k, v in index.items() if k in ("IndexName", "KeySchema", "Projection")}
        if provisioned:
            index_write = (index.get("WriteProvisionedThroughputSettings") or {}).get(
                "WriteCapacityAutoScalingSettings"
            ) or {}
            index_read = (replica_indexes.get(index.get("IndexName")) or {}).get(
                "ReadProvisionedThroughputSettings"
            ) or {}
            shared["ProvisionedThroughput"] = {
                "ReadCapacityUnits": _units(
                    index_read, "ReadCapacityUnits", "ReadCapacityAutoScalingSettings"
                ),
                "WriteCapacityUnits": index_write.get("MinCapacity"),
            }
        indexes.append(shared)
    if indexes:
        out["GlobalSecondaryIndexes"] = indexes
    return out
