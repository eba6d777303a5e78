"""Design files: the model, the YAML loader with line numbers, the JSON Schema and key templates.

``load(path)`` -> ``Design``; ``DesignError`` lists every problem. The package is a pure model: it
imports no DynamoDB client and no engine.
"""

from .errors import DesignError, Problem
from .loader import load, loads, schema
from .model import (
    AccessPattern,
    Attribute,
    Billing,
    Computed,
    Conventions,
    Design,
    Entity,
    EntityKey,
    Index,
    KeyAttribute,
    KeyCondition,
    Projection,
    Table,
    Volumes,
)
from .predicates import Predicate, PredicateError
from .templates import KeyTemplate, TemplateSyntaxError, TemplateValueError
from .validators import Violation

__all__ = [
    "AccessPattern",
    "Attribute",
    "Billing",
    "Computed",
    "Conventions",
    "Design",
    "DesignError",
    "Entity",
    "EntityKey",
    "Index",
    "KeyAttribute",
    "KeyCondition",
    "KeyTemplate",
    "Predicate",
    "PredicateError",
    "Problem",
    "Projection",
    "Table",
    "TemplateSyntaxError",
    "TemplateValueError",
    "Violation",
    "Volumes",
    "load",
    "loads",
    "schema",
]
