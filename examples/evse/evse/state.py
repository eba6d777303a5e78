"""The device-state item: what each event type changes in it (the former sentinel rows).

``apply_event(state, event)`` is pure: the current state item's natural values (or None for a
device's first uplink) and one event in, the next state out. Ingestion writes its result in the
same transaction as the event; the sample generator folds it over generated events, so sample
state and ingested state cannot disagree. Each event type's effect is a row of ``EFFECTS``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

Values = dict[str, object]
# Attributes of the ADR's four state groups (Decision 5): sentinel timestamp -> prefix.
SENTINEL_GROUPS: dict[int, str] = {0: "scheduler_", -1: "ota_", -2: "time_sync_", -3: "divergence_"}


def _telemetry(state: Values, event: Mapping[str, object]) -> None:
    if "j1772_state" not in event:
        return
    state["j1772_state"] = event["j1772_state"]
    # Divergence: the device draws current (J1772 C) while the scheduler has paused it. The count is
    # of diverging uplinks; `since` marks the start of the current divergence episode.
    diverging = state.get("scheduler_state") == "paused" and event["j1772_state"] == "C"
    if diverging:
        if not state.get("divergence_active"):
            state["divergence_since_mt"] = event["timestamp_mt"]
        state["divergence_count"] = int(state.get("divergence_count") or 0) + 1
    state["divergence_active"] = diverging


def _scheduler(state: Values, event: Mapping[str, object]) -> None:
    command = event.get("scheduler_command")
    if command == "pause":
        state["scheduler_state"] = "paused"
    elif command == "resume":
        state["scheduler_state"] = "active"
        state["divergence_active"] = False  # nothing left to diverge from
    if event.get("limit_a") is not None:
        state["scheduler_limit_a"] = event["limit_a"]
    state["scheduler_updated_mt"] = event["timestamp_mt"]


def _ota_start(state: Values, event: Mapping[str, object]) -> None:
    state["ota_status"] = "in_progress"
    state["ota_started_mt"] = event["timestamp_mt"]
    state.pop("ota_completed_mt", None)
    for name in ("ota_from_version", "ota_to_version"):
        if event.get(name) is not None:
            state[name] = event[name]


def _ota_complete(state: Values, event: Mapping[str, object]) -> None:
    result = event.get("ota_result", "success")
    state["ota_status"] = result
    state["ota_completed_mt"] = event["timestamp_mt"]
    target = event.get("ota_to_version") or state.get("ota_to_version")
    if target is not None:
        state["ota_to_version"] = target
        if result == "success":
            state["firmware_version"] = target


def _diagnostics(state: Values, event: Mapping[str, object]) -> None:
    if event.get("device_time_ms") is None:
        return
    # Positive drift: the device clock runs ahead of the network timestamp.
    state["time_sync_mt"] = event["timestamp_mt"]
    state["time_sync_drift_ms"] = int(event["device_time_ms"]) - int(event["timestamp"])  # type: ignore[call-overload]


def _no_state(state: Values, event: Mapping[str, object]) -> None:
    """Interlock trips are log-only: the ADR's state item has no interlock group."""


EFFECTS: dict[str, Callable[[Values, Mapping[str, object]], None]] = {
    "telemetry": _telemetry,
    "scheduler": _scheduler,
    "ota_start": _ota_start,
    "ota_complete": _ota_complete,
    "diagnostics": _diagnostics,
    "interlock": _no_state,
}


# Event type -> the state group it changes (interlock: none). Each group records when it last
# changed in ``<group>_updated_ms``, so events arriving out of order resolve per group.
GROUPS: dict[str, str | None] = {
    "telemetry": "telemetry",
    "scheduler": "scheduler",
    "ota_start": "ota",
    "ota_complete": "ota",
    "diagnostics": "time_sync",
    "interlock": None,
}
# Whether a late event may fill fields of its group that are still unset. A late ota_complete may
# not: the newer change of the OTA group is either its own session's completion (already set) or
# a newer session's start, which its completion time would misdescribe.
LATE_FILLS: dict[str, bool] = {"ota_complete": False}


def _newer(state: Mapping[str, object], attribute: str, at: int) -> bool:
    seen = state.get(attribute)
    return seen is None or at > int(seen)  # type: ignore[call-overload]


def apply_event(state: Mapping[str, object] | None, event: Mapping[str, object]) -> Values:
    """The next state item after ``event`` (which must carry ``timestamp_mt``, as stored events do).

    The rule for events that arrive out of order (README, decision 6): an event newer than the last
    change of its group applies its effect; an older one only fills fields of its group that are
    still unset (never one a newer event set); ``last_event_*`` follow the newest event. So a late
    ``ota_complete`` still ends an OTA session that a newer telemetry uplink did not touch.
    The ``version`` attribute is left to the writer; everything else is the new item.
    """
    current: Values = {k: v for k, v in (state or {}).items() if k != "version"}
    new = dict(current)
    at = int(event["timestamp"])  # type: ignore[call-overload]
    kind = str(event["event_type"])
    group = GROUPS[kind]
    if group is not None:
        effect = dict(current)
        EFFECTS[kind](effect, event)
        if _newer(current, f"{group}_updated_ms", at):
            new = {**effect, f"{group}_updated_ms": at}
        elif LATE_FILLS.get(kind, True):
            new.update({k: v for k, v in effect.items() if k not in current})
    new["wireless_device_id"] = event["wireless_device_id"]
    if _newer(current, "last_event_ms", at):
        new["last_event_ms"] = event["timestamp"]
        new["last_event_mt"] = event["timestamp_mt"]
        new["last_event_type"] = event["event_type"]
    if new.get("ota_status") == "success" and new.get("ota_to_version") is not None:
        new["firmware_version"] = new["ota_to_version"]  # a finished update is the running firmware
    return new


def is_stale(state: Mapping[str, object] | None, event: Mapping[str, object]) -> bool:
    """True when ``event`` is older than the last one folded into ``state`` (a late delivery).

    Compared on the Unix-ms instant, not on ``timestamp_mt``: in the fall-back hour the wall clock
    goes backwards while time does not. A stale event can still change the state (``apply_event``).
    """
    if state is None or state.get("last_event_ms") is None:
        return False
    return int(event["timestamp"]) < int(state["last_event_ms"])  # type: ignore[call-overload]
