"""Consume a table's DynamoDB stream with a handler function, as a Lambda trigger would.

``StreamConsumer(dynamodb, streams, "orders", handler, checkpoint=FileCheckpoint("orders.pos"))``
calls ``handler({"Records": [...]})`` with Lambda-shaped records, at least once and in order per item,
over any DynamoDB Streams client (the in-process engine, ``tablewright serve``, or AWS).
"""

from .checkpoint import Checkpoint, FileCheckpoint, MemoryCheckpoint, TableCheckpoint
from .consumer import BatchFailedError, StreamConsumer
from .events import compile_filter, lambda_record

__all__ = [
    "BatchFailedError",
    "Checkpoint",
    "FileCheckpoint",
    "MemoryCheckpoint",
    "StreamConsumer",
    "TableCheckpoint",
    "compile_filter",
    "lambda_record",
]
