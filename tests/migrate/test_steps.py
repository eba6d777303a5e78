"""Steps, checksums, writes and verification over the embedded engine."""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import tablewright
from tablewright.migrate import (
    Backfill,
    Copy,
    CreateIndex,
    CreateTable,
    DeleteTable,
    Merge,
    Plan,
    Put,
    load_plan,
    run_plan,
    verify_copy,
)
from tablewright.migrate.checksum import Digest, item_hash
from tablewright.migrate.io import KeySchemas, Writer, encode, outputs

from .helpers import dump, items

SPEC = {
    "TableName": "people",
    "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
    "BillingMode": "PAY_PER_REQUEST",
}


def _people(client: Any, count: int = 60) -> None:
    client.create_table(**SPEC)
    for n in range(count):
        client.put_item(
            TableName="people",
            Item=encode({"id": f"p{n:03}", "name": f"person {n}", "n": n, "skip": n % 10 == 0}),
        )


def test_checksum_is_order_free_type_exact_and_counts_duplicates() -> None:
    assert item_hash({"a": 1, "b": "x"}) == item_hash({"b": "x", "a": Decimal("1.0")})
    assert item_hash({"a": 1}) != item_hash({"a": "1"})
    assert item_hash({"s": {"b", "a"}}) == item_hash({"s": {"a", "b"}})
    once, twice = Digest(), Digest()
    once.add({"a": 1})
    for _ in range(2):
        twice.add({"a": 1})
    assert once.total != twice.total and twice.count == 2  # a sum, not XOR: duplicates do not cancel


def test_outputs_normalise_every_transform_result() -> None:
    assert outputs(None, "t") == []
    assert outputs({"id": 1}, "t") == [Put("t", {"id": 1})]
    assert outputs([("u", {"id": 2}), Merge("v", {"id": 3})], "t") == [
        Put("u", {"id": 2}),
        Merge("v", {"id": 3}),
    ]
    with pytest.raises(TypeError, match="expected an item"):
        outputs([42], "t")
    assert outputs(Merge("v", {"id": 4}), "t") == [Merge("v", {"id": 4})]  # one write, not in a list
    with pytest.raises(TypeError, match="expected None, an item, a Put or Merge, or a list"):
        outputs(42, "t")  # not 'int' object is not iterable


def test_plan_step_ids_must_be_unique() -> None:
    with pytest.raises(ValueError, match="two steps have the id 'copy:a->b'"):
        Plan([Copy("a", "b"), Copy("a", "b")])


class Throttling:
    """A real engine client that leaves part of every first BatchWriteItem unprocessed, as DynamoDB does
    under throttling (the stand-in is for AWS's behaviour, not for our code)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def batch_write_item(self, RequestItems: dict) -> dict:  # noqa: N803  (boto3's parameter name)
        self.calls += 1
        if self.calls % 2:  # odd calls write only the first request of each table
            done = {t: r[:1] for t, r in RequestItems.items()}
            rest = {t: r[1:] for t, r in RequestItems.items() if r[1:]}
            self.client.batch_write_item(RequestItems=done)
            return {"UnprocessedItems": rest}
        return self.client.batch_write_item(RequestItems=RequestItems)


def test_writer_retries_unprocessed_items_with_backoff() -> None:
    client = tablewright.connect()
    client.create_table(**SPEC)
    throttled = Throttling(client)
    pauses: list[float] = []
    writer = Writer(throttled, KeySchemas(client), sleep=pauses.append)
    assert writer.write([Put("people", {"id": f"p{n}", "v": n}) for n in range(30)]) == 30
    assert len(items(client, "people")) == 30
    assert writer.retries == len(pauses) >= 2


def test_copy_with_transform_verifies_and_deletes_source_only_when_asked(tmp_path: Path) -> None:
    client = tablewright.connect()
    _people(client)
    from .transforms_for_tests import upper_name

    plan = Plan(
        [
            CreateTable(like="people", name="people2"),
            Copy("people", "people2", upper_name, delete_source=True),
        ]
    )
    report = run_plan(client, plan, state=tmp_path / "s.json", segments=3, page_size=7)
    assert report.ok
    copied = {i["id"]: i for i in items(client, "people2")}
    assert len(copied) == 54 and copied["p001"]["title"] == "PERSON 1" and "name" not in copied["p001"]
    assert client.list_tables()["TableNames"] == ["people2"]


def test_verification_catches_a_tampered_target() -> None:
    client = tablewright.connect()
    _people(client)
    step = Copy("people", "people2")
    assert run_plan(client, Plan([CreateTable(like="people", name="people2"), step])).ok
    assert verify_copy(client, step).ok

    client.update_item(
        TableName="people2",
        Key=encode({"id": "p007"}),
        UpdateExpression="SET n = :v",
        ExpressionAttributeValues=encode({":v": 8}),
    )
    verdict = verify_copy(client, step)
    assert (
        not verdict.ok
        and verdict.tables["people2"]["expected"]["count"] == verdict.tables["people2"]["actual"]["count"]
    )
    assert verdict.differences == [{"table": "people2", "key": ["'p007'"], "problem": "different"}]

    client.delete_item(TableName="people2", Key=encode({"id": "p008"}))
    assert {"table": "people2", "key": ["'p008'"], "problem": "missing"} in verify_copy(
        client, step
    ).differences


def test_failed_verification_keeps_the_source_and_blocks_its_deletion(tmp_path: Path) -> None:
    client = tablewright.connect()
    _people(client)
    client.create_table(**{**SPEC, "TableName": "people2"})
    client.put_item(TableName="people2", Item=encode({"id": "intruder"}))  # not from the source
    plan = Plan([Copy("people", "people2", delete_source=True), DeleteTable("people")])
    report = run_plan(client, plan, state=tmp_path / "s.json")
    assert not report.ok
    failed = report.steps[-1]
    assert failed["status"] == "failed" and "people2: expected 60 items, found 61" in failed["error"]
    assert "people" in client.list_tables()["TableNames"]
    # The delete step refuses on its own too, while a copy of the plan reading that table has not verified.
    early = run_plan(
        client,
        Plan([DeleteTable("people"), Copy("people", "people2")], name="early"),
        state=tmp_path / "t.json",
    )
    assert "has not verified" in early.steps[0]["error"] and "people" in client.list_tables()["TableNames"]


YAML_PLAN = """
name: yaml-plan
steps:
  - create_table: {{spec: {spec}}}
  - copy: {{source: people, target: people2, transform: "transforms_for_tests:upper_name"}}
  - backfill: {{table: people2, attribute: score, function: "transforms_for_tests:score"}}
  - create_index:
      table: people2
      attribute_definitions: [{{AttributeName: title, AttributeType: S}}]
      index: {{IndexName: by-title, KeySchema: [{{AttributeName: title, KeyType: HASH}}], Projection: {{ProjectionType: KEYS_ONLY}}}}
  - rename: {{old: people2, new: people3, delete_old: true}}
  - delete_table: {{table: people}}
"""


def test_yaml_plan_runs_every_step_kind(tmp_path: Path) -> None:
    spec = json.dumps({**SPEC, "TableName": "people2"})
    plan_file = tmp_path / "plan.yaml"
    plan_file.write_text(YAML_PLAN.format(spec=spec))
    sys.path.insert(0, str(Path(__file__).parent))  # where transforms_for_tests lives
    client = tablewright.connect()
    _people(client)
    report = run_plan(client, load_plan(plan_file), state=tmp_path / "s.json", segments=2, page_size=9)
    assert report.ok, report.as_dict()
    assert client.list_tables()["TableNames"] == ["people3"]
    final = items(client, "people3")
    assert len(final) == 54 and all(i["score"] == len(i["title"]) for i in final)
    indexes = client.describe_table(TableName="people3")["Table"]["GlobalSecondaryIndexes"]
    assert [i["IndexName"] for i in indexes] == ["by-title"]


def test_backfill_is_verified_and_create_index_is_idempotent(tmp_path: Path) -> None:
    client = tablewright.connect()
    _people(client, 20)
    index = {
        "IndexName": "by-n",
        "KeySchema": [{"AttributeName": "n", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
    }
    defs = [{"AttributeName": "n", "AttributeType": "N"}]
    plan = Plan([Backfill("people", "double", lambda i: i["n"] * 2), CreateIndex("people", index, defs)])
    assert run_plan(client, plan).ok
    assert all(i["double"] == 2 * i["n"] for i in items(client, "people"))
    before = dump(client)
    again = run_plan(client, plan)  # no state file: every step runs again and changes nothing
    assert again.ok and again.steps[1]["result"] == "exists" and dump(client) == before


def test_backfill_of_missing_values_leaves_and_accepts_the_values_already_there() -> None:
    """``only_missing`` (the default) skips items that hold the attribute, but the verification
    recomputed it on every item: a value set earlier by hand failed a backfill that did its job."""
    client = tablewright.connect()
    _people(client, 4)
    client.update_item(
        TableName="people",
        Key=encode({"id": "p001"}),
        UpdateExpression="SET #d = :v",
        ExpressionAttributeNames={"#d": "double"},
        ExpressionAttributeValues=encode({":v": -1}),
    )
    report = run_plan(client, Plan([Backfill("people", "double", lambda i: i["n"] * 2)], name="fill"))
    assert report.ok, report.as_dict()
    assert sorted(i["double"] for i in items(client, "people")) == [-1, 0, 4, 6]


def test_dry_run_reports_counts_without_writing() -> None:
    client = tablewright.connect()
    _people(client, 30)
    from .transforms_for_tests import upper_name

    before = dump(client)
    report = run_plan(
        client,
        Plan([CreateTable(like="people", name="people2"), Copy("people", "people2", upper_name)]),
        dry_run=True,
    )
    copy = report.steps[1]
    assert (
        copy["source_items"] == 30
        and copy["dropped"] == 3
        and copy["writes"] == {"people2": {"puts": 27, "merges": 0}}
    )
    assert copy["samples"][0]["after"][0]["item"]["title"] == copy["samples"][0]["before"]["name"].upper()
    assert dump(client) == before


class Forwarding:
    """A wrapper around a real engine client: not a botocore client, so the Writer sends it plain
    BatchWriteItem, as it would to Amazon DynamoDB."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


ODD_VALUES = [
    {"id": "b1", "blob": b"\x00\xffbytes", "blobs": {b"a", b"\x01"}, "nested": {"deep": [b"x", {"y": b"z"}]}},
    {"id": "n1", "n": Decimal("1.50"), "big": Decimal("1E+20"), "ns": {1, Decimal("2.5")}, "ss": {"a", "b"}},
    {"id": "e1", "empty": "", "none": None, "flag": False, "list": [], "map": {}},
    {"id": "b1", "blob": b"later put wins"},
]


def test_writer_on_the_engine_bulk_loads_what_batch_write_item_stores() -> None:
    direct, remote = tablewright.connect(), tablewright.connect()
    for client in (direct, remote):
        client.create_table(**SPEC)
    bulk = Writer(direct, KeySchemas(direct))
    batch = Writer(Forwarding(remote), KeySchemas(remote))
    assert bulk.engine is not None and batch.engine is None
    writes = [Put("people", values) for values in ODD_VALUES]
    assert bulk.write(writes) == batch.write(writes) == 3

    def stored(client: Any) -> list[str]:  # the wire form as stored: numbers normalised, sets, base64
        return sorted(repr(i) for i in client.scan(TableName="people")["Items"])

    assert stored(direct) == stored(remote) and len(stored(direct)) == 3
    assert {i["id"]: i for i in items(direct, "people")}["b1"]["blob"] == b"later put wins"


def test_writer_on_the_engine_raises_the_client_error_batch_write_item_raises() -> None:
    client = tablewright.connect()
    client.create_table(**SPEC)
    too_big = Put("people", {"id": "x", "pad": "y" * 410_000})
    with pytest.raises(client.exceptions.ClientError, match="Item size has exceeded"):
        Writer(client, KeySchemas(client)).write([too_big])
    with pytest.raises(client.exceptions.ClientError, match="Item size has exceeded"):
        Writer(Forwarding(client), KeySchemas(client)).write([too_big])
