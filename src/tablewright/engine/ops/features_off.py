"""The features a single-region engine has switched off, answered as DynamoDB answers for such a table.

Global tables, Kinesis streaming destinations, contributor insights, replica auto scaling, resource
policies and bulk operations: code and infrastructure tests call them, so each gets DynamoDB's answer
for a table that never used the feature (an empty list, ``DISABLED``, a not-found error) instead of
UnknownOperationException. Settings that a caller can switch (contributor insights, Kinesis
destinations, resource policies) are stored in the table's catalog document, so what is set is
described back. Decisions are written in docs/backups.md ("The rest of the service model").
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import (
    DynamoDBError,
    GlobalTableNotFoundException,
    PolicyNotFoundException,
    ResourceInUseException,
    ResourceNotFoundException,
    TableNotFoundException,
    ValidationException,
)
from .tables import check_policy, require_table, table_name_from_arn

if TYPE_CHECKING:
    from ..catalog import TableMeta
    from ..engine import Engine

Handler = Callable[["Engine", dict], dict]
_KINESIS_ARN = re.compile(r"^arn:aws[a-z-]*:kinesis:[a-z0-9-]+:\d{12}:stream/[A-Za-z0-9_.-]{1,128}$")


def table_of(engine: Engine, name_or_arn: str) -> TableMeta:
    """The table a ``TableName`` member names; newer operations accept the table's ARN there too."""
    if isinstance(name_or_arn, str) and name_or_arn.startswith("arn:"):
        name_or_arn = table_name_from_arn(engine, name_or_arn)
    return require_table(engine, name_or_arn)


def change_table(engine: Engine, name_or_arn: str, change: Callable[[TableMeta, dict], Any]) -> Any:
    """Run ``change(meta, document)`` on a copy of the table's catalog document and store it atomically."""
    with engine.store.write() as conn:
        meta = table_of(engine, name_or_arn)
        document = copy.deepcopy(meta.extra)
        result = change(meta, document)
        engine.store.save_table(conn, meta.id, document)
        return result


def read_table(engine: Engine, name_or_arn: str) -> TableMeta:
    with engine.store.read():
        return table_of(engine, name_or_arn)


# --------------------------------------------------------------------------------- constant answers

# Operation -> its answer when the account has none of the feature's resources.
EMPTY_ANSWERS: dict[str, dict[str, Any]] = {
    "ListGlobalTables": {"GlobalTables": []},
    "ListBulkOperations": {"BulkOperationsSummaryList": []},
}

# Operation -> (request member naming the resource, error, message template). No such resource can
# exist in a single-region engine (global tables of version 2017.11.29, bulk operations), so every
# well-formed request is answered with DynamoDB's not-found error for it.
NOT_FOUND_ANSWERS: dict[str, tuple[str, type[DynamoDBError], str]] = {
    "DescribeGlobalTable": (
        "GlobalTableName",
        GlobalTableNotFoundException,
        "Global table not found: Global table with name: '{}' does not exist.",
    ),
    "DescribeGlobalTableSettings": (
        "GlobalTableName",
        GlobalTableNotFoundException,
        "Global table not found: Global table with name: '{}' does not exist.",
    ),
    "UpdateGlobalTable": (
        "GlobalTableName",
        GlobalTableNotFoundException,
        "Global table not found: Global table with name: '{}' does not exist.",
    ),
    "UpdateGlobalTableSettings": (
        "GlobalTableName",
        GlobalTableNotFoundException,
        "Global table not found: Global table with name: '{}' does not exist.",
    ),
    "DescribeBulkOperation": (
        "BulkOperationArn",
        ResourceNotFoundException,
        "Requested resource not found: Bulk operation: {} not found",
    ),
    "CancelBulkOperation": (
        "BulkOperationArn",
        ResourceNotFoundException,
        "Requested resource not found: Bulk operation: {} not found",
    ),
}


def _empty(answer: dict[str, Any]) -> Handler:
    return lambda engine, request: copy.deepcopy(answer)


def _not_found(member: str, error: type[DynamoDBError], message: str) -> Handler:
    def answer(engine: Engine, request: dict) -> dict:
        raise error(message.format(request.get(member)))

    return answer


# ------------------------------------------------------------------------------------- global tables


def create_global_table(engine: Engine, request: dict) -> dict:
    """Global tables version 2017.11.29 need the table in every replica's region; this engine is one
    region, so a replica elsewhere is a table that does not exist, and a group of this region alone is
    refused as DynamoDB refuses a group without a second region."""
    name = request["GlobalTableName"]
    for replica in request["ReplicationGroup"]:
        if replica.get("RegionName") != engine.region:
            raise TableNotFoundException(f"Table not found: {name} in region {replica.get('RegionName')}")
    read_table(engine, name)
    raise ValidationException(
        f"Global table {name} must have replicas in at least two regions; this engine serves only "
        f"{engine.region} (use UpdateTable ReplicaUpdates against DynamoDB for version 2019.11.21)"
    )


def _auto_scaling(engine: Engine, request: dict) -> dict:
    meta = read_table(engine, request["TableName"])
    return {
        "TableAutoScalingDescription": {
            "TableName": meta.name,
            "TableStatus": "ACTIVE",
            "Replicas": [],
        }
    }


# ----------------------------------------------------------------------------- Kinesis destinations


def describe_kinesis_streaming_destination(engine: Engine, request: dict) -> dict:
    meta = read_table(engine, request["TableName"])
    return {
        "TableName": meta.name,
        "KinesisDataStreamDestinations": copy.deepcopy(meta.extra.get("KinesisDestinations", [])),
    }


def _kinesis_change(status: str, configuration: str) -> Handler:
    """Enable, update or disable a destination: checked and recorded (no data leaves the engine)."""

    def handle(engine: Engine, request: dict) -> dict:
        arn = request["StreamArn"]
        if not _KINESIS_ARN.match(arn):
            raise ValidationException(f"Invalid StreamArn: {arn} is not a Kinesis data stream ARN")

        def change(meta: TableMeta, document: dict) -> str:
            destinations = document.setdefault("KinesisDestinations", [])
            found = next((d for d in destinations if d["StreamArn"] == arn), None)
            active = found is not None and found["DestinationStatus"] == "ACTIVE"
            if status == "ENABLING" and active:
                raise ResourceInUseException(
                    f"Table {meta.name} is already streaming to Kinesis data stream {arn}"
                )
            if status != "ENABLING" and not active:
                raise ValidationException(f"Table {meta.name} is not streaming to Kinesis data stream {arn}")
            if found is None:
                found = {"StreamArn": arn}
                destinations.append(found)
            found["DestinationStatus"] = "DISABLED" if status == "DISABLING" else "ACTIVE"
            precision = (request.get(configuration) or {}).get("ApproximateCreationDateTimePrecision")
            if status != "DISABLING":
                found["ApproximateCreationDateTimePrecision"] = precision or found.get(
                    "ApproximateCreationDateTimePrecision", "MILLISECOND"
                )
            return meta.name

        name = change_table(engine, request["TableName"], change)
        response = {"TableName": name, "StreamArn": arn, "DestinationStatus": status}
        if configuration in request:
            response[configuration] = request[configuration]
        return response

    return handle


# ------------------------------------------------------------------------------ contributor insights


def _insights(name: str, document: dict, index: str | None) -> dict[str, Any]:
    stored = document.get("ContributorInsights", {}).get(index or "", {})
    answer: dict[str, Any] = {"TableName": name}
    if index:
        answer["IndexName"] = index
    answer["ContributorInsightsStatus"] = stored.get("Status", "DISABLED")
    if "Mode" in stored:
        answer["ContributorInsightsMode"] = stored["Mode"]
    return answer


def _check_index(meta: TableMeta, index: str | None) -> None:
    if index is not None and index not in meta.indexes:
        raise ResourceNotFoundException(
            f"Requested resource not found: Index: {index} not found for table {meta.name}"
        )


def describe_contributor_insights(engine: Engine, request: dict) -> dict:
    meta = read_table(engine, request["TableName"])
    _check_index(meta, request.get("IndexName"))
    answer = _insights(meta.name, meta.extra, request.get("IndexName"))
    answer["ContributorInsightsRuleList"] = []
    updated = meta.extra.get("ContributorInsights", {}).get(request.get("IndexName") or "", {})
    if "Updated" in updated:
        answer["LastUpdateDateTime"] = updated["Updated"]
    return answer


def update_contributor_insights(engine: Engine, request: dict) -> dict:
    index = request.get("IndexName")

    def change(meta: TableMeta, document: dict) -> dict:
        _check_index(meta, index)
        entry: dict[str, Any] = {
            "Status": "ENABLED" if request["ContributorInsightsAction"] == "ENABLE" else "DISABLED",
            "Updated": engine.clock(),
        }
        if "ContributorInsightsMode" in request:
            entry["Mode"] = request["ContributorInsightsMode"]
        document.setdefault("ContributorInsights", {})[index or ""] = entry
        return _insights(meta.name, document, index)

    return change_table(engine, request["TableName"], change)


def list_contributor_insights(engine: Engine, request: dict) -> dict:
    """A table's summary and its GSIs' (all of them, DISABLED included); without TableName, every
    table or index whose contributor insights are enabled."""
    with engine.store.read():
        if "TableName" in request:
            metas = [table_of(engine, request["TableName"])]
        else:
            metas = [m for m in (engine.store.table(n) for n in engine.store.tables()) if m is not None]
    summaries = []
    for meta in metas:
        for index in [None, *(i.name for i in meta.indexes.values() if i.kind == "GSI")]:
            summary = _insights(meta.name, meta.extra, index)
            if "TableName" in request or summary["ContributorInsightsStatus"] == "ENABLED":
                summaries.append(summary)
    limit = request.get("MaxResults", 100)
    return {"ContributorInsightsSummaries": summaries[:limit]}


# ---------------------------------------------------------------------------------- resource policies


def _policy_table(engine: Engine, arn: str) -> str:
    """The table a table or stream ARN belongs to (DynamoDB attaches policies to both)."""
    name = table_name_from_arn(engine, arn)
    rest = arn[len(engine.arn(name)) :]
    if rest and not rest.startswith("/stream/"):
        raise ValidationException(f"Invalid ResourceArn provided as input {arn}")
    return name


def _no_policy(arn: str) -> PolicyNotFoundException:
    return PolicyNotFoundException(f"Resource-based policy not found for the provided ResourceArn: {arn}")


def put_resource_policy(engine: Engine, request: dict) -> dict:
    arn, text = request["ResourceArn"], request["Policy"]
    check_policy(text)

    def change(meta: TableMeta, document: dict) -> str:
        policies = document.setdefault("ResourcePolicies", {})
        current = policies.get(arn)
        expected = request.get("ExpectedRevisionId")
        if expected is not None and (current is None or current["RevisionId"] != expected):
            raise PolicyNotFoundException(
                f"A policy with the provided revision ID {expected} was not found for ResourceArn: {arn}"
            )
        revision = str(int(engine.clock() * 1000))
        if current is not None and revision <= current["RevisionId"]:
            revision = str(int(current["RevisionId"]) + 1)
        policies[arn] = {"Policy": text, "RevisionId": revision}
        return revision

    return {"RevisionId": change_table(engine, _policy_table(engine, arn), change)}


def get_resource_policy(engine: Engine, request: dict) -> dict:
    arn = request["ResourceArn"]
    meta = read_table(engine, _policy_table(engine, arn))
    found = meta.extra.get("ResourcePolicies", {}).get(arn)
    if found is None:
        raise _no_policy(arn)
    return dict(found)


def delete_resource_policy(engine: Engine, request: dict) -> dict:
    arn = request["ResourceArn"]

    def change(meta: TableMeta, document: dict) -> str:
        current = document.get("ResourcePolicies", {}).get(arn)
        if current is None:
            raise _no_policy(arn)
        expected = request.get("ExpectedRevisionId")
        if expected is not None and current["RevisionId"] != expected:
            raise PolicyNotFoundException(
                f"A policy with the provided revision ID {expected} was not found for ResourceArn: {arn}"
            )
        del document["ResourcePolicies"][arn]
        return current["RevisionId"]

    return {"RevisionId": change_table(engine, _policy_table(engine, arn), change)}


# -------------------------------------------------------------------------------- bulk and vectors


def start_bulk_put_items(engine: Engine, request: dict) -> dict:
    meta = read_table(engine, request["TableName"])
    raise ValidationException(
        f"Bulk operations read from Amazon S3, which this engine does not reach; load {meta.name} with "
        "ImportTable (a local folder) or BatchWriteItem"
    )


def search_vectors(engine: Engine, request: dict) -> dict:
    meta = read_table(engine, request["TableName"])
    index = request["IndexName"]
    _check_index(meta, index)
    raise ValidationException(f"Index {index} of table {meta.name} is not a vector index")


OPERATIONS: dict[str, Handler] = {
    **{name: _empty(answer) for name, answer in EMPTY_ANSWERS.items()},
    **{name: _not_found(*spec) for name, spec in NOT_FOUND_ANSWERS.items()},
    "CreateGlobalTable": create_global_table,
    "DescribeTableReplicaAutoScaling": _auto_scaling,
    "UpdateTableReplicaAutoScaling": _auto_scaling,
    "DescribeKinesisStreamingDestination": describe_kinesis_streaming_destination,
    "EnableKinesisStreamingDestination": _kinesis_change("ENABLING", "EnableKinesisStreamingConfiguration"),
    "UpdateKinesisStreamingDestination": _kinesis_change("UPDATING", "UpdateKinesisStreamingConfiguration"),
    "DisableKinesisStreamingDestination": _kinesis_change("DISABLING", "EnableKinesisStreamingConfiguration"),
    "DescribeContributorInsights": describe_contributor_insights,
    "UpdateContributorInsights": update_contributor_insights,
    "ListContributorInsights": list_contributor_insights,
    "PutResourcePolicy": put_resource_policy,
    "GetResourcePolicy": get_resource_policy,
    "DeleteResourcePolicy": delete_resource_policy,
    "StartBulkPutItems": start_bulk_put_items,
    "SearchVectors": search_vectors,
}
