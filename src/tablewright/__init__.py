"""tablewright: executable DynamoDB designs.

``tablewright.connect()`` gives a boto3 DynamoDB client served by the embedded engine (in memory, or
``connect("app.db")`` in one SQLite file), or by any endpoint (``connect(endpoint_url=...)``).
"""

from .client import connect, engine_of, resource
from .engine import DynamoDBError, Engine

__version__ = "0.1.0"
__all__ = ["DynamoDBError", "Engine", "connect", "engine_of", "resource"]
