"""DynamoDB Streams operations (ListStreams, DescribeStream, GetShardIterator, GetRecords)."""

from __future__ import annotations

OPERATIONS: dict = {}
