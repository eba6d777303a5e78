"""Control-plane helpers over any client: create (idempotently), wait for ACTIVE, describe, delete."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from .context import MigrationError

# DescribeTable fields that CreateTable takes back as they are (indexes are trimmed separately).
_INDEX_FIELDS = ("IndexName", "KeySchema", "Projection")


def error_code(error: ClientError) -> str:
    return error.response.get("Error", {}).get("Code", "")


def exists(client: Any, table: str) -> bool:
    """True when the table exists."""
    try:
        client.describe_table(TableName=table)
        return True
    except ClientError as error:
        if error_code(error) == "ResourceNotFoundException":
            return False
        raise


def wait_active(client: Any, table: str, timeout: float = 600.0) -> dict[str, Any]:
    """DescribeTable once the table and its GSIs are ACTIVE (immediate on the embedded engine)."""
    deadline = time.monotonic() + timeout
    while True:
        description = client.describe_table(TableName=table)["Table"]
        busy = description["TableStatus"] != "ACTIVE" or any(
            g.get("IndexStatus", "ACTIVE") != "ACTIVE" for g in description.get("GlobalSecondaryIndexes", [])
        )
        if not busy:
            return description
        if time.monotonic() > deadline:
            raise TimeoutError(f"table {table!r} not ACTIVE after {timeout:.0f} s")
        time.sleep(2.0)


def like(client: Any, source: str, name: str) -> dict[str, Any]:
    """A CreateTable request for ``name`` with the keys, indexes, billing and stream of ``source``."""
    d = client.describe_table(TableName=source)["Table"]
    spec: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": d["AttributeDefinitions"],
        "KeySchema": d["KeySchema"],
        "BillingMode": d.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED"),
    }
    if spec["BillingMode"] == "PROVISIONED":
        spec["ProvisionedThroughput"] = _units(d["ProvisionedThroughput"])
    for field in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if d.get(field):
            spec[field] = [_index(i, spec["BillingMode"], field) for i in d[field]]
    if d.get("StreamSpecification", {}).get("StreamEnabled"):
        spec["StreamSpecification"] = d["StreamSpecification"]
    return spec


def _units(throughput: dict[str, Any]) -> dict[str, int]:
    return {
        "ReadCapacityUnits": throughput["ReadCapacityUnits"],
        "WriteCapacityUnits": throughput["WriteCapacityUnits"],
    }


def _index(index: dict[str, Any], billing: str, field: str) -> dict[str, Any]:
    trimmed = {k: index[k] for k in _INDEX_FIELDS}
    if billing == "PROVISIONED" and field == "GlobalSecondaryIndexes":
        trimmed["ProvisionedThroughput"] = _units(index["ProvisionedThroughput"])
    return trimmed


def create(client: Any, spec: dict[str, Any], calls: dict[str, dict[str, Any]]) -> str:
    """Create a table and send its extra calls (UpdateTimeToLive, UpdateContinuousBackups); ``exists``
    if it already did (a resumed run: the calls are then sent again where they have not taken effect).

    A call that fails raises :class:`~tablewright.migrate.context.MigrationError`: a table without the
    point-in-time recovery or TTL its plan asked for is a failed step, never a silent success.
    """
    result = "created"
    try:
        client.create_table(**spec)
    except ClientError as error:
        if error_code(error) != "ResourceInUseException":
            raise
        result = "exists"
    description = wait_active(client, spec["TableName"])
    if result == "exists":
        _check_shape(spec, description)
    for operation, request in calls.items():
        sender, done = _CALLS[operation]
        if result == "exists" and done(client, request):
            continue
        try:
            sender(client, request)
        except ClientError as error:
            raise MigrationError(
                f"table {spec['TableName']} was {result if result == 'created' else 'there'} but {operation} "
                f"failed: {error_code(error)}: {error.response.get('Error', {}).get('Message', '')} "
                "(run the migration again to retry it)"
            ) from error
    return result


Shape = dict[str, tuple[tuple[str, str, str], ...]]


def _shape(table: dict[str, Any]) -> Shape:
    """The keys of a table and of each index, as (attribute, HASH/RANGE, S/N/B), from a CreateTable
    request or a DescribeTable answer (the projection is left out: DescribeTable may add to it)."""
    types = {d["AttributeName"]: d["AttributeType"] for d in table.get("AttributeDefinitions") or []}

    def keys(schema: list[dict[str, Any]]) -> tuple[tuple[str, str, str], ...]:
        return tuple((k["AttributeName"], k["KeyType"], types.get(k["AttributeName"], "?")) for k in schema)

    shape = {"the table": keys(table.get("KeySchema") or [])}
    for field in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        shape |= {f"index {i['IndexName']}": keys(i.get("KeySchema") or []) for i in table.get(field) or []}
    return shape


def _shown(keys: tuple[tuple[str, str, str], ...] | None) -> str:
    return ", ".join(f"{name} {kind} {type_}" for name, kind, type_ in keys) if keys else "absent"


def _check_shape(spec: dict[str, Any], description: dict[str, Any]) -> None:
    """:class:`MigrationError` when a table that already exists has other keys or lacks an index of
    ``spec``: left alone, it would take the copy and report the plan done without what it asked for."""
    wanted, found = _shape(spec), _shape(description)
    differences = [
        f"{owner}: wanted {_shown(keys)}, found {_shown(found.get(owner))}"
        for owner, keys in wanted.items()
        if found.get(owner) != keys
    ]
    if differences:
        raise MigrationError(
            f"table {spec['TableName']} already exists with another shape than its CreateTable asks for"
            f" ({'; '.join(differences)}): delete it or change the plan"
        )


def _ttl_done(client: Any, request: dict[str, Any]) -> bool:
    found = client.describe_time_to_live(TableName=request["TableName"])["TimeToLiveDescription"]
    wanted = request["TimeToLiveSpecification"]
    enabled = found.get("TimeToLiveStatus") in ("ENABLED", "ENABLING")
    return enabled == wanted["Enabled"] and (
        not enabled or found.get("AttributeName") == wanted["AttributeName"]
    )


# Extra CreateTable calls: operation -> (send it, has it already taken effect on an existing table).
# UpdateContinuousBackups is idempotent, so it is always sent again.
_CALLS: dict[str, tuple[Callable[[Any, dict], Any], Callable[[Any, dict], bool]]] = {
    "UpdateTimeToLive": (lambda client, request: client.update_time_to_live(**request), _ttl_done),
    "UpdateContinuousBackups": (
        lambda client, request: client.update_continuous_backups(**request),
        lambda client, request: False,
    ),
}


def item_count(client: Any, table: str) -> int | None:
    """DescribeTable's ItemCount (approximate on AWS: refreshed about every six hours)."""
    try:
        return client.describe_table(TableName=table)["Table"].get("ItemCount")
    except ClientError:
        return None


def delete(client: Any, table: str) -> str:
    """Delete a table; ``absent`` when it is already gone (a resumed run)."""
    try:
        client.delete_table(TableName=table)
    except ClientError as error:
        if error_code(error) == "ResourceNotFoundException":
            return "absent"
        raise
    return "deleted"
