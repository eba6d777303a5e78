"""Sample data for Nexus ProductivityData around the 2025/2026 New Year, where the agenda's week
Mon Dec 29 -> Sun Jan 4 spans two GSI1 partitions (USER#<id>#2025 and USER#<id>#2026).

Per user: events (some floating, startTzid null), a daily recurring master ("7 am habit", floating)
with its instances, tasks in every status (dated and undated; a dated BACKLOG task inside the week,
which the agenda must not show), reminders (some undated) and notes (pinned, recent, archived).
Edge cases: items exactly at 2025-12-31T23:59:59Z and 2026-01-01T00:00:00Z, a user with nothing, and
one user with more than 100 tasks (the document's rule 7.2: paginate).

Scale 1 is about 400 items for 3 users; ``scale`` multiplies the number of users.
"""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta

WEEK_START = datetime(2025, 12, 29, tzinfo=UTC)  # a Monday
ZONES = ["America/New_York", "Europe/Berlin", "Asia/Kolkata", "UTC", None]  # None: floating
STATUSES = ["BACKLOG", "TODO", "IN_PROGRESS", "DONE"]
TAGS = ["work", "urgent", "home", "health", "finance"]
EMPTY_USER = "user_000"


def _id(rng: random.Random, prefix: str) -> str:
    return prefix + str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _around_new_year(rng: random.Random) -> datetime:
    """A whole-minute instant between Dec 10, 2025 and Jan 20, 2026."""
    return datetime(2025, 12, 10, tzinfo=UTC) + timedelta(minutes=15 * rng.randint(0, 41 * 96))


def _tags(rng: random.Random) -> set[str] | None:
    chosen = set(rng.sample(TAGS, rng.randint(0, 2)))
    return chosen or None  # DynamoDB has no empty sets: no tags means no attribute


def _with_tags(rng: random.Random, item: dict) -> dict:
    tags = _tags(rng)
    if tags:
        item["tags"] = tags
    return item


def _events(rng: random.Random, user: str) -> list[dict]:
    starts = [_around_new_year(rng) for _ in range(28)]
    starts += [datetime(2025, 12, 31, 23, 59, 59, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)]
    events = []
    for n, start in enumerate(starts):
        events.append(
            _with_tags(
                rng,
                {
                    "userId": user,
                    "eventId": _id(rng, "evt_"),
                    "title": f"Event {n}",
                    "startUtc": _ts(start),
                    "endUtc": _ts(start + timedelta(minutes=30 * rng.randint(1, 4))),
                    "startTzid": rng.choice(ZONES),
                },
            )
        )
    return events


def _recurring(rng: random.Random, user: str) -> tuple[list[dict], list[dict]]:
    master_id = _id(rng, "mst_")
    first = datetime(2025, 12, 26, 7, tzinfo=UTC)  # floating 07:00: the wall clock written as UTC
    master = {
        "userId": user,
        "masterId": master_id,
        "title": "Morning run",
        "startUtc": _ts(first),
        "endUtc": _ts(first + timedelta(minutes=45)),
        "startTzid": None,
        "rrule": "FREQ=DAILY;INTERVAL=1",
        "rruleUntil": "2026-01-06T23:59:59Z",
    }
    instances = []
    for day in range(12):
        start = first + timedelta(days=day)
        instances.append(
            {
                "userId": user,
                "instanceId": _id(rng, "inst_"),
                "masterId": master_id,
                "instanceDate": start.strftime("%Y-%m-%d"),
                "title": "Morning run",
                "startUtc": _ts(start),
                "endUtc": _ts(start + timedelta(minutes=45)),
                "startTzid": None,
            }
        )
    return [master], instances


def _tasks(rng: random.Random, user: str, count: int) -> list[dict]:
    tasks = []
    for n in range(count):
        task = {
            "userId": user,
            "taskId": _id(rng, "task_"),
            "title": f"Task {n}",
            "status": STATUSES[n % 4],
            "priority": rng.randint(1, 5),
        }
        if rng.random() < 0.7:
            task["dueUtc"] = _ts(_around_new_year(rng))
        tasks.append(_with_tags(rng, task))
    tasks[0].update(status="BACKLOG", dueUtc="2025-12-30T09:00:00Z")  # dated but Backlog: not in GSI1
    return tasks


def _reminders(rng: random.Random, user: str) -> list[dict]:
    reminders = []
    for n in range(10):
        reminder = {"userId": user, "reminderId": _id(rng, "rem_"), "title": f"Reminder {n}"}
        if n % 5:
            reminder["triggerUtc"] = _ts(_around_new_year(rng))
        reminders.append(reminder)
    return reminders


def _notes(rng: random.Random, user: str) -> list[dict]:
    return [
        _with_tags(
            rng,
            {
                "userId": user,
                "noteId": _id(rng, "note_"),
                "title": f"Note {n}",
                "body": "x" * rng.randint(0, 400),
                "isPinned": n % 4 == 0,
                "isArchived": n % 5 == 4,
            },
        )
        for n in range(12)
    ]


def generate(seed: int, scale: float) -> dict[str, list[dict]]:
    """Entity name -> values: masters before their instances."""
    rng = random.Random(seed)
    data: dict[str, list[dict]] = {k: [] for k in ("Event", "RecurringMaster", "RecurringInstance")}
    data.update(Task=[], Reminder=[], Note=[])
    users = [f"user_{n:03d}" for n in range(1, max(2, round(2 * scale)) + 1)]
    for index, user in enumerate(users):
        data["Event"] += _events(rng, user)
        masters, instances = _recurring(rng, user)
        data["RecurringMaster"] += masters
        data["RecurringInstance"] += instances
        data["Task"] += _tasks(rng, user, 130 if index == 1 else 30)  # user_002: beyond 100
        data["Reminder"] += _reminders(rng, user)
        data["Note"] += _notes(rng, user)
    return data


def params(seed: int, scale: float) -> dict[str, list[dict]]:
    """Pattern -> parameter sets: the New Year week, single-year windows, boundaries, misses."""
    data = generate(seed, scale)
    master = data["RecurringMaster"][0]
    task, event = data["Task"][1], data["Event"][0]
    return {
        "agenda": [
            {"userId": "user_001", "from": "2025-12-29T00:00:00Z", "to": "2026-01-04T23:59:59Z"},  # 2 buckets
            {"userId": "user_002", "from": "2025-12-29T00:00:00Z", "to": "2026-01-04T23:59:59Z"},
            {"userId": "user_001", "from": "2025-12-31T23:59:59Z", "to": "2026-01-01T00:00:00Z"},  # the edge
            {
                "userId": "user_001",
                "from": "2026-01-05T00:00:00Z",
                "to": "2026-01-11T23:59:59Z",
            },  # one bucket
            {"userId": EMPTY_USER, "from": "2025-12-29T00:00:00Z", "to": "2026-01-04T23:59:59Z"},
        ],
        "kanban_column": [{"userId": u, "status": s} for u in ("user_001", "user_002") for s in STATUSES]
        + [{"userId": EMPTY_USER, "status": "TODO"}],
        "notes_grid": [{"userId": "user_001", "isPinned": p} for p in (True, False)]
        + [{"userId": EMPTY_USER, "isPinned": True}],
        "recurrence": [
            {"masterId": master["masterId"]},
            {"masterId": "mst_" + str(uuid.UUID(int=1, version=4))},
        ],
        "instances_between": [
            {"masterId": master["masterId"], "fromDate": "2025-12-29", "toDate": "2026-01-04"},
            {"masterId": master["masterId"], "fromDate": "2026-02-01", "toDate": "2026-02-28"},
        ],
        "user_tasks": [{"userId": "user_001"}, {"userId": "user_002"}, {"userId": EMPTY_USER}],
        "get_task": [
            {"userId": task["userId"], "taskId": task["taskId"]},
            {"userId": "user_001", "taskId": "task_x"},
        ],
        "get_event": [{"userId": event["userId"], "eventId": event["eventId"]}],
    }
