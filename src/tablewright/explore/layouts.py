"""Views declared in a design, laid out as plain data a template draws (table, timeline, board,
calendar week, count).

A view runs its pattern through the runtime, following cursors up to ``MAX_ITEMS`` items, then
arranges the records; the arranging is a table of functions, one per kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..design.model import Design
from ..design.timeutil import parse_rfc3339
from ..design.views import View
from ..runtime.wire import Record
from .patterns import record_json
from .workspace import Workspace

MAX_ITEMS = 1000
_EPOCH_SCALE = {"epoch_ms": 1000, "epoch_s": 1}


def run_view(workspace: Workspace, view: View, params: Mapping[str, object]) -> dict[str, Any]:
    """Run the view's pattern with ``params`` and lay its records out for the view's kind."""
    rt = workspace.runtime
    records: list[Record] = []
    cursor = None
    requests = items_read = 0
    while True:
        page = rt.run(view.pattern, params, cursor=cursor)
        records += page.items
        requests += page.stats.requests
        items_read += page.stats.items_read
        cursor = page.cursor
        if cursor is None or len(records) >= MAX_ITEMS:
            break
    layout = LAYOUTS[view.kind](workspace.design, view, records[:MAX_ITEMS], params)
    return {
        "kind": view.kind,
        "count": len(records[:MAX_ITEMS]),
        "truncated": cursor is not None,
        "requests": requests,
        "items_read": items_read,
        **layout,
    }


def _formats(design: Design, records: list[Record]) -> dict[tuple[str, str], str | None]:
    return {
        (e.name, name): a.format
        for e in design.entities.values()
        if e.name in {r.entity for r in records}
        for name, a in e.attributes.items()
    }


def instant(value: object, fmt: str | None) -> datetime | None:
    """A time value as a datetime: epoch numbers by their format, RFC 3339, or a wall-clock text."""
    if isinstance(value, int | Decimal) and not isinstance(value, bool):
        scale = _EPOCH_SCALE.get(fmt or "", 1000 if value > 10**11 else 1)
        try:
            return datetime.fromtimestamp(float(value) / scale, UTC)
        except (OverflowError, ValueError, OSError):  # past year 9999 or before year 1: no time
            return None
    if not isinstance(value, str):
        return None
    try:
        return parse_rfc3339(value)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(value.strip())  # "2025-11-02 01:30:00.000": a wall clock as written
    except ValueError:
        return None


def _zone(view: View) -> ZoneInfo | None:
    try:
        return ZoneInfo(view.timezone) if view.timezone else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _timed(design: Design, view: View, records: list[Record]) -> list[dict[str, Any]]:
    formats = _formats(design, records)
    zone = _zone(view)
    entries = []
    for record in records:
        attribute = next((a for a in view.time if record.get(a) is not None), None)
        moment = (
            instant(record.get(attribute), formats.get((record.entity, attribute or "")))
            if attribute
            else None
        )
        if moment is not None and zone is not None and moment.tzinfo is not None:
            moment = moment.astimezone(zone)
        entries.append(
            {
                **record_json(record),
                "label": str(record.get(view.label, record.entity)) if view.label else record.entity,
                "time_attribute": attribute,
                "time": moment.isoformat(sep=" ", timespec="milliseconds") if moment else None,
                "moment": moment,
            }
        )
    entries.sort(key=lambda e: (e["moment"] is None, _sortable(e["moment"])))
    return entries


def _sortable(moment: datetime | None) -> float:
    if moment is None:
        return 0.0
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def _table(design: Design, view: View, records: list[Record], params: Mapping[str, object]) -> dict[str, Any]:
    columns = list(view.columns) or list(dict.fromkeys(name for r in records for name in r))
    return {"columns": columns, "rows": [record_json(r) for r in records]}


def _timeline(
    design: Design, view: View, records: list[Record], params: Mapping[str, object]
) -> dict[str, Any]:
    entries = _timed(design, view, records)
    for entry in entries:
        entry.pop("moment")
    return {"entries": entries, "entities": sorted({r.entity for r in records})}


def _board(design: Design, view: View, records: list[Record], params: Mapping[str, object]) -> dict[str, Any]:
    columns: dict[str, list[dict[str, Any]]] = {str(g): [] for g in view.groups}
    for record in records:
        value = record.get(view.group_by or "")
        card = {
            **record_json(record),
            "label": str(record.get(view.label, "")) if view.label else record.entity,
        }
        columns.setdefault("(none)" if value is None else str(value), []).append(card)
    return {"group_by": view.group_by, "columns": [{"value": k, "cards": v} for k, v in columns.items()]}


def _calendar(
    design: Design, view: View, records: list[Record], params: Mapping[str, object]
) -> dict[str, Any]:
    entries = _timed(design, view, records)
    starts = [m for m in (instant(v, f) for v, f in _time_params(design, view, params)) if m is not None]
    zone = _zone(view)
    if zone is not None:
        starts = [m.astimezone(zone) if m.tzinfo else m for m in starts]
    dated = [e["moment"] for e in entries if e["moment"] is not None]
    # Wall clocks (naive) and instants (aware) may mix: compare them as _timed sorts them.
    first: date = min(starts or dated or [datetime.now(UTC)], key=_sortable).date()
    days = [
        {
            "date": (first + timedelta(days=n)).isoformat(),
            "weekday": (first + timedelta(days=n)).strftime("%a"),
            "entries": [],
        }
        for n in range(7)
    ]
    by_date = {d["date"]: d for d in days}
    outside = 0
    for entry in entries:
        moment = entry.pop("moment")
        day = by_date.get(moment.date().isoformat()) if moment else None
        if day is None:
            outside += 1
            continue
        entry["hour"] = moment.strftime("%H:%M")
        day["entries"].append(entry)
    return {"days": days, "outside_week": outside}


def _time_params(design: Design, view: View, params: Mapping[str, object]) -> list[tuple[object, str | None]]:
    """The parameters that can be times, with their format: text, or a number declared as epoch
    time (a number such as a priority or a limit of 5 is not 1970-01-01 00:00:05)."""
    declared = design.patterns[view.pattern].params
    found = []
    for name, value in params.items():
        fmt = declared[name].format if name in declared else None
        if isinstance(value, str) or fmt in _EPOCH_SCALE:
            found.append((value, fmt))
    return found


def _count(design: Design, view: View, records: list[Record], params: Mapping[str, object]) -> dict[str, Any]:
    counts = Counter(
        "(none)" if r.get(view.group_by or "") is None else str(r.get(view.group_by or "")) for r in records
    )
    rows = [{"value": value, "count": n} for value, n in counts.most_common()]
    return {"group_by": view.group_by, "rows": rows, "max": max(counts.values(), default=0)}


LAYOUTS: dict[str, Callable[[Design, View, list[Record], Mapping[str, object]], dict[str, Any]]] = {
    "table": _table,
    "timeline": _timeline,
    "board": _board,
    "calendar": _calendar,
    "count": _count,
}
