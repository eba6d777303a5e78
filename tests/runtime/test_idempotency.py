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


def test_batch_over_100_actions_is_chunked_with_marker_last(sensor):
    result = sensor.put_many("Reading", _batch(100))
    assert result.applied and result.plan == "chunked: 1 transactions + marker"
    assert _count(sensor) == (100, 1)
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
