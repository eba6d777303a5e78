"""Sample data for van telemetry: vans reporting every 30 s through the (corrected) IoT rule.

Shapes follow the document: telemetry every 30 s with battery voltage, glycol temperature, two
8-channel PDMs and the Rixen HVAC; a status message every 10 minutes; rare alerts. Each van has its
own clock offset and IoT timestamps jitter by up to a second, as real arrivals do.

Edge cases are built in: ``overlander-01`` stopped sending status messages early, so its newest
status lies more than one 50-item page back (the runtime must follow pages); ``storyteller-van-03``
never sent a status (the query reads the whole partition and finds nothing).

Scale 1 is 3 vans x 200 messages; the document's volume (86,400 messages, 30 days of one van) is
``scale=144`` (3 x 28,800).
"""

from __future__ import annotations

import random
import sys
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from van_telemetry import rule_output  # noqa: E402  (the folder is not a package)

BASE_MS = 1_733_529_600_000  # 2024-12-07T00:00:00Z, the document's sample timestamp
INTERVAL_MS = 30_000
STATUS_EVERY = 20  # one status message per 10 minutes
VANS = ("storyteller-van-01", "overlander-01", "storyteller-van-03")
# How many messages in each van sends status messages (None: all the way).
STATUS_UNTIL = {"storyteller-van-01": None, "overlander-01": 40, "storyteller-van-03": 0}


def _count(scale: float) -> int:
    return max(1, round(200 * scale))


def _pdm(rng: random.Random) -> dict[str, bool]:
    return {str(channel): rng.random() < 0.3 for channel in range(1, 9)}


def _payload(rng: random.Random, kind: str, i: int) -> dict[str, object]:
    if kind == "alert":
        return {"battery_voltage": Decimal(rng.randint(105, 115)) / 10, "glycol_temp": rng.randint(185, 200)}
    if kind == "status":
        return {"hvac_mode": rng.choice(["heat", "cool", "off"]), "hvac_temp": rng.randint(62, 72)}
    # A slow day/night battery swing around 13 V with noise.
    volts = Decimal(125 + (i // 40) % 10 + rng.randint(-2, 2)) / 10
    return {
        "battery_voltage": volts,
        "glycol_temp": rng.randint(60, 180),
        "pdm1": _pdm(rng),
        "pdm2": _pdm(rng),
        "hvac_mode": rng.choice(["heat", "heat", "off"]),
        "hvac_temp": 68,
    }


def _kind(rng: random.Random, van: str, i: int) -> str:
    until = STATUS_UNTIL[van]
    if i % STATUS_EVERY == 0 and (until is None or i < until):
        return "status"
    return "alert" if rng.random() < 0.03 else "telemetry"


def timestamps(van_index: int, count: int, seed: int) -> list[int]:
    """The IoT timestamps of one van: every 30 s from its clock offset, with sub-second jitter."""
    rng = random.Random(f"{seed}:{van_index}")
    start = BASE_MS + van_index * 7_000
    return [start + i * INTERVAL_MS + rng.randint(0, 999) for i in range(count)]


def generate(seed: int, scale: float) -> dict[str, list[dict]]:
    """Entity name -> messages, as the corrected IoT rule would write them."""
    rng = random.Random(seed)
    messages = []
    for van_index, van in enumerate(VANS):
        for i, ts in enumerate(timestamps(van_index, _count(scale), seed)):
            kind = _kind(rng, van, i)
            messages.append(rule_output(f"van/{van}/{kind}", _payload(rng, kind, i), ts))
    return {"Message": messages}


def params(seed: int, scale: float) -> dict[str, list[dict]]:
    """Pattern -> parameter sets, including empty results and exact boundaries."""
    count = _count(scale)
    van1 = timestamps(0, count, seed)
    end = BASE_MS + count * INTERVAL_MS + 60_000
    return {
        "latest_messages": [
            {"thing_name": "storyteller-van-01", "since": van1[-1] - 3_600_000},  # "now - 1 hour"
            {"thing_name": "overlander-01", "since": BASE_MS},
            {"thing_name": "storyteller-van-01", "since": van1[-4]},  # gt: exactly 3 newer
            {"thing_name": "storyteller-van-01", "since": van1[-1]},  # nothing newer
            {"thing_name": "no-such-van", "since": BASE_MS},
        ],
        "recent_alerts": [{"since": BASE_MS}, {"since": (BASE_MS + end) // 2}, {"since": end}],
        "device_status": [
            {"thing_name": "storyteller-van-01"},
            {"thing_name": "overlander-01"},  # newest status > 50 items back
            {"thing_name": "storyteller-van-03"},  # never sent one
            {"thing_name": "no-such-van"},
        ],
        "time_range": [
            {"thing_name": "storyteller-van-01", "start": van1[10], "end": van1[20]},  # inclusive bounds
            {"thing_name": "storyteller-van-01", "start": van1[5], "end": van1[5]},  # one instant
            {"thing_name": "overlander-01", "start": BASE_MS, "end": end},
            {"thing_name": "storyteller-van-01", "start": end, "end": end + 1_000},  # after the data
        ],
    }
