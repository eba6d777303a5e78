"""Request-level rules for legacy parameters: what may be combined with what, in DynamoDB's words.

DynamoDB checks these before it looks at any single condition, in this order: legacy and expression
parameters mixed, ConditionalOperator without two or more conditions, placeholder maps without an
expression, and (Query, Scan) AttributesToGet with a Select other than SPECIFIC_ATTRIBUTES.
"""

from __future__ import annotations

from typing import Any

from ..errors import ValidationException
from ..types import invalid

# The order in which DynamoDB lists the parameters in its "Can not use both" message.
LEGACY_ORDER = (
    "AttributeUpdates",
    "AttributesToGet",
    "Expected",
    "QueryFilter",
    "ScanFilter",
    "ConditionalOperator",
)
EXPRESSION_ORDER = (
    "UpdateExpression",
    "ProjectionExpression",
    "ConditionExpression",
    "FilterExpression",
    "KeyConditionExpression",
)


def _present(request: dict[str, Any], fields: tuple[str, ...]) -> list[str]:
    return [field for field in fields if request.get(field) is not None]


def check_mixing(request: dict[str, Any]) -> None:
    """Legacy and expression parameters in one request. KeyConditions counts as legacy only next to a
    KeyConditionExpression: DynamoDB accepts it with a FilterExpression or ProjectionExpression."""
    expressions = _present(request, EXPRESSION_ORDER)
    if not expressions:
        return
    legacy = _present(request, LEGACY_ORDER)
    if "KeyConditionExpression" in expressions and request.get("KeyConditions") is not None:
        legacy.append("KeyConditions")
    if legacy:
        raise ValidationException(
            "Can not use both expression and non-expression parameters in the same request: "
            f"Non-expression parameters: {{{', '.join(legacy)}}} "
            f"Expression parameters: {{{', '.join(expressions)}}}"
        )


def check_conditional_operator(request: dict[str, Any], conditions_field: str | None) -> None:
    """ConditionalOperator joins the conditions of one map; it needs at least two of them."""
    if request.get("ConditionalOperator") is None:
        return
    count = len(request.get(conditions_field) or {}) if conditions_field else 0
    if count == 0:
        raise ValidationException("ConditionalOperator cannot be used without Filter or Expected")
    if count == 1:
        raise ValidationException(
            "ConditionalOperator can only be used when Filter or Expected has two or more elements"
        )


def check_placeholder_maps(request: dict[str, Any], values_null: str) -> None:
    """ExpressionAttributeNames/Values given to a request whose conditions are all legacy ones.

    ``values_null`` is DynamoDB's operation-specific tail of the values message
    (e.g. ``": ConditionExpression is null"``; empty for Query).
    """
    if _present(request, EXPRESSION_ORDER):
        return
    if request.get("ExpressionAttributeNames") is not None:
        raise ValidationException("ExpressionAttributeNames can only be specified when using expressions")
    if request.get("ExpressionAttributeValues") is not None:
        raise ValidationException(
            "ExpressionAttributeValues can only be specified when using expressions" + values_null
        )


def check_select(request: dict[str, Any], prefix: str) -> None:
    """AttributesToGet asks for SPECIFIC_ATTRIBUTES; any other Select contradicts it.

    DynamoDB words the Query message as a one-item validation report (``prefix``), the Scan one not.
    """
    select = request.get("Select")
    if select is None or select == "SPECIFIC_ATTRIBUTES":
        return
    wanted = "only the Count" if select == "COUNT" else select
    raise ValidationException(f"{prefix}Cannot specify the AttributesToGet when choosing to get {wanted}")


def check_unique(attributes: list[str]) -> None:
    """AttributesToGet names each attribute once."""
    seen: set[str] = set()
    for attribute in attributes:
        if attribute in seen:
            raise invalid(f"Duplicate value in attribute name: {attribute}")
        seen.add(attribute)


# The legacy parameters that name attributes: AttributesToGet lists them, the others are keyed by them.
NAMING_FIELDS = (
    "AttributesToGet",
    "AttributeUpdates",
    "Expected",
    "KeyConditions",
    "QueryFilter",
    "ScanFilter",
)


def check_names(request: dict[str, Any]) -> None:
    """Every attribute a legacy parameter names has a name. Checked before translation, which would
    otherwise report the empty name as one of its own generated ``#legacyN`` placeholders, a name the
    caller never wrote (the wording is ours: DynamoDB's own message for this case is not documented)."""
    for field in NAMING_FIELDS:
        names = request.get(field)
        if isinstance(names, (list, dict)) and "" in names:
            raise invalid(f"{field} contains an empty attribute name")
