"""Edges of keys on the real engine: numbers wider than their zero padding, timestamps finer than
milliseconds given as datetimes, and epoch values or expiries beyond the year 9999."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import PatternError, Runtime, ValidationError
from tablewright.runtime.verify import stored_records, verify_pattern

DESIGN = """
tables:
  main: {partition_key: PK, sort_key: SK, ttl: expires}
entities:
  Row:
    table: main
    attributes:
      g: {type: string, required: true}
      n: {type: number, required: true, min: 0}
    keys:
      table: {pk: "G#{g}", sk: "N#{n:05}"}
  Log:
    table: main
    attributes:
      dev: {type: string, required: true}
      ts: {type: number, required: true, format: epoch_s, min: 0}
      expires: {type: number, computed: {ttl: {from: ts, retention: 1d}}}
    keys:
      table: {pk: "L#{dev}", sk: "{ts|rfc3339}"}
  Stamp:
    table: main
    attributes:
      id: {type: string, required: true}
      at: {type: string, format: rfc3339}
      ms: {type: number, format: epoch_ms, min: 0}
      expires: {type: number, computed: {ttl: {from: at, retention: 1d}}}
      year: {type: string, computed: {template: "{ms|year}"}}
    keys:
      table: {pk: "S#{id}", sk: "S"}
patterns:
  rows_desc:
    params: {g: string}
    returns: Row
    means: {where: "g = :g", order: n desc}
    served: {op: query, sort: {begins_with: {}}, forward: false}
"""


def _runtime(text: str = DESIGN) -> Runtime:
    rt = Runtime(loads(text), connect(), secret=b"s")
    rt.create_tables()
    return rt


def _count(rt: Runtime) -> int:
    return rt.client.scan(TableName="main", Select="COUNT")["Count"]


# ------------------------------------------------------------------------------------ zero padding


def test_a_number_wider_than_its_zero_padding_is_refused_naming_value_pad_and_template():
    rt = _runtime()
    with pytest.raises(ValidationError) as caught:
        rt.put("Row", {"g": "a", "n": 123456})
    [violation] = caught.value.violations
    assert (violation.attribute, violation.rule) == ("n", "key")
    assert "123456 has 6 digits, more than the template's zero padding :05" in violation.message
    assert "template 'N#{n:05}'" in violation.message
    assert _count(rt) == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(numbers=st.lists(st.integers(0, 10**7), min_size=1, max_size=8, unique=True))
def test_zero_padded_keys_sort_numerically_or_are_refused(numbers):
    rt = _runtime()
    for n in numbers:
        if n < 10**5:
            rt.put("Row", {"g": "a", "n": n})
        else:
            with pytest.raises(ValidationError, match=f"{n} has {len(str(n))} digits"):
                rt.put("Row", {"g": "a", "n": n})
    stored = [record["n"] for record in rt.run("rows_desc", g="a")]
    assert stored == sorted((n for n in numbers if n < 10**5), reverse=True)


# ------------------------------------------------------------------------------------ precision

EVENTS = """
tables:
  main: {partition_key: PK, sort_key: SK}
entities:
  Ev:
    table: main
    attributes:
      user: {type: string, required: true}
      at: {type: string, required: true, format: rfc3339, precision: %(precision)s, truncate: %(truncate)s}
    keys:
      table: {pk: "E#{user}", sk: "{at}"}
  Bucketed:
    table: main
    attributes:
      user: {type: string, required: true}
      at: {type: string, required: true, format: rfc3339, precision: us}
    keys:
      table: {pk: "B#{user}#{at|year}", sk: "{at}"}
patterns:
  since:
    params: {user: string, since: {type: string, format: rfc3339}}
    returns: Ev
    means: {where: "user = :user AND at >= :since", order: at asc}
    served: {op: query, sort: {ge: {at: ":since"}}}
  bucketed:
    params: {user: string, from: {type: string, format: rfc3339}, to: {type: string, format: rfc3339}}
    returns: Bucketed
    means: {where: "user = :user AND at BETWEEN :from AND :to", order: at asc}
    served:
      op: query
      partition: {at: ":from"}
      sort: {between: [{at: ":from"}, {at: ":to"}]}
      buckets: {attribute: at, from: ":from", to: ":to"}
"""
BASE = datetime(2025, 3, 1, tzinfo=UTC)
MICROS = [0, 123000, 123200, 123456, 123500, 200000]
DIGITS = {"s": 0, "ms": 3, "us": 6}


def _events(precision: str = "us", truncate: bool = False) -> Runtime:
    return _runtime(EVENTS % {"precision": precision, "truncate": str(truncate).lower()})


def _spelled(micro: int, precision: str = "us") -> str:
    digits = DIGITS[precision]
    return "2025-03-01T00:00:00" + (f".{micro:06d}"[: digits + 1] if digits else "") + "Z"


def test_a_datetime_finds_the_item_stored_at_its_microsecond():
    rt = _events()
    for micro in (123200, 123456, 200000):
        rt.put("Ev", {"user": "u", "at": _spelled(micro)})
    moment = BASE.replace(microsecond=123456)
    assert rt.get("Ev", user="u", at=moment)["at"] == _spelled(123456)
    found = rt.run("since", user="u", since=moment)
    assert [r["at"] for r in found] == [_spelled(123456), _spelled(200000)]
    verdict = verify_pattern(rt, "since", {"user": "u", "since": moment}, stored_records(rt, ["Ev"]))
    assert (verdict.ok, verdict.missing, verdict.extra) == (True, [], [])


@pytest.mark.parametrize("window_start", [_spelled(123456), BASE.replace(microsecond=123456)])
def test_a_bucketed_window_starts_at_its_microsecond(window_start):
    rt = _events()
    for micro in (123200, 123500, 200000):
        rt.put("Bucketed", {"user": "u", "at": _spelled(micro)})
    window = {"user": "u", "from": window_start, "to": "2026-03-02T00:00:00Z"}
    assert [r["at"] for r in rt.run("bucketed", **window)] == [_spelled(123500), _spelled(200000)]
    verdict = verify_pattern(rt, "bucketed", window, stored_records(rt, ["Bucketed"]))
    assert (verdict.ok, verdict.missing, verdict.extra) == (True, [], [])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    precision=st.sampled_from(sorted(DIGITS)),
    truncate=st.booleans(),
    micro=st.sampled_from(MICROS) | st.integers(0, 999_999),
)
def test_a_datetime_bound_is_held_to_the_attributes_precision_as_its_text_is(precision, truncate, micro):
    rt = _events(precision, truncate)
    keep = 10 ** (6 - DIGITS[precision])
    stored = sorted({m - m % keep for m in MICROS})
    for m in stored:
        rt.put("Ev", {"user": "u", "at": _spelled(m)})
    moment = BASE.replace(microsecond=micro)
    representable = micro % keep == 0
    if not representable and not truncate:
        with pytest.raises(PatternError, match=f"precision is {precision}"):
            rt.run("since", user="u", since=moment)
        with pytest.raises(PatternError, match=f"precision is {precision}"):
            rt.get("Ev", user="u", at=moment)
        return
    bound = micro - micro % keep
    found = [r["at"] for r in rt.run("since", user="u", since=moment)]
    expected = [_spelled(m, precision) for m in stored if m >= bound]
    assert found == expected
    assert (rt.get("Ev", user="u", at=moment) is not None) == (bound in stored)
    verdict = verify_pattern(rt, "since", {"user": "u", "since": moment}, stored_records(rt, ["Ev"]))
    assert (verdict.ok, verdict.missing, verdict.extra) == (True, [], [])


# ------------------------------------------------------------------------------------ year 9999


def test_an_epoch_value_no_date_can_show_is_a_validation_error_naming_it():
    rt = _runtime()
    with pytest.raises(ValidationError) as caught:
        rt.put("Log", {"dev": "d", "ts": 1704103200000})  # milliseconds given as seconds
    [violation] = caught.value.violations
    assert (violation.attribute, violation.rule) == ("ts", "key")
    assert "1704103200000 (epoch_s) is outside the instants a timestamp can hold" in violation.message
    with pytest.raises(ValidationError) as caught:
        rt.put("Stamp", {"id": "1", "ms": 10**20})
    [violation] = caught.value.violations
    assert (violation.attribute, violation.rule) == ("ms", "key")
    assert f"{10**20} (epoch_ms) is outside the instants" in violation.message
    assert _count(rt) == 0


def test_an_expiry_past_the_year_9999_is_the_number_it_is():
    rt = _runtime()
    last = "9999-12-31T23:59:59Z"
    stored = rt.put("Stamp", {"id": "1", "at": last}).record
    last_second = int(
        (datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC) - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds()
    )
    assert stored["expires"] == last_second + int(timedelta(days=1).total_seconds())
    assert rt.get("Stamp", id="1")["expires"] == stored["expires"]


CONDITIONED = """
version: 1
tables:
  main: {partition_key: PK, sort_key: SK}
entities:
  Job:
    table: main
    attributes:
      id: {type: string, required: true}
      due: {type: string, format: rfc3339, precision: ms}
      tries: {type: number}
    keys:
      table: {pk: "J#{id}", sk: "JOB"}
"""


def _jobs() -> Runtime:
    rt = Runtime(loads(CONDITIONED), connect(), secret=b"s")
    rt.create_tables()
    rt.put("Job", {"id": "a", "due": "2026-01-01T00:00:00.500Z", "tries": 0})
    return rt


@pytest.mark.parametrize(
    "bound",
    [
        "2026-01-01T00:00:00.5Z",
        "2026-01-01T00:00:00.500000Z",
        datetime(2026, 1, 1, 0, 0, 0, 500_000, tzinfo=UTC),
    ],
)
def test_a_condition_compares_an_instant_in_the_attributes_precision(bound) -> None:
    rt = _jobs()
    rt.update("Job", {"id": "a"}, {"tries": 1}, condition="due = :t", condition_params={"t": bound})
    assert rt.get("Job", id="a")["tries"] == 1


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"t": datetime(2026, 1, 1, 0, 0, 0, 500_001, tzinfo=UTC)}, "parameter :t"),
        ({"t": "2026-01-01T00:00:00Z", "n": Decimal("NaN")}, "parameter :n"),
    ],
)
def test_a_condition_parameter_no_item_could_hold_is_refused_before_the_write(params, said) -> None:
    rt = _jobs()
    condition = "due < :t" + (" AND tries < :n" if "n" in params else "")
    with pytest.raises(ValidationError, match=said):
        rt.update("Job", {"id": "a"}, {"tries": 1}, condition=condition, condition_params=params)
    assert rt.get("Job", id="a")["tries"] == 0
