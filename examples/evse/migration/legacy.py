"""The legacy EVSE tables ADR-006 replaces, and a seeded generator of data for them.

Legacy shapes (as the ADR describes them; payload details are this example's choice):

* ``sidewalk-v1-device_events_v2``: PK ``wireless_device_id`` (UUID), SK ``timestamp`` (Number, Unix
  ms). Events carry ``type`` and ``data``, a JSON *string* of the payload (the "decoding nested JSON"
  pain point). Sentinel items at timestamp 0 / -1 / -2 / -3 hold scheduler / OTA session / time sync
  / divergence state, rewritten on every uplink.
* ``device-registry``: PK ``device_id`` (SC-ID), holds ``wireless_device_id`` and ``fw_version``.
* ``daily-aggregates``: PK ``wireless_device_id``, SK ``date`` (Mountain Time day), counters and a
  ``by_type`` JSON string.
* orphans ``sidewalk-v1-device_events_dedupe_v2`` and ``sidewalk-v1-device_config``.

``generate(seed, devices, days)`` -> table -> items (deterministic for a seed); ``load(client, ...)``
creates the tables and writes them. Device 0 has a precise timer, so in the November fall-back hour
its MST uplinks land on the wall-clock milliseconds of its MDT ones (the collision the migration
resolves as ingestion does).
"""

from __future__ import annotations

import json
import random
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from boto3.dynamodb.types import TypeSerializer
from evse_ids import sc_id

MOUNTAIN = ZoneInfo("America/Denver")
EVENTS = "sidewalk-v1-device_events_v2"
REGISTRY = "device-registry"
AGGREGATES = "daily-aggregates"
DEDUPE = "sidewalk-v1-device_events_dedupe_v2"
CONFIG = "sidewalk-v1-device_config"
SENTINELS = {0: "scheduler", -1: "ota", -2: "time_sync", -3: "divergence"}
UPLINK_MS = 15 * 60 * 1000
START = datetime(2025, 11, 1, tzinfo=MOUNTAIN)  # the second day is the 25-hour fall-back day


def _keys(pk: tuple[str, str], sk: tuple[str, str] | None = None) -> dict[str, Any]:
    attrs = [{"AttributeName": pk[0], "AttributeType": pk[1]}]
    schema = [{"AttributeName": pk[0], "KeyType": "HASH"}]
    if sk:
        attrs.append({"AttributeName": sk[0], "AttributeType": sk[1]})
        schema.append({"AttributeName": sk[0], "KeyType": "RANGE"})
    return {"AttributeDefinitions": attrs, "KeySchema": schema, "BillingMode": "PAY_PER_REQUEST"}


TABLES: dict[str, dict[str, Any]] = {
    EVENTS: _keys(("wireless_device_id", "S"), ("timestamp", "N")),
    REGISTRY: _keys(("device_id", "S")),
    AGGREGATES: _keys(("wireless_device_id", "S"), ("date", "S")),
    DEDUPE: _keys(("dedupe_key", "S")),
    CONFIG: _keys(("wireless_device_id", "S")),
}


def _ms(moment: datetime) -> int:
    return int(moment.astimezone(UTC).timestamp() * 1000)


def _payload(rng: random.Random, kind: str) -> dict[str, Any]:
    builders = {
        "telemetry": lambda: {
            "j1772_state": rng.choice("ABCC"),
            "current_a": round(rng.uniform(0, 40), 1),
            "voltage_v": round(rng.uniform(236, 244), 1),
            "energy_wh": rng.randint(0, 2500),
            "temperature_c": round(rng.uniform(5, 45), 1),
        },
        "scheduler": lambda: {
            "scheduler_command": rng.choice(["pause", "resume", "set_limit"]),
            "scheduler_reason": "tou_peak",
        },
        "diagnostics": lambda: {"rssi_dbm": -rng.randint(60, 110), "uptime_s": rng.randint(1000, 900000)},
        "interlock": lambda: {
            "interlock_cause": rng.choice(["gfci", "over_temperature"]),
            "interlock_tripped": True,
        },
    }
    return builders[kind]()


def _events(rng: random.Random, device: str, index: int, days: int) -> list[dict[str, Any]]:
    events = []
    start, end = _ms(START), _ms(START + timedelta(days=days))
    jitter = 0 if index == 0 else rng.randint(1, 60_000)  # device 0: a precise timer
    for at in range(start + jitter, end, UPLINK_MS):
        kind = rng.choices(["telemetry", "scheduler", "diagnostics", "interlock"], [90, 5, 4, 1])[0]
        events.append(
            {
                "wireless_device_id": device,
                "timestamp": at + (0 if index == 0 else rng.randint(0, 999)),
                "type": kind,
                "data": json.dumps(_payload(rng, kind)),
            }
        )
    return events


def _sentinels(rng: random.Random, device: str, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last = events[-1]
    state = json.loads(last["data"])
    items = [
        {
            "wireless_device_id": device,
            "timestamp": 0,
            "state": rng.choice(["active", "paused"]),
            "limit_a": rng.choice([16, 32, 40]),
            "updated_ms": events[len(events) // 2]["timestamp"],
            "last_uplink_ms": last["timestamp"],
            "last_type": last["type"],
            **({"j1772": state["j1772_state"]} if "j1772_state" in state else {}),
        },
        {
            "wireless_device_id": device,
            "timestamp": -2,
            "synced_ms": events[-4]["timestamp"],
            "drift_ms": rng.randint(-900, 900),
        },
    ]
    if rng.random() < 0.7:
        done = rng.random() < 0.8
        items.append(
            {
                "wireless_device_id": device,
                "timestamp": -1,
                "status": "success" if done else "in_progress",
                "from_version": "1.4.2",
                "to_version": "1.5.0",
                "started_ms": events[10]["timestamp"],
                **({"completed_ms": events[12]["timestamp"]} if done else {}),
            }
        )
    if rng.random() < 0.5:
        items.append(
            {
                "wireless_device_id": device,
                "timestamp": -3,
                "active": rng.random() < 0.5,
                "since_ms": events[20]["timestamp"],
                "count": rng.randint(1, 9),
            }
        )
    return items


def _aggregates(device: str, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    days: dict[str, dict[str, Any]] = {}
    for event in events:
        day = datetime.fromtimestamp(event["timestamp"] / 1000, UTC).astimezone(MOUNTAIN).date().isoformat()
        agg = days.setdefault(
            day,
            {
                "wireless_device_id": device,
                "date": day,
                "count": 0,
                "energy_wh": 0,
                "max_current_a": Decimal(0),
                "interlocks": 0,
                "by_type": {},
                "first_ts": event["timestamp"],
            },
        )
        data = json.loads(event["data"], parse_float=Decimal)
        agg["count"] += 1
        agg["energy_wh"] += data.get("energy_wh", 0)
        agg["max_current_a"] = max(agg["max_current_a"], data.get("current_a", Decimal(0)))
        agg["interlocks"] += event["type"] == "interlock"
        agg["by_type"][event["type"]] = agg["by_type"].get(event["type"], 0) + 1
        agg["last_ts"] = event["timestamp"]
    return [{**a, "by_type": json.dumps(a["by_type"], sort_keys=True)} for a in days.values()]


def generate(seed: int = 0, devices: int = 3, days: int = 2) -> dict[str, list[dict[str, Any]]]:
    """Legacy table name -> items, deterministic for ``seed`` (about 96 events per device per day)."""
    rng = random.Random(seed)
    tables: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
    for index in range(devices):
        device = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        events = _events(rng, device, index, days)
        tables[EVENTS] += events + _sentinels(rng, device, events)
        tables[REGISTRY].append(
            {
                "device_id": sc_id(device),
                "wireless_device_id": device,
                "name": f"Charger {index + 1}",
                "site": rng.choice(["Denver HQ", "Boulder depot"]),
                "fw_version": "1.4.2",
                "registered_at": "2025-06-01T12:00:00Z",
            }
        )
        tables[AGGREGATES] += _aggregates(device, events)
        tables[CONFIG].append({"wireless_device_id": device, "profile": "default"})
        tables[DEDUPE].append({"dedupe_key": f"{device}#{events[-1]['timestamp']}", "ttl": 1_762_000_000})
    return tables


def load(client: Any, seed: int = 0, devices: int = 3, days: int = 2) -> dict[str, int]:
    """Create the legacy tables on ``client`` and write generated data; table -> items written."""
    serializer = TypeSerializer()
    counts = {}
    for name, items in generate(seed, devices, days).items():
        client.create_table(TableName=name, **TABLES[name])
        for start in range(0, len(items), 25):
            batch = [
                {"PutRequest": {"Item": {k: serializer.serialize(v) for k, v in item.items()}}}
                for item in items[start : start + 25]
            ]
            request = {name: batch}
            while request:
                request = client.batch_write_item(RequestItems=request).get("UnprocessedItems") or {}
        counts[name] = len(items)
    return counts
