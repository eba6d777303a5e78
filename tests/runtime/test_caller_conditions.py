"""Caller conditions: parameters stored as the attribute they are compared with, and failures explained.

runtime/conditions.py turns ``condition=`` into a ConditionExpression: a ``datetime`` parameter takes
the format of the attribute it is compared with (wherever it sits in the predicate), a timestamp
text the precision that attribute stores, and a false condition is explained from the stored item.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tablewright import connect
from tablewright.design import loads
from tablewright.design.predicates import Predicate
from tablewright.design.validators import number_problem
from tablewright.runtime import ConditionFailedError, NotFoundError, Runtime, ValidationError
from tablewright.runtime.conditions import condition_of

from .interleaving import BeforeWrite

DESIGN = loads(
    """
version: 1
name: conditions
entity_type_attribute: kind
tables:
  main: {name: Main, partition_key: {name: PK, type: S}, sort_key: {name: SK, type: S}}
entities:
  Job:
    table: main
    entity_type: JOB
    additional_attributes: false
    attributes:
      id: {type: string, required: true}
      state: string
      note: string
      tries: number
      openedAt: {type: number, format: epoch_ms}
      dueAt: {type: string, format: rfc3339, precision: ms, truncate: true}
    keys:
      table: {pk: "JOB#{id}", sk: "JOB"}
  Log:
    table: main
    entity_type: LOG
    attributes:
      id: {type: string, required: true}
    keys:
      table: {pk: "LOG#{id}", sk: "LOG"}
"""
)
JOB = {"id": "j1"}
OPENED = datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture
def jobs() -> Runtime:
    rt = Runtime(DESIGN, connect(), secret=b"test-secret")
    rt.create_tables()
    rt.put(
        "Job",
        {
            "id": "j1",
            "state": "open",
            "tries": 2,
            "openedAt": 1_735_689_600_000,
            "note": "2025-01-15T12:00:00Z",
            "dueAt": "2025-01-15T12:00:00.123Z",
        },
    )
    return rt


def _update(rt: Runtime, condition: str, **params: object) -> None:
    rt.update("Job", JOB, {"state": "done"}, condition=condition, condition_params=params)
    rt.update("Job", JOB, {"state": "open"})  # as it was, so the next update changes something


def test_a_datetime_inside_and_or_not_takes_its_attributes_format(jobs):
    _update(jobs, "NOT (state = :s) OR (tries > :n AND openedAt = :t)", s="open", n=1, t=OPENED)
    with pytest.raises(ConditionFailedError):
        _update(
            jobs,
            "NOT (state = :s) OR (tries > :n AND openedAt = :t)",
            s="open",
            n=1,
            t=OPENED.replace(year=2024),
        )


def test_a_datetime_compared_with_a_plain_text_attribute_is_utc_text_with_every_digit(jobs):
    _update(jobs, "note = :t", t=datetime(2025, 1, 15, 12, 0, tzinfo=UTC))
    jobs.update("Job", JOB, {"note": "2025-01-15T12:00:00.500Z"})
    with pytest.raises(ConditionFailedError):  # the half second is not cut off to match ...00Z
        _update(jobs, "note = :t", t=datetime(2025, 1, 15, 12, 0, tzinfo=UTC))
    _update(jobs, "note = :t", t=datetime(2025, 1, 15, 12, 0, 0, 500_000, tzinfo=UTC))


def test_a_datetime_takes_the_precision_the_attribute_stores(jobs):
    # dueAt stores milliseconds and truncates finer digits: the parameter is truncated the same way.
    _update(jobs, "dueAt = :t", t=datetime(2025, 1, 15, 12, 0, 0, 123_999, tzinfo=UTC))
    with pytest.raises(ConditionFailedError):
        _update(jobs, "dueAt = :t", t=datetime(2025, 1, 15, 12, 0, 0, 124_000, tzinfo=UTC))


def test_a_timestamp_text_takes_the_precision_the_attribute_stores(jobs):
    # dueAt stores milliseconds and truncates finer digits: the parameter is truncated the same way.
    _update(jobs, "dueAt = :t", t="2025-01-15T12:00:00.123999Z")
    with pytest.raises(ConditionFailedError):
        _update(jobs, "dueAt = :t", t="2025-01-15T12:00:00.124Z")


def test_a_timestamp_text_for_an_undeclared_attribute_is_left_as_given():
    condition = condition_of(DESIGN.entities["Log"], "seenAt = :t", {"t": "2025-01-15T14:00:00+02:00"})
    assert condition.params == {"t": "2025-01-15T14:00:00+02:00"}


def test_a_false_condition_is_explained_from_the_stored_item(jobs):
    with pytest.raises(ConditionFailedError) as caught:
        _update(jobs, "attribute_not_exists(tries) OR note = :n", n="x")
    assert caught.value.reason == "the stored item has note='2025-01-15T12:00:00Z', tries=2"
    jobs.update("Job", JOB, {}, remove=["note"])
    with pytest.raises(ConditionFailedError) as caught:
        _update(jobs, "note = :n AND tries > :m", n="x", m=0)
    assert caught.value.reason == "the stored item has note is absent, tries=2"


def test_a_condition_on_a_missing_item_says_the_item_does_not_exist(jobs):
    with pytest.raises(ConditionFailedError) as caught:
        jobs.replace(
            "Job", {"id": "j2", "state": "new"}, condition="state = :s", condition_params={"s": "open"}
        )
    assert caught.value.reason == "the item does not exist"
    assert jobs.get("Job", id="j2") is None


def test_every_problem_of_a_condition_is_named_at_once():
    with pytest.raises(ValidationError) as caught:
        condition_of(DESIGN.entities["Job"], "colour = :c AND tries > :n", {"n": 10**200})
    assert caught.value.entity == "Job"
    ((violation),) = caught.value.violations
    assert violation.entity == "Job"
    assert violation.message.startswith(
        "parameter :c is not given; colour is not an attribute of Job; parameter :n: "
        + number_problem(10**200)
    )
    assert "(condition 'colour = :c AND tries > :n')" in violation.message


def test_the_entity_type_attribute_and_a_parsed_predicate_are_accepted():
    job = DESIGN.entities["Job"]
    assert condition_of(job, "kind = :k", {"k": "JOB"}).params == {"k": "JOB"}
    predicate = Predicate("tries > :n")
    assert condition_of(job, predicate, {"n": 1}).predicate is predicate


def test_an_update_that_changes_nothing_still_holds_to_its_condition(jobs):
    # DynamoDB checks an UpdateItem's condition whatever the update would change; the runtime sends
    # nothing when nothing changes, so it judges the condition on the item it read.
    with pytest.raises(ConditionFailedError, match="tries=2"):
        jobs.update("Job", JOB, {"state": "open"}, condition="tries > :n", condition_params={"n": 5})
    assert jobs.update(
        "Job", JOB, {"state": "open"}, condition="tries > :n", condition_params={"n": 1}
    ).applied
    unchanged = jobs.tx_update(
        "Job", JOB, {"state": "open"}, condition="tries > :n", condition_params={"n": 5}
    )
    with pytest.raises(ConditionFailedError) as caught:
        jobs.transact([jobs.tx_update("Job", {"id": "j1"}, {"note": "x"}), unchanged])
    assert caught.value.operation == 1
    assert str(caught.value).startswith(
        "operation 1 (update Job) (PK='JOB#j1', SK='JOB'): condition 'tries > :n'"
    )
    assert jobs.get("Job", **JOB)["note"] == "2025-01-15T12:00:00Z"  # the transaction wrote nothing


def test_an_unchanged_update_in_a_transaction_holds_its_condition_until_the_commit(jobs):
    jobs.put("Job", {"id": "j2", "state": "open"})
    racing = Runtime(
        DESIGN,
        BeforeWrite(jobs.client, lambda: jobs.update("Job", JOB, {"tries": 9}), ["transact_write_items"]),
        secret=b"test-secret",
    )
    ops = [
        racing.tx_update("Job", JOB, {"state": "open"}, condition="tries < :n", condition_params={"n": 5}),
        racing.tx_update("Job", {"id": "j2"}, {"state": "done"}),
    ]
    # The condition held when the update read the item; another writer made it false before the commit.
    with pytest.raises(ConditionFailedError, match=r"operation 0 \(update Job\).*tries=9"):
        racing.transact(ops)
    assert jobs.get("Job", id="j2")["state"] == "open"


def test_an_unchanged_update_in_a_transaction_of_an_item_deleted_meanwhile_is_not_found(jobs):
    jobs.put("Job", {"id": "j2", "state": "open"})
    racing = Runtime(
        DESIGN,
        BeforeWrite(jobs.client, lambda: jobs.delete("Job", JOB), ["transact_write_items"]),
        secret=b"x",
    )
    ops = [
        racing.tx_update("Job", JOB, {"state": "open"}),
        racing.tx_update("Job", {"id": "j2"}, {"state": "done"}),
    ]
    with pytest.raises(NotFoundError, match=r"operation 0 \(update Job\)"):
        racing.transact(ops)
    assert jobs.get("Job", id="j2")["state"] == "open"
