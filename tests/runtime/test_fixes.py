"""Bugs reported by the example authors: repeated key fields in batch_get, marker TTLs, stale
computed attributes after an update."""

import pytest

import tablewright
from tablewright.design import loads
from tablewright.runtime import PatternError, Runtime, UniquenessError, ValidationError

DESIGN = """
version: 1
name: fixes
tables:
  sessions:
    partition_key: {name: PK, type: S}
    sort_key: {name: SK, type: S}
    ttl: expires
    indexes:
      by-label:
        kind: global
        partition_key: {name: GSI1PK, type: S}
        sort_key: {name: GSI1SK, type: S}
entities:
  Session:        # unversioned: updates go out as UpdateItem
    table: sessions
    attributes: &attributes
      session_id: {type: number, required: true}
      token: {type: string}
      started_at: {type: number, format: epoch_s}
      first: {type: string}
      last: {type: string}
      label: {type: string, computed: {template: "{first} {last}"}}
      expires: {type: number, computed: {ttl: {from: started_at, unit: s, retention: 1d}}}
      version: number
    keys:
      table: {pk: "SESSION#{session_id}", sk: "SESSION#{session_id}"}
      by-label: {pk: "LABEL#{label}", sk: "SESSION#{session_id}"}
    unique: [[token]]
  Badge:          # versioned: updates rewrite the whole item
    table: sessions
    attributes: *attributes
    keys:
      table: {pk: "BADGE#{session_id}", sk: "BADGE#{session_id}"}
      by-label: {pk: "LABEL#{label}", sk: "BADGE#{session_id}"}
    unique: [[token]]
    version: version
patterns:
  sessions_by_ids:
    params: {ids: list}
    returns: Session
    means: {where: "contains(:ids, session_id)"}
    served: {op: batch_get, keys: ":ids"}
"""
START = 1_736_942_400  # 2025-01-15T12:00:00Z
DAY = 86_400


@pytest.fixture
def rt() -> Runtime:
    runtime = Runtime(loads(DESIGN), tablewright.connect(), secret=b"test")
    runtime.create_tables()
    return runtime


def _update(rt: Runtime, entity: str, changes: dict, remove=()):
    version = rt.get(entity, session_id=1).get("version")
    return rt.update(entity, {"session_id": 1}, changes, remove=remove, expected_version=version)


def _stored(rt: Runtime, entity: str) -> dict:
    prefix = entity.upper()
    key = {"PK": {"S": f"{prefix}#1"}, "SK": {"S": f"{prefix}#1"}}
    return rt.client.get_item(TableName="sessions", Key=key)["Item"]


def _markers(rt: Runtime) -> list[dict]:
    items = rt.client.scan(TableName="sessions")["Items"]
    return [i for i in items if i["PK"]["S"].startswith("_tw#unique#")]


# ---------------------------------------------------------------------------- batch_get, repeated fields
def test_batch_get_takes_bare_ids_when_both_key_templates_repeat_one_field(rt):
    for n in (1, 2, 3):
        rt.put("Session", {"session_id": n})
    page = rt.run("sessions_by_ids", ids=[3, 99, 1, 3])
    assert [r["session_id"] for r in page] == [3, 1]


def test_missing_key_fields_are_named_once(rt):
    with pytest.raises(PatternError, match=r"the key needs session_id \(given: token\)$"):
        rt.key("Session", token="t")


def test_a_key_field_given_as_none_is_not_listed_as_given(rt):
    with pytest.raises(PatternError, match=r"the key needs session_id \(given: nothing\)$"):
        rt.get("Session", session_id=None)


@pytest.mark.parametrize("wrong", [b"1", [1], {"n": 1}, "1", " 1", True, 1.0])
def test_a_key_value_of_the_wrong_type_is_refused_not_reported_missing(rt, wrong):
    """session_id is a number: a string, bytes, a list, a bool or a float names no key it could
    have, and would otherwise read as "not found" (or delete nothing) without a word."""
    rt.put("Session", {"session_id": 1})
    for call in (
        lambda: rt.get("Session", session_id=wrong),
        lambda: rt.key("Session", session_id=wrong),
        lambda: rt.delete("Session", {"session_id": wrong}),
    ):
        with pytest.raises(ValidationError, match=r"Session\.session_id: .* is not number"):
            call()
    assert rt.get("Session", session_id=1) is not None  # nothing was deleted


# ---------------------------------------------------------------------------- markers expire with items
@pytest.mark.parametrize("entity", ["Session", "Badge"])
def test_unique_marker_carries_the_item_ttl_and_expires_with_it(rt, entity):
    rt.put(entity, {"session_id": 1, "token": "t1", "started_at": START})
    (marker,) = _markers(rt)
    assert marker["expires"] == {"N": str(START + DAY)}
    engine = tablewright.engine_of(rt.client)

    assert engine.sweep_ttl(now=START + DAY - 1) == 0
    with pytest.raises(UniquenessError):
        rt.put(entity, {"session_id": 2, "token": "t1"})

    assert engine.sweep_ttl(now=START + DAY + 1) == 2  # the item and its marker
    rt.put(entity, {"session_id": 2, "token": "t1"})  # the value is free again
    assert rt.get(entity, session_id=2)["token"] == "t1"


@pytest.mark.parametrize("entity", ["Session", "Badge"])
def test_marker_ttl_follows_the_item_when_its_ttl_moves_or_goes(rt, entity):
    rt.put(entity, {"session_id": 1, "token": "t1", "started_at": START})
    _update(rt, entity, {"started_at": START + 10 * DAY})
    (marker,) = _markers(rt)
    assert marker["expires"] == {"N": str(START + 11 * DAY)}
    engine = tablewright.engine_of(rt.client)
    assert engine.sweep_ttl(now=START + 2 * DAY) == 0  # the old expiry no longer frees the value
    with pytest.raises(UniquenessError):
        rt.put(entity, {"session_id": 2, "token": "t1"})

    _update(rt, entity, {}, remove=["started_at"])  # the item no longer expires: nor does its marker
    (marker,) = _markers(rt)
    assert "expires" not in marker and "expires" not in _stored(rt, entity)
    assert engine.sweep_ttl(now=START + 100 * DAY) == 0


def test_marker_of_an_item_without_ttl_value_never_expires(rt):
    rt.put("Session", {"session_id": 1, "token": "t1"})
    (marker,) = _markers(rt)
    assert "expires" not in marker
    assert tablewright.engine_of(rt.client).sweep_ttl(now=START + 1000 * DAY) == 0


# ---------------------------------------------------------------------------- computed attributes on update
@pytest.mark.parametrize("entity", ["Session", "Badge"])
def test_computed_template_is_removed_with_its_source(rt, entity):
    rt.put(entity, {"session_id": 1, "first": "Ada", "last": "Lovelace", "started_at": START})
    assert _stored(rt, entity)["label"] == {"S": "Ada Lovelace"}

    record = _update(rt, entity, {}, remove=["last", "started_at"]).record
    stored = _stored(rt, entity)
    assert "label" not in record and "expires" not in record
    assert "label" not in stored and "expires" not in stored
    assert "GSI1PK" not in stored  # the index key built from the label goes too (sparse index)
    assert rt.get(entity, session_id=1) == record


@pytest.mark.parametrize("entity", ["Session", "Badge"])
def test_computed_template_is_recomposed_when_its_source_changes(rt, entity):
    rt.put(entity, {"session_id": 1, "first": "Ada", "last": "Lovelace"})
    _update(rt, entity, {"first": "Grace"})
    stored = _stored(rt, entity)
    assert stored["label"] == {"S": "Grace Lovelace"}
    assert stored["GSI1PK"] == {"S": "LABEL#Grace Lovelace"}
    _update(rt, entity, {"last": "Hopper"}, remove=["first"])
    _update(rt, entity, {"first": "Grace"})  # composable again
    assert _stored(rt, entity)["label"] == {"S": "Grace Hopper"}
