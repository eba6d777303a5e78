"""examples/nexus (seed 004) on the real embedded engine: the conventions enforced, floating vs zoned
time, sparse GSIs, version-checked updates, cursor pagination past 100 items and the unified agenda
across the 2025/2026 year boundary (two GSI1 partitions)."""

from __future__ import annotations

import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewright.cli.check import check
from tablewright.design import DesignError, load, loads
from tablewright.runtime import ConflictError, ConventionError, CursorError, ValidationError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "nexus"
sys.path.insert(0, str(EXAMPLE))
import nexus as nx  # noqa: E402

USER = "user_123"
MONDAY = date(2025, 12, 29)


@pytest.fixture
def nexus() -> nx.Nexus:
    return nx.Nexus.open()


def gsi_keys(n: nx.Nexus, entity: str, **key: object) -> dict:
    """The stored item's index key attributes (what DynamoDB projects into GSIs)."""
    table = n.rt.design.table_of(entity)
    raw = n.rt.read_raw(table, n.rt.compose_key(n.rt.entity(entity), key))
    return {k: v for k, v in raw.items() if k.startswith("GSI")}


# ------------------------------------------------------------------------------------ conventions
def test_ids_are_prefixed_uuids_and_items_carry_the_mandatory_attributes(nexus):
    task = nexus.create("Task", {"userId": USER, "title": "t"})
    assert task["taskId"].startswith("task_") and len(task["taskId"]) == 5 + 36
    assert task["entityType"] == "TASK" and task["version"] == 1
    assert task["createdAt"].endswith("Z") and task["updatedAt"] == task["createdAt"]
    assert task.key == {"PK": f"USER#{USER}", "SK": f"TASK#{task['taskId']}"}
    with pytest.raises(ValidationError, match="taskId"):
        nexus.rt.put("Task", {"userId": USER, "taskId": "tsk_" + task["taskId"][5:], "title": "t"})
    with pytest.raises(ValidationError, match="eventId"):  # the right prefix but not a uuid
        nexus.create(
            "Event",
            {
                "eventId": "evt_123",
                "userId": USER,
                "title": "x",
                "startUtc": "2025-12-29T10:00:00Z",
                "endUtc": "2025-12-29T11:00:00Z",
                "startTzid": None,
            },
        )


@pytest.mark.parametrize(
    ("rule", "yaml_fragment", "complaint"),
    [
        ("camelCase", "      Title: string\n", "attribute Title of Note is not camelCase"),
        ("UPPERCASE", None, "entity type 'Note' of Note is not UPPERCASE"),
    ],
)
def test_the_design_refuses_convention_breaches(rule, yaml_fragment, complaint):
    text = (EXAMPLE / "design.yaml").read_text()
    if yaml_fragment:
        text = text.replace("      noteId: {type: string", yaml_fragment + "      noteId: {type: string", 1)
    else:
        text = text.replace("entity_type: NOTE", "entity_type: Note")
    with pytest.raises(DesignError, match=complaint):
        loads(text, "nexus-broken.yaml")


def test_every_update_must_check_the_version(nexus):
    task = nexus.create("Task", {"userId": USER, "title": "t"})
    key = {"userId": USER, "taskId": task["taskId"]}
    with pytest.raises(ConventionError, match="version_on_update: required"):
        nexus.rt.update("Task", key, {"status": "DONE"})
    moved = nexus.update("Task", key, {"status": "IN_PROGRESS"}, expected_version=1)
    assert moved["version"] == 2
    with pytest.raises(ConflictError) as stale:  # a second writer that also read version 1
        nexus.update("Task", key, {"status": "DONE"}, expected_version=1)
    assert stale.value.actual == 2


def test_tags_are_a_string_set(nexus):
    note = nexus.create("Note", {"userId": USER, "title": "n", "tags": {"work", "urgent"}})
    stored = nexus.rt.get("Note", userId=USER, noteId=note["noteId"])
    assert stored["tags"] == {"work", "urgent"}
    with pytest.raises(ValidationError, match="tags"):
        nexus.create("Note", {"userId": USER, "title": "n", "tags": ["work", "work"]})


# ------------------------------------------------------------------------------------ time
def test_zoned_event_is_stored_in_utc_and_est_is_rejected(nexus):
    event = nexus.create_event(
        USER, "standup", datetime(2025, 12, 29, 9), datetime(2025, 12, 29, 9, 15), "America/New_York"
    )
    assert (event["startUtc"], event["endUtc"]) == ("2025-12-29T14:00:00Z", "2025-12-29T14:15:00Z")
    with pytest.raises(ValidationError, match="startTzid"):
        nexus.create_event(USER, "x", datetime(2025, 12, 29, 9), datetime(2025, 12, 29, 10), "EST")


def test_floating_event_keeps_its_wall_clock_for_every_viewer(nexus):
    habit = nexus.create_event(USER, "run", datetime(2025, 12, 30, 7), datetime(2025, 12, 30, 8), None)
    assert habit["startTzid"] is None and habit["startUtc"] == "2025-12-30T07:00:00Z"
    for zone in ("America/Los_Angeles", "Asia/Tokyo", "Europe/Berlin"):
        (entry,) = [
            e for e in nexus.agenda_week(USER, MONDAY, zone) if e.record["eventId"] == habit["eventId"]
        ]
        local = entry.at.astimezone(nx.ZoneInfo(zone))
        assert (local.hour, local.minute, local.date()) == (7, 0, date(2025, 12, 30))
        assert entry.floating


def test_start_tzid_is_mandatory_even_when_null(nexus):
    with pytest.raises(ValidationError, match="startTzid is required"):
        nexus.rt.put(
            "Event",
            {
                "userId": USER,
                "eventId": nx.new_id("Event"),
                "title": "x",
                "startUtc": "2025-12-29T10:00:00Z",
                "endUtc": "2025-12-29T11:00:00Z",
            },
        )


# ------------------------------------------------------------------------------------ sparse indexes
def test_gsi1_holds_only_dated_non_backlog_tasks_and_dated_reminders(nexus):
    dated = nexus.create("Task", {"userId": USER, "title": "d", "dueUtc": "2025-12-30T09:00:00Z"})
    undated = nexus.create("Task", {"userId": USER, "title": "u"})
    backlog = nexus.create(
        "Task", {"userId": USER, "title": "b", "status": "BACKLOG", "dueUtc": "2025-12-30T09:00:00Z"}
    )
    assert gsi_keys(nexus, "Task", userId=USER, taskId=dated["taskId"])["GSI1PK"] == f"USER#{USER}#2025"
    assert "GSI1PK" not in gsi_keys(nexus, "Task", userId=USER, taskId=undated["taskId"])
    assert "GSI1PK" not in gsi_keys(nexus, "Task", userId=USER, taskId=backlog["taskId"])
    assert gsi_keys(nexus, "Task", userId=USER, taskId=backlog["taskId"])["GSI3SK"] == "TASK#BACKLOG#3"
    # Moving it out of the backlog projects it; undating it removes it again.
    key = {"userId": USER, "taskId": backlog["taskId"]}
    nexus.update("Task", key, {"status": "TODO"}, expected_version=1)
    assert gsi_keys(nexus, "Task", **key)["GSI1SK"] == "2025-12-30T09:00:00Z"
    nexus.update("Task", key, {}, expected_version=2, remove=("dueUtc",))
    assert "GSI1PK" not in gsi_keys(nexus, "Task", **key)
    reminder = nexus.create("Reminder", {"userId": USER, "title": "r"})
    assert not {
        k
        for k in gsi_keys(nexus, "Reminder", userId=USER, reminderId=reminder["reminderId"])
        if k.startswith("GSI1")
    }


def test_gsi2_holds_only_the_recurrence_hierarchy(nexus):
    master, instances = nexus.create_recurring(
        USER,
        "run",
        datetime(2025, 12, 30, 7),
        datetime(2025, 12, 30, 8),
        None,
        "FREQ=DAILY",
        datetime(2026, 1, 2, 23, 59),
    )
    assert [i["instanceDate"] for i in instances] == ["2025-12-30", "2025-12-31", "2026-01-01", "2026-01-02"]
    tree = nexus.rt.run("recurrence", masterId=master["masterId"]).items
    assert [r.entity for r in tree] == ["RecurringInstance"] * 4 + ["RecurringMaster"]
    event = nexus.create_event(USER, "e", datetime(2025, 12, 30, 7), datetime(2025, 12, 30, 8), "UTC")
    assert not {
        k for k in gsi_keys(nexus, "Event", userId=USER, eventId=event["eventId"]) if k.startswith("GSI2")
    }
    with pytest.raises(ValidationError, match="rrule"):  # 3.5: the end goes in rruleUntil, not UNTIL=
        nexus.create_recurring(
            USER,
            "x",
            datetime(2025, 12, 30, 7),
            datetime(2025, 12, 30, 8),
            None,
            "FREQ=DAILY;UNTIL=20260101T000000Z",
            datetime(2026, 1, 1),
        )


def test_kanban_and_notes_grid_via_gsi3(nexus):
    for status, priority in [("TODO", 3), ("TODO", 1), ("IN_PROGRESS", 2), ("BACKLOG", 5)]:
        nexus.create(
            "Task", {"userId": USER, "title": f"{status}{priority}", "status": status, "priority": priority}
        )
    board = nexus.kanban_board(USER)
    assert [t["priority"] for t in board["TODO"]] == [1, 3]
    assert [t["title"] for t in board["BACKLOG"]] == ["BACKLOG5"] and board["DONE"] == []
    old = nexus.create("Note", {"userId": USER, "title": "old"})
    pinned = nexus.create("Note", {"userId": USER, "title": "pinned", "isPinned": True})
    nexus.create("Note", {"userId": USER, "title": "archived", "isArchived": True})
    edited = nexus.update(
        "Note", {"userId": USER, "noteId": old["noteId"]}, {"body": "edited"}, expected_version=1
    )
    nexus.create("Note", {"userId": USER, "title": "fresh"})
    grid = [n["title"] for n in nexus.notes_grid(USER)]
    # Pinned first; archived never; the rest newest-updated first (same-second writes tie).
    assert grid[0] == "pinned" and pinned["isPinned"] and sorted(grid[1:]) == ["fresh", "old"]
    key = gsi_keys(nexus, "Note", userId=USER, noteId=old["noteId"])["GSI3SK"]
    assert key == f"NOTE#0#{edited['updatedAt']}"  # the update moved the note in the grid


# ------------------------------------------------------------------------------------ agenda
@pytest.fixture
def new_year(nexus):
    """A user's items around the 2025/2026 boundary, plus ones that must stay out of the week."""
    made = {}
    made["mon"] = nexus.create_event(
        USER, "mon", datetime(2025, 12, 29, 9), datetime(2025, 12, 29, 10), "UTC"
    )
    made["nye"] = nexus.create_event(
        USER, "nye", datetime(2025, 12, 31, 23, 59, 59), datetime(2026, 1, 1, 0, 30), "UTC"
    )
    made["ny"] = nexus.create_event(USER, "ny", datetime(2026, 1, 1), datetime(2026, 1, 1, 1), "UTC")
    made["sun"] = nexus.create_event(
        USER, "sun", datetime(2026, 1, 4, 23), datetime(2026, 1, 4, 23, 30), "UTC"
    )
    made["next"] = nexus.create_event(USER, "next", datetime(2026, 1, 5), datetime(2026, 1, 5, 1), "UTC")
    made["before"] = nexus.create_event(
        USER, "before", datetime(2025, 12, 28, 23, 59), datetime(2025, 12, 29), "UTC"
    )
    made["task"] = nexus.create("Task", {"userId": USER, "title": "task", "dueUtc": "2026-01-02T12:00:00Z"})
    made["backlog"] = nexus.create(
        "Task", {"userId": USER, "title": "backlog", "status": "BACKLOG", "dueUtc": "2026-01-02T12:00:00Z"}
    )
    made["rem"] = nexus.create(
        "Reminder", {"userId": USER, "title": "rem", "triggerUtc": "2025-12-30T08:00:00Z"}
    )
    made["undated"] = nexus.create("Reminder", {"userId": USER, "title": "undated"})
    nexus.create_event("user_other", "not mine", datetime(2025, 12, 30, 9), datetime(2025, 12, 30, 10), "UTC")
    return made


def test_agenda_week_across_the_year_boundary_merges_both_partitions_in_order(nexus, new_year):
    week = nexus.agenda_week(USER, MONDAY, "UTC")
    assert [e.record["title"] for e in week] == ["mon", "rem", "nye", "ny", "task", "sun"]
    assert [e.at for e in week] == sorted(e.at for e in week)
    years = {e.record[nx.AGENDA_TIME[e.record.entity]][:4] for e in week}
    assert years == {"2025", "2026"}  # both GSI1 partitions were read


def test_agenda_window_is_the_viewers_local_week(nexus, new_year):
    # In Tokyo (UTC+9) the week starts Dec 28 15:00Z: "before" (Dec 28 23:59Z) is in, "sun" (Jan 5 08:00 local) out.
    titles = [e.record["title"] for e in nexus.agenda_week(USER, MONDAY, "Asia/Tokyo")]
    assert titles[0] == "before" and "sun" not in titles and "next" not in titles


def test_agenda_pattern_reads_one_query_per_year_bucket(nexus, new_year):
    page = nexus.rt.run(
        "agenda", userId=USER, **{"from": "2025-12-29T00:00:00Z", "to": "2026-01-04T23:59:59Z"}
    )
    assert page.stats.requests == 2
    single = nexus.rt.run(
        "agenda", userId=USER, **{"from": "2026-01-01T00:00:00Z", "to": "2026-01-04T23:59:59Z"}
    )
    assert single.stats.requests == 1


# ------------------------------------------------------------------------------------ pagination
def test_more_than_100_items_come_in_pages_with_a_tamper_evident_cursor(nexus):
    for n in range(250):
        nexus.create("Task", {"userId": USER, "title": f"t{n}", "status": "TODO", "priority": 1 + n % 5})
    sizes = [len(p) for p in nexus.pages("kanban_column", userId=USER, status="TODO")]
    assert sizes == [100, 100, 50]
    ids = [t["taskId"] for p in nexus.pages("user_tasks", userId=USER) for t in p]
    assert len(ids) == len(set(ids)) == 250
    first = nexus.rt.run("user_tasks", {"userId": USER}, limit=100)
    forged = first.cursor[:-4] + ("AAAA" if not first.cursor.endswith("AAAA") else "BBBB")
    with pytest.raises(CursorError):
        nexus.rt.run("user_tasks", {"userId": USER}, limit=100, cursor=forged)
    with pytest.raises(CursorError):  # another user's parameters
        nexus.rt.run("user_tasks", {"userId": "user_other"}, limit=100, cursor=first.cursor)


def test_agenda_pages_across_the_year_boundary_without_loss(nexus):
    for day, month, year in [(d, 12, 2025) for d in range(29, 32)] + [(d, 1, 2026) for d in range(1, 5)]:
        for hour in range(0, 24, 1):
            nexus.rt.put(
                "Task",
                {
                    "userId": USER,
                    "taskId": nx.new_id("Task"),
                    "title": "x",
                    "dueUtc": f"{year}-{month:02d}-{day:02d}T{hour:02d}:00:00Z",
                },
            )
    pages = list(
        nexus.pages("agenda", userId=USER, **{"from": "2025-12-29T00:00:00Z", "to": "2026-01-04T23:59:59Z"})
    )
    assert [len(p) for p in pages] == [100, 68]
    times = [t["dueUtc"] for p in pages for t in p]
    assert times == sorted(times) and len(set(times)) == 168


def test_check_passes():
    result = CliRunner().invoke(check, [str(EXAMPLE)])
    assert result.exit_code == 0, result.output


def test_design_loads_with_no_warnings():
    assert load(EXAMPLE / "design.yaml").warnings == []
    assert nx.parse_utc("2025-12-29T00:00:00Z") == datetime(2025, 12, 29, tzinfo=UTC)
