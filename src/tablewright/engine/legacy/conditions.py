"""Legacy conditions (Expected, QueryFilter, ScanFilter, KeyConditions) rewritten as condition text.

:data:`OPERATORS` has one row per ComparisonOperator: how many operands it takes, which operand types
it accepts, and the expression it becomes. Every check and every rendering reads that table; there is
no per-operator code. The operand rules are DynamoDB's (Developer Guide, "Condition" and
"ExpectedAttributeValue"); its messages are those DynamoDB returns for the legacy parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import ValidationException
from ..expressions.messages import MAX_IN_OPERANDS
from ..types import compare, invalid, validate_value
from .placeholders import Placeholders

_SCALAR = frozenset({"S", "N", "B"})
_CONTAINABLE = _SCALAR | {"BOOL", "NULL"}  # a list may hold a BOOL or NULL; sets, maps and lists are rejected


@dataclass(frozen=True)
class Operator:
    """One ComparisonOperator: operand count, operand types (None: any) and its expression template.

    The template's ``{a}`` is the attribute's name placeholder, ``{v[i]}`` the i-th operand's value
    placeholder and ``{vs}`` all of them comma-separated (IN).
    """

    min_args: int
    max_args: int | None
    types: frozenset[str] | None
    template: str
    ordered_bounds: bool = False  # the two operands are a range whose lower bound must come first
    expected_template: str | None = None  # what it becomes in Expected, when that differs


OPERATORS: dict[str, Operator] = {
    "EQ": Operator(1, 1, None, "{a} = {v[0]}"),
    "NE": Operator(1, 1, None, "{a} <> {v[0]}"),
    "LE": Operator(1, 1, _SCALAR, "{a} <= {v[0]}"),
    "LT": Operator(1, 1, _SCALAR, "{a} < {v[0]}"),
    "GE": Operator(1, 1, _SCALAR, "{a} >= {v[0]}"),
    "GT": Operator(1, 1, _SCALAR, "{a} > {v[0]}"),
    "NOT_NULL": Operator(0, 0, None, "attribute_exists({a})"),
    "NULL": Operator(0, 0, None, "attribute_not_exists({a})"),
    "CONTAINS": Operator(1, 1, _CONTAINABLE, "contains({a}, {v[0]})"),
    # In Expected, NOT_CONTAINS is false for a missing attribute (DynamoDB): both it and CONTAINS fail.
    "NOT_CONTAINS": Operator(
        1,
        1,
        _CONTAINABLE,
        "NOT contains({a}, {v[0]})",
        expected_template="attribute_exists({a}) AND NOT contains({a}, {v[0]})",
    ),
    "BEGINS_WITH": Operator(1, 1, frozenset({"S", "B"}), "begins_with({a}, {v[0]})"),
    "IN": Operator(1, None, _SCALAR, "{a} IN ({vs})"),
    "BETWEEN": Operator(2, 2, _SCALAR, "{a} BETWEEN {v[0]} AND {v[1]}", ordered_bounds=True),
}

# The operators a KeyConditions entry may use (the hash key only EQ; the engine says so when resolving).
KEY_OPERATORS = frozenset({"EQ", "LE", "LT", "GE", "GT", "BEGINS_WITH", "BETWEEN"})


def comparison(
    attribute: str,
    operator_name: Any,
    operands: list[Any],
    placeholders: Placeholders,
    in_expected: bool = False,
) -> str:
    """Check one comparison's operands against its operator's row and render it as condition text
    (``in_expected``: for Expected, whose few operators with their own meaning have their own template)."""
    operator = OPERATORS.get(operator_name)  # type: ignore[arg-type]
    if operator is None:
        raise ValidationException(
            f"Unknown ComparisonOperator {operator_name!r} for attribute {attribute}; "
            f"expected one of {', '.join(OPERATORS)}"
        )
    values = [validate_value(v) for v in operands]
    if len(values) < operator.min_args or (operator.max_args is not None and len(values) > operator.max_args):
        raise invalid(f"Invalid number of argument(s) for the {operator_name} ComparisonOperator")
    kinds = {next(iter(v)) for v in values}
    if len(kinds) > 1:
        raise invalid("AttributeValues inside AttributeValueList must be of same type")
    if operator.types is not None and kinds and not kinds <= operator.types:
        raise invalid(
            f"ComparisonOperator {operator_name} is not valid for {kinds.pop()} AttributeValue type"
        )
    if operator.ordered_bounds and (compare(values[0], values[1]) or 0) > 0:
        raise ValidationException(
            "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"
        )
    name = placeholders.name(attribute)
    keys = [placeholders.value(v) for v in values]
    if len(keys) <= MAX_IN_OPERANDS:
        template = (in_expected and operator.expected_template) or operator.template
        return template.format(a=name, v=keys, vs=", ".join(keys))
    # An IN list longer than the expression language allows becomes an OR of IN lists (left bare:
    # _combine parenthesises each condition, and DynamoDB refuses a second, redundant pair).
    chunks = [keys[i : i + MAX_IN_OPERANDS] for i in range(0, len(keys), MAX_IN_OPERANDS)]
    return " OR ".join(operator.template.format(a=name, v=c, vs=", ".join(c)) for c in chunks)


def _expected_one(attribute: str, spec: Any, placeholders: Placeholders) -> str:
    """One Expected entry: the ComparisonOperator form or the Value/Exists form (DynamoDB's check order)."""
    spec = spec if isinstance(spec, dict) else {}
    operator, exists = spec.get("ComparisonOperator"), spec.get("Exists")
    value, value_list = spec.get("Value"), spec.get("AttributeValueList")
    where = f" for Attribute: {attribute}"
    if exists is not None and operator is not None:
        raise invalid("Exists and ComparisonOperator cannot be used together" + where)
    if value is not None and value_list is not None:
        raise invalid("Value and AttributeValueList cannot be used together" + where)
    if operator is None and value_list is not None:
        raise invalid("AttributeValueList can only be used with a ComparisonOperator" + where)
    if exists is False and value is not None:
        raise invalid("Value cannot be used when Exists is false" + where)
    if value is None and value_list is None:
        if operator is not None and operator not in ("NULL", "NOT_NULL"):
            raise invalid(
                f"Value or AttributeValueList must be used with ComparisonOperator: {operator}" + where
            )
        if operator is None and exists is not False:
            state = "null" if exists is None else "true"
            raise invalid(f"Value must be provided when Exists is {state}" + where)
    if operator is not None:
        operands = [value] if value is not None else list(value_list or [])
        return comparison(attribute, operator, operands, placeholders, in_expected=True)
    if exists is False:
        return comparison(attribute, "NULL", [], placeholders)
    return comparison(attribute, "EQ", [value], placeholders)


def _filter_one(attribute: str, spec: Any, placeholders: Placeholders) -> str:
    spec = spec if isinstance(spec, dict) else {}
    return comparison(
        attribute, spec.get("ComparisonOperator"), list(spec.get("AttributeValueList") or []), placeholders
    )


def _key_one(attribute: str, spec: Any, placeholders: Placeholders) -> str:
    text = _filter_one(attribute, spec, placeholders)
    if spec.get("ComparisonOperator") not in KEY_OPERATORS:  # spec is a dict: _filter_one checked it
        raise ValidationException("Attempted conditional constraint is not an indexable operation")
    return text


def _combine(
    one: Callable[[str, Any, Placeholders], str], conditions: dict, joiner: str, placeholders: Placeholders
) -> str | None:
    parts = [one(attribute, spec, placeholders) for attribute, spec in conditions.items()]
    if len(parts) <= 1:
        return parts[0] if parts else None
    return joiner.join(f"({part})" for part in parts)


def expected(conditions: dict, conditional_operator: str | None, placeholders: Placeholders) -> str | None:
    """An Expected map as ConditionExpression text (None for an empty map)."""
    return _combine(_expected_one, conditions, f" {conditional_operator or 'AND'} ", placeholders)


def filters(conditions: dict, conditional_operator: str | None, placeholders: Placeholders) -> str | None:
    """A QueryFilter or ScanFilter map as FilterExpression text (None for an empty map)."""
    return _combine(_filter_one, conditions, f" {conditional_operator or 'AND'} ", placeholders)


def key_conditions(conditions: dict, placeholders: Placeholders) -> str:
    """A KeyConditions map as KeyConditionExpression text (no parentheses: the key grammar is flat)."""
    parts = [_key_one(attribute, spec, placeholders) for attribute, spec in conditions.items()]
    if len(parts) not in (1, 2):
        raise ValidationException("Conditions can be of length 1 or 2 only")
    return " AND ".join(parts)
