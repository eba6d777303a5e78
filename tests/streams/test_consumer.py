"""StreamConsumer: Lambda-shaped events, batching, checkpoints, retries, dead letters and filters."""

from __future__ import annotations

import base64
import threading

import pytest

import tablewright
from tablewright.streams import (
    BatchFailedError,
    FileCheckpoint,
    MemoryCheckpoint,
    StreamConsumer,
    TableCheckpoint,
)

from ._support import create_table


class Recorder:
    """A handler that keeps every event it was given and can be told to fail the next calls."""

    def __init__(self, failures: int = 0) -> None:
        self.events: list[dict] = []
        self.calls = 0
        self.failures = failures

    def __call__(self, event: dict) -> None:
        self.calls += 1
        if self.failures:
            self.failures -= 1
            raise RuntimeError("handler is down")
        self.events.append(event)

    @property
    def keys(self) -> list[str]:
        return [r["dynamodb"]["Keys"]["pk"]["S"] for e in self.events for r in e["Records"]]


def _put(ddb, *keys: str) -> None:
    for key in keys:
        ddb.put_item(TableName="orders", Item={"pk": {"S": key}})


def _consumer(ddb, streams, handler, **options) -> StreamConsumer:
    return StreamConsumer(ddb, streams, "orders", handler, retry_delay=0, **options)


def test_the_handler_gets_lambda_shaped_events(ddb, streams, engine, clock):
    arn = create_table(ddb)
    ddb.update_time_to_live(
        TableName="orders", TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"}
    )
    ddb.put_item(
        TableName="orders", Item={"pk": {"S": "a"}, "blob": {"B": b"\x00\x01"}, "ttl": {"N": "1000"}}
    )
    engine.sweep_ttl(now=1001)
    handler = Recorder()

    _consumer(ddb, streams, handler).drain()

    insert, remove = handler.events[0]["Records"]
    sequence = insert["dynamodb"]["SequenceNumber"]
    image = {"pk": {"S": "a"}, "blob": {"B": base64.b64encode(b"\x00\x01").decode()}, "ttl": {"N": "1000"}}
    assert insert == {
        "eventID": insert["eventID"],
        "eventName": "INSERT",
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": {
            "ApproximateCreationDateTime": insert["dynamodb"]["ApproximateCreationDateTime"],
            "Keys": {"pk": {"S": "a"}},
            "NewImage": image,
            "SequenceNumber": sequence,
            "SizeBytes": insert["dynamodb"]["SizeBytes"],
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        },
        "eventSourceARN": arn,
    }
    assert isinstance(insert["dynamodb"]["ApproximateCreationDateTime"], int)
    assert abs(insert["dynamodb"]["ApproximateCreationDateTime"] - clock()) < 60
    assert remove["userIdentity"] == {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
    assert remove["dynamodb"]["OldImage"] == image


def test_batches_are_at_most_batch_size_and_in_order(ddb, streams):
    create_table(ddb)
    _put(ddb, *[f"k{i}" for i in range(10)])
    handler = Recorder()

    assert _consumer(ddb, streams, handler, batch_size=4).drain() == 10

    assert [len(e["Records"]) for e in handler.events] == [4, 4, 2]
    assert handler.keys == [f"k{i}" for i in range(10)]


def test_a_restarted_consumer_resumes_after_its_checkpoint(ddb, streams, tmp_path):
    create_table(ddb)
    checkpoint = FileCheckpoint(tmp_path / "orders.checkpoint")
    _put(ddb, "a", "b")
    first = Recorder()
    _consumer(ddb, streams, first, checkpoint=checkpoint).drain()
    _put(ddb, "c")
    second = Recorder()

    _consumer(ddb, streams, second, checkpoint=FileCheckpoint(tmp_path / "orders.checkpoint")).drain()

    assert first.keys == ["a", "b"]
    assert second.keys == ["c"]


def test_a_failing_handler_is_retried_with_the_same_batch(ddb, streams):
    create_table(ddb)
    _put(ddb, "a", "b")
    handler = Recorder(failures=2)

    _consumer(ddb, streams, handler, max_retries=3).drain()

    assert handler.calls == 3
    assert handler.keys == ["a", "b"]


def test_a_batch_that_keeps_failing_is_not_checkpointed_and_is_read_again(ddb, streams):
    create_table(ddb)
    _put(ddb, "a", "b")
    checkpoint = MemoryCheckpoint()
    handler = Recorder(failures=5)
    consumer = _consumer(ddb, streams, handler, max_retries=1, batch_size=1, checkpoint=checkpoint)

    with pytest.raises(BatchFailedError, match="handler failed 2 times on a batch of 1 records") as excinfo:
        consumer.run_once()
    assert isinstance(excinfo.value.cause, RuntimeError)
    assert checkpoint.state is None or not checkpoint.state["shards"]
    with pytest.raises(BatchFailedError):
        consumer.run_once()
    handler.failures = 0
    consumer.drain()

    assert handler.calls == 6  # 2 failed runs of 2 attempts each, then "a" and "b"
    assert handler.keys == ["a", "b"]


def test_a_dead_letter_callback_takes_the_failed_batch_and_the_consumer_moves_on(ddb, streams):
    create_table(ddb)
    _put(ddb, "a", "b", "c")
    dead: list[tuple[list[str], str]] = []
    handler = Recorder(failures=2)  # the first batch fails both of its attempts

    _consumer(
        ddb,
        streams,
        handler,
        batch_size=2,
        max_retries=1,
        dead_letter=lambda event, error: dead.append(
            ([r["dynamodb"]["Keys"]["pk"]["S"] for r in event["Records"]], str(error))
        ),
    ).drain()

    assert dead == [(["a", "b"], "handler is down")]
    assert handler.keys == ["c"]


def test_filters_pick_records_like_lambda_event_filtering(ddb, streams):
    create_table(ddb)
    ddb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "status": {"S": "new"}})
    ddb.put_item(TableName="orders", Item={"pk": {"S": "b"}, "status": {"S": "paid"}})
    ddb.put_item(TableName="orders", Item={"pk": {"S": "ord-c"}, "status": {"S": "paid"}})
    ddb.delete_item(TableName="orders", Key={"pk": {"S": "a"}})
    paid = Recorder()
    removed_or_prefixed = Recorder()
    checkpoint = MemoryCheckpoint()

    _consumer(
        ddb,
        streams,
        paid,
        checkpoint=checkpoint,
        filter={"eventName": ["INSERT"], "dynamodb": {"NewImage": {"status": {"S": ["paid"]}}}},
    ).drain()
    _consumer(
        ddb,
        streams,
        removed_or_prefixed,
        filter=[
            {"eventName": ["REMOVE"]},
            {"dynamodb": {"Keys": {"pk": {"S": [{"prefix": "ord-"}]}}}},
        ],
    ).drain()

    assert paid.keys == ["b", "ord-c"]
    assert removed_or_prefixed.keys == ["ord-c", "a"]
    # Filtered-out records are checkpointed too: nothing is left to read.
    assert _consumer(ddb, streams, Recorder(), checkpoint=checkpoint).drain() == 0


def test_latest_skips_what_was_written_before_the_first_start(ddb, streams):
    create_table(ddb)
    _put(ddb, "before")
    handler = Recorder()
    consumer = _consumer(ddb, streams, handler, starting_position="LATEST")
    consumer.run_once()
    _put(ddb, "after")

    consumer.drain()

    assert handler.keys == ["after"]


def test_a_table_checkpoint_survives_a_new_consumer(ddb, streams):
    create_table(ddb)
    checkpoints = TableCheckpoint(ddb, "consumer-positions", "orders-mailer")
    checkpoints.create_table()
    _put(ddb, "a")
    _consumer(ddb, streams, Recorder(), checkpoint=checkpoints).drain()
    _put(ddb, "b")
    handler = Recorder()

    _consumer(
        ddb, streams, handler, checkpoint=TableCheckpoint(ddb, "consumer-positions", "orders-mailer")
    ).drain()

    assert handler.keys == ["b"]
    assert TableCheckpoint(ddb, "consumer-positions", "someone-else").load() is None


def test_a_background_consumer_handles_changes_until_stopped(ddb, streams):
    create_table(ddb)
    seen: list[str] = []
    all_seen = threading.Event()

    def handler(event: dict) -> None:
        seen.extend(r["dynamodb"]["Keys"]["pk"]["S"] for r in event["Records"])
        if len(seen) >= 20:
            all_seen.set()

    consumer = _consumer(ddb, streams, handler, poll_interval=0.01).start()
    _put(ddb, *[f"k{i:02d}" for i in range(20)])
    finished = all_seen.wait(timeout=60)  # a guard against hanging, not a timing assertion
    consumer.stop()

    assert finished, f"saw only {seen}"
    assert seen == [f"k{i:02d}" for i in range(20)]
    assert consumer.error is None


def test_a_table_without_a_stream_is_reported(ddb, streams):
    create_table(ddb, view=None)
    with pytest.raises(ValueError, match="table orders has no stream"):
        _consumer(ddb, streams, Recorder()).run_once()


def test_the_consumer_works_over_http_against_tablewright_serve(engine):
    from tablewright.server import ServerThread

    with ServerThread(engine.handle) as server:
        ddb = tablewright.connect(endpoint_url=server.url)
        streams = tablewright.connect(endpoint_url=server.url, service="dynamodbstreams")
        create_table(ddb)
        _put(ddb, "a", "b")
        handler = Recorder()
        _consumer(ddb, streams, handler).drain()

    assert handler.keys == ["a", "b"]


def test_the_consumer_moves_to_the_new_stream_when_the_stream_is_replaced(ddb, streams, clock):
    create_table(ddb)
    _put(ddb, "a")
    checkpoint = MemoryCheckpoint()
    _consumer(ddb, streams, Recorder(), checkpoint=checkpoint).drain()
    ddb.update_table(TableName="orders", StreamSpecification={"StreamEnabled": False})
    clock.advance(1)  # a new stream label
    ddb.update_table(
        TableName="orders", StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    )
    _put(ddb, "b")
    handler = Recorder()

    _consumer(ddb, streams, handler, checkpoint=checkpoint).drain()

    new_arn = ddb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
    assert handler.keys[-1] == "b"
    assert handler.events[-1]["Records"][-1]["eventSourceARN"] == new_arn
    assert checkpoint.state["stream_arn"] == new_arn
