"""Pattern parameters checked and converted before a run (runtime/params.py): every problem named at
once, defaults filled in, datetimes in the format and precision the design stores."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import PatternError, Runtime

DESIGN = loads(
    """
version: 1
name: params
tables:
  main: {name: Main, partition_key: {name: PK, type: S}, sort_key: {name: SK, type: S}}
entities:
  Reading:
    table: main
    attributes:
      device: {type: string, required: true}
      at: {type: string, format: rfc3339, precision: ms}
      ms: {type: number, format: epoch_ms}
      s: {type: number, format: epoch_s}
    keys:
      table: {pk: "DEV#{device}", sk: "{at}"}
patterns:
  bare:
    params: {}
    returns: Reading
    means: {}
    served: {op: scan}
  listed_first:
    params: {ids: list, kind: {type: string, default: reading}, at: {type: string, format: rfc3339}, device: string}
    returns: Reading
    means: {where: "device = :device AND at >= :at"}
    served: {op: query, sort: {ge: ":at"}}
  since:
    params:
      device: {type: string, pattern: "^d[0-9]+$"}
      since: {type: string, format: rfc3339}
      kind: {type: string, default: reading, enum: [reading, alert]}
    returns: Reading
    means: {where: "device = :device AND at >= :since"}
    served: {op: query, sort: {gte: ":since"}}
  stamps:
    params: {device: string, ms: {type: number, format: epoch_ms}, s: {type: number, format: epoch_s}, ids: list}
    returns: Reading
    means: {where: "device = :device AND ms >= :ms AND s >= :s"}
    served: {op: query, filter: "ms >= :ms AND s >= :s"}
"""
)
MOMENT = datetime(2025, 1, 15, 12, 0, 0, 250_000, tzinfo=UTC)


@pytest.fixture
def rt() -> Runtime:
    runtime = Runtime(DESIGN, connect(), secret=b"p")
    runtime.create_tables()
    return runtime


def test_every_problem_is_named_at_once(rt):
    with pytest.raises(PatternError) as caught:
        rt.prepare_params("since", {"device": "x1", "colour": "red", "size": 1})
    assert str(caught.value) == (
        "pattern 'since': unknown parameter(s) colour, size (takes: device, since, kind); "
        "parameter device: 'x1' does not match '^d[0-9]+$' [pattern]; parameter since is missing"
    )


def test_a_default_fills_a_missing_parameter_and_a_given_one_is_checked(rt):
    assert rt.prepare_params("since", {"device": "d1", "since": "2025-01-15T12:00:00Z"})["kind"] == "reading"
    with pytest.raises(PatternError, match=r"parameter kind: .*\[enum\]"):
        rt.prepare_params("since", {"device": "d1", "since": "2025-01-15T12:00:00Z", "kind": "noise"})


def test_datetimes_take_the_format_and_the_precision_of_what_they_are_compared_with(rt):
    prepared = rt.prepare_params("since", {"device": "d1", "since": MOMENT})
    assert prepared["since"] == "2025-01-15T12:00:00.250Z"  # the sort key stores milliseconds
    stamps = rt.prepare_params("stamps", {"device": "d1", "ms": MOMENT, "s": MOMENT, "ids": [1, "x"]})
    assert (stamps["ms"], stamps["s"], stamps["ids"]) == (1_736_942_400_250, 1_736_942_400, [1, "x"])


def test_a_timestamp_finer_than_the_stored_precision_is_refused_not_cut(rt):
    with pytest.raises(PatternError, match=r"pattern 'since': parameter since: .*\[precision\]"):
        rt.prepare_params(
            "since", {"device": "d1", "since": datetime(2025, 1, 15, 12, 0, 0, 250_500, tzinfo=UTC)}
        )


def test_a_run_sees_the_converted_parameters_on_both_sides(rt):
    rt.put(
        "Reading",
        {"device": "d1", "at": "2025-01-15T12:00:00.250Z", "ms": 1_736_942_400_250, "s": 1_736_942_400},
    )
    rt.put(
        "Reading",
        {"device": "d1", "at": "2025-01-15T12:00:00.249Z", "ms": 1_736_942_400_249, "s": 1_736_942_399},
    )
    assert [r["at"] for r in rt.run("since", device="d1", since=MOMENT)] == ["2025-01-15T12:00:00.250Z"]
    assert [r["ms"] for r in rt.run("stamps", device="d1", ms=MOMENT, s=MOMENT, ids=[])] == [
        1_736_942_400_250
    ]


def test_every_parameter_is_taken_whatever_comes_before_it(rt):
    # A list, a default and a refused precision each end one parameter's checks, not the others'.
    prepared = rt.prepare_params("listed_first", {"ids": [1], "device": "d1", "at": "2025-01-01T00:00:00Z"})
    assert prepared == {"ids": [1], "kind": "reading", "at": "2025-01-01T00:00:00.000Z", "device": "d1"}
    with pytest.raises(PatternError) as caught:
        rt.prepare_params("listed_first", {"ids": [], "at": "2025-01-01T00:00:00.0001Z"})
    assert str(caught.value).endswith("[precision]; parameter device is missing")


def test_a_pattern_without_parameters_says_it_takes_none(rt):
    with pytest.raises(PatternError, match=r"^pattern 'bare': unknown parameter\(s\) x \(takes: none\)$"):
        rt.prepare_params("bare", {"x": 1})
