"""Live changes: a table's stream read through the Streams API, as server-sent events.

Each connection reads every open shard from ``LATEST`` (shards that appear later from
``TRIM_HORIZON``, so nothing written after the page opened is missed) and polls ``GetRecords``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import orjson
from botocore.exceptions import BotoCoreError, ClientError

from .items import json_wire

POLL_SECONDS = 0.5


class StreamReader:
    """Iterators over the shards of one stream, refreshed as shards come and go."""

    def __init__(self, streams: Any, arn: str) -> None:
        self.streams = streams
        self.arn = arn
        self.iterators: dict[str, str | None] = {}
        self._refresh(start="LATEST")

    def _refresh(self, start: str) -> None:
        shards = self.streams.describe_stream(StreamArn=self.arn)["StreamDescription"].get("Shards", [])
        for shard in shards:
            shard_id = shard["ShardId"]
            if shard_id in self.iterators:
                continue
            if "EndingSequenceNumber" in shard.get("SequenceNumberRange", {}) and start == "LATEST":
                self.iterators[shard_id] = None  # closed before we came: nothing new will be written there
                continue
            self.iterators[shard_id] = self.streams.get_shard_iterator(
                StreamArn=self.arn, ShardId=shard_id, ShardIteratorType=start
            )["ShardIterator"]

    def poll(self) -> list[dict[str, Any]]:
        """Records written since the last poll, as JSON-ready changes."""
        self._refresh(start="TRIM_HORIZON")
        changes: list[dict[str, Any]] = []
        for shard_id, iterator in list(self.iterators.items()):
            if iterator is None:
                continue
            response = self.streams.get_records(ShardIterator=iterator)
            self.iterators[shard_id] = response.get("NextShardIterator")
            for record in response.get("Records", []):
                data = record.get("dynamodb", {})
                changes.append(
                    {
                        "event": record.get("eventName"),
                        "sequence": data.get("SequenceNumber"),
                        "keys": json_wire(data.get("Keys", {})),
                        "new": json_wire(data["NewImage"]) if "NewImage" in data else None,
                        "old": json_wire(data["OldImage"]) if "OldImage" in data else None,
                    }
                )
        return changes


async def events(streams: Any, arn: str, is_disconnected: Any) -> AsyncIterator[str]:
    """Server-sent events: one ``change`` event per stream record, a comment as a heartbeat."""
    try:
        reader = await asyncio.to_thread(StreamReader, streams, arn)
    except (BotoCoreError, ClientError) as exc:
        yield f"event: failure\ndata: {orjson.dumps(str(exc)).decode()}\n\n"
        return
    yield "event: ready\ndata: {}\n\n"
    while not await is_disconnected():
        try:
            changes = await asyncio.to_thread(reader.poll)
        except (BotoCoreError, ClientError) as exc:
            yield f"event: failure\ndata: {orjson.dumps(str(exc)).decode()}\n\n"
            return
        for change in changes:
            yield f"event: change\ndata: {orjson.dumps(change).decode()}\n\n"
        if not changes:
            yield ": waiting\n\n"
        await asyncio.sleep(POLL_SECONDS)
