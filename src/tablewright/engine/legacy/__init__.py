"""DynamoDB's legacy (pre-expression) request parameters, translated into expression parameters.

``translate(operation, request)`` returns a new request in which ``Expected``, ``AttributeUpdates``,
``AttributesToGet``, ``KeyConditions``, ``QueryFilter``, ``ScanFilter`` and ``ConditionalOperator``
are replaced by the ConditionExpression, UpdateExpression, ProjectionExpression,
KeyConditionExpression and FilterExpression that mean the same, with generated ``#legacyN`` /
``:legacyN`` placeholders. The rest of the engine never sees a legacy parameter. What each operation
accepts is data (:data:`PLANS`); ``Engine.handle`` calls :func:`translate` only when a request holds
a legacy field (or is a BatchGetItem, whose AttributesToGet sits under RequestItems).

Decisions and their sources are listed in docs/legacy-parameters.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import conditions, rules, updates
from .placeholders import Placeholders

LEGACY_FIELDS = frozenset(
    {
        "Expected",
        "AttributeUpdates",
        "AttributesToGet",
        "ConditionalOperator",
        "KeyConditions",
        "QueryFilter",
        "ScanFilter",
    }
)


@dataclass(frozen=True)
class Plan:
    """What one operation accepts: its legacy condition map and what that becomes, and message details."""

    conditions: str | None = None  # the map ConditionalOperator joins: Expected, QueryFilter or ScanFilter
    target: str | None = None  # the expression parameter that map becomes
    values_null: str = ""  # tail of DynamoDB's "ExpressionAttributeValues can only be specified" message
    select_prefix: str | None = None  # set for Query/Scan, whose AttributesToGet meets Select


_WRITE = Plan("Expected", "ConditionExpression", ": ConditionExpression is null")
PLANS: dict[str, Plan] = {
    "PutItem": _WRITE,
    "DeleteItem": _WRITE,
    "UpdateItem": Plan(
        "Expected", "ConditionExpression", ": UpdateExpression and ConditionExpression are null"
    ),
    "GetItem": Plan(),
    "Query": Plan("QueryFilter", "FilterExpression", "", "1 validation error detected: "),
    "Scan": Plan("ScanFilter", "FilterExpression", ": FilterExpression is null", ""),
}

# How a legacy condition map becomes expression text, by the map's field name.
_CONDITION_TRANSLATORS = {
    "Expected": conditions.expected,
    "QueryFilter": conditions.filters,
    "ScanFilter": conditions.filters,
}


def translate(operation: str, request: dict[str, Any]) -> dict[str, Any]:
    """``request`` with its legacy parameters replaced by expression parameters (a new dict).

    Returns ``request`` itself when it holds no legacy parameter; never mutates it. Raises
    :class:`~tablewright.engine.errors.ValidationException` with DynamoDB's message for a malformed
    or contradictory legacy parameter.
    """
    if operation == "BatchGetItem":
        return _batch_get(request)
    plan = PLANS.get(operation)
    if plan is None or LEGACY_FIELDS.isdisjoint(request):
        return request
    return _translate(plan, request)


def _translate(plan: Plan, request: dict[str, Any]) -> dict[str, Any]:
    rules.check_mixing(request)
    rules.check_conditional_operator(request, plan.conditions)
    rules.check_placeholder_maps(request, plan.values_null)
    rules.check_names(request)
    placeholders = Placeholders(
        request.get("ExpressionAttributeNames"), request.get("ExpressionAttributeValues")
    )
    out = {field: value for field, value in request.items() if field not in LEGACY_FIELDS}
    if request.get("AttributesToGet") is not None:
        if plan.select_prefix is not None:
            rules.check_select(request, plan.select_prefix)
        attributes = list(request["AttributesToGet"])
        rules.check_unique(attributes)
        out["ProjectionExpression"] = ", ".join(placeholders.name(a) for a in attributes)
    if request.get("KeyConditions") is not None:
        out["KeyConditionExpression"] = conditions.key_conditions(request["KeyConditions"], placeholders)
    if plan.conditions and request.get(plan.conditions) is not None:
        translator = _CONDITION_TRANSLATORS[plan.conditions]
        text = translator(request[plan.conditions], request.get("ConditionalOperator"), placeholders)
        if text is not None:
            out[plan.target] = text  # type: ignore[index]
    if request.get("AttributeUpdates") is not None:
        text = updates.attribute_updates(request["AttributeUpdates"], placeholders)
        if text is not None:
            out["UpdateExpression"] = text
    placeholders.store(out)
    return out


def _batch_get(request: dict[str, Any]) -> dict[str, Any]:
    """BatchGetItem: each table's KeysAndAttributes may carry AttributesToGet, translated as GetItem's."""
    tables = request.get("RequestItems")
    if not isinstance(tables, dict) or not any(
        isinstance(spec, dict) and "AttributesToGet" in spec for spec in tables.values()
    ):
        return request
    plan = PLANS["GetItem"]
    translated = {
        name: _translate(plan, spec) if isinstance(spec, dict) and "AttributesToGet" in spec else spec
        for name, spec in tables.items()
    }
    return {**request, "RequestItems": translated}


__all__ = ["LEGACY_FIELDS", "PLANS", "Plan", "translate"]
