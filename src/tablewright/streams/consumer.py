"""StreamConsumer: run a handler on every change of a table, as a Lambda trigger would.

Built only on the DynamoDB Streams API (DescribeTable, DescribeStream, GetShardIterator, GetRecords),
so it works the same over the in-process engine, ``tablewright serve`` or Amazon DynamoDB.

Delivery is at least once and in order per item: shards are read one batch at a time, a child shard
only after its parent was read to its end, and the position is checkpointed only after the handler
returned for the batch. A crash between the handler and the checkpoint delivers that batch again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from .checkpoint import Checkpoint, MemoryCheckpoint, State
from .events import Filter, compile_filter, lambda_record

log = logging.getLogger("tablewright.streams")

Event = dict[str, Any]
Handler = Callable[[Event], Any]
DeadLetter = Callable[[Event, BaseException], Any]


class BatchFailedError(RuntimeError):
    """The handler raised on every attempt for one batch; the batch was not checkpointed."""

    def __init__(self, shard_id: str, event: Event, cause: BaseException, attempts: int) -> None:
        first, last = (event["Records"][0], event["Records"][-1]) if event["Records"] else ({}, {})
        span = f"{first.get('dynamodb', {}).get('SequenceNumber')}..{last.get('dynamodb', {}).get('SequenceNumber')}"
        super().__init__(
            f"handler failed {attempts} times on a batch of {len(event['Records'])} records "
            f"(shard {shard_id}, sequence numbers {span}): {cause!r}"
        )
        self.shard_id, self.event, self.cause = shard_id, event, cause


def _code(error: ClientError) -> str:
    return error.response.get("Error", {}).get("Code", "")


class StreamConsumer:
    """Poll a table's stream and call ``handler({"Records": [...]})`` with Lambda-shaped records.

    ``checkpoint`` (default: in memory) stores the position; ``starting_position`` (TRIM_HORIZON or
    LATEST) applies only where no position was checkpointed. ``filter`` is a Lambda filter pattern, a
    list of them, or a predicate on a record; filtered-out records are skipped and checkpointed. A handler
    exception retries the batch up to ``max_retries`` times (waiting ``retry_delay`` seconds, doubling);
    then ``dead_letter(event, error)`` is called and the batch skipped, or without one
    :class:`BatchFailedError` is raised and the batch is read again on the next poll.
    """

    def __init__(
        self,
        dynamodb_client: Any,
        streams_client: Any,
        table_name: str,
        handler: Handler,
        *,
        checkpoint: Checkpoint | None = None,
        batch_size: int = 100,
        poll_interval: float = 1.0,
        starting_position: str = "TRIM_HORIZON",
        filter: Filter | None = None,  # noqa: A002 - the name Lambda's event source mapping uses
        max_retries: int = 3,
        retry_delay: float = 0.1,
        dead_letter: DeadLetter | None = None,
        shard_refresh_interval: float = 60.0,
    ) -> None:
        if not 1 <= batch_size <= 1000:
            raise ValueError(f"batch_size must be between 1 and 1000 (GetRecords' limit), not {batch_size}")
        if starting_position not in ("TRIM_HORIZON", "LATEST"):
            raise ValueError(f"starting_position must be TRIM_HORIZON or LATEST, not {starting_position!r}")
        self.dynamodb, self.streams = dynamodb_client, streams_client
        self.table_name, self.handler = table_name, handler
        self.checkpoint = checkpoint if checkpoint is not None else MemoryCheckpoint()
        self.batch_size, self.poll_interval = batch_size, poll_interval
        self.starting_position = starting_position
        self.accepts = compile_filter(filter)
        self.max_retries, self.retry_delay, self.dead_letter = max_retries, retry_delay, dead_letter
        self.shard_refresh_interval = shard_refresh_interval
        self.error: BaseException | None = None  # what stopped the background thread, if anything
        self._state: State | None = None
        self._shards: list[dict[str, Any]] = []
        self._refreshed_at: float | None = None
        self._iterators: dict[str, str] = {}
        self._start_at_latest: set[str] = set()  # open shards of a first start at LATEST
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------------------------ running

    def run_once(self) -> int:
        """Read one batch from every shard that is ready; return how many records were read."""
        if self._refreshed_at is None or time.monotonic() - self._refreshed_at >= self.shard_refresh_interval:
            self._refresh()
        return sum(self._poll(shard["ShardId"]) for shard in self._ready_shards())

    def drain(self) -> int:
        """Run until a pass reads nothing (the consumer has caught up); return the records read."""
        total = 0
        # A pass that read nothing but closed a shard has more to read after it (the next shard, or the
        # table's next stream); each shard closes once, so this ends.
        while (read := self.run_once()) or self._refreshed_at is None:
            total += read
        return total

    def run(self, stop_event: threading.Event | None = None) -> None:
        """Poll until ``stop_event`` (or :meth:`stop`) is set, sleeping ``poll_interval`` when idle."""
        stop = stop_event or self._stop
        while not stop.is_set():
            if self.run_once() == 0:
                stop.wait(self.poll_interval)

    def start(self) -> StreamConsumer:
        """Run in a daemon thread; an error that stops it is logged and kept in :attr:`error`."""
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._run_thread, name=f"stream-{self.table_name}", daemon=True
        )
        self._thread.start()
        return self

    def stop(self, timeout: float | None = 30.0) -> None:
        """Ask the background thread to stop after its current batch and wait for it."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run_thread(self) -> None:
        try:
            self.run(self._stop)
        except BaseException as error:  # noqa: BLE001 - reported through .error, the thread must not die silently
            self.error = error
            log.exception("stream consumer for table %s stopped", self.table_name)

    # ------------------------------------------------------------------------------------- shards

    def _latest_stream(self) -> str:
        arn = self.dynamodb.describe_table(TableName=self.table_name)["Table"].get("LatestStreamArn")
        if arn is None:
            raise ValueError(f"table {self.table_name} has no stream; enable one with a StreamSpecification")
        return arn

    def _describe(self, arn: str) -> tuple[list[dict[str, Any]], str]:
        shards: list[dict[str, Any]] = []
        request: dict[str, Any] = {"StreamArn": arn}
        while True:
            description = self.streams.describe_stream(**request)["StreamDescription"]
            shards += description.get("Shards", [])
            if not description.get("LastEvaluatedShardId"):
                return shards, description.get("StreamStatus", "ENABLED")
            request["ExclusiveStartShardId"] = description["LastEvaluatedShardId"]

    def _refresh(self) -> None:
        """Re-read the shard list; move to the table's new stream once the old one is finished."""
        latest = self._latest_stream()
        first_start = False
        if self._state is None:
            self._state = self.checkpoint.load()
            first_start = self._state is None
            self._state = self._state or {"stream_arn": latest, "shards": {}}
        try:
            shards, status = self._describe(self._state["stream_arn"])
        except ClientError as error:
            if _code(error) != "ResourceNotFoundException":
                raise
            shards, status = [], "GONE"
        if first_start and self.starting_position == "LATEST":
            # LATEST means from now on: closed shards hold only the past, and the open ones start at
            # their newest record even though they have parents (after a rollover every shard has one).
            for shard in shards:
                if "EndingSequenceNumber" in shard["SequenceNumberRange"]:
                    self._state["shards"][shard["ShardId"]] = {"sequence_number": None, "closed": True}
                else:
                    self._start_at_latest.add(shard["ShardId"])
        done = self._state["shards"]
        finished = status != "ENABLED" and all(done.get(s["ShardId"], {}).get("closed") for s in shards)
        if self._state["stream_arn"] != latest and finished:
            log.info(
                "table %s has a new stream %s; switching from %s",
                self.table_name,
                latest,
                self._state["stream_arn"],
            )
            self._state = {"stream_arn": latest, "shards": {}}
            self._iterators.clear()
            shards, _ = self._describe(latest)
        listed = {s["ShardId"] for s in shards}
        # Forget closed shards that were trimmed away, so the checkpoint does not grow forever.
        self._state["shards"] = {
            k: v for k, v in self._state["shards"].items() if k in listed or not v.get("closed")
        }
        self._shards = shards
        self._refreshed_at = time.monotonic()

    def _ready_shards(self) -> list[dict[str, Any]]:
        done = self._state["shards"] if self._state else {}
        listed = {s["ShardId"] for s in self._shards}

        def finished(shard_id: str | None) -> bool:
            return shard_id is None or shard_id not in listed or bool(done.get(shard_id, {}).get("closed"))

        return [s for s in self._shards if not finished(s["ShardId"]) and finished(s.get("ParentShardId"))]

    def _new_iterator(self, shard_id: str) -> str:
        assert self._state is not None
        request = {"StreamArn": self._state["stream_arn"], "ShardId": shard_id}
        position = self._state["shards"].get(shard_id, {}).get("sequence_number")
        if position:
            request.update(ShardIteratorType="AFTER_SEQUENCE_NUMBER", SequenceNumber=position)
        elif shard_id in self._start_at_latest:
            # Started at LATEST and nothing read since: an expired iterator is renewed at LATEST, not at
            # TRIM_HORIZON, which would deliver what was written before the consumer first started.
            request["ShardIteratorType"] = "LATEST"
        elif shard_id in self._state["shards"] or self._has_parent(shard_id):
            request["ShardIteratorType"] = "TRIM_HORIZON"  # a shard met before, or a child: read it all
        else:
            request["ShardIteratorType"] = self.starting_position
        return self.streams.get_shard_iterator(**request)["ShardIterator"]

    def _has_parent(self, shard_id: str) -> bool:
        return any(s["ShardId"] == shard_id and s.get("ParentShardId") for s in self._shards)

    def _get_records(self, shard_id: str) -> dict[str, Any]:
        for _ in range(3):
            iterator = self._iterators.get(shard_id) or self._new_iterator(shard_id)
            try:
                return self.streams.get_records(ShardIterator=iterator, Limit=self.batch_size)
            except ClientError as error:
                self._iterators.pop(shard_id, None)
                if _code(error) == "TrimmedDataAccessException":
                    log.error(
                        "records of shard %s were trimmed before they were handled; resuming at the trim horizon",
                        shard_id,
                    )
                    self._state["shards"][shard_id] = {"sequence_number": None, "closed": False}
                elif _code(error) != "ExpiredIteratorException":
                    raise
        raise RuntimeError(f"could not obtain a usable shard iterator for shard {shard_id}")

    # ----------------------------------------------------------------------------------- delivery

    def _poll(self, shard_id: str) -> int:
        response = self._get_records(shard_id)
        records = response.get("Records", [])
        position = self._state["shards"].setdefault(shard_id, {"sequence_number": None, "closed": False})
        if records:
            arn = self._state["stream_arn"]
            shaped = [lambda_record(r, arn) for r in records]
            event = {"Records": [r for r in shaped if self.accepts(r)]}
            if event["Records"]:
                self._deliver(shard_id, event)
            position["sequence_number"] = records[-1]["dynamodb"]["SequenceNumber"]
        next_iterator = response.get("NextShardIterator")
        if next_iterator is None:
            position["closed"] = True
            self._iterators.pop(shard_id, None)
            self._refreshed_at = None  # a closed shard may have children to pick up
        else:
            self._iterators[shard_id] = next_iterator
        if records or next_iterator is None:
            self.checkpoint.save(self._state)
        return len(records)

    def _deliver(self, shard_id: str, event: Event) -> None:
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            try:
                self.handler(event)
                return
            except Exception as error:  # noqa: BLE001 - any handler failure is retried, then reported
                last = error
                log.warning(
                    "handler failed on a batch of %d records from shard %s (attempt %d of %d): %r",
                    len(event["Records"]),
                    shard_id,
                    attempt + 1,
                    attempts,
                    error,
                )
                if attempt + 1 < attempts:
                    self._stop.wait(self.retry_delay * 2**attempt)
        if self.dead_letter is not None:
            log.error("giving the batch to the dead-letter callback after %d failed attempts", attempts)
            self.dead_letter(event, last)
            return
        # Without a checkpoint the batch is read again: drop the iterator that has moved past it.
        self._iterators.pop(shard_id, None)
        raise BatchFailedError(shard_id, event, last, attempts)
