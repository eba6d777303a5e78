"""Sample data for the sensor API: devices, their reading batches, processed markers, API keys.

Devices report one reading per 5 minutes and upload batches of 1-12 readings (a window of up to an
hour); batch ids follow the firmware format ``{hardware_id}_{boot_id}_{window_start}_{window_end}``.
Not every device has every sensor; a few sensors report ``error`` (and then no value). One device
has never sent readings. One API key is revoked.

Scale 1 is 12 devices (~200 readings). The document's upper volume (10,000 devices) is
``scale=834``; readings per device stay at one day's worth.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

START = datetime(2024, 1, 15, 10, 30, tzinfo=UTC)  # the document's example registration time
START_MS = 1_704_067_200_000  # 2024-01-01T00:00:00Z, the document's window_start_ms
READING_INTERVAL_MS = 5 * 60_000  # "1 reading per 5 minutes per device"
SAMPLE_PEPPER = "sample-pepper"  # sample hashes only; the real pepper lives in API_KEY_PEPPER
SENSOR_KINDS = {
    "bme280": ("bme280_temp_c", "humidity_pct", "pressure_hpa"),
    "ds18b20": ("ds18b20_temp_c",),
    "soil_moisture": ("soil_moisture_pct",),
}


def _uuid4(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _mac(index: int) -> str:
    return "AA:BB:CC:" + ":".join(f"{b:02X}" for b in index.to_bytes(3, "big"))


def _rfc3339(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _dec(rng: random.Random, low: float, high: float) -> Decimal:
    return Decimal(str(round(rng.uniform(low, high), 2)))


def _sensor_values(rng: random.Random, sensors: list[str]) -> tuple[dict, dict]:
    values: dict[str, Decimal] = {}
    status: dict[str, str] = {}
    ranges = {
        "bme280_temp_c": (15, 30),
        "humidity_pct": (30, 70),
        "pressure_hpa": (990, 1030),
        "ds18b20_temp_c": (10, 25),
        "soil_moisture_pct": (20, 80),
    }
    for sensor in sensors:
        status[sensor] = "error" if rng.random() < 0.05 else "ok"
        if status[sensor] == "ok":
            for field in SENSOR_KINDS[sensor]:
                values[field] = _dec(rng, *ranges[field])
    return values, status


def _devices(rng: random.Random, count: int) -> list[dict]:
    devices = []
    for index in range(count):
        sensors = sorted(rng.sample(sorted(SENSOR_KINDS), rng.randint(1, 3)))
        seen = START + timedelta(minutes=rng.randint(0, 24 * 60))
        device = {
            "hardware_id": _mac(index + 1),
            "confirmation_id": _uuid4(rng),
            "capabilities": {
                "sensors": sensors,
                "features": {"tft_display": rng.random() < 0.5, "offline_buffering": True},
            },
            "last_seen_at": _rfc3339(seen),
            "last_boot_id": _uuid4(rng),
            "firmware_version": rng.choice(["1.0.14", "1.0.15", "1.0.16"]),
        }
        if rng.random() < 0.6:
            device["friendly_name"] = f"greenhouse-sensor-{index + 1:02d}"
        devices.append(device)
    return devices


def _batches(rng: random.Random, device: dict) -> tuple[list[dict], list[dict]]:
    readings, markers = [], []
    ts = START_MS + rng.randint(0, READING_INTERVAL_MS)
    for _ in range(rng.randint(1, 4)):
        size = rng.randint(1, 12)
        window = [ts + i * READING_INTERVAL_MS for i in range(size)]
        batch_id = f"{device['hardware_id']}_{device['last_boot_id']}_{window[0]}_{window[-1]}"
        for timestamp_ms in window:
            sensors, status = _sensor_values(rng, device["capabilities"]["sensors"])
            reading = {
                "hardware_id": device["hardware_id"],
                "timestamp_ms": timestamp_ms,
                "batch_id": batch_id,
                "boot_id": device["last_boot_id"],
                "firmware_version": device["firmware_version"],
                "sensors": sensors,
                "sensor_status": status,
            }
            if "friendly_name" in device:
                reading["friendly_name"] = device["friendly_name"]
            readings.append(reading)
        markers.append({"batch_id": batch_id, "hardware_id": device["hardware_id"]})
        ts = window[-1] + READING_INTERVAL_MS
    return readings, markers


def _api_keys(rng: random.Random, count: int) -> list[dict]:
    keys = []
    for index in range(count):
        raw = f"{rng.getrandbits(256):064x}"
        keys.append(
            {
                "key_id": _uuid4(rng),
                "api_key_hash": hashlib.sha256((SAMPLE_PEPPER + raw).encode()).hexdigest(),
                "is_active": index != 1,  # one revoked key
                "description": f"Production devices - cluster {index}",
            }
        )
    return keys


def generate(seed: int, scale: float) -> dict[str, list[dict]]:
    """Entity name -> values, devices first (readings snapshot their friendly names)."""
    rng = random.Random(seed)
    devices = _devices(rng, max(2, round(12 * scale)))
    readings, markers = [], []
    for device in devices[1:]:  # devices[0] has registered but never sent a reading
        more, done = _batches(rng, device)
        readings += more
        markers += done
    return {"Device": devices, "ApiKey": _api_keys(rng, 5), "Reading": readings, "ProcessedBatch": markers}


def params(seed: int, scale: float) -> dict[str, list[dict]]:
    """Pattern -> parameter sets: hits, misses, exact range boundaries, empty ranges."""
    data = generate(seed, scale)
    devices, readings = data["Device"], data["Reading"]
    counts: dict[str, int] = {}
    for reading in readings:
        counts[reading["hardware_id"]] = counts.get(reading["hardware_id"], 0) + 1
    busy = max(counts, key=lambda hw: (counts[hw], hw))  # at least 2 readings for the range edges
    own = sorted(r["timestamp_ms"] for r in readings if r["hardware_id"] == busy)
    key_hash = data["ApiKey"][0]["api_key_hash"]
    return {
        "get_device": [{"hardware_id": busy}, {"hardware_id": "00:00:00:00:00:00"}],
        "devices_by_activity": [{}],
        "latest_reading": [{"hardware_id": busy}, {"hardware_id": devices[0]["hardware_id"]}],
        "readings_time_range": [
            {"hardware_id": busy, "from_ms": own[0], "to_ms": own[-1]},  # both ends exact
            {"hardware_id": busy, "from_ms": own[1], "to_ms": own[1]},  # a single instant
            {"hardware_id": busy, "from_ms": own[0] + 1, "to_ms": own[1] - 1},  # between two readings
            {"hardware_id": busy, "from_ms": START_MS - 86_400_000, "to_ms": START_MS - 1},  # before any
            {"hardware_id": devices[0]["hardware_id"], "from_ms": START_MS, "to_ms": own[-1]},
        ],
        "processed_batch": [{"batch_id": data["ProcessedBatch"][0]["batch_id"]}, {"batch_id": "never-sent"}],
        "api_key_by_hash": [{"api_key_hash": key_hash}, {"api_key_hash": "0" * 64}],
        "api_keys_by_creation": [{}],
    }
