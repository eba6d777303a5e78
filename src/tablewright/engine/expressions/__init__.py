"""DynamoDB's expression languages: condition/filter, key condition, update and projection.

The pipeline follows sqlglot: ``lexer`` (text -> tokens) -> ``grammar`` (tokens -> the frozen
dataclasses of ``nodes``, by dispatch tables) -> evaluators (``conditions``, ``updates``,
``projections``, ``keys``). Parses are cached by expression text; placeholders stay unresolved in the
AST and are bound per request (``resolve.Scope``).

Decisions where the Developer Guide is silent or where we chose a form:

* The expression kind for messages is a parameter of each parse function, defaulting to the usual
  one: ``parse_condition(text, "FilterExpression")`` for filters. It is part of the cache key and is
  kept on the AST (``expr.kind``), so evaluation errors name the right expression.
* Errors about an expression are prefixed ``Invalid <Kind>: `` as DynamoDB does, including
  undefined placeholders ("Invalid UpdateExpression: An expression attribute name used in the
  document path is not defined; attribute name: #x"). Errors about the data (missing attribute in a
  SET operand, wrong type in the item) carry no prefix.
* ``a <> :v`` is true when ``a`` is missing; every other comparison with a missing operand is false.
* ``size`` of a string or binary is its length in bytes (UTF-8 for strings); of a set, map or list its
  number of elements; of any other type, or a missing path, it has no value (comparisons are false).
* ``contains`` also accepts a binary attribute and a binary operand (byte substring).
* Request-time checks (every placeholder defined, ordering operators given a set/map/list literal,
  ``begins_with`` given a non-S/B literal, bad ``attribute_type`` names, BETWEEN bounds out of order)
  run over the whole condition before any item is read, so short-circuiting cannot hide them.
* Update actions read the original item. REMOVE runs after SET/ADD/DELETE, in descending index
  order, so all list indexes of one expression refer to the original list. A SET past the end of a
  list appends; several such SETs append in index order (DynamoDB). REMOVE of a missing leaf is a
  no-op; under a missing parent or through a scalar it is an invalid-path error, as SET is.
* ``updated_paths`` returns top-level attributes as one-element paths (brief: ReturnValues
  UPDATED_*); ``projections.project_paths`` projects arbitrary resolved paths if nested ones are
  wanted.
* ``check_placeholders`` order: empty maps, invalid values, undefined names/values (per expression, in
  the order given), unused values, unused names.
* Limits (Developer Guide, "Constraints", expression parameters): 4 KB per expression, 255 bytes per
  placeholder key (checked before its syntax), 100 IN operands, 300 operators per expression. The
  guide states the operator limit for UpdateExpression; DynamoDB reports it for FilterExpression
  too ("operator count: 301"), so every expression kind is counted. Counted: AND, OR, NOT, each
  comparator, BETWEEN, IN, each function call, and ``+``/``-`` in SET. Not counted: parentheses,
  commas, the ``=`` of a SET action and clause keywords (our reading; DynamoDB does not document it).
"""

from __future__ import annotations

from .conditions import check_condition, evaluate_condition, evaluate_in_scope
from .grammar import parse_condition, parse_projection, parse_update
from .keys import (
    KeyCondition,
    KeyConditions,
    parse_key_condition,
    resolve_key_condition,
    resolve_key_conditions,
)
from .nodes import ConditionExpr, KeyConditionExpr, Path, ProjectionExpr, UpdateExpr
from .placeholders import check_placeholders
from .projections import check_projection, project
from .updates import apply_update, updated_paths

__all__ = [
    "ConditionExpr",
    "KeyCondition",
    "KeyConditions",
    "KeyConditionExpr",
    "Path",
    "ProjectionExpr",
    "UpdateExpr",
    "apply_update",
    "check_condition",
    "check_projection",
    "check_placeholders",
    "evaluate_condition",
    "evaluate_in_scope",
    "parse_condition",
    "parse_key_condition",
    "parse_projection",
    "parse_update",
    "project",
    "resolve_key_condition",
    "resolve_key_conditions",
    "updated_paths",
]
