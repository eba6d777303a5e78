"""What an unversioned update sends: only what changed, guarded by exactly what it was derived from.

The guards are the point (runtime/updates.py): a derived value (an index key, a template, a TTL
from another attribute) is computed from attributes the runtime *read*, so the UpdateItem must
require those still to hold what was read, and must not guard what depends on nothing stored (the
write time), or every concurrent update would fail for nothing. Each case below names the guards
one change must carry and why; the requests are the ones a real engine received.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import NotFoundError, Runtime

from .interleaving import BeforeWrite

DESIGN = """
version: 1
name: plans
tables:
  main:
    name: Main
    partition_key: {name: PK, type: S}
    sort_key: {name: SK, type: S}
    indexes:
      GSI1: {kind: global, partition_key: {name: GSI1PK, type: S}, sort_key: {name: GSI1SK, type: S}}
      GSI2: {kind: global, partition_key: {name: GSI2PK, type: S}}
entities:
  Doc:
    table: main
    attributes:
      id: {type: string, required: true}
      createdAt: {type: string, format: rfc3339, computed: created_at}
      updatedAt: {type: string, format: rfc3339, computed: updated_at}
      keepUntil: {type: number, computed: {ttl: {retention: 30d}}}
      owner: string
      title: string
      status: string
      region: string
      kind: string
      code: string
      slug: {type: string, computed: {template: "{kind}-{code}"}}
      seenAt: {type: number, format: epoch_s}
      purgeAt: {type: number, computed: {ttl: {from: seenAt, unit: s, retention: 1d}}}
      email: string
      note: string
    keys:
      table: {pk: "DOC#{id}", sk: "DOC"}
      GSI1: {pk: "OWNER#{owner}", sk: "{title}", when: "status = 'LIVE'"}
      GSI2: {pk: "REGION#{region}"}
    unique: [[email]]
"""
KEY = {"id": "d1"}
BORN = datetime(2025, 1, 1, tzinfo=UTC)
LATER = datetime(2025, 1, 2, tzinfo=UTC)


class RecordingClient:
    """A real client that keeps the UpdateItem requests it sends, in a transaction or alone."""

    def __init__(self, client) -> None:
        self._client, self.updates = client, []

    def __getattr__(self, name):
        attribute = getattr(self._client, name)
        if name == "update_item":

            def update_item(**request):
                self.updates.append(request)
                return attribute(**request)

            return update_item
        if name == "transact_write_items":

            def transact_write_items(**request):
                self.updates += [entry["Update"] for entry in request["TransactItems"] if "Update" in entry]
                return attribute(**request)

            return transact_write_items
        return attribute


@pytest.fixture
def docs() -> Runtime:
    rt = Runtime(loads(DESIGN), RecordingClient(connect()), secret=b"test-secret")
    rt.create_tables()
    rt.put(
        "Doc",
        {
            "id": "d1",
            "owner": "ada",
            "title": "t1",
            "status": "LIVE",
            "region": "eu",
            "kind": "memo",
            "code": "c1",
            "seenAt": 1_735_689_600,
            "note": "n0",
        },
        now=BORN,
    )
    rt.client.updates.clear()
    return rt


def _names(request: dict, text: str) -> list[str]:
    return [
        request.get("ExpressionAttributeNames", {}).get(token, token) for token in re.findall(r"#\w+", text)
    ]


def _sent(rt: Runtime) -> tuple[set[str], set[str], set[str]]:
    """(attributes SET, attributes REMOVEd, attributes the condition guards) of the one update sent."""
    (request,) = rt.client.updates
    expression = request["UpdateExpression"]
    set_part, _, remove_part = expression.partition("REMOVE ")
    sets = set(_names(request, set_part))
    condition = request["ConditionExpression"]
    assert re.match(r"\(?attribute_exists\(", condition)  # an update never creates the item
    guards = set(_names(request, condition)) - {"PK"}
    return sets, set(_names(request, remove_part)), guards


def test_a_change_nothing_derives_from_is_not_guarded(docs):
    docs.update("Doc", KEY, {"note": "n1"}, now=LATER)
    sets, removes, guards = _sent(docs)
    # The write-time values move with every write and depend on nothing read: never guarded.
    assert sets == {"note", "updatedAt", "keepUntil"}
    assert (removes, guards) == (set(), set())


def test_a_key_input_guards_the_other_inputs_and_the_derived_keys(docs):
    docs.update("Doc", KEY, {"title": "t2"}, now=LATER)
    sets, _, guards = _sent(docs)
    assert sets == {"title", "GSI1SK", "updatedAt", "keepUntil"}
    # GSI1SK was composed from the read owner and status (the index's `when`) besides the new title.
    assert guards == {"owner", "status", "GSI1SK"}


def test_the_when_condition_of_an_index_is_an_input_of_its_keys(docs):
    docs.update("Doc", KEY, {"status": "DRAFT"}, now=LATER)
    sets, removes, guards = _sent(docs)
    assert "status" in sets and removes == {"GSI1PK", "GSI1SK"}  # out of the sparse index
    assert guards == {"owner", "title", "GSI1PK", "GSI1SK"}


def test_an_index_without_a_sort_key_derives_from_its_partition_fields(docs):
    docs.update("Doc", KEY, {"region": "us"}, now=LATER)
    sets, _, guards = _sent(docs)
    assert {"region", "GSI2PK"} <= sets
    assert guards == {"GSI2PK"}


def test_a_template_guards_its_other_fields(docs):
    docs.update("Doc", KEY, {"kind": "letter"}, now=LATER)
    sets, _, guards = _sent(docs)
    assert {"kind", "slug"} <= sets
    assert guards == {"code", "slug"}
    assert docs.get("Doc", **KEY)["slug"] == "letter-c1"


def test_a_ttl_from_an_attribute_is_guarded_and_one_from_the_write_time_is_not(docs):
    docs.update("Doc", KEY, {"seenAt": 1_735_776_000}, now=LATER)
    sets, _, guards = _sent(docs)
    assert {"seenAt", "purgeAt", "keepUntil", "updatedAt"} <= sets
    assert guards == {"purgeAt"}
    assert docs.get("Doc", **KEY)["purgeAt"] == 1_735_776_000 + 86_400


def test_a_unique_value_claimed_or_released_guards_the_value_read(docs):
    docs.update("Doc", KEY, {"email": "a@x.io"}, now=LATER)
    _, _, guards = _sent(docs)
    request = docs.client.updates[0]
    assert guards == {"email"} and "attribute_not_exists(" in request["ConditionExpression"]
    docs.client.updates.clear()
    docs.update("Doc", KEY, {}, remove=["email"], now=LATER)
    _, removes, guards = _sent(docs)
    assert removes == {"email"} and guards == {"email"}
    markers = [i for i in docs.client.scan(TableName="Main")["Items"] if i["PK"]["S"].startswith("_tw#")]
    assert markers == []  # claimed, then released


def test_an_update_that_changes_nothing_sends_nothing_and_returns_the_item(docs):
    result = docs.update("Doc", KEY, {"note": "n0"}, now=BORN)
    assert docs.client.updates == []
    assert result.record is not None and result.record["note"] == "n0"


def _racing(docs: Runtime) -> Runtime:
    client = docs.client._client
    rival = Runtime(loads(DESIGN), client, secret=b"test-secret")
    return Runtime(
        loads(DESIGN), BeforeWrite(client, lambda: rival.delete("Doc", KEY)), secret=b"test-secret"
    )


def test_an_item_deleted_after_the_read_is_not_found_as_if_missing_when_read(docs):
    # The same answer as an update of an item missing at the read: the plan is made again.
    with pytest.raises(NotFoundError, match="does not exist"):
        _racing(docs).update("Doc", KEY, {"note": "late"}, now=LATER)
    assert docs.client.scan(TableName="Main")["Items"] == []  # not recreated by the update
    docs.put("Doc", {"id": "d1", "note": "again"}, now=LATER)
    assert _racing(docs).delete("Doc", KEY).applied is False  # deleted by the other: nothing left to do
    assert docs.client.scan(TableName="Main")["Items"] == []
