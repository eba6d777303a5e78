"""DynamoDB's error messages for expressions, in one place so that their wording stays exact.

Errors about an expression's text are prefixed ``Invalid <Kind>: `` the way DynamoDB prefixes them
(``Invalid UpdateExpression: Syntax error; ...``); errors found while applying an expression to an
item carry no prefix, as in DynamoDB.
"""

from __future__ import annotations

from ..errors import ValidationException
from ..types import AttributeValue

MAX_EXPRESSION_BYTES = 4096
MAX_IN_OPERANDS = 100
MAX_OPERATORS = 300  # operators and functions per expression (AND, OR, NOT, comparators, calls, + and -)
MAX_PATH_DEPTH = 32  # elements of one document path: ``a.b[0]`` has three
MAX_LIST_INDEX = 2**31 - 1  # a list index must fit a signed 32-bit integer
MAX_PAREN_DEPTH = 64  # deeper nesting is read without recursion, to report DynamoDB's error for it
LEGACY_VALUE_PREFIX = ":legacy"  # values of an update translated from legacy AttributeUpdates
ANY_TYPE = "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}"  # DynamoDB's "operand type" for an operand of unknown type
MAX_PLACEHOLDER_BYTES = 255  # a key of ExpressionAttributeNames/Values, its # or : included

MISSING_ATTRIBUTE = "The provided expression refers to an attribute that does not exist in the item"
INVALID_UPDATE_PATH = "The document path provided in the update expression is invalid for update"
INCORRECT_DATA_TYPE = "An operand in the update expression has an incorrect data type"
LEGACY_TYPE_MISMATCH = "Type mismatch for attribute to update"  # the same problem, in AttributeUpdates
REDUNDANT_PARENTHESES = "The expression has redundant parentheses;"


def invalid_expression(kind: str, detail: str) -> ValidationException:
    """``Invalid <kind>: <detail>``: a problem with the text of one expression."""
    return ValidationException(f"Invalid {kind}: {detail}")


def incorrect_operand(kind: str, operator: str, value: AttributeValue | None) -> ValidationException:
    """A value placeholder of a type the operator or function cannot take (None: a document path,
    whose type is not known until an item is read)."""
    (type_name,) = value if value is not None else (ANY_TYPE,)
    return invalid_expression(
        kind,
        f"Incorrect operand type for operator or function; operator or function: {operator}, "
        f"operand type: {type_name}",
    )


def render_path(path: tuple) -> str:
    """A resolved path the way DynamoDB prints it in overlap errors: ``[a, b, [1]]``."""
    return "[" + ", ".join(f"[{e}]" if isinstance(e, int) else e for e in path) + "]"


def render_value(value: AttributeValue) -> str:
    """An attribute value the way DynamoDB prints it in key-condition errors: ``{N:5}``."""
    ((type_name, payload),) = value.items()
    return f"{{{type_name}:{payload}}}"
