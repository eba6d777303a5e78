"""examples/nexus at its edges: floating items for viewers in every zone from UTC-12 to UTC+14, the
document's ``...ssZ`` timestamps, MONTHLY/YEARLY recurrence (or a refusal before any write), series
written atomically, and an end before the start."""

from __future__ import annotations

import re
import sys
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from tablewright.runtime import Runtime, ValidationError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "nexus"
sys.path.insert(0, str(EXAMPLE))
import nexus as nx  # noqa: E402

USER = "user_123"
MONDAY = date(2026, 3, 2)
SECONDS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
# Every whole-hour offset from UTC-12 to UTC+14 (Etc/GMT signs are inverted), and two real zones at the ends.
ZONES = [f"Etc/GMT{-h:+d}" if h else "UTC" for h in range(-12, 15)] + ["Pacific/Kiritimati", "Pacific/Apia"]


@pytest.fixture
def nexus() -> nx.Nexus:
    return nx.Nexus.open()


def stored(nexus: nx.Nexus) -> list[dict]:
    client, table = nexus.rt.client, nexus.rt.design.tables["data"].table_name
    return client.scan(TableName=table)["Items"]


# ------------------------------------------------------------------------------------ floating time
@pytest.mark.parametrize("zone", ZONES)
def test_floating_items_at_both_ends_of_the_week_appear_for_every_viewer(nexus, zone):
    first = nexus.create_event(USER, "first", datetime(2026, 3, 2, 0, 0), datetime(2026, 3, 2, 0, 30), None)
    last = nexus.create_event(USER, "last", datetime(2026, 3, 8, 23, 30), datetime(2026, 3, 8, 23, 59), None)
    before = nexus.create_event(USER, "before", datetime(2026, 3, 1, 23, 59), datetime(2026, 3, 2), None)
    after = nexus.create_event(USER, "after", datetime(2026, 3, 9, 0, 0), datetime(2026, 3, 9, 1), None)
    titles = [e.record["title"] for e in nexus.agenda_week(USER, MONDAY, zone)]
    assert titles == ["first", "last"], zone
    assert {first["eventId"], last["eventId"]}.isdisjoint({before["eventId"], after["eventId"]})


# ------------------------------------------------------------------------------------ timestamps
def test_every_timestamp_is_whole_seconds_with_z(nexus):
    event = nexus.create_event(
        USER, "e", datetime(2026, 3, 2, 9, 0, 0, 250_000), datetime(2026, 3, 2, 10), "UTC"
    )
    task = nexus.create("Task", {"userId": USER, "title": "t", "dueUtc": "2026-03-03T12:00:00Z"})
    updated = nexus.update(
        "Task", {"userId": USER, "taskId": task["taskId"]}, {"title": "u"}, expected_version=1
    )
    for record in (event, task, updated):
        for name in ("createdAt", "updatedAt", "startUtc", "endUtc", "dueUtc"):
            if name in record:
                assert SECONDS.match(record[name]), (name, record[name])


@pytest.mark.parametrize(
    "spelling", ["2026-03-03T12:00:00.500Z", "2026-03-03T12:00:00+00:00", "2026-03-03T12:00Z"]
)
def test_other_spellings_of_a_timestamp_are_refused(nexus, spelling):
    with pytest.raises(ValidationError, match="dueUtc"):
        nexus.create("Task", {"userId": USER, "title": "t", "dueUtc": spelling})


# ------------------------------------------------------------------------------------ recurrence
def series(nexus: nx.Nexus, rrule: str, start: datetime, until: datetime, tzid: str | None = "UTC"):
    return nexus.create_recurring(USER, "r", start, start + timedelta(hours=1), tzid, rrule, until)


def test_monthly_by_month_day_skips_months_without_that_day(nexus):
    _, instances = series(
        nexus, "FREQ=MONTHLY;BYMONTHDAY=31", datetime(2026, 1, 31, 9), datetime(2026, 8, 31, 23)
    )
    assert [i["instanceDate"] for i in instances] == [
        "2026-01-31",
        "2026-03-31",
        "2026-05-31",
        "2026-07-31",
        "2026-08-31",
    ]


def test_monthly_by_day_second_tuesday_and_last_friday(nexus):
    _, second_tuesday = series(
        nexus, "FREQ=MONTHLY;BYDAY=2TU", datetime(2026, 1, 13, 9), datetime(2026, 4, 30)
    )
    assert [i["instanceDate"] for i in second_tuesday] == [
        "2026-01-13",
        "2026-02-10",
        "2026-03-10",
        "2026-04-14",
    ]
    _, last_friday = series(nexus, "FREQ=MONTHLY;BYDAY=-1FR", datetime(2026, 1, 30, 9), datetime(2026, 3, 31))
    assert [i["instanceDate"] for i in last_friday] == ["2026-01-30", "2026-02-27", "2026-03-27"]


def test_yearly_rules(nexus):
    _, leap = series(
        nexus, "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", datetime(2024, 2, 29, 9), datetime(2033, 1, 1)
    )
    assert [i["instanceDate"] for i in leap] == ["2024-02-29", "2028-02-29", "2032-02-29"]
    _, thanksgiving = series(
        nexus, "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH", datetime(2025, 11, 27, 12), datetime(2027, 12, 31)
    )
    assert [i["instanceDate"] for i in thanksgiving] == ["2025-11-27", "2026-11-26", "2027-11-25"]


def test_zoned_monthly_series_keeps_its_local_time_across_dst(nexus):
    _, instances = series(
        nexus, "FREQ=MONTHLY;BYMONTHDAY=15", datetime(2026, 2, 15, 9), datetime(2026, 4, 30), "Europe/Berlin"
    )
    assert [i["startUtc"] for i in instances] == [
        "2026-02-15T08:00:00Z",
        "2026-03-15T08:00:00Z",
        "2026-04-15T07:00:00Z",
    ]


@pytest.mark.parametrize(
    "rrule",
    [
        "FREQ=MONTHLY;BYDAY=XX",  # not a weekday
        "FREQ=MONTHLY;BYMONTHDAY=32",
        "FREQ=HOURLY",  # not a frequency the design allows
        "FREQ=MONTHLY;BYEASTER=0",  # a part no calendar needs
        "FREQ=MONTHLY;COUNT=3",  # the end goes in rruleUntil (3.5)
    ],
)
def test_unusable_rules_are_refused_before_anything_is_written(nexus, rrule):
    with pytest.raises(ValidationError, match="rrule"):
        series(nexus, rrule, datetime(2026, 1, 13, 9), datetime(2026, 4, 30))
    assert stored(nexus) == []


def test_a_series_too_long_for_one_transaction_is_refused_before_anything_is_written(nexus):
    with pytest.raises(ValidationError, match="rruleUntil"):
        series(nexus, "FREQ=DAILY", datetime(2026, 1, 1, 7), datetime(2026, 12, 31))
    assert stored(nexus) == []


def test_master_and_instances_are_written_in_one_transaction():
    # Through botocore (direct=False), so every request the runtime sends passes botocore's hooks.
    nexus = nx.Nexus(Runtime.open(nx.DESIGN, direct=False))
    nexus.rt.create_tables()
    calls: list[str] = []
    # Every request the runtime sends, as botocore builds it (the engine answers after this hook).
    nexus.rt.client.meta.events.register(
        "before-parameter-build.dynamodb", lambda model, **_: calls.append(model.name)
    )
    master, instances = series(nexus, "FREQ=WEEKLY", datetime(2026, 1, 5, 9), datetime(2026, 3, 1))
    assert len(instances) == 8 and [c for c in calls if c not in ("GetItem", "Query")] == [
        "TransactWriteItems"
    ]
    assert len(stored(nexus)) == 9 and all(i["masterId"] == master["masterId"] for i in instances)


# ------------------------------------------------------------------------------------ start and end
def test_an_end_before_the_start_is_refused(nexus):
    with pytest.raises(ValidationError, match="endUtc"):
        nexus.create_event(USER, "e", datetime(2026, 3, 2, 10), datetime(2026, 3, 2, 9), "UTC")
    with pytest.raises(ValidationError, match="endUtc"):
        nexus.create(
            "Event",
            {
                "userId": USER,
                "title": "e",
                "startUtc": "2026-03-02T10:00:00Z",
                "endUtc": "2026-03-02T09:59:59Z",
                "startTzid": None,
            },
        )
    with pytest.raises(ValidationError, match="endUtc"):
        nexus.create_recurring(
            USER,
            "r",
            datetime(2026, 3, 2, 10),
            datetime(2026, 3, 2, 9),
            "UTC",
            "FREQ=DAILY",
            datetime(2026, 3, 9),
        )
    event = nexus.create_event(USER, "e", datetime(2026, 3, 2, 10), datetime(2026, 3, 2, 11), "UTC")
    with pytest.raises(ValidationError, match="endUtc"):
        nexus.update(
            "Event",
            {"userId": USER, "eventId": event["eventId"]},
            {"endUtc": "2026-03-02T09:00:00Z"},
            expected_version=1,
        )
    assert stored(nexus) and len(stored(nexus)) == 1
