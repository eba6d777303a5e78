"""Values written the way other people and other tools write them: instants as ``datetime`` for
epoch keys, versions another tool stored, blank request ids, cursors from elsewhere, data sets with
an item DynamoDB refuses. Each case was a silent wrong answer, a half-written write or an error that
named nothing; ``direct=False`` runs the botocore path an endpoint takes."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import (
    AlreadyExistsError,
    ConflictError,
    CursorError,
    PatternError,
    Runtime,
    UniquenessError,
    ValidationError,
)

DESIGN = """
version: 1
tables:
  main:
    partition_key: PK
    sort_key: SK
    indexes:
      GSI1: {kind: global, partition_key: {name: GPK, type: S}, sort_key: {name: GSK, type: S}}
  bare: {partition_key: {name: dev, type: S}, sort_key: {name: ms, type: N}}
entities:
  Tick:
    table: main
    attributes:
      dev: {type: string, required: true}
      ms: {type: number, required: true, format: epoch_ms}
    keys:
      table: {pk: "T#{dev}", sk: "{ms:013}"}
      GSI1: {pk: "T#{dev}", sk: "{ms:013}"}
  Beat:
    table: main
    attributes:
      dev: {type: string, required: true}
      s: {type: number, required: true, format: epoch_s}
    keys:
      table: {pk: "B#{dev}", sk: "S#{s}"}
  Bare:
    table: bare
    attributes:
      dev: {type: string, required: true}
      ms: {type: number, required: true, format: epoch_ms}
    keys:
      table: {pk: "{dev}", sk: "{ms}"}
  User:
    table: main
    version: version
    unique: [[email]]
    attributes:
      uid: {type: string, required: true}
      email: string
      name: string
      version: number
    keys:
      table: {pk: "U#{uid}", sk: "PROFILE"}
  Note:
    table: main
    attributes:
      nid: {type: string, required: true}
      at: {type: string, format: rfc3339, precision: ms}
      text: string
    keys:
      table: {pk: "N#{nid}", sk: "N"}
  Device:
    table: main
    unique: [[digest], [labels]]
    attributes:
      did: {type: string, required: true}
      digest: binary
      labels: string_set
    keys:
      table: {pk: "DEV#{did}", sk: "DEV"}
  Transfer:
    table: main
    idempotency_key: request
    attributes:
      tid: {type: string, required: true}
      request: string
      amount: number
    keys:
      table: {pk: "TR#{tid}", sk: "TR"}
patterns:
  ticks:
    params: {dev: string}
    returns: Tick
    means: {where: "dev = :dev", order: ms asc}
    served: {op: query, sort: {begins_with: {}}}
  ticks_since:
    params: {dev: string, since: number}
    returns: Tick
    means: {where: "dev = :dev AND ms >= :since", order: ms asc}
    served: {op: query, filter: "ms >= :since"}
  ticks_at:
    params: {dev: string, at: list}
    returns: Tick
    means: {where: "dev = :dev AND contains(:at, ms)"}
    served: {op: batch_get, keys: ":at"}
  bare_keys:
    params: {keys: list}
    returns: Bare
    means: {where: "contains(:keys, ms)"}
    served: {op: batch_get, keys: ":keys"}
"""
NOON = datetime(2025, 1, 15, 12, 0, tzinfo=UTC)
NOON_MS = 1_736_942_400_000


@pytest.fixture(params=[True, False], ids=["direct", "botocore"])
def rt(request) -> Runtime:
    runtime = Runtime(loads(DESIGN), connect(), secret=b"s", direct=request.param)
    runtime.create_tables()
    return runtime


def _count(rt: Runtime, table: str = "main") -> int:
    return rt.client.scan(TableName=table, Select="COUNT")["Count"]


def _raw_user(rt: Runtime, uid: str, **extra: dict) -> None:
    # An item as another tool writes it: no runtime, whatever version it likes.
    item = {"PK": {"S": f"U#{uid}"}, "SK": {"S": "PROFILE"}, "uid": {"S": uid}, **extra}
    rt.client.put_item(TableName="main", Item=item)


# ------------------------------------------------------------------------------- instants in keys
@pytest.mark.parametrize(
    ("entity", "values", "lookup"),
    [
        ("Tick", {"ms": NOON_MS}, {"ms": NOON}),  # {ms:013} rendered a datetime as "013"
        ("Beat", {"s": NOON_MS // 1000}, {"s": NOON}),  # S#{s} as S#2025-01-15T12:00:00Z
        ("Bare", {"ms": NOON_MS}, {"ms": NOON}),  # an N key given RFC 3339 text: a ClientError
    ],
)
def test_a_datetime_finds_the_item_of_an_epoch_key_it_is_the_instant_of(rt, entity, values, lookup):
    rt.put(entity, {"dev": "d", **values})
    assert rt.key(entity, dev="d", **lookup) == rt.key(entity, dev="d", **values)
    assert rt.get(entity, dev="d", **lookup) is not None
    assert rt.delete(entity, {"dev": "d", **lookup}).applied
    assert rt.get(entity, dev="d", **values) is None


def test_a_batch_get_key_is_held_to_the_rules_of_rt_get(rt):
    rt.put("Tick", {"dev": "d", "ms": NOON_MS})
    rt.put("Bare", {"dev": "d", "ms": NOON_MS})
    assert [r["ms"] for r in rt.run("ticks_at", dev="d", at=[NOON])] == [NOON_MS]
    assert [r["ms"] for r in rt.run("bare_keys", keys=[{"dev": "d", "ms": NOON}])] == [NOON_MS]
    # Text for a number key named no item ("not found"), or DynamoDB refused the whole request.
    with pytest.raises(
        PatternError, match=r"'ticks_at': at\[1\]: Tick\.ms: '1736942400000' \(str\) is not number"
    ):
        rt.run("ticks_at", dev="d", at=[NOON_MS, str(NOON_MS)])
    with pytest.raises(PatternError, match=r"'bare_keys': keys\[0\]: Bare\.ms: True \(bool\) is not number"):
        rt.run("bare_keys", keys=[{"dev": "d", "ms": True}])


# ------------------------------------------------------------------------------- versions of others
def test_a_conflict_with_an_item_stored_without_a_version_does_not_say_there_is_no_item(rt):
    _raw_user(rt, "u1")
    for write in (
        lambda: rt.update("User", {"uid": "u1"}, {"name": "n"}, expected_version=1),
        lambda: rt.replace("User", {"uid": "u1"}, expected_version=1),
        lambda: rt.delete("User", {"uid": "u1"}, expected_version=1),
        lambda: rt.transact([rt.tx_check("User", {"uid": "u1"}, None, expected_version=1)]),
    ):
        with pytest.raises(ConflictError, match="found an item without version") as caught:
            write()
        assert "no item" not in str(caught.value)
    assert rt.update("User", {"uid": "u1"}, {"name": "n"}).record["version"] == 1  # as the hint says


def test_a_version_stored_as_text_is_named_as_text_not_as_the_version_expected(rt):
    _raw_user(rt, "u1", version={"S": "3"})
    with pytest.raises(ConflictError, match=r"expected version 3 but found version '3' \(str\), not a whole"):
        rt.update("User", {"uid": "u1"}, {"name": "n"}, expected_version=3)


def test_an_item_whose_version_is_null_is_updated_as_one_without_a_version(rt):
    # attribute_not_exists is false for a NULL: every attempt failed as "concurrent changes".
    _raw_user(rt, "u1", version={"NULL": True})
    record = rt.update("User", {"uid": "u1"}, {"name": "n"}).record
    assert (record["name"], record["version"]) == ("n", 1)


# ------------------------------------------------------------------------------- unique values
def test_bytes_and_a_bytearray_of_the_same_bytes_claim_one_unique_marker(rt):
    rt.put("Device", {"did": "d1", "digest": b"\x00\xff"})
    with pytest.raises(UniquenessError):
        rt.put("Device", {"did": "d2", "digest": bytearray(b"\x00\xff")})


def test_a_set_claims_the_marker_of_its_sorted_members_whatever_the_hash_order(rt):
    # str() of a set follows the hash seed: each process claimed its own marker for one value.
    labels = {f"label-{n}" for n in range(12)}
    rt.put("Device", {"did": "d1", "labels": labels})
    markers = [
        item["PK"]["S"]
        for item in rt.client.scan(TableName="main")["Items"]
        if item["PK"]["S"].startswith("_tw#unique#Device#labels#")
    ]
    assert markers == ["_tw#unique#Device#labels#{" + ", ".join(repr(v) for v in sorted(labels)) + "}"]


# ------------------------------------------------------------------------------- conditions
@pytest.mark.parametrize(
    "spelled", ["2025-01-15T14:00:00+02:00", "2025-01-15T14:00:00+0200", "2025-01-15t12:00:00z"]
)
def test_a_condition_instant_spelled_with_an_offset_is_refused_not_compared_as_text(rt, spelled):
    # As text "...14:00:00+02:00" is not "...12:00:00.000Z": '=' failed for the item at that instant.
    rt.put("Note", {"nid": "n", "at": "2025-01-15T12:00:00Z"})
    with pytest.raises(ValidationError, match=r"parameter :t: .* is not an RFC 3339 UTC timestamp"):
        rt.update("Note", {"nid": "n"}, {"text": "x"}, condition="at = :t", condition_params={"t": spelled})
    assert "text" not in rt.get("Note", nid="n")
    day = {"d": "2025-01-15"}  # a prefix is no timestamp: begins_with takes it as it is
    assert rt.update(
        "Note", {"nid": "n"}, {"text": "x"}, condition="begins_with(at, :d)", condition_params=day
    ).applied


# ------------------------------------------------------------------------------- request ids
@pytest.mark.parametrize("blank", ["", "  "])
def test_a_blank_idempotency_attribute_is_refused_not_shared_by_every_write(rt, blank):
    writes = [
        lambda: rt.put("Transfer", {"tid": "t1", "request": blank}),
        lambda: rt.put_many("Transfer", [{"tid": "t2", "request": blank}]),
        lambda: rt.transact([rt.tx_put("Transfer", {"tid": "t3", "request": blank})]),
    ]
    for write in writes:
        with pytest.raises(ValidationError, match=r"Transfer\.request: .* is not an idempotency key"):
            write()
    assert _count(rt) == 0


def test_a_transaction_updates_and_deletes_an_item_whose_request_id_was_used_to_create_it(rt):
    rt.put("Transfer", {"tid": "t1", "request": "r1", "amount": 5})
    assert rt.transact([rt.tx_update("Transfer", {"tid": "t1"}, {"amount": 6})]).applied
    assert rt.get("Transfer", tid="t1")["amount"] == 6
    assert rt.transact([rt.tx_delete("Transfer", {"tid": "t1"})]).applied
    assert rt.get("Transfer", tid="t1") is None
    assert not rt.put("Transfer", {"tid": "t1", "request": "r1", "amount": 5}).applied  # still a retry


# ------------------------------------------------------------------------------- cursors and params
def _ticks(rt: Runtime, count: int) -> None:
    rt.put_many("Tick", [{"dev": "d", "ms": NOON_MS + n} for n in range(count)])


def test_the_next_page_takes_a_number_parameter_however_it_is_spelled(rt):
    # boto3 reads numbers back as Decimal: a client echoing since=Decimal("...") was refused.
    _ticks(rt, 3)
    cursor = rt.run("ticks_since", dev="d", since=NOON_MS, limit=1).cursor
    for spelled in (Decimal(NOON_MS), Decimal(f"{NOON_MS}.00"), Decimal("1.736942400E+12")):
        page = rt.run("ticks_since", dev="d", since=spelled, limit=1, cursor=cursor)
        assert [r["ms"] for r in page] == [NOON_MS + 1]
    with pytest.raises(CursorError, match="issued for different parameters"):
        rt.run("ticks_since", dev="d", since=NOON_MS + 1, limit=1, cursor=cursor)


def test_a_cursor_that_is_no_text_is_a_cursor_error(rt):
    _ticks(rt, 3)
    cursor = rt.run("ticks", dev="d", limit=1).cursor
    for wrong in (cursor.encode(), 5):
        with pytest.raises(CursorError, match=f"is {type(wrong).__name__}, not the str page.cursor was"):
            rt.run("ticks", dev="d", cursor=wrong)


def test_one_position_has_one_cursor_whatever_order_the_key_came_in(rt):
    key = {"PK": {"S": "T#d"}, "SK": {"S": "1"}}
    reordered = dict(reversed(key.items()))
    assert rt.codec.encode("ticks", {"dev": "d"}, 0, key) == rt.codec.encode(
        "ticks", {"dev": "d"}, 0, reordered
    )


def test_a_cursor_issued_while_the_pattern_was_served_from_an_index_is_a_cursor_error(rt):
    _ticks(rt, 3)
    served = "served: {op: query, sort: {begins_with: {}}}"
    earlier = loads(DESIGN.replace(served, "served: {op: query, index: GSI1}", 1))
    cursor = Runtime(earlier, rt.client, secret=b"s").run("ticks", dev="d", limit=1).cursor
    # Its key holds the index's attributes, which the table's Query refuses as a start.
    with pytest.raises(CursorError, match="does not fit the pattern as the design now serves it"):
        rt.run("ticks", dev="d", cursor=cursor)


def test_pattern_parameters_that_are_no_mapping_or_given_twice_are_a_pattern_error(rt):
    with pytest.raises(PatternError, match="give the parameters as a mapping .* not list"):
        rt.run("ticks", [("dev", "d")])
    with pytest.raises(PatternError, match="dev given twice with different values"):
        rt.run("ticks", {"dev": "d"}, dev="e")
    assert rt.run("ticks", {"dev": "d"}, dev="d").items == []  # the same value twice is one


# ------------------------------------------------------------------------------- batches
def test_a_load_with_an_item_over_400_kb_is_refused_naming_it_before_any_write(rt):
    items = [{"dev": "d", "ms": NOON_MS + n} for n in range(30)]
    items[27]["blob"] = "x" * 410_000
    with pytest.raises(ValidationError, match=r"Tick\.\[27\]\.\(item\): .*Item size has exceeded") as caught:
        rt.load_many("Tick", items)
    assert [v.rule for v in caught.value.violations] == ["dynamodb"]
    assert _count(rt) == 0  # over BatchWriteItem the 25 items before it stayed stored


def test_a_load_whose_unique_value_makes_too_long_a_marker_is_refused_naming_it(rt):
    items = [{"uid": "u1", "email": "a"}, {"uid": "u2", "email": "x" * 2040}]
    with pytest.raises(ValidationError, match=r"User\.\[1\]\.email: the uniqueness marker .* 2,062 bytes"):
        rt.load_many("User", items)
    assert _count(rt) == 0


def test_a_batch_written_item_by_item_says_which_item_failed_and_what_was_written(rt):
    rt.put("Tick", {"dev": "d", "ms": NOON_MS + 2})
    items = [{"dev": "d", "ms": NOON_MS + n} for n in range(3)]
    with pytest.raises(
        AlreadyExistsError, match="Tick put_many item 2: .*items 0 to 1 of the batch were written"
    ) as caught:
        rt.put_many("Tick", items)
    assert (caught.value.item, caught.value.written) == (2, 2)
    assert len(rt.run("ticks", dev="d")) == 3
