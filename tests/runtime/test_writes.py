"""Validation, key composition, computed attributes, optimistic locking, uniqueness markers."""

import threading
from datetime import UTC, datetime

import pytest

from tablewright import connect
from tablewright.runtime import ConflictError, ConventionError, UniquenessError, ValidationError

BASE = 1_733_529_600_000
NOW = datetime(2025, 1, 15, 12, 0, tzinfo=UTC)


def test_validation_lists_every_violation_and_writes_nothing(van):
    bad = {"thing_name": "Van 01", "timestamp": BASE, "message_type": "chatter", "battery_voltage": 99}
    with pytest.raises(ValidationError) as caught:
        van.put("Message", bad)
    rules = {(v.attribute, v.rule) for v in caught.value.violations}
    assert rules == {("thing_name", "pattern"), ("message_type", "enum"), ("battery_voltage", "max")}
    assert "Message.battery_voltage: 99 is more than the maximum 20 [max]" in str(caught.value)
    assert van.client.scan(TableName="van-telemetry")["Count"] == 0


def test_float_is_refused(van):
    with pytest.raises(ValidationError, match=r"extra.*float"):
        van.put("Message", {"thing_name": "v", "timestamp": BASE, "message_type": "status", "extra": 1.5})


def test_keys_discriminator_and_computed_attributes_are_composed(nexus):
    nexus.put(
        "Task",
        {
            "userId": "u1",
            "taskId": "task_1",
            "title": "t",
            "status": "TODO",
            "dueUtc": "2025-03-01T09:00:00Z",
        },
        now=NOW,
    )
    raw = nexus.client.get_item(
        TableName="ProductivityData", Key={"PK": {"S": "USER#u1"}, "SK": {"S": "TASK#task_1"}}
    )
    item = raw["Item"]
    assert item["entityType"] == {"S": "TASK"}
    assert item["GSI1PK"] == {"S": "USER#u1#2025"} and item["GSI1SK"] == {"S": "2025-03-01T09:00:00Z"}
    assert item["GSI3SK"] == {"S": "TASK#TODO#3"}  # priority default 3
    assert item["createdAt"] == item["updatedAt"] == {"S": "2025-01-15T12:00:00Z"}
    assert item["version"] == {"N": "1"}
    record = nexus.get("Task", userId="u1", taskId="task_1")
    assert record.entity == "Task" and "PK" not in record and record["priority"] == 3


def test_ttl_is_epoch_seconds(van):
    van.put("Message", {"thing_name": "v", "timestamp": BASE, "message_type": "status"})
    assert van.get("Message", thing_name="v", timestamp=BASE)["ttl"] == BASE // 1000 + 30 * 86400


def test_update_recomputes_sparse_index_keys(nexus):
    nexus.put("Task", {"userId": "u1", "taskId": "task_1", "title": "t", "status": "TODO"}, now=NOW)
    nexus.update("Task", {"userId": "u1", "taskId": "task_1"}, {"status": "BACKLOG"}, expected_version=1)
    raw = nexus.client.get_item(
        TableName="ProductivityData", Key={"PK": {"S": "USER#u1"}, "SK": {"S": "TASK#task_1"}}
    )
    assert "GSI3PK" not in raw["Item"] and raw["Item"]["version"] == {"N": "2"}
    assert raw["Item"]["createdAt"] == {"S": "2025-01-15T12:00:00Z"}


def test_update_without_version_breaks_the_convention(nexus):
    nexus.put("Task", {"userId": "u1", "taskId": "task_1", "title": "t", "status": "TODO"})
    with pytest.raises(ConventionError, match="version_on_update"):
        nexus.update("Task", {"userId": "u1", "taskId": "task_1"}, {"title": "x"})


def test_stale_version_names_entity_key_expected_and_actual(nexus):
    nexus.put("Task", {"userId": "u1", "taskId": "task_1", "title": "t", "status": "TODO"})
    nexus.update("Task", {"userId": "u1", "taskId": "task_1"}, {"title": "a"}, expected_version=1)
    with pytest.raises(ConflictError) as caught:
        nexus.update("Task", {"userId": "u1", "taskId": "task_1"}, {"title": "b"}, expected_version=1)
    assert (caught.value.expected, caught.value.actual) == (1, 2)
    assert "Task" in str(caught.value) and "TASK#task_1" in str(caught.value)
    with pytest.raises(ConflictError):  # creating over an existing versioned item
        nexus.put("Task", {"userId": "u1", "taskId": "task_1", "title": "t", "status": "TODO"})


def test_exactly_one_concurrent_writer_wins(tmp_path, runtime_for):
    db = tmp_path / "nexus.db"
    first = runtime_for("nexus", connect(db))
    first.put("Task", {"userId": "u1", "taskId": "task_1", "title": "t", "status": "TODO"})
    writers = [runtime_for("nexus", connect(db)) for _ in range(8)]
    outcomes: list[str] = []
    barrier = threading.Barrier(len(writers))

    def write(rt, n):
        barrier.wait()
        try:
            rt.update("Task", {"userId": "u1", "taskId": "task_1"}, {"title": f"w{n}"}, expected_version=1)
            outcomes.append("won")
        except ConflictError:
            outcomes.append("conflict")

    threads = [threading.Thread(target=write, args=(rt, n)) for n, rt in enumerate(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["conflict"] * 7 + ["won"]
    assert first.get("Task", userId="u1", taskId="task_1")["version"] == 2


def _markers(rt):
    items = rt.client.scan(TableName="ProductivityData")["Items"]
    return sorted(i["PK"]["S"] for i in items if i["PK"]["S"].startswith("_tw#unique"))


def test_uniqueness_markers_added_moved_removed(nexus):
    nexus.put("User", {"userId": "usr_1", "email": "a@x.io"})
    assert _markers(nexus) == ["_tw#unique#User#email#a@x.io"]
    with pytest.raises(UniquenessError) as caught:
        nexus.put("User", {"userId": "usr_2", "email": "a@x.io"})
    assert caught.value.constraint == ("email",) and "a@x.io" in str(caught.value)
    assert nexus.get("User", userId="usr_2") is None
    nexus.update("User", {"userId": "usr_1"}, {"email": "b@x.io"}, expected_version=1)
    assert _markers(nexus) == ["_tw#unique#User#email#b@x.io"]
    nexus.put("User", {"userId": "usr_2", "email": "a@x.io"})  # the old value is free again
    with pytest.raises(UniquenessError):
        nexus.update("User", {"userId": "usr_2"}, {"email": "b@x.io"}, expected_version=1)
    assert nexus.get("User", userId="usr_2")["email"] == "a@x.io"
    nexus.delete("User", {"userId": "usr_1"}, expected_version=2)
    assert _markers(nexus) == ["_tw#unique#User#email#a@x.io"]


def test_table_key_cannot_change_in_update(nexus):
    nexus.put("User", {"userId": "usr_1", "email": "a@x.io"})
    with pytest.raises(ValidationError, match="userId is part of the table key"):
        nexus.update("User", {"userId": "usr_1"}, {"userId": "usr_9"}, expected_version=1)


def test_remove_given_one_name_as_a_string_removes_that_attribute(van):
    key = {"thing_name": "van-01", "timestamp": 1733529600000}
    van.put("Message", {**key, "message_type": "status", "battery_voltage": 12})
    van.update("Message", key, {}, remove="battery_voltage")
    assert "battery_voltage" not in van.get("Message", **key)
