"""PartiQL error constructors, in DynamoDB's wording.

The wording is DynamoDB's (the messages of DynamoDB Local's PartiQL front end, which match the
service's); each helper names the one place a message is built so that tests and code agree.
"""

from __future__ import annotations

from ..errors import DuplicateItemException, ValidationException

__all__ = ["DuplicateItemException", "malformed", "invalid"]

DUPLICATE_ITEM = "Duplicate primary key exists in table"
INCOMPLETE_KEY = "Where clause does not contain a mandatory equality on all key attributes"
PARAMETER_COUNT = "Number of parameters in request and statement don't match."
MIXED_TRANSACTION = (
    "ExecuteTransaction API does not support both read and write operations in the same request."
)
MIXED_BATCH = "BatchExecuteStatement API does not support both read and write operations in the same request."


def malformed(detail: str) -> ValidationException:
    """DynamoDB's syntax error: ``Statement wasn't well formed, can't be processed: <detail>``."""
    return ValidationException(f"Statement wasn't well formed, can't be processed: {detail}")


def invalid(message: str) -> ValidationException:
    return ValidationException(message)
