"""The cost estimate priced a strongly consistent GetItem before every create of an entity with
``unique`` constraints; the runtime makes none (one TransactWriteItems). The read before an update
is real and stays priced. Both are checked against the calls the runtime makes through botocore."""

from __future__ import annotations

from collections import Counter

import pytest

import tablewright
from tablewright.cost.estimate import SECONDS_PER_MONTH, entity_writes, estimate, read_before_write_units
from tablewright.cost.sizes import read_units
from tablewright.design import loads
from tablewright.runtime import Runtime

USERS = """\
version: 1
name: users
tables:
  users:
    partition_key: {{name: PK, type: S}}
entities:
  User:
    table: users
    attributes:
      user_id: {{type: string, required: true}}
      email: {{type: string, required: true}}
      name: {{type: string}}
    keys:
      table: {{pk: "USER#{{user_id}}"}}
    unique: [[email]]
volumes:
  entities:
    User: {{items: 10000, item_size: 1000, writes: 1/s{updates}}}
"""


def _calls_of(runtime: Runtime, write) -> Counter:
    """The DynamoDB operations one write sends through botocore."""
    calls: Counter = Counter()

    def count(model, **_: object) -> None:
        calls[model.name] += 1

    runtime.client.meta.events.register("before-call.dynamodb.*", count)
    try:
        write()
    finally:
        runtime.client.meta.events.unregister("before-call.dynamodb.*", count)
    return calls


def test_the_runtime_reads_before_an_update_but_not_before_a_create() -> None:
    runtime = Runtime(loads(USERS.format(updates="")), tablewright.connect(), direct=False)
    runtime.create_tables()
    created = _calls_of(runtime, lambda: runtime.put("User", {"user_id": "u1", "email": "a@example.com"}))
    assert created == Counter({"TransactWriteItems": 1})
    updated = _calls_of(runtime, lambda: runtime.update("User", {"user_id": "u1"}, {"name": "Ann"}))
    assert updated["GetItem"] == 1


def test_creates_of_a_unique_entity_are_priced_without_a_read() -> None:
    design = loads(USERS.format(updates=""))
    assert read_before_write_units(design, "User", entity_writes(design, "User")) == 0
    assert estimate(design).targets["users"].read_units == 0


def test_updates_are_priced_with_the_strong_read_the_runtime_makes() -> None:
    design = loads(USERS.format(updates=", updates: 2/s"))
    reads = read_before_write_units(design, "User", entity_writes(design, "User"))
    assert reads == pytest.approx(2 * read_units(1000, "strong"))  # the creates add nothing
    assert estimate(design).targets["users"].read_units == pytest.approx(reads * SECONDS_PER_MONTH)
