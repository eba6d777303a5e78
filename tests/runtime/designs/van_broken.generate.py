"""Sample data for the trimmed van telemetry design: two vans, one message every 30 s."""

import random

BASE = 1_733_529_600_000  # 2024-12-07T00:00:00Z in epoch ms


def generate(seed: int, scale: float) -> dict[str, list[dict]]:
    rng = random.Random(seed)
    messages = []
    for van in ("van-01", "van-02"):
        for i in range(int(60 * scale)):
            kind = rng.choices(["telemetry", "status", "alert"], [8, 1, 1])[0]
            messages.append(
                {
                    "thing_name": van,
                    "timestamp": BASE + i * 30_000,
                    "message_type": kind,
                    "battery_voltage": rng.randint(11, 14),
                    "pdm1": {"1": True, "2": False},
                }
            )
    return {"Message": messages}


def params() -> dict[str, list[dict]]:
    return {
        "latest_messages": [
            {"thing_name": "van-01", "since": BASE},
            {"thing_name": "van-02", "since": BASE + 900_000},
        ],
        "recent_alerts": [{"since": BASE + 600_000}],
        "device_status": [{"thing_name": "van-01"}, {"thing_name": "van-03"}],
        "time_range": [{"thing_name": "van-02", "start": BASE + 60_000, "end": BASE + 300_000}],
    }
