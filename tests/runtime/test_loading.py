"""``Runtime.load_many``: the engine's bulk load and BatchWriteItem store the same, and both store what
``put_many`` composes (defaults, keys, timestamps, versions, uniqueness markers)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import Runtime, UniquenessError, ValidationError
from tablewright.runtime.direct import DirectClient

DESIGN = """
version: 1
tables:
  things: {partition_key: PK, sort_key: SK, ttl: expires}
entities:
  Doc:
    table: things
    version: version
    unique: [[slug]]
    attributes:
      id: {type: string, required: true}
      slug: {type: string}
      body: {type: binary}
      tags: {type: string_set}
      score: {type: number}
      created: {type: string, format: rfc3339, computed: created_at}
      version: {type: number}
    keys:
      table: {pk: "D#{id}", sk: "DOC"}
"""
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
DOCS = [
    {"id": "a", "slug": "first", "body": b"\x00\x01", "tags": {"x", "y"}, "score": Decimal("1.50")},
    {"id": "b", "slug": "second", "score": 100},
    {"id": "c"},
]


def _stored(rt: Runtime) -> list[str]:
    return sorted(repr(item) for item in rt.client.scan(TableName="things")["Items"])


def _runtime(direct: bool) -> Runtime:
    rt = Runtime(loads(DESIGN), connect(), secret=b"s", direct=direct)
    rt.create_tables()
    return rt


def test_bulk_load_and_batch_write_item_store_what_put_many_composes() -> None:
    bulk, batch, reference = _runtime(True), _runtime(False), _runtime(True)
    assert isinstance(bulk.data, DirectClient) and not isinstance(batch.data, DirectClient)
    progress: list[int] = []
    loaded = bulk.load_many("Doc", DOCS, now=NOW, on_progress=progress.append)
    batch.load_many("Doc", DOCS, now=NOW)
    reference.put_many("Doc", DOCS, now=NOW)
    assert sum(progress) == len(DOCS)
    assert [r["id"] for r in loaded.records] == ["a", "b", "c"]
    assert _stored(bulk) == _stored(batch)
    # put_many adds one idempotency-free transaction's items: the same items and uniqueness markers
    assert _stored(bulk) == _stored(reference)
    assert len(_stored(bulk)) == 5  # three items, two uniqueness markers


def test_a_load_replaces_stored_items_and_refuses_repeats_within_itself() -> None:
    rt = _runtime(True)
    rt.load_many("Doc", DOCS, now=NOW)
    rt.load_many("Doc", [{"id": "a", "slug": "first", "score": 2}], now=NOW)
    assert rt.get("Doc", id="a")["score"] == 2
    with pytest.raises(ValidationError, match="same table key as item"):
        rt.load_many("Doc", [{"id": "z"}, {"id": "z"}], now=NOW)
    with pytest.raises(ValidationError, match="same slug as item"):
        rt.load_many("Doc", [{"id": "y", "slug": "s"}, {"id": "x", "slug": "s"}], now=NOW)


@pytest.mark.parametrize("direct", [True, False])
def test_an_item_the_engine_refuses_is_the_same_validation_error_on_both_paths(direct: bool) -> None:
    # Refused before the load, naming the item: BatchWriteItem kept the batches sent before it.
    rt = _runtime(direct)
    with pytest.raises(ValidationError, match=r"Doc\.\[0\]\.\(item\): .*Item size has exceeded"):
        rt.load_many("Doc", [{"id": "big", "body": b"x" * 410_000}], now=NOW)


def _markers(rt: Runtime) -> list[str]:
    return sorted(
        item["PK"]["S"]
        for item in rt.client.scan(TableName="things")["Items"]
        if item["PK"]["S"].startswith("_tw#")
    )


@pytest.mark.parametrize("direct", [True, False])
def test_a_load_refuses_a_unique_value_another_stored_item_owns_and_writes_nothing(direct: bool) -> None:
    rt = _runtime(direct)
    rt.put("Doc", {"id": "owner", "slug": "taken"})
    before = _stored(rt)
    with pytest.raises(ValidationError, match=r"\[1\].*already belongs to the stored item Doc:.*D#owner"):
        rt.load_many("Doc", [{"id": "fresh", "slug": "free"}, {"id": "thief", "slug": "taken"}], now=NOW)
    assert _stored(rt) == before
    # the owner keeps its value: another item still cannot claim it
    with pytest.raises(UniquenessError):
        rt.put("Doc", {"id": "other", "slug": "taken"})


@pytest.mark.parametrize("direct", [True, False])
def test_replacing_an_item_releases_the_unique_values_it_no_longer_holds(direct: bool) -> None:
    rt = _runtime(direct)
    rt.load_many("Doc", DOCS, now=NOW)
    rt.load_many("Doc", [{"id": "a", "slug": "renamed"}, {"id": "b"}], now=NOW)
    assert _markers(rt) == ["_tw#unique#Doc#slug#renamed"]
    rt.put("Doc", {"id": "new", "slug": "first"})  # the released value is free again
    rt.load_many("Doc", [{"id": "a", "slug": "renamed"}], now=NOW)  # a repeated load changes nothing
    assert _markers(rt) == ["_tw#unique#Doc#slug#first", "_tw#unique#Doc#slug#renamed"]
