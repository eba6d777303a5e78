"""Loading botocore's service models for DynamoDB and DynamoDB Streams, stripped to what validation needs.

The models are read once, on first use, and only the fields that drive validation are kept: the
``documentation`` strings make up most of the model's size and are never needed at runtime.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from botocore.loaders import Loader

# Only these keys of a shape (or of a member reference) affect validation.
_SHAPE_KEYS = frozenset(
    {"type", "members", "member", "key", "value", "required", "min", "max", "enum", "pattern"}
)
_MEMBER_KEYS = frozenset({"shape"})

SERVICES = ("dynamodb", "dynamodbstreams")


@dataclass(frozen=True, slots=True)
class ServiceModel:
    """One service's operations (name -> input shape name, or None) and its stripped shapes."""

    name: str
    inputs: dict[str, str | None]
    shapes: dict[str, dict[str, Any]]


def _strip_member(member: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in member.items() if k in _MEMBER_KEYS}


def _strip_shape(shape: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in shape.items():
        if key not in _SHAPE_KEYS:
            continue
        if key == "members":
            value = {name: _strip_member(m) for name, m in value.items()}
        elif key in ("member", "key", "value"):
            value = _strip_member(value)
        out[key] = value
    return out


def _load(service: str) -> ServiceModel:
    raw = Loader().load_service_model(service, "service-2")
    inputs = {name: op.get("input", {}).get("shape") for name, op in raw["operations"].items()}
    shapes = {name: _strip_shape(shape) for name, shape in raw["shapes"].items()}
    return ServiceModel(service, inputs, shapes)


_models: dict[str, ServiceModel] = {}
_lock = threading.Lock()


def service_model(service: str) -> ServiceModel:
    """The stripped model of ``service`` ("dynamodb" or "dynamodbstreams"), loaded once per process."""
    model = _models.get(service)
    if model is None:
        with _lock:
            model = _models.get(service)
            if model is None:
                model = _models[service] = _load(service)
    return model
