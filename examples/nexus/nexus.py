"""Nexus ProductivityData (seed 004) domain code on the runtime.

The conventions are declared in design.yaml and enforced there (prefixed ids, camelCase, UPPERCASE
entity types, generic keys, mandatory attributes, version-checked updates, IANA zones). This module
adds what needs code: ids, floating vs zoned time, recurrence expansion, the unified agenda for a
week in the viewer's zone (fanned out over GSI1 year buckets and merged in time order), the Kanban
board and notes grid, and cursor pagination beyond 100 items (rule 7.2).

Floating time (3.4, startTzid null): the wall clock is stored in startUtc/endUtc *as if* UTC, so it
sorts with everything else; it only becomes an instant when a viewer's zone is known. The agenda
therefore widens its GSI1 window by the range of UTC offsets and places floating items at their
wall clock in the viewer's zone: a wall clock W in a zone at offset o is the instant W - o, so the
instants [start, end) hold the wall clocks [start - 12h, end + 14h) for offsets -12h..+14h.

Recurrence (3.5) is expanded with ``dateutil.rrule`` (RFC 5545): DAILY, WEEKLY, MONTHLY and YEARLY
with INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, BYSETPOS and WKST, on the local wall clock. Anything
else is refused before a write, and a series (master + instances) is one transaction.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr

from tablewright.design.validators import Violation
from tablewright.runtime import Record, Runtime, ValidationError, WriteResult

DESIGN = Path(__file__).with_name("design.yaml")
PAGE_SIZE = 100  # rule 7.2: queries that may return more than 100 items paginate
ID_PREFIXES = {
    "Event": "evt_",
    "RecurringMaster": "mst_",
    "RecurringInstance": "inst_",
    "Task": "task_",
    "Reminder": "rem_",
    "Note": "note_",
}
ID_ATTRIBUTES = {
    "Event": "eventId",
    "RecurringMaster": "masterId",
    "RecurringInstance": "instanceId",
    "Task": "taskId",
    "Reminder": "reminderId",
    "Note": "noteId",
}
# Instant attribute of each agenda entity (GSI1SK).
AGENDA_TIME = {
    "Event": "startUtc",
    "RecurringInstance": "startUtc",
    "Task": "dueUtc",
    "Reminder": "triggerUtc",
}
# UTC offsets run from -12:00 to +14:00: the floating wall clocks of the instants [start, end) lie
# in [start - 12h, end + 14h) (a wall clock W at offset o is the instant W - o).
FLOATING_SLACK_BEFORE = timedelta(hours=12)
FLOATING_SLACK_AFTER = timedelta(hours=14)
RRULE_PARTS = frozenset({"FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "BYMONTH", "BYSETPOS", "WKST"})
# Numeric rule parts and the range of their magnitude (RFC 5545; negatives count from the end).
RRULE_RANGES = {
    "INTERVAL": (1, 1000),
    "BYMONTHDAY": (1, 31),
    "BYMONTH": (1, 12),
    "BYSETPOS": (1, 366),
    "BYDAY": (1, 53),
}
MAX_TRANSACTION_ACTIONS = 100  # TransactWriteItems: a series is its master + at most 99 instances
# Entities whose items span a time: the end may not come before the start.
SPANS = ("Event", "RecurringMaster", "RecurringInstance")
KANBAN_COLUMNS = ("BACKLOG", "TODO", "IN_PROGRESS", "DONE")


def new_id(entity: str) -> str:
    """A convention 2.5 id: ``<prefix>_<uuid4>``."""
    return ID_PREFIXES[entity] + str(uuid.uuid4())


def utc_text(moment: datetime) -> str:
    """Convention 3.1: ``YYYY-MM-DDTHH:mm:ssZ`` (an aware datetime is converted to UTC)."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_utc(text: str) -> datetime:
    """An RFC 3339 UTC string as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def refuse(entity: str, attribute: str, rule: str, message: str) -> ValidationError:
    """A ValidationError naming one attribute, as the design's own checks do."""
    return ValidationError(entity, [Violation(entity, attribute, rule, message)])


def check_span(entity: str, values: Mapping[str, object]) -> None:
    """Refuse an end before the start (both are UTC, or both the floating wall clock: comparable)."""
    start, end = values.get("startUtc"), values.get("endUtc")
    if entity in SPANS and isinstance(start, str) and isinstance(end, str):
        try:
            backwards = parse_utc(end) < parse_utc(start)
        except ValueError:
            return  # not a timestamp: the design's format rule names it
        if backwards:
            raise refuse(entity, "endUtc", "end_after_start", f"endUtc {end} is before startUtc {start}")


def occurrences(rrule: str, start: datetime, until: datetime) -> list[datetime]:
    """The local wall-clock starts of a rule from ``start`` up to ``until`` (inclusive), or a
    ``ValidationError`` naming ``rrule`` for a rule this module does not expand."""
    try:
        parts = dict(part.split("=", 1) for part in rrule.split(";"))
    except ValueError:
        raise refuse("RecurringMaster", "rrule", "rrule", f"{rrule!r} is not NAME=VALUE;...") from None
    unknown = sorted(set(parts) - RRULE_PARTS)
    if unknown or parts.get("FREQ") not in ("DAILY", "WEEKLY", "MONTHLY", "YEARLY"):
        problem = f"uses {', '.join(unknown)}" if unknown else f"has FREQ={parts.get('FREQ')}"
        raise refuse(
            "RecurringMaster",
            "rrule",
            "rrule",
            f"{rrule!r} {problem}: supported are FREQ=DAILY|WEEKLY|MONTHLY|YEARLY with "
            f"{', '.join(sorted(RRULE_PARTS - {'FREQ'}))}; the end goes in rruleUntil (3.5)",
        )
    for name, (low, high) in RRULE_RANGES.items():
        for value in parts.get(name, "").split(",") if name in parts else ():
            number = value[:-2] if name == "BYDAY" else value  # BYDAY: [+-n]MO..SU
            if number in ("", "+", "-") and name == "BYDAY":
                continue
            if (
                not re.fullmatch(r"[+-]?\d+", number)
                or not low <= abs(int(number)) <= high
                or int(number) == 0
            ):
                raise refuse(
                    "RecurringMaster", "rrule", "rrule", f"{rrule!r}: {name}={value} is out of range"
                )
    local_start, local_until = start.replace(tzinfo=None), until.replace(tzinfo=None)
    try:
        rule = rrulestr(rrule, dtstart=local_start)
    except (ValueError, TypeError) as error:
        raise refuse("RecurringMaster", "rrule", "rrule", f"{rrule!r}: {error}") from None
    found = list(rule.between(local_start, local_until, inc=True))
    if not found:
        raise refuse(
            "RecurringMaster", "rrule", "rrule", f"{rrule!r} has no occurrence between the start and until"
        )
    return found


def stored_times(start: datetime, end: datetime, tzid: str | None) -> tuple[str, str]:
    """startUtc/endUtc for a local wall-clock start and end: converted from ``tzid``, or, floating
    (``tzid`` None), the wall clock itself written as UTC."""
    if tzid is None:
        return utc_text(start.replace(tzinfo=None)), utc_text(end.replace(tzinfo=None))
    zone = ZoneInfo(tzid) if "/" in tzid or tzid == "UTC" else None
    if zone is None:  # let the design's iana_tz rule name the problem ("EST" is rejected there)
        return utc_text(start.replace(tzinfo=None)), utc_text(end.replace(tzinfo=None))
    return utc_text(start.replace(tzinfo=zone)), utc_text(end.replace(tzinfo=zone))


@dataclass(frozen=True)
class AgendaEntry:
    """One agenda line: when it happens for this viewer and the stored record."""

    at: datetime
    record: Record

    @property
    def floating(self) -> bool:
        """True for an event or instance in floating time."""
        return "startTzid" in self.record and self.record["startTzid"] is None


class Nexus:
    """ProductivityData through one runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    @classmethod
    def open(cls, db: str | os.PathLike | None = None, *, secret: bytes | None = None) -> Nexus:
        """Nexus on a fresh in-memory engine (or the SQLite file ``db``), table created."""
        rt = Runtime.open(DESIGN, db=db, secret=secret)
        rt.create_tables()
        return cls(rt)

    # ------------------------------------------------------------------------------------ writes
    def create(self, entity: str, values: Mapping[str, object]) -> Record:
        """Create an item with a fresh prefixed id (unless given); version 1, timestamps computed."""
        values = {ID_ATTRIBUTES[entity]: new_id(entity), **values}
        check_span(entity, values)
        return self.rt.put(entity, values).record  # type: ignore[return-value]

    def create_event(
        self, user_id: str, title: str, start: datetime, end: datetime, tzid: str | None, **more: object
    ) -> Record:
        """An event at a local start/end in ``tzid`` (IANA), or floating when ``tzid`` is None."""
        start_utc, end_utc = stored_times(start, end, tzid)
        values = {
            "userId": user_id,
            "title": title,
            "startUtc": start_utc,
            "endUtc": end_utc,
            "startTzid": tzid,
        }
        return self.create("Event", {**values, **more})

    def update(
        self,
        entity: str,
        key: Mapping[str, object],
        changes: Mapping[str, object],
        expected_version: int,
        remove: tuple[str, ...] = (),
    ) -> Record:
        """Rule 6.1: every update names the version it read (the runtime refuses one without)."""
        if entity in SPANS and {"startUtc", "endUtc"} & set(changes):
            current = self.rt.get(entity, **key) or {}
            check_span(entity, {**current, **changes})
        result: WriteResult = self.rt.update(
            entity, key, changes, expected_version=expected_version, remove=remove
        )
        return result.record  # type: ignore[return-value]

    def create_recurring(
        self,
        user_id: str,
        title: str,
        start: datetime,
        end: datetime,
        tzid: str | None,
        rrule: str,
        until: datetime,
    ) -> tuple[Record, list[Record]]:
        """A recurring master (``rrule`` as RFC 5545, end in ``rruleUntil``) and its instances up to
        ``until`` (local wall clock), each in GSI2 under the master and in GSI1 on its own date.

        Everything is validated first (the rule, every item, the span, the size); then master and
        instances are one TransactWriteItems, so a series is stored whole or not at all. A series of
        more than 99 instances does not fit one transaction and is refused: choose an earlier
        ``until`` (materialise a horizon) and add the rest with another call.
        """
        start_utc, end_utc = stored_times(start, end, tzid)
        master = {
            "masterId": new_id("RecurringMaster"),
            "userId": user_id,
            "title": title,
            "startUtc": start_utc,
            "endUtc": end_utc,
            "startTzid": tzid,
            "rrule": rrule,
            "rruleUntil": utc_text(until),
        }
        check_span("RecurringMaster", master)
        self.rt.compose("RecurringMaster", master)  # the design's rules (rrule pattern, zone) first
        length = end - start
        instances = []
        for local_start in occurrences(rrule, start, until):
            s_utc, e_utc = stored_times(local_start, local_start + length, tzid)
            instances.append(
                {
                    "instanceId": new_id("RecurringInstance"),
                    "userId": user_id,
                    "masterId": master["masterId"],
                    "instanceDate": local_start.date().isoformat(),
                    "title": title,
                    "startUtc": s_utc,
                    "endUtc": e_utc,
                    "startTzid": tzid,
                }
            )
        if len(instances) + 1 > MAX_TRANSACTION_ACTIONS:
            raise refuse(
                "RecurringMaster",
                "rruleUntil",
                "series_size",
                f"{len(instances)} instances until {utc_text(until)}: a series is written in one "
                f"transaction of at most {MAX_TRANSACTION_ACTIONS - 1} instances; choose an earlier until",
            )
        operations = [self.rt.tx_put("RecurringMaster", master)]
        operations += [self.rt.tx_put("RecurringInstance", values) for values in instances]
        result = self.rt.transact(operations)
        stored_master = next(r for r in result.records if r.entity == "RecurringMaster")
        return stored_master, [r for r in result.records if r.entity == "RecurringInstance"]

    # ------------------------------------------------------------------------------------ reads
    def pages(self, pattern: str, page_size: int = PAGE_SIZE, **params: object) -> Iterator[list[Record]]:
        """Rule 7.2: a pattern's results ``page_size`` at a time, resumed with the opaque cursor."""
        cursor = None
        while True:
            page = self.rt.run(pattern, params, limit=page_size, cursor=cursor)
            if page.items:
                yield page.items
            cursor = page.cursor
            if cursor is None:
                return

    def agenda(self, user_id: str, start: datetime, end: datetime, tzid: str) -> list[AgendaEntry]:
        """Events, recurring instances, dated tasks and reminders of ``user_id`` happening in
        [start, end) for a viewer in ``tzid`` (aware datetimes), in time order.

        GSI1 is queried over the window widened by the UTC offset range (floating items are stored
        as wall clock), one query per year bucket the window touches; the results are placed at
        their instant for this viewer, filtered to the window and merged by time.
        """
        zone = ZoneInfo(tzid)
        params = {
            "userId": user_id,
            "from": utc_text(start - FLOATING_SLACK_BEFORE),
            "to": utc_text(end + FLOATING_SLACK_AFTER),
        }
        entries = []
        for page in self.pages("agenda", **params):
            for record in page:
                at = self.instant(record, zone)
                if start <= at < end:
                    entries.append(AgendaEntry(at, record))
        # Stable: ties keep GSI1 order. Floating items can move relative to zoned ones, hence the sort.
        entries.sort(key=lambda e: e.at)
        return entries

    @staticmethod
    def instant(record: Record, zone: ZoneInfo) -> datetime:
        """When an agenda record happens for a viewer in ``zone``."""
        stored = parse_utc(str(record[AGENDA_TIME[record.entity]]))
        if "startTzid" in record and record["startTzid"] is None:  # floating: wall clock in the viewer's zone
            return stored.replace(tzinfo=zone).astimezone(UTC)
        return stored

    def agenda_week(self, user_id: str, monday: date, tzid: str) -> list[AgendaEntry]:
        """The unified agenda for the week starting ``monday`` (local midnight to midnight in ``tzid``)."""
        zone = ZoneInfo(tzid)
        start = datetime.combine(monday, time(0), tzinfo=zone)
        end = datetime.combine(monday + timedelta(days=7), time(0), tzinfo=zone)
        return self.agenda(user_id, start.astimezone(UTC), end.astimezone(UTC), tzid)

    def kanban_board(self, user_id: str) -> dict[str, list[Record]]:
        """Every Kanban column (GSI3 TASK#<STATUS>#), each by priority, paginated past 100."""
        return {
            status: [t for page in self.pages("kanban_column", userId=user_id, status=status) for t in page]
            for status in KANBAN_COLUMNS
        }

    def notes_grid(self, user_id: str) -> list[Record]:
        """Pinned notes (NOTE#1#) then recent ones (NOTE#0#), each newest-updated first; no archived."""
        grid = []
        for pinned in (True, False):
            grid += [n for page in self.pages("notes_grid", userId=user_id, isPinned=pinned) for n in page]
        return grid
