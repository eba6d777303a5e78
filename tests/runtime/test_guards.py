"""The runtime's guards on the real engine: creates never replace, two spellings of a number or an
instant never make two items, computed values are checked before anything is written (issue 10)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import AlreadyExistsError, ConflictError, PatternError, Runtime, ValidationError

DESIGN = """
version: 1
tables:
  things: {partition_key: PK, sort_key: SK, ttl: expires}
entities:
  Counter:
    table: things
    attributes:
      name: {type: string, required: true}
      n: {type: number, required: true}
      note: {type: string}
      created: {type: string, format: rfc3339, computed: created_at}
    keys:
      table: {pk: "C#{name}", sk: "N#{n}"}
  Doc:
    table: things
    version: version
    unique: [[slug]]
    attributes:
      id: {type: string, required: true}
      slug: {type: string}
      body: {type: string}
      version: {type: number}
    keys:
      table: {pk: "D#{id}", sk: "DOC"}
  Reading:
    table: things
    attributes:
      device: {type: string, required: true, format: mac}
      ts: {type: number, required: true, format: epoch_ms}
      expires: {type: number, computed: {ttl: {from: ts, unit: ms, retention: 30d}}}
    keys:
      table: {pk: "R#{device}", sk: "{ts:013}"}
  Line:
    table: things
    attributes:
      order: {type: string, required: true}
      seq: {type: number, required: true}
    keys:
      table: {pk: "O#{order}", sk: "L#{seq:05}"}
  Due:
    table: things
    attributes:
      user: {type: string, required: true}
      due: {type: string, required: true, format: rfc3339, precision: ms}
      at: {type: string, format: rfc3339}
    keys:
      table: {pk: "U#{user}", sk: "DUE#{due}"}
patterns:
  due_between:
    params: {user: string, from: {type: string, format: rfc3339}, to: {type: string, format: rfc3339}}
    returns: Due
    means:
      where: "user = :user AND due BETWEEN :from AND :to"
      order: due asc
    served:
      op: query
      sort: {between: [{due: ":from"}, {due: ":to"}]}
"""
NOW = datetime(2026, 1, 1, tzinfo=UTC)
MAC = "AA:BB:CC:DD:EE:FF"


def _runtime() -> Runtime:
    rt = Runtime(loads(DESIGN), connect(), secret=b"s")
    rt.create_tables()
    return rt


def _count(rt: Runtime) -> int:
    return rt.client.scan(TableName="things", Select="COUNT")["Count"]


# ------------------------------------------------------------------------------------ creates


OPERATIONS = st.lists(
    st.tuples(st.sampled_from(["put", "replace"]), st.sampled_from(["a", "b", "c"]), st.text(max_size=3)),
    min_size=1,
    max_size=12,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations=OPERATIONS)
def test_a_create_never_replaces_and_a_replace_always_does(operations):
    rt, model = _runtime(), {}
    for verb, name, note in operations:
        values = {"name": name, "n": 1, "note": note}
        if verb == "put" and name in model:
            with pytest.raises(
                AlreadyExistsError, match=rf"Counter \(PK='C#{name}', SK='N#1'\): already exists"
            ):
                rt.put("Counter", values, now=NOW)
        else:
            getattr(rt, verb)("Counter", values, now=NOW)
            model[name] = note
        stored = {k: rt.get("Counter", name=k, n=1)["note"] for k in model}
        assert stored == model


def test_a_failed_create_is_a_conflict_error_and_writes_nothing():
    rt = _runtime()
    rt.put("Doc", {"id": "d", "slug": "s", "body": "first"})
    with pytest.raises(ConflictError, match="already exists"):  # AlreadyExistsError is a ConflictError
        rt.put("Doc", {"id": "d", "slug": "other", "body": "second"})
    assert rt.get("Doc", id="d")["body"] == "first"
    # the failed create claimed no unique value: another Doc may take "other"
    rt.put("Doc", {"id": "e", "slug": "other"})


def test_replace_of_a_versioned_entity_needs_the_version_it_read():
    rt = _runtime()
    rt.put("Doc", {"id": "d", "slug": "s", "body": "first"})
    with pytest.raises(TypeError, match="expected_version"):
        rt.replace("Doc", {"id": "d", "body": "blind"})
    with pytest.raises(ConflictError, match="expected version 7 but found version 1"):
        rt.replace("Doc", {"id": "d", "body": "stale"}, expected_version=7)
    rt.replace("Doc", {"id": "d", "slug": "t", "body": "second"}, expected_version=1)
    stored = rt.get("Doc", id="d")
    assert (stored["body"], stored["version"]) == ("second", 2)
    rt.put("Doc", {"id": "x", "slug": "s"})  # the replace released the old unique value


def test_replace_keeps_created_at():
    rt = _runtime()
    rt.put("Counter", {"name": "a", "n": 1}, now=NOW)
    rt.replace("Counter", {"name": "a", "n": 1, "note": "x"}, now=datetime(2026, 5, 1, tzinfo=UTC))
    assert rt.get("Counter", name="a", n=1)["created"] == "2026-01-01T00:00:00Z"


def test_created_at_is_set_by_the_first_write_and_no_later_write_changes_it():
    rt = _runtime()
    original = "2019-06-01T12:00:00Z"  # a migration keeps the original time: a create takes it
    rt.put("Counter", {"name": "a", "n": 1, "created": original}, now=NOW)
    later = datetime(2026, 5, 1, tzinfo=UTC)
    rewrites = [
        lambda: rt.update(
            "Counter", {"name": "a", "n": 1}, {"note": "x", "created": "2026-05-01T00:00:00Z"}, now=later
        ),
        lambda: rt.transact(
            [rt.tx_update("Counter", {"name": "a", "n": 1}, {"created": "2026-05-01T00:00:00Z"})], now=later
        ),
        lambda: rt.replace("Counter", {"name": "a", "n": 1, "created": "2026-05-01T00:00:00Z"}, now=later),
    ]
    for rewrite in rewrites:
        rewrite()
        assert rt.get("Counter", name="a", n=1)["created"] == original


def test_transactions_create_with_tx_put_and_overwrite_with_tx_replace():
    rt = _runtime()
    rt.put("Counter", {"name": "a", "n": 1, "note": "kept"})
    with pytest.raises(AlreadyExistsError, match=r"operation 1 \(put Counter\).*already exists") as caught:
        rt.transact(
            [rt.tx_put("Counter", {"name": "b", "n": 1}), rt.tx_put("Counter", {"name": "a", "n": 1})]
        )
    assert caught.value.operation == 1
    assert rt.get("Counter", name="b", n=1) is None and rt.get("Counter", name="a", n=1)["note"] == "kept"
    rt.transact([rt.tx_replace("Counter", {"name": "a", "n": 1, "note": "new"})])
    assert rt.get("Counter", name="a", n=1)["note"] == "new"


def test_put_many_creates_too():
    rt = _runtime()
    rt.put("Counter", {"name": "a", "n": 2, "note": "kept"})
    batch = [{"name": "a", "n": 1}, {"name": "a", "n": 2, "note": "lost?"}]
    with pytest.raises(AlreadyExistsError):
        rt.put_many("Counter", batch)
    assert rt.get("Counter", name="a", n=2)["note"] == "kept"
    with pytest.raises(AlreadyExistsError):
        rt.put_many("Counter", [{"name": "z", "n": 9}, {"name": "a", "n": 2}], idempotency_key="k1")
    assert rt.get("Counter", name="z", n=9) is None  # one transaction: all or nothing


# ------------------------------------------------------------------------------------ numbers


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    whole=st.integers(-(10**12), 10**12),
    spelling=st.sampled_from(["int", "dot0", "dot000", "exp", "scaled"]),
)
def test_two_spellings_of_a_number_are_one_item(whole, spelling):
    rt = _runtime()
    rt.put("Counter", {"name": "a", "n": whole})
    spelled = {
        "int": whole,
        "dot0": Decimal(f"{whole}.0"),
        "dot000": Decimal(f"{whole}.000"),
        "exp": Decimal(f"{Decimal(whole):E}"),
        "scaled": Decimal(whole).scaleb(3).scaleb(-3),
    }[spelling]
    with pytest.raises(AlreadyExistsError):
        rt.put("Counter", {"name": "a", "n": spelled})
    assert rt.get("Counter", name="a", n=spelled) is not None
    assert _count(rt) == 1


def test_a_fraction_in_a_padded_integer_key_is_refused_naming_attribute_and_template():
    rt = _runtime()
    with pytest.raises(ValidationError) as caught:
        rt.put("Line", {"order": "o", "seq": Decimal("12.5")})
    [violation] = caught.value.violations
    assert (violation.attribute, violation.rule) == ("seq", "key")
    assert violation.message == (
        "12.5 is not a whole number but the template pads it as an integer (:05) "
        "(field {seq} of template 'L#{seq:05}')"
    )
    rt.put("Line", {"order": "o", "seq": Decimal("12.000")})
    assert rt.client.get_item(TableName="things", Key={"PK": {"S": "O#o"}, "SK": {"S": "L#00012"}}).get(
        "Item"
    )
    with pytest.raises(AlreadyExistsError):
        rt.put("Line", {"order": "o", "seq": 12})
    assert _count(rt) == 1


def test_a_device_id_with_a_trailing_newline_is_refused():
    rt = _runtime()
    rt.put("Reading", {"device": MAC, "ts": 1767225600000}, now=NOW)
    with pytest.raises(ValidationError, match=r"Reading.device: 'AA:BB:CC:DD:EE:FF\\n' is not a MAC"):
        rt.put("Reading", {"device": MAC + "\n", "ts": 1767225600000}, now=NOW)
    assert _count(rt) == 1


# ------------------------------------------------------------------------------------ timestamps


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(digits=st.integers(0, 9))
def test_one_instant_is_one_item_and_found_by_a_range_across_new_year(digits):
    rt = _runtime()
    due = "2025-12-31T23:59:59" + ("." + "0" * digits if digits else "") + "Z"
    rt.put("Due", {"user": "u", "due": due})
    with pytest.raises(AlreadyExistsError):
        rt.put("Due", {"user": "u", "due": "2025-12-31T23:59:59.000Z"})
    found = rt.run(
        "due_between", user="u", **{"from": "2025-12-31T00:00:00.000Z", "to": "2026-01-01T00:00:00.000Z"}
    )
    assert [r["due"] for r in found] == ["2025-12-31T23:59:59.000Z"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(digits=st.integers(0, 9), bound_digits=st.tuples(st.integers(0, 9), st.integers(0, 9)))
def test_reads_compose_keys_with_the_attributes_precision(digits, bound_digits):
    rt = _runtime()
    rt.put("Due", {"user": "u", "due": "2026-01-01T00:00:00.000Z"})
    spelled = "2026-01-01T00:00:00" + ("." + "0" * digits if digits else "") + "Z"
    assert rt.get("Due", user="u", due=spelled)["due"] == "2026-01-01T00:00:00.000Z"
    start, end = (
        "2026-01-01T00:00:00" + ("." + "0" * d if d else "") + "Z" for d in bound_digits
    )  # a window that starts and ends exactly on the item, however its bounds are spelled
    assert len(rt.run("due_between", user="u", **{"from": start, "to": end}).items) == 1


# Keys that are the timestamp attribute itself, with no key template in the design: the table's sort
# key and an index's. Their templates ({at}) are made when the design is linked.
BARE_KEYS = """
tables:
  events:
    partition_key: {name: kind, type: S}
    sort_key: {name: at, type: S}
    indexes:
      by_place:
        partition_key: {name: place, type: S}
        sort_key: {name: at, type: S}
entities:
  Event:
    table: events
    attributes:
      kind: {type: string, required: true}
      place: {type: string, required: true}
      at: {type: string, format: rfc3339, precision: ms, required: true}
patterns:
  at_place_since:
    params: {place: string, from: {type: string, format: rfc3339}}
    returns: [Event]
    means: {where: "place = :place AND at >= :from", order: at asc}
    served: {op: query, index: by_place, partition: {place: ":place"}, sort: {ge: {at: ":from"}}}
"""


@pytest.mark.parametrize(
    "spelled", ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000000Z"]
)
def test_keys_that_are_the_timestamp_itself_are_composed_in_its_precision(spelled):
    rt = Runtime(loads(BARE_KEYS), connect())
    rt.create_tables()
    rt.put("Event", {"kind": "k", "place": "p", "at": "2026-01-01T00:00:00Z"})
    assert rt.get("Event", kind="k", at=spelled)["at"] == "2026-01-01T00:00:00.000Z"
    assert [e["at"] for e in rt.run("at_place_since", place="p", **{"from": spelled})] == [
        "2026-01-01T00:00:00.000Z"
    ]
    with pytest.raises(PatternError, match="precision is ms"):
        rt.run("at_place_since", place="p", **{"from": "2026-01-01T00:00:00.0005Z"})


def test_a_read_bound_finer_than_the_attribute_is_refused():
    rt = _runtime()
    with pytest.raises(PatternError, match="precision is ms"):
        rt.run("due_between", user="u", **{"from": "2026-01-01T00:00:00.0005Z", "to": "2026-01-02T00:00:00Z"})
    with pytest.raises(PatternError, match="precision is ms"):
        rt.get("Due", user="u", due="2026-01-01T00:00:00.0005Z")


def test_an_update_stores_the_one_spelling_too():
    rt = _runtime()
    rt.put("Due", {"user": "u", "due": "2026-01-01T00:00:00Z", "at": "2026-01-01T00:00:00.000Z"})
    assert rt.get("Due", user="u", due="2026-01-01T00:00:00.000Z")["at"] == "2026-01-01T00:00:00Z"
    rt.update("Due", {"user": "u", "due": "2026-01-01T00:00:00Z"}, {"at": "2026-02-01T00:00:00.000000Z"})
    assert rt.get("Due", user="u", due="2026-01-01T00:00:00Z")["at"] == "2026-02-01T00:00:00Z"


def test_finer_precision_than_declared_is_refused_before_writing():
    rt = _runtime()
    with pytest.raises(ValidationError) as caught:
        rt.put("Due", {"user": "u", "due": "2025-12-31T23:59:59.000500Z"})
    [violation] = caught.value.violations
    assert (violation.attribute, violation.rule) == ("due", "precision")
    assert "precision is ms" in violation.message
    with pytest.raises(ValidationError, match=r"Due.at: .* precision is s"):  # the default
        rt.put("Due", {"user": "u", "due": "2025-12-31T23:59:59Z", "at": "2025-12-31T00:00:00.5Z"})
    assert _count(rt) == 0


# ------------------------------------------------------------------------------------ computed


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(days_old=st.integers(0, 3000))
def test_a_computed_ttl_dynamodb_never_acts_on_is_refused_before_writing(days_old):
    rt = _runtime()
    ts = int(NOW.timestamp() * 1000) - days_old * 86_400_000
    ignored = (ts // 1000 + 30 * 86_400) < int(NOW.timestamp()) - 5 * 365 * 86_400
    if ignored:
        with pytest.raises(ValidationError, match=r"Reading.expires: computed TTL .* never expire \[ttl\]"):
            rt.put("Reading", {"device": MAC, "ts": ts}, now=NOW)
        assert _count(rt) == 0
    else:
        rt.put("Reading", {"device": MAC, "ts": ts}, now=NOW)
        assert rt.get("Reading", device=MAC, ts=ts)["expires"] == ts // 1000 + 30 * 86_400


def test_a_refused_chunk_undoes_the_chunks_before_it_so_a_retry_can_apply_the_batch():
    from tablewright.runtime import UniquenessError

    rt = _runtime()
    docs = [{"id": f"d{i:03}", "slug": f"s{i:03}"} for i in range(60)]  # item + slug marker: 121 actions
    rt.put("Doc", {"id": "taken", "slug": "s055"})  # the slug of an item in the second chunk
    with pytest.raises(UniquenessError):
        rt.put_many("Doc", docs, idempotency_key="import-1")
    stored = rt.client.scan(TableName="things")["Items"]
    assert sorted(i["PK"]["S"] for i in stored) == ["D#taken", "_tw#unique#Doc#slug#s055"]  # all undone
    rt.delete("Doc", {"id": "taken"})
    result = rt.put_many("Doc", docs, idempotency_key="import-1")
    assert result.applied and result.plan == "chunked: 2 transactions between marker writes"
    assert [rt.get("Doc", id=d["id"])["slug"] for d in docs] == [d["slug"] for d in docs]


NOT_A_MAPPING = [None, [("id", "d1")], "id=d1", 5, b"id"]
WRITES_OF_VALUES = {
    "put": lambda rt, bad: rt.put("Doc", bad),
    "replace": lambda rt, bad: rt.replace("Doc", bad),
    "update's key": lambda rt, bad: rt.update("Doc", bad, {"body": "b"}),
    "update's changes": lambda rt, bad: rt.update("Doc", {"id": "d1"}, bad),
    "delete": lambda rt, bad: rt.delete("Doc", bad),
    "tx_put": lambda rt, bad: rt.tx_put("Doc", bad),
    "tx_replace": lambda rt, bad: rt.tx_replace("Doc", bad),
    "tx_update's key": lambda rt, bad: rt.tx_update("Doc", bad, {"body": "b"}),
    "tx_update's changes": lambda rt, bad: rt.tx_update("Doc", {"id": "d1"}, bad),
    "tx_delete": lambda rt, bad: rt.tx_delete("Doc", bad),
    "tx_check": lambda rt, bad: rt.tx_check("Doc", bad, "attribute_exists(body)"),
    "put_many's item": lambda rt, bad: rt.put_many("Doc", [{"id": "d2"}, bad]),
    "load_many's item": lambda rt, bad: rt.load_many("Doc", [bad]),
}


@pytest.mark.parametrize("bad", NOT_A_MAPPING, ids=repr)
@pytest.mark.parametrize("call", list(WRITES_OF_VALUES), ids=str)
def test_values_keys_and_changes_that_are_no_mapping_are_refused_by_name(call, bad):
    rt = _runtime()
    rt.put("Doc", {"id": "d1", "slug": "s1", "body": "a"})
    with pytest.raises(ValidationError) as refused:
        WRITES_OF_VALUES[call](rt, bad)
    argument = refused.value.violations[0].attribute
    assert argument.split("[")[0] in {"values", "key", "changes", "items"}
    assert "give a mapping" in str(refused.value) and type(bad).__name__.replace("NoneType", "None") in str(
        refused.value
    )
    assert rt.get("Doc", id="d1")["body"] == "a" and _count(rt) == 2, "something was written"


@pytest.mark.parametrize("batch", [None, "items", {"id": "d1"}, 7])
def test_a_batch_that_is_no_list_is_refused(batch):
    rt = _runtime()
    for write in (rt.put_many, rt.load_many):
        with pytest.raises(ValidationError, match=r"Doc\.items: give a list of items"):
            write("Doc", batch)
    assert _count(rt) == 0


NOT_A_VERSION = ["1", " 1", 1.0, True, -1, Decimal("1.5"), Decimal("NaN")]
WRITES_WITH_A_VERSION = {
    "replace": lambda rt, v: rt.replace("Doc", {"id": "d1", "body": "b"}, expected_version=v),
    "update": lambda rt, v: rt.update("Doc", {"id": "d1"}, {"body": "b"}, expected_version=v),
    "delete": lambda rt, v: rt.delete("Doc", {"id": "d1"}, expected_version=v),
    "tx_replace": lambda rt, v: rt.tx_replace("Doc", {"id": "d1", "body": "b"}, expected_version=v),
    "tx_update": lambda rt, v: rt.tx_update("Doc", {"id": "d1"}, {"body": "b"}, expected_version=v),
    "tx_delete": lambda rt, v: rt.tx_delete("Doc", {"id": "d1"}, expected_version=v),
    "tx_check": lambda rt, v: rt.tx_check("Doc", {"id": "d1"}, None, expected_version=v),
}


@pytest.mark.parametrize("version", NOT_A_VERSION, ids=repr)
@pytest.mark.parametrize("call", list(WRITES_WITH_A_VERSION), ids=str)
def test_an_expected_version_that_is_no_whole_number_is_refused_not_a_conflict(call, version):
    rt = _runtime()
    rt.put("Doc", {"id": "d1", "body": "a"})
    with pytest.raises(
        ValidationError, match=r"Doc\.expected_version: give the version read as a whole number"
    ):
        WRITES_WITH_A_VERSION[call](rt, version)
    assert rt.get("Doc", id="d1")["body"] == "a"


def test_a_version_read_back_as_a_decimal_is_the_version():
    rt = _runtime()
    rt.put("Doc", {"id": "d1", "body": "a"})
    rt.replace("Doc", {"id": "d1", "body": "b"}, expected_version=Decimal("1"))
    assert rt.get("Doc", id="d1")["version"] == 2
