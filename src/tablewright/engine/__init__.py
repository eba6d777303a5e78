"""An embedded DynamoDB-compatible engine on SQLite. It knows nothing of designs."""

from .engine import Engine
from .errors import DynamoDBError

__all__ = ["DynamoDBError", "Engine"]
