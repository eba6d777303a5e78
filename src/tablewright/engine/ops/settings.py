"""Table settings outside the key schema: Time to Live, tags, and the account-level describe calls."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from ..errors import ValidationException
from ..tags import check_tags
from .tables import require_table, table_name_from_arn

if TYPE_CHECKING:
    from ..engine import Engine


def update_time_to_live(engine: Engine, request: dict) -> dict:
    spec = request["TimeToLiveSpecification"]
    with engine.store.write() as conn:
        meta = require_table(engine, request["TableName"])
        document = copy.deepcopy(meta.extra)
        current = document.get("TimeToLive", {})
        enabled = current.get("TimeToLiveStatus") == "ENABLED"
        if enabled and current.get("AttributeName") != spec["AttributeName"]:
            # Enabling or disabling, naming another attribute: DynamoDB names the one TTL is on.
            raise ValidationException(
                "TimeToLive is active on a different AttributeName: current AttributeName is "
                f"{current.get('AttributeName')}"
            )
        if spec["Enabled"] and enabled:
            raise ValidationException("TimeToLive is already enabled")
        if not spec["Enabled"] and not enabled:
            raise ValidationException("TimeToLive is already disabled")
        document["TimeToLive"] = {
            "TimeToLiveStatus": "ENABLED" if spec["Enabled"] else "DISABLED",
            "AttributeName": spec["AttributeName"],
        }
        engine.store.save_table(conn, meta.id, document)
    return {"TimeToLiveSpecification": spec}


def describe_time_to_live(engine: Engine, request: dict) -> dict:
    with engine.store.read():
        meta = require_table(engine, request["TableName"])
    ttl = meta.extra.get("TimeToLive", {"TimeToLiveStatus": "DISABLED"})
    if ttl.get("TimeToLiveStatus") != "ENABLED":
        return {"TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}}
    return {"TimeToLiveDescription": ttl}


def _retag(engine: Engine, arn: str, change) -> dict[str, str]:
    name = table_name_from_arn(engine, arn)
    with engine.store.write() as conn:
        meta = require_table(engine, name)
        document = copy.deepcopy(meta.extra)
        tags = document.setdefault("Tags", {})
        change(tags)
        if len(tags) > 50:
            raise ValidationException("One or more parameter values were invalid: Too many tags (at most 50)")
        engine.store.save_table(conn, meta.id, document)
        return tags


def tag_resource(engine: Engine, request: dict) -> dict:
    if not request["Tags"]:
        raise ValidationException("Atleast one Tag needs to be provided as Input.")
    added = check_tags(request["Tags"])
    _retag(engine, request["ResourceArn"], lambda tags: tags.update(added))
    return {}


def untag_resource(engine: Engine, request: dict) -> dict:
    def remove(tags: dict) -> None:
        for key in request["TagKeys"]:
            tags.pop(key, None)

    _retag(engine, request["ResourceArn"], remove)
    return {}


def list_tags_of_resource(engine: Engine, request: dict) -> dict:
    name = table_name_from_arn(engine, request["ResourceArn"])
    with engine.store.read():
        meta = require_table(engine, name)
    return {"Tags": [{"Key": k, "Value": v} for k, v in sorted(meta.tags.items())]}


def describe_endpoints(engine: Engine, request: dict) -> dict:
    return {
        "Endpoints": [{"Address": f"dynamodb.{engine.region}.amazonaws.com", "CachePeriodInMinutes": 1440}]
    }


def describe_limits(engine: Engine, request: dict) -> dict:
    return {
        "AccountMaxReadCapacityUnits": 80000,
        "AccountMaxWriteCapacityUnits": 80000,
        "TableMaxReadCapacityUnits": 40000,
        "TableMaxWriteCapacityUnits": 40000,
    }


OPERATIONS = {
    "UpdateTimeToLive": update_time_to_live,
    "DescribeTimeToLive": describe_time_to_live,
    "TagResource": tag_resource,
    "UntagResource": untag_resource,
    "ListTagsOfResource": list_tags_of_resource,
    "DescribeEndpoints": describe_endpoints,
    "DescribeLimits": describe_limits,
}
