"""Sample data for the EVSE fleet: chargers uplinking every 15 minutes across the November fall-back.

Window: Mountain Time days 2025-11-01 (24 h) and 2025-11-02 (25 h: 01:00-02:00 happens twice),
i.e. 49 real hours, 196 uplinks per charger (~96 a day, Scale considerations). Each uplink is one
event; the cloud scheduler adds a fleet-wide ``pause`` at 16:00 and ``resume`` at 21:00 (time-of-use
peak). Most uplinks are telemetry; one a day is diagnostics (device clock -> time sync); rare
interlock trips; some chargers run an OTA update.

Edge cases built in (README, "sample data"):

* ``SC`` device 0 has a precise timer (no jitter): in the repeated hour its four MST uplinks land on
  the same wall-clock milliseconds as its four MDT ones - the collisions ``ingest`` resolves with
  ``collision_offset_ms``; the generator applies the same rule.
* device 1 keeps charging (J1772 C) while the scheduler has it paused: divergence; it also trips
  its GFCI interlock once.
* device 2 updates its firmware 1.4.2 -> 1.5.0 (ota_start, ota_complete).

State items and daily statistics are *derived* with the same pure functions ingestion and the
statistics job use (``apply_event``, ``aggregate_day``). Scale 1 is 3 chargers (~600 events);
``scale=334`` is the ADR's 1,000 chargers.
"""

from __future__ import annotations

import random
import sys
import uuid
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from evse.anomalies import divergences  # noqa: E402
from evse.ids import from_mt, sc_id, to_mt  # noqa: E402  (the folder is not a package)
from evse.state import apply_event  # noqa: E402
from evse.stats import aggregate_day  # noqa: E402

DAYS = ("2025-11-01", "2025-11-02")  # the second is the 25-hour fall-back day
START_MS = from_mt("2025-11-01 00:00:00.000")
END_MS = from_mt("2025-11-03 00:00:00.000")
UPLINK_MS = 15 * 60 * 1000
MAX_DEVICES = 1000  # "1-1,000 devices"
PRECISE, DIVERGING, UPDATING = 0, 1, 2  # device indexes with a built-in story
OTA_FROM, OTA_TO = "1.4.2", "1.5.0"
SITES = ("Denver HQ", "Boulder depot", "Golden yard", "Fort Collins lot")


def device_count(scale: float) -> int:
    """Chargers at a scale: 3 at scale 1, the ADR's 1,000 at most."""
    return max(3, min(MAX_DEVICES, round(3 * scale)))


def devices(seed: int, scale: float) -> list[dict]:
    """Registry entries: random (version 4) wireless UUIDs, as IoT Wireless assigns them."""
    rng = random.Random(f"devices:{seed}")
    result = []
    for i in range(device_count(scale)):
        wireless = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        result.append(
            {
                "wireless_device_id": wireless,
                "name": f"Charger {i + 1:04d}",
                "site": SITES[i % len(SITES)],
                "firmware_version": OTA_FROM if i == UPDATING or rng.random() < 0.5 else OTA_TO,
            }
        )
    return result


def _wall(ms: int) -> str:
    return to_mt(ms)[11:16]  # "HH:MM"


def _telemetry(rng: random.Random, index: int, ms: int, paused: bool) -> dict:
    hour = int(_wall(ms)[:2])
    plugged = hour >= 17 or hour < 7
    charging = plugged and not paused and (hour >= 21 or hour < 2)
    if index == DIVERGING and plugged and paused:
        charging = True  # ignores the scheduler's pause
    state = "C" if charging else ("B" if plugged else "A")
    current = Decimal(rng.randint(280, 320)) / 10 if charging else Decimal(0)  # never a float
    return {
        "event_type": "telemetry",
        "j1772_state": state,
        "current_a": current,
        "voltage_v": rng.randint(236, 244),
        "energy_wh": int(current * 240 / 4),  # 15 minutes at ~240 V
        "temperature_c": rng.randint(5, 35),
    }


def _uplink(rng: random.Random, index: int, i: int, ms: int, paused: bool) -> dict:
    wall = _wall(ms)
    if index == UPDATING and i == 40:
        return {"event_type": "ota_start", "ota_from_version": OTA_FROM, "ota_to_version": OTA_TO}
    if index == UPDATING and i == 41:
        return {"event_type": "ota_complete", "ota_to_version": OTA_TO, "ota_result": "success"}
    if wall[:2] == "03" and wall[3] < "1":  # the first uplink after 03:00 each day
        drift = rng.randint(-500, 1500)
        return {
            "event_type": "diagnostics",
            "device_time_ms": ms + drift,
            "rssi_dbm": rng.randint(-120, -70),
            "uptime_s": i * 900,
        }
    if (index == DIVERGING and i == 75) or rng.random() < 0.002:
        return {"event_type": "interlock", "interlock_cause": "gfci", "interlock_tripped": True}
    return _telemetry(rng, index, ms, paused)


# The cloud scheduler's fleet-wide time-of-use commands (Mountain Time wall clock, every day).
SCHEDULE: tuple[tuple[str, dict], ...] = (
    (
        "16:00:00.000",
        {"event_type": "scheduler", "scheduler_command": "pause", "scheduler_reason": "tou_peak"},
    ),
    (
        "21:00:00.000",
        {
            "event_type": "scheduler",
            "scheduler_command": "resume",
            "scheduler_reason": "tou_offpeak",
            "limit_a": 32,
        },
    ),
)


def _scheduler_commands() -> list[tuple[int, dict]]:
    return [(from_mt(f"{day} {wall}"), dict(body)) for day in DAYS for wall, body in SCHEDULE]


def device_events(seed: int, index: int, wireless: str) -> list[dict]:
    """One charger's events in arrival (true time) order, keys made unique as ``ingest`` does."""
    rng = random.Random(f"events:{seed}:{index}")
    phase = rng.randint(0, UPLINK_MS - 1)
    paused = False
    uplinks = []
    for i, base in enumerate(range(START_MS + phase, END_MS, UPLINK_MS)):
        ms = base if index == PRECISE else base + rng.randint(0, 2500)
        uplinks.append((i, ms))
    events: list[tuple[int, dict]] = _scheduler_commands()
    for i, ms in uplinks:
        events.append((ms, {"_i": i}))
    events.sort(key=lambda pair: pair[0])
    taken: set[str] = set()
    result = []
    for ms, body in events:
        if "_i" in body:
            body = _uplink(rng, index, body["_i"], ms, paused)
        elif body.get("scheduler_command") in ("pause", "resume"):
            paused = body["scheduler_command"] == "pause"
        event = {"wireless_device_id": wireless, "timestamp": ms, **body}
        offset = 0
        while to_mt(ms + offset) in taken:  # the repeated hour: same wall clock, another instant
            offset += 1
        if offset:
            event.update(timestamp=ms + offset, collision_offset_ms=offset)
        taken.add(to_mt(ms + offset))
        result.append(event)
    return result


def generate(seed: int, scale: float) -> dict[str, list[dict]]:
    """Entity name -> natural values: registry, events, derived state and daily statistics."""
    registry = devices(seed, scale)
    events: list[dict] = []
    states: list[dict] = []
    stats: list[dict] = []
    anomalies: list[dict] = []
    for index, device in enumerate(registry):
        mine = device_events(seed, index, str(device["wireless_device_id"]))
        events += mine
        state = None
        for event in mine:
            state = apply_event(state, {**event, "timestamp_mt": to_mt(int(event["timestamp"]))})
        states.append(state)  # type: ignore[arg-type]
        device_id = sc_id(str(device["wireless_device_id"]))
        stamped = [{**e, "timestamp_mt": to_mt(int(e["timestamp"]))} for e in mine]
        owner = {"device_id": device_id, "wireless_device_id": device["wireless_device_id"]}
        for day in DAYS:
            todays = [e for e in stamped if e["timestamp_mt"].startswith(day)]
            stats.append(aggregate_day(device_id, day, todays))
            anomalies += divergences(owner, day, stamped)  # what the anomaly job records
    return {
        "Device": registry,
        "Event": events,
        "DeviceState": states,
        "DailyStats": stats,
        "Anomaly": anomalies,
    }


def _range(device_id: str, start: str, end: str, **extra: str) -> dict:
    return {"device_id": device_id, "from": start, "to": end, **extra}


DAY1, DAY2 = "2025-11-01 00:00:00.000", "2025-11-02 23:59:59.999"
REPEATED = ("2025-11-02 01:00:00.000", "2025-11-02 01:59:59.999")  # 01:00-01:59 happens twice


def params(seed: int, scale: float) -> dict[str, list[dict]]:
    """Pattern -> parameter sets, including empty results, exact bounds and the repeated hour."""
    registry = devices(seed, scale)
    d0, d1, d2 = (sc_id(str(d["wireless_device_id"])) for d in registry[:3])
    first_key = to_mt(device_events(seed, 0, str(registry[0]["wireless_device_id"]))[0]["timestamp"])
    nobody = "SC-00000000"
    return {
        "device_timeline": [
            _range(d0, *REPEATED),
            _range(d0, "2025-11-02 00:00:00.000", DAY2),  # the 25-hour day
            _range(d1, "2025-11-01 16:00:00.000", "2025-11-01 21:00:00.000"),  # the paused hours
            _range(d0, first_key, first_key),  # one exact key: BETWEEN is inclusive
            _range(d0, "2025-10-01 00:00:00.000", "2025-10-31 23:59:59.999"),  # before the data
            _range(nobody, DAY1, DAY2),
        ],
        "latest_events": [{"device_id": d0}, {"device_id": d2}, {"device_id": nobody}],
        "fleet_events_by_type": [
            {"event_type": "ota_start", "since": "2025-11-01 00:00:00.000"},
            {"event_type": "scheduler", "since": "2025-11-01 00:00:00.000"},
            {"event_type": "interlock", "since": "2025-11-01 00:00:00.000"},
            {"event_type": "telemetry", "since": "2025-11-02 01:00:00.000"},  # > limit: newest 50
            {"event_type": "diagnostics", "since": "2025-11-03 00:00:00.000"},  # after the data
        ],
        "device_events_by_type": [
            _range(d1, DAY1, DAY2, event_type="interlock"),
            _range(d2, DAY1, DAY2, event_type="ota_complete"),
            _range(d0, *REPEATED, event_type="telemetry"),
            _range(d0, DAY1, DAY2, event_type="ota_start"),  # none: every event read, none returned
        ],
        "device_events_before": [
            {"device_id": d0, "before": "2025-11-02 00:00:00.000"},  # the last events of day 1
            {"device_id": d1, "before": REPEATED[1]},  # from inside the repeated hour
            {"device_id": d0, "before": first_key},  # strictly before: nothing
            {"device_id": nobody, "before": "2025-11-03 00:00:00.000"},
        ],
        "device_state": [{"device_id": d0}, {"device_id": d1}, {"device_id": d2}, {"device_id": nobody}],
        "fleet_overview": [{}],
        "device": [{"device_id": d0}, {"device_id": nobody}],
        "device_anomalies": [{"device_id": d1}, {"device_id": nobody}],
        "fleet_anomalies": [
            {"kind": "divergence", "since": "2025-11-01 00:00:00.000"},
            {"kind": "ota_stuck", "since": "2025-11-01 00:00:00.000"},  # none in the sample
        ],
        "daily_stats": [
            {"device_id": d0, "from": "2025-11-01", "to": "2025-11-02"},
            {"device_id": d1, "from": "2025-11-02", "to": "2025-11-02"},
            {"device_id": d0, "from": "2025-12-01", "to": "2025-12-31"},
        ],
    }
