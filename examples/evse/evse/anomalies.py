"""The anomaly job: state divergence, missed uplinks and stuck OTA sessions, recorded once each.

The ADR names anomaly detection as a use of the fleet views but defines no anomaly; decisions
(README, "Anomalies"):

* **divergence**: an episode of the device drawing current (J1772 C) while the scheduler has it
  paused - the ``divergence_*`` group of the state item, found per episode by folding the same
  ``apply_event`` the ingestion uses over the day's events in true time order;
* **missed_uplinks**: a silence of more than 1.5 uplink intervals (15 minutes) between two uplinks
  of a device (scheduler commands are the cloud's, not the device's), counted in whole intervals;
  a silence still going on at ``now`` counts up to ``now``. A day's run judges the silences that
  begin with an uplink heard that day *and* the one going on when the day began (from the last
  uplink before it, however long ago): a charger that falls silent at 23:59 is reported by the next
  day's run;
* **ota_stuck**: an OTA session ``in_progress`` for more than ``OTA_TIMEOUT``.

Divergences and silences are judged on the log as known at ``now``: events after it are left out.
Each finding is an ``Anomaly`` item keyed ``{kind}#{since_mt}`` under its device, written
create-only: a re-run of the job, the next night's run seeing the same stuck session, or two days'
runs seeing one silence (it keeps the uplink it began at as ``since_mt``), record nothing twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta

from tablewright.runtime import ConflictError, Record, Runtime

from .ids import day_start_ms, parse_day, to_mt
from .state import apply_event

UPLINK_MS = 15 * 60 * 1000  # the ADR's 15-minute uplink interval
SILENCE_MS = UPLINK_MS * 3 // 2  # more than this between two uplinks: at least one was missed
OTA_TIMEOUT_MS = 60 * 60 * 1000  # a Sidewalk OTA of a charger takes minutes; an hour is stuck
CLOUD_EVENTS = ("scheduler",)  # logged events that do not come from the device

Values = dict[str, object]


@dataclass
class Findings:
    """What one run found and how much of it was new."""

    recorded: list[Values] = field(default_factory=list)
    already_known: list[Values] = field(default_factory=list)


def true_ms(event: Mapping[str, object]) -> int:
    """The instant the event happened (a collision moved its key, not its time)."""
    return int(event["timestamp"]) - int(event.get("collision_offset_ms") or 0)  # type: ignore[call-overload]


def _window_start(day: str) -> str:
    return f"{(parse_day(day) - timedelta(days=1)).isoformat()} 00:00:00.000"


def _window(rt: Runtime, device_id: str, day: str) -> list[Record]:
    """The day with the day before (context: scheduler state, the last uplink before midnight) and
    after (the first uplink after midnight closes the day's last silence), in true time order."""
    last = (parse_day(day) + timedelta(days=1)).isoformat()
    params = {"device_id": device_id, "from": _window_start(day), "to": f"{last} 23:59:59.999"}
    return sorted(rt.run("device_timeline", params).items, key=true_ms)


def is_uplink(event: Mapping[str, object]) -> bool:
    """Sent by the device (a scheduler command is the cloud's, and says nothing of the device)."""
    return event["event_type"] not in CLOUD_EVENTS


def last_uplink_before(rt: Runtime, device_id: str, before_mt: str) -> Record | None:
    """The device's newest uplink keyed before ``before_mt`` (newest first, page by page past the
    cloud's scheduler commands; the newest by true time among a page's uplinks, since keys in the
    repeated fall-back hour are not in true order)."""
    cursor: str | None = None
    while True:
        page = rt.run("device_events_before", {"device_id": device_id, "before": before_mt}, cursor=cursor)
        uplinks = [event for event in page.items if is_uplink(event)]
        if uplinks:
            return max(uplinks, key=true_ms)
        if page.cursor is None:
            return None
        cursor = page.cursor


def _with_silence_before(rt: Runtime, device_id: str, day: str, events: list[Record]) -> list[Record]:
    """``events`` with the last uplink before the day first, when the window's day before holds none:
    a silence going on when the day began starts there, however long ago."""
    start = day_start_ms(day)
    if any(is_uplink(event) and true_ms(event) < start for event in events):
        return events
    earlier = last_uplink_before(rt, device_id, _window_start(day))
    return events if earlier is None else [earlier, *events]


def divergences(
    device: Mapping[str, object], day: str, events: Iterable[Mapping[str, object]]
) -> list[Values]:
    """Divergence episodes that start on ``day``."""
    found: list[Values] = []
    state: Values | None = None
    for event in events:
        before = bool(state and state.get("divergence_active"))
        state = apply_event(state, event)
        now_active = bool(state.get("divergence_active"))
        if now_active and not before and str(state["divergence_since_mt"]).startswith(day):
            found.append(_anomaly(device, day, "divergence", str(state["divergence_since_mt"])))
        elif before and not now_active and found and "until_mt" not in found[-1]:
            found[-1]["until_mt"] = event["timestamp_mt"]
    return found


def missed_uplinks(
    device: Mapping[str, object], day: str, events: Iterable[Mapping[str, object]], now_ms: int
) -> list[Values]:
    """Silences after an uplink heard on ``day``, and the silence going on when ``day`` began (after
    the last uplink before it). ``events`` are in true time order, none after ``now_ms``."""
    uplinks = [e for e in events if is_uplink(e)]
    start = day_start_ms(day)
    found = []
    for index, heard in enumerate(uplinks):
        following = uplinks[index + 1] if index + 1 < len(uplinks) else None
        heard_on_day = str(heard["timestamp_mt"]).startswith(day)
        silent_into_day = true_ms(heard) < start and (following is None or true_ms(following) >= start)
        if not (heard_on_day or silent_into_day):
            continue
        end = true_ms(following) if following is not None else now_ms
        if end - true_ms(heard) <= SILENCE_MS:
            continue
        if following is not None:
            missed = round((end - true_ms(heard)) / UPLINK_MS) - 1
        else:
            missed = (end - true_ms(heard)) // UPLINK_MS  # still silent: the uplinks due by now
        anomaly = _anomaly(device, day, "missed_uplinks", str(heard["timestamp_mt"]), missed=missed)
        if following is not None:
            anomaly["until_mt"] = following["timestamp_mt"]
        else:
            anomaly["detail"] = f"silent until {to_mt(now_ms)} at least"
        found.append(anomaly)
    return found


def ota_stuck(
    device: Mapping[str, object], day: str, state: Mapping[str, object] | None, now_ms: int
) -> list[Values]:
    """The device's OTA session, when it has been in progress for longer than ``OTA_TIMEOUT_MS``."""
    if not state or state.get("ota_status") != "in_progress" or state.get("ota_updated_ms") is None:
        return []
    started = int(state["ota_updated_ms"])  # type: ignore[call-overload]
    if now_ms - started <= OTA_TIMEOUT_MS:
        return []
    detail = f"{state.get('ota_from_version')} -> {state.get('ota_to_version')}, no ota_complete after {(now_ms - started) // 60000} min"
    return [_anomaly(device, day, "ota_stuck", str(state["ota_started_mt"]), detail=detail)]


def _anomaly(device: Mapping[str, object], day: str, kind: str, since_mt: str, **extra: object) -> Values:
    return {
        "device_id": device["device_id"],
        "wireless_device_id": device["wireless_device_id"],
        "kind": kind,
        "date": day,
        "since_mt": since_mt,
        **extra,
    }


def detect(rt: Runtime, day: str, now_ms: int) -> list[Values]:
    """Every anomaly of every device with a state item (one Scan, then one Query per device, and one
    more for a device with no uplink on the day before); the log is read as known at ``now_ms``."""
    found: list[Values] = []
    for state in rt.run("fleet_overview").items:
        device_id = str(state["device_id"])
        known = [e for e in _window(rt, device_id, day) if true_ms(e) <= now_ms]
        found += divergences(state, day, known)
        found += missed_uplinks(state, day, _with_silence_before(rt, device_id, day, known), now_ms)
        found += ota_stuck(state, day, state, now_ms)
    return found


def record(rt: Runtime, anomalies: Iterable[Mapping[str, object]]) -> Findings:
    """Write each finding once (create-only on its key)."""
    result = Findings()
    for anomaly in anomalies:
        try:
            rt.put("Anomaly", anomaly)
            result.recorded.append(dict(anomaly))
        except ConflictError:
            result.already_known.append(dict(anomaly))
    return result


def run_anomaly_job(rt: Runtime, day: str, now_ms: int) -> Findings:
    """The nightly job: detect on ``day`` as of ``now_ms`` and record what is new."""
    return record(rt, detect(rt, day, now_ms))
