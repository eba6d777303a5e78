"""An embedded DynamoDB-compatible engine on SQLite. It knows nothing of designs."""

from .bulk import LoadResult, load_items
from .engine import Engine
from .errors import DynamoDBError
from .opening import BadDatabaseFile, DatabaseFileError, DatabaseUnavailable

__all__ = [
    "BadDatabaseFile",
    "DatabaseFileError",
    "DatabaseUnavailable",
    "DynamoDBError",
    "Engine",
    "LoadResult",
    "load_items",
]
