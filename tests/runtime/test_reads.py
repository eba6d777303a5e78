"""Access patterns: multi-entity queries, bucket fan-out, Limit+filter, cursors, verification."""

import base64

import pytest

from tablewright.runtime import CursorError, PatternError
from tablewright.runtime.verify import evaluate_means, verify_pattern

BASE = 1_733_529_600_000


def _seed_nexus(rt):
    rt.put("User", {"userId": "usr_1", "email": "a@x.io"})
    rt.put(
        "Event",
        {
            "userId": "usr_1",
            "eventId": "evt_1",
            "title": "NYE",
            "startUtc": "2024-12-31T22:00:00Z",
            "endUtc": "2024-12-31T23:59:00Z",
            "startTzid": None,
        },
    )
    rt.put(
        "Event",
        {
            "userId": "usr_1",
            "eventId": "evt_2",
            "title": "brunch",
            "startUtc": "2025-01-01T11:00:00Z",
            "endUtc": "2025-01-01T12:00:00Z",
            "startTzid": "Europe/Paris",
        },
    )
    rt.put(
        "Task",
        {
            "userId": "usr_1",
            "taskId": "task_1",
            "title": "pack",
            "status": "TODO",
            "dueUtc": "2024-12-30T09:00:00Z",
        },
    )
    rt.put("Task", {"userId": "usr_1", "taskId": "task_2", "title": "someday", "status": "BACKLOG"})
    rt.put(
        "Event",
        {
            "userId": "usr_2",
            "eventId": "evt_9",
            "title": "other user",
            "startUtc": "2025-01-01T10:00:00Z",
            "endUtc": "2025-01-01T11:00:00Z",
        },
    )


def test_one_query_returns_several_typed_entities(nexus):
    _seed_nexus(nexus)
    page = nexus.run("user_items", userId="usr_1")
    assert sorted((r.entity, r.get("eventId") or r.get("taskId") or r["userId"]) for r in page) == [
        ("Event", "evt_1"),
        ("Event", "evt_2"),
        ("Task", "task_1"),
        ("Task", "task_2"),
        ("User", "usr_1"),
    ]
    assert all("PK" not in r and "SK" not in r for r in page)


def test_bucket_fan_out_across_new_year_in_order(nexus):
    _seed_nexus(nexus)
    page = nexus.run(
        "agenda", userId="usr_1", **{"from": "2024-12-29T00:00:00Z", "to": "2025-01-02T00:00:00Z"}
    )
    assert [(r.entity, r.get("eventId") or r.get("taskId")) for r in page] == [
        ("Task", "task_1"),
        ("Event", "evt_1"),
        ("Event", "evt_2"),
    ]
    assert page.stats.requests == 2  # USER#usr_1#2024 then USER#usr_1#2025
    narrow = nexus.run(
        "agenda", userId="usr_1", **{"from": "2025-01-01T00:00:00Z", "to": "2025-01-02T00:00:00Z"}
    )
    assert [r["eventId"] for r in narrow] == ["evt_2"] and narrow.stats.requests == 1


def test_limit_and_filter_follow_pages_until_a_match(van):
    # The newest 60 messages are telemetry; the only status message is older. A single request
    # with Limit would find nothing: the runtime must keep reading.
    van.put("Message", {"thing_name": "v", "timestamp": BASE, "message_type": "status"})
    van.put_many(
        "Message",
        [{"thing_name": "v", "timestamp": BASE + i, "message_type": "telemetry"} for i in range(1, 61)],
    )
    page = van.run("device_status", thing_name="v")
    assert [(r["timestamp"], r["message_type"]) for r in page] == [(BASE, "status")]
    assert page.stats.requests == 2 and page.stats.items_read == 61 and page.stats.items_returned == 1


def _van_messages(rt, n=25):
    rt.put_many(
        "Message", [{"thing_name": "v", "timestamp": BASE + i, "message_type": "telemetry"} for i in range(n)]
    )


def test_cursor_pages_through_everything_once(van):
    _van_messages(van)
    seen, cursor = [], None
    for _ in range(5):
        page = van.run("latest_messages", thing_name="v", since=BASE - 1, cursor=cursor)
        seen += [r["timestamp"] - BASE for r in page]
        cursor = page.cursor
        if cursor is None:
            break
    assert seen == list(range(24, -1, -1))


def test_tampered_cursor_is_refused(van):
    _van_messages(van)
    cursor = van.run("latest_messages", thing_name="v", since=BASE - 1).cursor
    body, signature = cursor.split(".")
    original = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    data = original.replace(b"1733529600015", b"1733529600020")  # skip ahead past unread items
    assert data != original
    forged = base64.urlsafe_b64encode(data).rstrip(b"=").decode() + "." + signature
    with pytest.raises(CursorError, match="modified"):
        van.run("latest_messages", thing_name="v", since=BASE - 1, cursor=forged)
    with pytest.raises(CursorError, match="different parameters"):
        van.run("latest_messages", thing_name="w", since=BASE - 1, cursor=cursor)
    with pytest.raises(CursorError, match="belongs to pattern"):
        van.run("time_range", thing_name="v", start=BASE, end=BASE + 1, cursor=cursor)


def test_cursor_from_another_secret_is_refused(van, runtime_for):
    _van_messages(van)
    cursor = van.run("latest_messages", thing_name="v", since=BASE - 1).cursor
    other = runtime_for("van", van.client)
    other.codec.secret = b"another secret"
    with pytest.raises(CursorError):
        other.run("latest_messages", thing_name="v", since=BASE - 1, cursor=cursor)


def test_parameters_are_checked(van):
    with pytest.raises(PatternError, match="parameter since is missing"):
        van.run("latest_messages", thing_name="v")
    with pytest.raises(PatternError, match="unknown parameter"):
        van.run("latest_messages", thing_name="v", since=BASE, color="red")
    with pytest.raises(PatternError, match="unknown access pattern 'nope'"):
        van.run("nope")


def test_verification_reports_missing_items(van):
    records = van.put_many(
        "Message", [{"thing_name": "v", "timestamp": BASE + i, "message_type": "alert"} for i in range(3)]
    ).records
    assert verify_pattern(van, "recent_alerts", {"since": BASE - 1}, records).ok
    # A record the table does not hold shows up as missing, with its key.
    phantom = type(records[0])(
        "Message", {**records[0], "timestamp": BASE + 99}, {"thing_name": "v", "timestamp": BASE + 99}
    )
    verdict = verify_pattern(van, "recent_alerts", {"since": BASE - 1}, [*records, phantom])
    assert not verdict.ok and verdict.missing == [
        {"thing_name": "v", "timestamp": BASE + 99, "entity": "Message"}
    ]
    assert [
        r["timestamp"] for r in evaluate_means(van.pattern("recent_alerts"), {"since": BASE}, records)
    ] == [BASE + 1, BASE + 2]


@pytest.mark.parametrize("year", ["0002", "9999"])
def test_an_agenda_reaching_the_first_and_the_last_years_datetime_holds(nexus, year):
    # Year buckets from 0001 up to 9999: no bucket past 9999 is made (datetime ends there) and year 2
    # is written 0002, as RFC 3339 and the stored keys spell it (strftime would write "2").
    start = f"{year}-03-04T05:06:07Z"
    nexus.put("User", {"userId": "usr_1", "email": "a@x.io"})
    event = {"userId": "usr_1", "eventId": "evt_old", "title": "t", "startUtc": start, "endUtc": start}
    nexus.put("Event", {**event, "startTzid": None})
    span = {"from": "0001-01-01T00:00:00Z", "to": "9999-12-31T23:59:59Z"}
    found = nexus.run("agenda", userId="usr_1", **span).items
    assert [(r.entity, r["startUtc"]) for r in found] == [("Event", start)]


@pytest.mark.parametrize("limit", [0, -1, True, 2.5, "5", 2**31])
def test_a_limit_dynamodb_would_not_take_is_a_pattern_error(van, limit):
    from tablewright.runtime import PatternError

    with pytest.raises(PatternError, match=r"limit .* is not a whole number from 1 to 2147483647"):
        van.run("latest_messages", thing_name="van-01", since=BASE, limit=limit)
    assert van.run("latest_messages", thing_name="van-01", since=BASE, limit=2**31 - 1).items == []
