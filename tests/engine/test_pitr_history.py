"""Point-in-time recovery replays the before-image history exactly: property-based, on a test clock.

Any sequence of puts, updates and deletes (single, batched, transactional) at increasing times; a
restore to any moment must equal the table as a model kept it at that moment, its index included.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import tablewright
from tablewright.engine import Engine

from .support.holders import HOLD_WRITE_LOCK

KEYS = ["a", "b", "c", "d"]
write = st.tuples(
    st.sampled_from(["put", "update", "delete", "batch_put", "transact_delete"]),
    st.sampled_from(KEYS),
    st.integers(0, 9),
)


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def _history_table(client) -> None:
    """The table "history", with point-in-time recovery over one day."""
    client.create_table(
        TableName="history",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.update_continuous_backups(
        TableName="history",
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": 1},
    )


def _apply(client, kind: str, key: str, value: int) -> None:
    item = {"pk": {"S": key}, "v": {"N": str(value)}, "g": {"S": "all"}}
    if kind == "put":
        client.put_item(TableName="history", Item=item)
    elif kind == "batch_put":
        client.batch_write_item(RequestItems={"history": [{"PutRequest": {"Item": item}}]})
    elif kind == "update":
        client.update_item(
            TableName="history",
            Key={"pk": {"S": key}},
            UpdateExpression="SET v = :v, g = :g",
            ExpressionAttributeValues={":v": {"N": str(value)}, ":g": {"S": "all"}},
        )
    elif kind == "delete":
        client.delete_item(TableName="history", Key={"pk": {"S": key}})
    else:
        client.transact_write_items(
            TransactItems=[{"Delete": {"TableName": "history", "Key": {"pk": {"S": key}}}}]
        )


def _model_after(model: dict[str, int], kind: str, key: str, value: int) -> dict[str, int]:
    model = dict(model)
    if kind in ("delete", "transact_delete"):
        model.pop(key, None)
    else:
        model[key] = value
    return model


@settings(max_examples=25, deadline=None)
@given(before=st.lists(write, max_size=4), after=st.lists(write, min_size=1, max_size=12), pick=st.data())
def test_restore_to_any_moment_equals_the_table_then(before, after, pick) -> None:
    clock = Clock()
    client = tablewright.connect(engine=Engine(clock=clock))
    client.create_table(
        TableName="history",
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by_g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    model: dict[str, int] = {}
    for change in before:  # before PITR: not in the history, but in the table when it starts
        _apply(client, *change)
        model = _model_after(model, *change)
    client.update_continuous_backups(
        TableName="history", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
    )
    states = [(clock.now, model)]
    for change in after:
        clock.now += 1
        _apply(client, *change)
        model = _model_after(model, *change)
        states.append((clock.now, model))
    clock.now += 1
    moment, expected = pick.draw(st.sampled_from(states))
    offset = pick.draw(st.sampled_from([0.0, 0.5]))  # at a change, or between two
    client.restore_table_to_point_in_time(
        SourceTableName="history", TargetTableName="restored", RestoreDateTime=moment + offset
    )
    items = client.scan(TableName="restored")["Items"]
    assert {i["pk"]["S"]: int(i["v"]["N"]) for i in items} == expected
    indexed = client.query(
        TableName="restored",
        IndexName="by_g",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "all"}},
    )["Items"]
    assert sorted(i["pk"]["S"] for i in indexed) == sorted(expected)


def test_history_is_kept_by_every_engine_sharing_the_file(tmp_path) -> None:
    clock = Clock()
    path = tmp_path / "shared.db"
    first = tablewright.connect(engine=Engine(path, clock=clock))
    first.create_table(
        TableName="shared",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    first.put_item(TableName="shared", Item={"pk": {"S": "kept"}})
    first.update_continuous_backups(
        TableName="shared", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
    )
    moment = clock.now
    clock.now += 10
    second = tablewright.connect(engine=Engine(path, clock=clock))  # another engine on the same file
    second.delete_item(TableName="shared", Key={"pk": {"S": "kept"}})
    second.put_item(TableName="shared", Item={"pk": {"S": "later"}})
    clock.now += 10
    first.restore_table_to_point_in_time(
        SourceTableName="shared", TargetTableName="before", RestoreDateTime=moment
    )
    assert [i["pk"]["S"] for i in first.scan(TableName="before")["Items"]] == ["kept"]
    reopened = tablewright.connect(engine=Engine(path, clock=clock))
    assert [i["pk"]["S"] for i in reopened.scan(TableName="shared")["Items"]] == ["later"]


def test_the_sweeper_forgets_before_images_older_than_the_window_and_restores_stay_right() -> None:
    import time

    clock = Clock()
    engine = Engine(clock=clock, ttl_interval=0.05)
    client = tablewright.connect(engine=engine)
    _history_table(client)

    def history() -> int:
        with engine.store.read() as conn:
            return conn.execute("SELECT COUNT(*) FROM tw_history").fetchone()[0]

    for value in range(5):  # five changes of one item, two days ago
        _apply(client, "put", "a", value)
        clock.now += 60
    clock.now += 2 * 86400
    _apply(client, "put", "a", 7)
    moment = clock.now
    clock.now += 60
    _apply(client, "put", "a", 8)
    deadline = time.monotonic() + 30
    while history() > 2 and time.monotonic() < deadline:
        time.sleep(0.05)

    assert history() == 2  # the two changes inside the one-day window
    client.restore_table_to_point_in_time(
        SourceTableName="history", TargetTableName="then", RestoreDateTime=moment
    )
    assert client.get_item(TableName="then", Key={"pk": {"S": "a"}})["Item"]["v"] == {"N": "7"}
    engine.close()


def test_a_sweep_that_waits_too_long_for_the_write_lock_is_a_warning_without_traceback(
    tmp_path, caplog
) -> None:
    import logging
    import subprocess
    import sys
    import time

    path = str(tmp_path / "swept.db")
    clock = Clock()
    with Engine(path, clock=clock) as engine:
        client = tablewright.connect(engine=engine)
        _history_table(client)
        for value in range(3):
            _apply(client, "put", "a", value)
    clock.now += 3 * 86400  # the before-images are past the window: the sweeper has history to trim
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_WRITE_LOCK, path],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with caplog.at_level(logging.WARNING, logger="tablewright.engine"):
            engine = Engine(path, clock=clock, ttl_interval=0.05, lock_timeout=0.1)
            deadline = time.monotonic() + 30
            while "waited too long for the write lock" not in caplog.text and time.monotonic() < deadline:
                time.sleep(0.05)
            engine.close()
    finally:
        holder.communicate("", timeout=30)
    records = [record for record in caplog.records if "write lock" in record.getMessage()]
    assert records and all(
        record.levelno == logging.WARNING and record.exc_info is None for record in records
    )
    assert not [record for record in caplog.records if record.exc_info is not None]
