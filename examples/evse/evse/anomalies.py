"""The anomaly job: state divergence, missed uplinks and stuck OTA sessions, recorded once each.

The ADR names anomaly detection as a use of the fleet views but defines no anomaly; decisions
(README, "Anomalies"):

* **divergence**: an episode of the device drawing current (J1772 C) while the scheduler has it
  paused - the ``divergence_*`` group of the state item, found per episode by folding the same
  ``apply_event`` the ingestion uses over the day's events in true time order;
* **missed_uplinks**: a silence of more than 1.5 uplink intervals (15 minutes) between two uplinks
  of a device (scheduler commands are the cloud's, not the device's), counted in whole intervals;
  a silence still going on at ``now`` counts up to ``now``;
* **ota_stuck**: an OTA session ``in_progress`` for more than ``OTA_TIMEOUT``.

Each finding is an ``Anomaly`` item keyed ``{kind}#{since_mt}`` under its device, written
create-only: a re-run of the job, or the next night's run seeing the same stuck session, records
nothing twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta

from tablewright.runtime import ConflictError, Record, Runtime

from .ids import to_mt
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


def _window(rt: Runtime, device_id: str, day: str) -> list[Record]:
    """The day with the day before (context: scheduler state, the last uplink before midnight) and
    after (the first uplink after midnight closes the day's last silence), in true time order."""
    first = (date.fromisoformat(day) - timedelta(days=1)).isoformat()
    last = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
    params = {"device_id": device_id, "from": f"{first} 00:00:00.000", "to": f"{last} 23:59:59.999"}
    return sorted(rt.run("device_timeline", params).items, key=true_ms)


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
    """Silences after an uplink heard on ``day``."""
    uplinks = [e for e in events if e["event_type"] not in CLOUD_EVENTS]
    found = []
    for index, heard in enumerate(uplinks):
        if not str(heard["timestamp_mt"]).startswith(day):
            continue
        following = uplinks[index + 1] if index + 1 < len(uplinks) else None
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
    """Every anomaly of every device with a state item (one Scan, then one Query per device)."""
    found: list[Values] = []
    for state in rt.run("fleet_overview").items:
        events = _window(rt, str(state["device_id"]), day)
        found += divergences(state, day, events)
        found += missed_uplinks(state, day, [e for e in events if true_ms(e) <= now_ms], now_ms)
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
