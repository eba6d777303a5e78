"""Views in design files: loaded into the model, and every mistake reported at its line."""

from __future__ import annotations

import pytest

from tablewright.design import DesignError, load, loads

from .support import EXAMPLES

BASE = """
tables: {t: {partition_key: {name: pk, type: S}, sort_key: {name: sk, type: S}}}
entities:
  Task:
    table: t
    attributes: {user: string, id: string, status: {type: string, enum: [todo, done]}, due: string}
    keys: {table: {pk: "U#{user}", sk: "T#{id}"}}
patterns:
  tasks: {params: {user: string}, returns: Task, means: {where: "user = :user"}, served: {op: query}}
views:
"""


def test_a_view_loads_with_every_field():
    design = loads(
        BASE
        + """  board:
    title: Board
    kind: board
    pattern: tasks
    params: {user: u1}
    group_by: status
    groups: [todo, done]
    label: id
    time: [due]
    timezone: Europe/Oslo
""",
        "views.yaml",
    )
    view = design.views["board"]
    assert (view.kind, view.pattern, view.group_by, view.groups, view.time, view.params) == (
        "board",
        "tasks",
        "status",
        ("todo", "done"),
        ("due",),
        {"user": "u1"},
    )
    assert view.heading == "Board" and view.time_of({"due": "2026-01-01"}) == "2026-01-01"


@pytest.mark.parametrize(
    ("view", "message"),
    [
        ("{kind: pie, pattern: tasks}", "'pie' is not allowed"),
        ("{kind: board, pattern: tasks}", "a board view needs group_by"),
        ("{kind: timeline, pattern: tasks}", "a timeline view needs time"),
        ("{kind: table, pattern: taks}", "unknown pattern 'taks'"),
        ("{kind: table, pattern: tasks, params: {usr: u1}}", "has no parameter 'usr'"),
        (
            "{kind: table, pattern: tasks, columns: [stauts]}",
            "no entity of pattern tasks has attribute 'stauts'",
        ),
        ("{kind: count, pattern: tasks, group_by: 3}", "3 is not of type 'string'"),
        ("{pattern: tasks}", "'kind' is a required property"),
    ],
)
def test_view_mistakes_are_reported_at_their_line(view, message):
    with pytest.raises(DesignError) as caught:
        loads(BASE + f"  v: {view}\n", "views.yaml")
    assert message in str(caught.value) and "views.yaml:11:" in str(caught.value), str(caught.value)


@pytest.mark.parametrize(
    ("example", "views"),
    [
        ("evse", {"fleet_ota", "device_timeline", "anomalies"}),
        ("van-telemetry", {"latest_status", "alerts"}),
        ("woms", {"organization_plants", "vendor_plants"}),
        ("nexus", {"week_agenda", "kanban"}),
    ],
)
def test_the_examples_declare_the_views_their_documents_name(example, views):
    assert views <= set(load(EXAMPLES / example / "design.yaml").views)
