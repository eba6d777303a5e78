"""Sort key bounds that cover every key with a prefix, and time buckets stepped in the key's zone.

A bound built from a prefix must lie above every key DynamoDB can store with that prefix, in UTF-8
byte order (emoji and supplementary CJK sort after U+FFFF). A partition bucket read through
``|tz:`` is the zone's year, month, day or hour: the bucket enumeration must visit each once.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import Runtime
from tablewright.runtime.verify import stored_records, verify_pattern

NOTES = """
tables:
  main: {partition_key: PK, sort_key: SK}
entities:
  Note:
    table: main
    attributes:
      user: {type: string, required: true}
      day: {type: string, required: true, format: date}
      title: {type: string, required: true}
    keys:
      table: {pk: "U#{user}", sk: "{day}#{title}"}
  Tag:
    table: main
    attributes:
      user: {type: string, required: true}
      label: {type: string, required: true}
    keys:
      table: {pk: "U#{user}", sk: "{label}"}
patterns:
  notes_between:
    params: {user: string, from: {type: string, format: date}, to: {type: string, format: date}}
    returns: [Note, Tag]
    means: {where: "user = :user AND day BETWEEN :from AND :to", order: day asc}
    served: {op: query, sort: {between: [{day: ":from"}, {day: ":to"}]}}
  notes_upto:
    params: {user: string, to: {type: string, format: date}}
    returns: [Note, Tag]
    means: {where: "user = :user AND day <= :to", order: day asc}
    served: {op: query, sort: {le: {day: ":to"}}}
  notes_after:
    params: {user: string, day: {type: string, format: date}}
    returns: [Note, Tag]
    means: {where: "user = :user AND day > :day", order: day asc}
    served: {op: query, sort: {gt: {}}}
"""
DAY, NEXT_DAY = "2025-01-02", "2025-01-03"
PREFIX = f"{DAY}#"
# Titles whose next character after the prefix sorts at or after U+FFFF in UTF-8 bytes.
HIGH_TITLES = ["\U0001f600 party", "\U00020000 cjk", "\uffff edge", "\U0010ffff", "\U0010ffffx"]
# DynamoDB's longest sort key is 1024 bytes of UTF-8. The greatest one with the prefix: U+10FFFF
# (F4 8F BF BF) while four bytes fit, then the largest one-byte character.
SORT_KEY_BYTES = 1024
LONGEST_TITLE = "\U0010ffff" * ((SORT_KEY_BYTES - len(PREFIX)) // 4) + "\x7f"


def _notes_runtime(titles: list[str]) -> Runtime:
    rt = Runtime(loads(NOTES), connect(), secret=b"s")
    rt.create_tables()
    for title in titles:
        rt.put("Note", {"user": "u", "day": DAY, "title": title})
    rt.put("Note", {"user": "u", "day": NEXT_DAY, "title": "next"})
    # A key just above every key of the day (its prefix with the last character incremented): an
    # exclusive bound used with BETWEEN, which is inclusive, would return it.
    rt.put("Tag", {"user": "u", "label": f"{DAY}$"})
    return rt


def _titles(page) -> list[str]:
    return [record["title"] if record.entity == "Note" else record["label"] for record in page]


def test_upper_bounds_cover_keys_continuing_past_the_basic_plane():
    rt = _notes_runtime(["plain", *HIGH_TITLES, LONGEST_TITLE])
    day_titles = sorted(["plain", *HIGH_TITLES, LONGEST_TITLE], key=lambda t: t.encode("utf-8"))
    between = rt.run("notes_between", user="u", **{"from": "2025-01-01", "to": DAY})
    assert _titles(between) == day_titles
    assert _titles(rt.run("notes_upto", user="u", to=DAY)) == day_titles
    assert _titles(rt.run("notes_after", user="u", day=DAY)) == [f"{DAY}$", "next"]
    records = stored_records(rt, ["Note"])
    verdict = verify_pattern(rt, "notes_between", {"user": "u", "from": "2025-01-01", "to": DAY}, records)
    assert (verdict.ok, verdict.missing, verdict.extra) == (True, [], [])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    titles=st.lists(st.text(st.characters(codec="utf-8"), max_size=6), min_size=1, max_size=6, unique=True)
)
def test_every_title_of_the_last_day_is_inside_the_range(titles):
    rt = _notes_runtime(titles)
    found = rt.run("notes_between", user="u", **{"from": DAY, "to": DAY})
    assert sorted(_titles(found)) == sorted(titles)


@pytest.mark.parametrize("prefix", ["", "A#", "\U0010ffff", "x" * 1023, "x" * 1024, "x" * 2000])
def test_the_greatest_key_is_the_largest_a_sort_key_holds(prefix):
    from tablewright.design.patterns import greatest_key_with_prefix  # new: the others fail on old code

    bound = greatest_key_with_prefix(prefix)
    assert bound.startswith(prefix)
    assert len(bound.encode("utf-8")) == max(SORT_KEY_BYTES, len(prefix.encode("utf-8")))
    one_more = bound[len(prefix) :]
    # Any other continuation that fits is below it in UTF-8 bytes.
    for other in ["\U0010ffff" * (len(one_more) - 1), "\uffff" * 300, "\U0001f600" * 250, "\x7f"]:
        if len((prefix + other).encode("utf-8")) <= SORT_KEY_BYTES:
            assert (prefix + other).encode("utf-8") <= bound.encode("utf-8")


# ------------------------------------------------------------------------------------ buckets

EVENTS = """
tables:
  main: {partition_key: PK, sort_key: SK}
entities:
  Ev:
    table: main
    attributes:
      user: {type: string, required: true}
      at: {type: string, required: true, format: rfc3339, precision: us}
      eid: {type: string, required: true}
    keys:
      table: {pk: "E#{user}#{at|tz:%(zone)s|%(step)s}", sk: "{at}#{eid}"}
patterns:
  evs:
    params: {user: string, from: {type: string, format: rfc3339}, to: {type: string, format: rfc3339}}
    returns: Ev
    means: {where: "user = :user AND at BETWEEN :from AND :to", order: at asc}
    served:
      op: query
      partition: {at: ":from"}
      sort: {between: [{at: ":from"}, {at: ":to"}]}
      buckets: {attribute: at, from: ":from", to: ":to"}
"""


def _events(zone: str, step: str):
    return loads(EVENTS % {"zone": zone, "step": step})


def test_denver_years_are_each_read_once_across_new_year():
    rt = Runtime(_events("America/Denver", "year"), connect(), secret=b"s")
    rt.create_tables()
    stamps = {
        "a": "2025-06-01T00:00:00Z",
        "b": "2026-01-01T06:30:00Z",  # still 2025 in Denver
        "c": "2026-01-01T07:30:00Z",
        "d": "2026-01-01T07:59:00Z",
    }
    for eid, at in stamps.items():
        rt.put("Ev", {"user": "u", "at": at, "eid": eid})
    window = {"user": "u", "from": "2025-05-01T00:00:00Z", "to": "2026-01-01T08:00:00Z"}
    buckets = rt.pattern("evs").buckets(window)
    assert [b["from"] for b in buckets] == ["2025-05-01T00:00:00Z", "2026-01-01T07:00:00Z"]
    assert [r["eid"] for r in rt.run("evs", **window)] == ["a", "b", "c", "d"]
    verdict = verify_pattern(rt, "evs", window, stored_records(rt, ["Ev"]))
    assert (verdict.ok, verdict.missing, verdict.extra) == (True, [], [])


# Zones with DST at 02:00, at midnight (Santiago), by half an hour (Lord Howe), none (Kathmandu's
# +05:45), and UTC. Grids fine enough that every bucket of the step holds a grid instant.
ZONES = ["America/Denver", "America/Santiago", "Australia/Lord_Howe", "Asia/Kathmandu", "UTC"]
GRIDS = {
    "hour": timedelta(minutes=15),
    "day": timedelta(hours=1),
    "month": timedelta(hours=6),
    "year": timedelta(hours=6),
}
SPANS = {
    "hour": timedelta(days=3),
    "day": timedelta(days=50),
    "month": timedelta(days=400),
    "year": timedelta(days=1100),
}
STARTS = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2035, 1, 1), timezones=st.just(UTC))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    zone=st.sampled_from(ZONES),
    step=st.sampled_from(sorted(GRIDS)),
    start=STARTS,
    fraction=st.floats(0, 1),
)
def test_buckets_are_each_zone_bucket_of_the_window_once_from_its_first_instant(zone, step, start, fraction):
    pattern = _events(zone, step).patterns["evs"]
    template = pattern.served.entity_key.pk
    end = start + SPANS[step] * fraction

    def bucket(moment: datetime) -> str:
        return template.render({"user": "u", "at": moment})

    params = {"user": "u", "from": start, "to": end}
    buckets = pattern.buckets(params)
    keys = [pattern.key_condition(b).partition_value for b in buckets]
    assert len(keys) == len(set(keys)), "a bucket is read twice"
    grid = [start] + [start + GRIDS[step] * i for i in range(1, int((end - start) / GRIDS[step]) + 1)]
    expected = list(dict.fromkeys(bucket(moment) for moment in [*grid, end]))
    assert keys == expected
    assert buckets[0]["from"] == start
    assert all(b["to"] == end for b in buckets)
    for moved in buckets[1:]:  # each later bucket starts at its first instant
        assert bucket(moved["from"]) != bucket(moved["from"] - timedelta(microseconds=1))


def test_an_hour_the_clock_skips_is_not_read_and_a_repeated_hour_is_read_once():
    pattern = _events("America/Denver", "hour").patterns["evs"]
    spring = {"user": "u", "from": "2025-03-09T08:30:00Z", "to": "2025-03-09T10:30:00Z"}
    assert [pattern.key_condition(b).partition_value for b in pattern.buckets(spring)] == [
        "E#u#2025-03-09T01",
        "E#u#2025-03-09T03",  # 02:00 does not exist: 03:00 MDT follows 01:59 MST
        "E#u#2025-03-09T04",
    ]
    autumn = {"user": "u", "from": "2025-11-02T07:30:00Z", "to": "2025-11-02T09:30:00Z"}
    autumn_buckets = pattern.buckets(autumn)
    assert [pattern.key_condition(b).partition_value for b in autumn_buckets] == [
        "E#u#2025-11-02T01",  # 01:00 MDT and 01:00 MST: one partition, read from the first
        "E#u#2025-11-02T02",
    ]
    assert autumn_buckets[1]["from"] == "2025-11-02T09:00:00Z"


def test_a_moved_start_keeps_the_callers_fraction_digits():
    pattern = _events("UTC", "year").patterns["evs"]
    params = {"user": "u", "from": "2025-03-01T00:00:00.123456Z", "to": "2026-03-01T00:00:00Z"}
    assert [b["from"] for b in pattern.buckets(params)] == [
        "2025-03-01T00:00:00.123456Z",
        "2026-01-01T00:00:00.000000Z",
    ]


def test_a_window_that_ends_before_it_starts_spans_no_bucket():
    pattern = _events("UTC", "year").patterns["evs"]
    inverted = {"user": "u", "from": "2025-06-01T00:00:00Z", "to": "2025-05-01T00:00:00Z"}
    assert pattern.buckets(inverted) == []
