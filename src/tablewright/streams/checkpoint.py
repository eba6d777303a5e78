"""Where a :class:`~tablewright.streams.StreamConsumer` remembers how far it has got.

The state is a small JSON-able dict: the stream ARN and, per shard, the sequence number of the last
record whose batch the handler finished (and whether the shard was read to its closed end). The
consumer saves it only after a handler succeeded, so a restarted consumer resumes right after the
last finished batch: every change is handled at least once.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Protocol

State = dict[str, Any]


class Checkpoint(Protocol):
    """Durable storage of one consumer's position."""

    def load(self) -> State | None:
        """The last saved state, or None when the consumer never saved one."""

    def save(self, state: State) -> None:
        """Persist ``state``; it must survive a crash of the process once this returns."""


class MemoryCheckpoint:
    """A checkpoint that lives as long as the object: for tests and throw-away consumers."""

    def __init__(self, state: State | None = None) -> None:
        self.state = state

    def load(self) -> State | None:
        return None if self.state is None else json.loads(json.dumps(self.state))

    def save(self, state: State) -> None:
        self.state = json.loads(json.dumps(state))


class FileCheckpoint:
    """A JSON file, replaced atomically (write a temporary file, fsync, rename) on every save."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def load(self) -> State | None:
        try:
            return json.loads(self.path.read_text())
        except FileNotFoundError:
            return None

    def save(self, state: State) -> None:
        # rename() is atomic, so a crash leaves either the old or the new file, never half of one.
        fd, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.")
        try:
            with os.fdopen(fd, "w") as out:
                json.dump(state, out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


class TableCheckpoint:
    """An item in a DynamoDB table (any client): ``{key_name: consumer_id, "state": <JSON string>}``.

    The table needs a string partition key named ``key_name`` and no sort key;
    :meth:`create_table` makes one. Several consumers can share it under different ``consumer_id``.
    """

    def __init__(
        self, client: Any, table_name: str, consumer_id: str = "default", *, key_name: str = "pk"
    ) -> None:
        self.client = client
        self.table_name = table_name
        self.consumer_id = consumer_id
        self.key_name = key_name

    def create_table(self) -> None:
        """Create the checkpoint table (on-demand billing) and wait until it is usable."""
        self.client.create_table(
            TableName=self.table_name,
            KeySchema=[{"AttributeName": self.key_name, "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": self.key_name, "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        self.client.get_waiter("table_exists").wait(TableName=self.table_name)

    def load(self) -> State | None:
        item = self.client.get_item(
            TableName=self.table_name, Key={self.key_name: {"S": self.consumer_id}}, ConsistentRead=True
        ).get("Item")
        return json.loads(item["state"]["S"]) if item else None

    def save(self, state: State) -> None:
        self.client.put_item(
            TableName=self.table_name,
            Item={self.key_name: {"S": self.consumer_id}, "state": {"S": json.dumps(state)}},
        )
