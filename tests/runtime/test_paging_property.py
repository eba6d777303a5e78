"""Paging never changes an answer: the pages of a run, followed by cursor, are the run without pages.

For generated data (tasks and events across years, priorities, statuses, other users' items, marker
items in the same partitions) and every kind of read the nexus design serves (a multi-entity query,
a sparse index with ``begins_with``, a filter behind a tiny ``page_size``, year buckets), every
``limit`` from 1 up gives pages of at most ``limit`` records whose concatenation is the unpaged run,
item for item and in order, with no cursor on the last page.
"""

from __future__ import annotations

import time

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import Runtime

from .conftest import DESIGNS


def _nexus_with_filtered_reads():
    """The nexus design plus reads that resume inside a response: filters on an index, over year
    buckets, and a scan with a small page size."""
    design = yaml.safe_load((DESIGNS / "nexus.yaml").read_text())
    patterns = design["patterns"]
    agenda = patterns["agenda"]
    patterns["agenda_events"] = {**agenda, "served": {**agenda["served"], "filter": "title = 'e'"}}
    patterns["urgent_column"] = {
        **patterns["kanban_column"],
        "served": {**patterns["kanban_column"]["served"], "filter": "priority <= 2"},
    }
    patterns["tasks_by_two"] = {
        "params": {"userId": "string"},
        "returns": "Task",
        "means": {"where": "userId = :userId"},
        "served": {"op": "query", "via": "Task", "sort": {"begins_with": {}}, "page_size": 2},
    }
    patterns["every_task"] = {
        "params": {},
        "returns": "Task",
        "means": {},
        "served": {"op": "scan"},
    }
    patterns["urgent_anywhere"] = {
        "params": {"p": "number"},
        "returns": "Task",
        "means": {"where": "priority = :p"},
        "served": {"op": "scan", "filter": "priority = :p", "page_size": 3},
    }
    return loads(yaml.safe_dump(design, sort_keys=False))


NEXUS = _nexus_with_filtered_reads()
YEARS = st.sampled_from(["2023", "2024", "2025"])
STATUSES = ["BACKLOG", "TODO", "IN_PROGRESS", "DONE"]


def _moment(year: str, day: int) -> str:
    return f"{year}-0{1 + day % 9}-1{day % 10}T0{day % 10}:00:00Z"


tasks = st.lists(
    st.tuples(
        st.sampled_from(STATUSES),
        st.integers(1, 5),
        st.one_of(st.none(), st.tuples(YEARS, st.integers(0, 40))),
    ),
    min_size=2,
    max_size=12,
)
events = st.lists(st.tuples(YEARS, st.integers(0, 40)), min_size=1, max_size=8)


def _runtime(user_tasks, user_events) -> Runtime:
    rt = Runtime(NEXUS, connect(), secret=b"paging")
    rt.create_tables()
    for owner in ("usr_a", "usr_b"):
        rt.put("User", {"userId": owner, "email": f"{owner}@x.io"})  # a unique marker beside the items
        for n, (status, priority, due) in enumerate(user_tasks):
            task = {
                "userId": owner,
                "taskId": f"task_{n:02d}",
                "title": "t",
                "status": status,
                "priority": priority,
            }
            if due is not None:
                task["dueUtc"] = _moment(*due)
            rt.put("Task", task)
        for n, (year, day) in enumerate(user_events):
            moment = _moment(year, day)
            rt.put(
                "Event",
                {
                    "userId": owner,
                    "eventId": f"evt_{n:02d}",
                    "title": "e",
                    "startUtc": moment,
                    "endUtc": moment,
                },
            )
    return rt


ALL = 2**31 - 1
RUNS = [
    ("user_items", {"userId": "usr_a"}),
    ("kanban_column", {"userId": "usr_a", "status": "TODO"}),
    ("first_urgent", {"userId": "usr_a"}),
    ("agenda", {"userId": "usr_a", "from": "2023-03-01T00:00:00Z", "to": "2025-06-30T00:00:00Z"}),
    ("agenda_events", {"userId": "usr_a", "from": "2023-03-01T00:00:00Z", "to": "2025-06-30T00:00:00Z"}),
    ("urgent_column", {"userId": "usr_a", "status": "TODO"}),
    ("urgent_anywhere", {"p": 1}),
]


def _identities(records) -> list:
    return [record.identity for record in records]


def _paged(rt: Runtime, name: str, params: dict, limit: int) -> list:
    seen, cursor = [], None
    for _ in range(200):
        page = rt.run(name, params, limit=limit, cursor=cursor)
        assert len(page) <= limit
        seen += _identities(page)
        cursor = page.cursor
        if cursor is None:
            return seen
    raise AssertionError(f"{name}: no last page after 200 pages of {limit}")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(user_tasks=tasks, user_events=events, limit=st.integers(1, 5))
def test_pages_followed_by_cursor_are_the_unpaged_run(user_tasks, user_events, limit):
    rt = _runtime(user_tasks, user_events)
    for name, params in RUNS:
        whole = rt.run(name, params, limit=ALL)  # the largest Limit: every match, one page
        assert whole.cursor is None
        assert _paged(rt, name, params, limit) == _identities(whole), name


def _fixed() -> Runtime:
    return _runtime([("TODO", p, None) for p in (1, 3, 1, 2, 1)], [("2024", 1)])


def test_a_page_size_is_the_limit_of_every_request_even_when_the_caller_wants_more():
    page = _fixed().run("tasks_by_two", {"userId": "usr_a"}, limit=5)
    assert len(page) == 5 and page.cursor is None
    assert (page.stats.requests, page.stats.items_read) == (3, 5)


def test_a_limit_reads_no_more_items_than_it_returns_where_nothing_is_filtered():
    page = _fixed().run("kanban_column", {"userId": "usr_a", "status": "TODO"}, limit=1)
    assert (len(page), page.stats.items_read, page.stats.requests) == (1, 1, 1)
    assert page.cursor is not None


def test_a_filter_behind_a_page_size_reads_until_the_limit_is_met():
    page = _fixed().run("first_urgent", {"userId": "usr_a"})
    assert [record["taskId"] for record in page] == ["task_00"]
    assert (page.stats.requests, page.stats.items_read, page.stats.items_returned) == (1, 2, 1)


def test_the_page_that_returns_the_last_match_has_no_cursor():
    rt = _fixed()
    page = rt.run("urgent_column", {"userId": "usr_a", "status": "TODO"}, limit=4)
    assert len(page) == 4 and page.cursor is None  # 4 matches (priority 1, 1, 1, 2): nothing after them
    page = rt.run("urgent_column", {"userId": "usr_a", "status": "TODO"}, limit=3)
    assert len(page) == 3 and page.cursor is not None


def test_a_run_counts_what_it_skipped_and_how_long_it_took():
    rt = _fixed()
    started = time.perf_counter()
    page = rt.run("every_task", {})
    took_ms = (time.perf_counter() - started) * 1000
    # 2 users, their 2 unique markers and 2 events are read and skipped; 10 tasks are returned.
    assert (page.stats.items_read, page.stats.skipped, len(page)) == (16, 6, 10)
    assert 0.001 < page.stats.latency_ms <= took_ms


def test_a_whole_item_read_through_an_index_keeps_what_it_lacks_absent():
    # kanban_column's index projects ALL: an item lacking priority (written by another tool, its key
    # still spelling one) is read whole, so priority stays absent rather than recovered from the key.
    rt = _fixed()
    item = {"PK": "USER#usr_a", "SK": "TASK#task_99", "GSI3PK": "USER#usr_a", "GSI3SK": "TASK#TODO#1"}
    values = {"entityType": "TASK", "userId": "usr_a", "taskId": "task_99", "title": "t", "status": "TODO"}
    rt.client.put_item(
        TableName="ProductivityData", Item={k: {"S": v} for k, v in {**item, **values}.items()}
    )
    (record,) = [
        r for r in rt.run("kanban_column", {"userId": "usr_a", "status": "TODO"}) if r["taskId"] == "task_99"
    ]
    assert "priority" not in record
