"""Idempotent batches: retries are no-ops, concurrent retries leave one copy, the 100-action limit."""

import threading

import pytest

from tablewright import connect
from tablewright.runtime import TransactionTooLargeError

MAC = "AA:BB:CC:DD:EE:FF"
T0 = 1_704_067_200_000


def _batch(n, batch_id="b1"):
    return [
        {"hardware_id": MAC, "timestamp_ms": T0 + i * 1000, "batch_id": batch_id, "sensors": {"t": i}}
        for i in range(n)
    ]


def _count(rt):
    items = rt.client.scan(TableName="device_readings")["Items"]
    readings = [i for i in items if not i["hardware_id"]["S"].startswith("_tw#")]
    markers = [i for i in items if i["hardware_id"]["S"].startswith("_tw#idem")]
    return len(readings), len(markers)


def _marker(rt, key):
    found = rt.client.get_item(
        TableName="device_readings",
        Key={"hardware_id": {"S": f"_tw#idem#Reading#{key}"}, "ts_batch": {"S": "_tw#marker"}},
    )
    return found.get("Item")


def _other(n, batch_id="b1"):
    """A batch with the same id and other readings (another request, not a retry)."""
    return [{**reading, "sensors": {"t": 1000 + i}} for i, reading in enumerate(_batch(n, batch_id))]


def test_retry_is_reported_already_applied(sensor):
    first = sensor.put_many("Reading", _batch(10))
    again = sensor.put_many("Reading", _batch(10))
    assert first.applied and first.plan == "1 transaction of 11 actions"
    assert not again.applied and again.plan == "already applied"
    assert _count(sensor) == (10, 1)


def test_marker_expires_through_the_table_ttl(sensor):
    sensor.put_many("Reading", _batch(1))
    marker = sensor.client.get_item(
        TableName="device_readings",
        Key={"hardware_id": {"S": "_tw#idem#Reading#b1"}, "ts_batch": {"S": "_tw#marker"}},
    )["Item"]
    assert "expiration_time" in marker


@pytest.mark.parametrize("size", [10, 100])
def test_concurrent_retries_write_one_copy(tmp_path, runtime_for, size):
    db = tmp_path / "sensor.db"
    runtimes = [runtime_for("sensor", connect(db)) for _ in range(4)]
    results = []
    barrier = threading.Barrier(len(runtimes))

    def send(rt):
        barrier.wait()
        results.append(rt.put_many("Reading", _batch(size)))

    threads = [threading.Thread(target=send, args=(rt,)) for rt in runtimes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.applied for r in results) == [False, False, False, True]
    assert _count(runtimes[0]) == (size, 1)


def test_batch_over_100_actions_is_chunked_between_a_pending_marker_and_its_completion(sensor):
    result = sensor.put_many("Reading", _batch(100))
    assert result.applied and result.plan == "chunked: 1 transactions between marker writes"
    assert _count(sensor) == (100, 1)
    marker = _marker(sensor, "b1")
    assert (
        "_tw_state" not in marker and "_tw_claimed_ms" not in marker and len(marker["_tw_request"]["S"]) == 32
    )
    assert not sensor.put_many("Reading", _batch(100)).applied


def test_atomic_batch_over_100_actions_is_refused(sensor):
    with pytest.raises(TransactionTooLargeError, match="needs 101 actions"):
        sensor.put_many("Reading", _batch(100), atomic=True)
    assert _count(sensor) == (0, 0)


def test_chunked_batch_cannot_overwrite_another_batch(sensor):
    from tablewright.runtime import ConflictError

    sensor.put_many("Reading", _batch(100))  # chunked, key b1
    # A different idempotency key over the same item keys may not overwrite batch b1's readings.
    with pytest.raises(ConflictError, match="Reading"):
        sensor.put_many("Reading", _batch(100), idempotency_key="b2")
    assert _count(sensor) == (100, 1)


@pytest.mark.parametrize(
    ("key", "said"),
    [
        (5, "is not an idempotency key"),
        (True, "is not an idempotency key"),
        ({"id": 1}, "is not an idempotency key"),
        ("  ", "is not an idempotency key"),
        ("\ud800", "not UTF-8 text"),
        ("k" * 1025, "1025 bytes"),
    ],
    ids=["int", "bool", "dict", "blank", "surrogate", "too-long"],
)
def test_an_explicit_idempotency_key_that_is_not_a_request_id_is_refused(sensor, key, said):
    from tablewright.runtime import ValidationError

    # 5 and "5" (or True and "True") would share one marker: the second write would be skipped.
    with pytest.raises(ValidationError, match=said):
        sensor.put_many("Reading", _batch(2), idempotency_key=key)
    with pytest.raises(ValidationError, match=said):
        sensor.transact([sensor.tx_put("Reading", _batch(1)[0])], idempotency_key=key)
    assert _count(sensor) == (0, 0)
    sensor.put_many("Reading", _batch(2), idempotency_key="5")
    assert _count(sensor) == (2, 1)


@pytest.mark.parametrize("size", [10, 100], ids=["one-transaction", "chunked"])
def test_a_key_reused_for_another_request_is_refused_and_nothing_of_it_written(sensor, size):
    from tablewright.runtime import ConflictError, IdempotencyKeyReusedError

    sensor.put_many("Reading", _batch(size))
    with pytest.raises(IdempotencyKeyReusedError, match="'b1' was already used for a different request"):
        sensor.put_many("Reading", _other(size))
    items = sensor.client.scan(TableName="device_readings")["Items"]
    assert {i["sensors"]["M"]["t"]["N"] for i in items if "sensors" in i} == {str(t) for t in range(size)}
    assert _count(sensor) == (size, 1)
    assert issubclass(IdempotencyKeyReusedError, ConflictError)


def test_concurrent_requests_sharing_a_key_store_one_of_them_whole(tmp_path, runtime_for):
    from tablewright.runtime import IdempotencyKeyReusedError

    db = tmp_path / "sensor.db"
    runtimes = [runtime_for("sensor", connect(db)) for _ in range(6)]
    outcomes = []
    barrier = threading.Barrier(len(runtimes))

    def send(index, rt):
        batch = _batch(100) if index % 2 else _other(100)
        barrier.wait()
        try:
            outcomes.append((index % 2, rt.put_many("Reading", batch).applied))
        except IdempotencyKeyReusedError:
            outcomes.append((index % 2, "reused"))

    threads = [threading.Thread(target=send, args=pair) for pair in enumerate(runtimes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (winner,) = [variant for variant, outcome in outcomes if outcome is True]
    assert sorted(o for v, o in outcomes if v == winner and o is not True) == [False, False]
    assert [o for v, o in outcomes if v != winner] == ["reused"] * 3
    items = runtimes[0].client.scan(TableName="device_readings")["Items"]
    temperatures = {i["sensors"]["M"]["t"]["N"] for i in items if "sensors" in i}
    assert temperatures == {str(t if winner else 1000 + t) for t in range(100)}  # one batch, whole
    assert _count(runtimes[0]) == (100, 1)


def test_a_pending_marker_left_by_a_stopped_writer_is_taken_over_by_the_same_request(sensor):
    import time
    from datetime import UTC, datetime

    from tablewright.runtime import IdempotencyKeyReusedError
    from tablewright.runtime.markers import request_digest
    from tablewright.runtime.writes import Plan

    readings = _batch(100)
    entity = sensor.entity("Reading")
    request = request_digest("put_many", "Reading", readings)
    stopped = int(time.time() * 1000) - 60_000  # claimed a minute ago, never finished
    left = sensor.writer.idempotency_action(entity, "b1", datetime.now(UTC), request, claim=stopped)
    assert sensor.writer.run(lambda: Plan([left])).applied
    with pytest.raises(IdempotencyKeyReusedError):
        sensor.put_many("Reading", _other(100))  # another request: refused even while pending
    assert sensor.put_many("Reading", readings).applied
    assert _count(sensor) == (100, 1) and "_tw_state" not in _marker(sensor, "b1")
