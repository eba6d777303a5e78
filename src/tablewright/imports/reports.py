"""Resources next to a table that the design cannot hold, described for ``Imported.notes``.

``CLOUDFORMATION`` maps a resource type to a function describing one resource of that type (or
None when the resource has nothing to do with DynamoDB), so nothing is dropped in silence.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .intrinsics import describe


def _brief(value: Any) -> str:
    return describe(value) if isinstance(value, dict) else json.dumps(value, default=str)


def _scalable_target(rid: str, props: dict[str, Any]) -> str | None:
    if props.get("ServiceNamespace") != "dynamodb":
        return None
    return (
        f"auto-scaling target {rid}: {props.get('ScalableDimension')} of {_brief(props.get('ResourceId'))}"
        f", {props.get('MinCapacity')}..{props.get('MaxCapacity')} units"
    )


def _scaling_policy(rid: str, props: dict[str, Any]) -> str | None:
    config = props.get("TargetTrackingScalingPolicyConfiguration") or {}
    metric = (config.get("PredefinedMetricSpecification") or {}).get("PredefinedMetricType", "")
    if not str(metric).startswith("DynamoDB") and props.get("ServiceNamespace") != "dynamodb":
        return None
    return (
        f"auto-scaling policy {rid}: {metric or props.get('PolicyType')} target {config.get('TargetValue')}"
    )


CLOUDFORMATION: dict[str, Callable[[str, dict[str, Any]], str | None]] = {
    "AWS::ApplicationAutoScaling::ScalableTarget": _scalable_target,
    "AWS::ApplicationAutoScaling::ScalingPolicy": _scaling_policy,
}


def related_resource_notes(resources: dict[str, Any]) -> list[str]:
    """One line per resource around the tables that the design does not carry."""
    notes = []
    for rid, resource in resources.items():
        if isinstance(resource, dict) and resource.get("Type") in CLOUDFORMATION:
            note = CLOUDFORMATION[resource["Type"]](rid, resource.get("Properties") or {})
            if note:
                notes.append(note)
    return notes
