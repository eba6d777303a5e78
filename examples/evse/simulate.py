"""Replay a generated fleet's uplinks through the ingestion Lambda's handler (README, "Run it"):

    python examples/evse/simulate.py --db evse.db --scale 1 --rate 50 --late 0.05 --duplicates 0.05 --lose 3

The fleet is ``generate.py``'s (chargers uplinking every 15 minutes across the November 2025
fall-back night, the cloud scheduler's pause/resume). Each event becomes the IoT Wireless event a
destination hands the Lambda, is serialised to JSON and back (what the platform does) and passed
to ``handler.handler``. Deliveries follow the network, not the clock: ``--late`` of them arrive 1-90
minutes after they happened, ``--duplicates`` are delivered a second time (IoT's at-least-once),
``--lose`` device uplinks never arrive (and ``--lose-ota-complete`` loses the OTA completion, so
the session stays in progress). Everything is chosen by ``--seed``. ``--rate`` paces deliveries
per second (0: as fast as the handler goes).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import handler  # noqa: E402
from evse import DESIGN, register_device  # noqa: E402
from evse.anomalies import CLOUD_EVENTS, UPLINK_MS  # noqa: E402
from evse.ids import to_mt  # noqa: E402
from evse.uplink import encode_uplink  # noqa: E402

from tablewright.cli.errors import reported  # noqa: E402
from tablewright.runtime import Runtime  # noqa: E402

# Loaded by path: every example has a generate.py, and another one may be imported already.
_SPEC = importlib.util.spec_from_file_location("evse_generate", Path(__file__).with_name("generate.py"))
generate = importlib.util.module_from_spec(_SPEC)  # type: ignore[arg-type]
_SPEC.loader.exec_module(generate)  # type: ignore[union-attr]

MAX_LATE_MS = 90 * 60 * 1000
MAX_REDELIVERY_MS = 30 * 60 * 1000


@dataclass
class Delivery:
    """One arrival at the Lambda: the event as it happened, when it arrives, and why."""

    arrives_ms: int
    event: dict
    kind: str  # "on_time", "late" or "duplicate"


@dataclass
class Plan:
    """The generated fleet and how the network delivers it."""

    devices: list[dict]
    events: list[dict]  # every event that happened (true instants, no collision offsets)
    deliveries: list[Delivery] = field(default_factory=list)
    lost: list[dict] = field(default_factory=list)

    @property
    def delivered(self) -> list[dict]:
        """Events that reached the handler at least once, in true time order."""
        lost = {id(e) for e in self.lost}
        return [e for e in self.events if id(e) not in lost]


def _as_happened(event: dict) -> dict:
    """The generator's event as the device sent it: its true instant, no collision offset."""
    offset = int(event.pop("collision_offset_ms", 0) or 0)
    return {**event, "timestamp": int(event["timestamp"]) - offset}


def _losable(events: list[dict]) -> list[dict]:
    """Telemetry uplinks whose loss leaves a clean gap: not first/last of a device, not in the
    repeated fall-back hour (the gap would straddle it), not next to another loss candidate."""
    by_device: dict[str, list[dict]] = {}
    for event in events:
        if event["event_type"] not in CLOUD_EVENTS:
            by_device.setdefault(event["wireless_device_id"], []).append(event)
    result = []
    for uplinks in by_device.values():
        for index in range(2, len(uplinks) - 2, 3):
            event = uplinks[index]
            if event["event_type"] == "telemetry" and not to_mt(event["timestamp"]).startswith(
                "2025-11-02 01"
            ):
                result.append(event)
    return result


def plan(
    seed: int, scale: float, *, late: float, duplicates: float, lose: int, lose_ota_complete: bool
) -> Plan:
    """The deliveries of one simulated fleet (deterministic for a seed)."""
    data = generate.generate(seed, scale)
    events = sorted((_as_happened(dict(e)) for e in data["Event"]), key=lambda e: e["timestamp"])
    result = Plan(data["Device"], events)
    rng = random.Random(f"simulate:{seed}")
    lost = rng.sample(_losable(events), min(lose, len(_losable(events)))) if lose else []
    if lose_ota_complete:
        lost += [e for e in events if e["event_type"] == "ota_complete"][:1]
    result.lost = lost
    for event in result.delivered:
        at = int(event["timestamp"])
        if rng.random() < late:
            result.deliveries.append(Delivery(at + rng.randint(UPLINK_MS // 15, MAX_LATE_MS), event, "late"))
        else:
            result.deliveries.append(Delivery(at + rng.randint(50, 2000), event, "on_time"))
        if rng.random() < duplicates:
            first = result.deliveries[-1].arrives_ms
            result.deliveries.append(Delivery(first + rng.randint(1, MAX_REDELIVERY_MS), event, "duplicate"))
    result.deliveries.sort(key=lambda d: d.arrives_ms)
    return result


def replay(rt: Runtime, simulation: Plan, *, rate: float = 0.0) -> Counter:
    """Register the fleet, then hand every delivery to the Lambda handler; counts of its answers."""
    for device in simulation.devices:
        register_device(rt, device)
    answers: Counter = Counter()
    started = time.monotonic()
    for number, delivery in enumerate(simulation.deliveries):
        if rate > 0:
            delay = started + number / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        uplink = encode_uplink(
            delivery.event["wireless_device_id"],
            delivery.event["timestamp"],
            _payload(delivery.event),
            number,
        )
        answer = handler.handler(json.loads(json.dumps(uplink)), None, rt=rt)  # as the platform passes it
        answers[answer["status"]] += 1
    return answers


def _payload(event: dict) -> dict:
    return {k: v for k, v in event.items() if k not in ("wireless_device_id", "timestamp")}


@reported("evse simulate")
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="evse simulate", description=__doc__.split("\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--db", help="SQLite file of the embedded engine (in memory if neither is given)")
    where.add_argument("--endpoint", help="DynamoDB endpoint URL")
    parser.add_argument("--scale", type=float, default=1.0, help="3 chargers per unit, at most 1,000")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rate", type=float, default=0.0, help="deliveries per second (0: unpaced)")
    parser.add_argument("--late", type=float, default=0.05, help="fraction delivered 1-90 minutes late")
    parser.add_argument("--duplicates", type=float, default=0.05, help="fraction delivered twice")
    parser.add_argument("--lose", type=int, default=0, help="device uplinks that never arrive")
    parser.add_argument("--lose-ota-complete", action="store_true", help="lose the OTA completion uplink")
    args = parser.parse_args(argv)
    for name in ("late", "duplicates"):
        if not 0 <= getattr(args, name) <= 1:
            parser.error(f"--{name} is a fraction between 0 and 1")
    if not (0 < args.scale < math.inf and 0 <= args.rate < math.inf) or args.lose < 0:  # nan fails both
        parser.error("--scale must be a positive number, --rate and --lose not negative")
    rt = Runtime.open(DESIGN, endpoint_url=args.endpoint, db=args.db)
    rt.create_tables()
    simulation = plan(
        args.seed,
        args.scale,
        late=args.late,
        duplicates=args.duplicates,
        lose=args.lose,
        lose_ota_complete=args.lose_ota_complete,
    )
    kinds = Counter(d.kind for d in simulation.deliveries)
    answers = replay(rt, simulation, rate=args.rate)
    print(
        f"simulated {len(simulation.devices)} chargers, {len(simulation.events)} events: "
        f"{len(simulation.deliveries)} deliveries ({kinds['late']} late, {kinds['duplicate']} duplicate), "
        f"{len(simulation.lost)} lost"
    )
    print("handler answers: " + ", ".join(f"{k}={v}" for k, v in sorted(answers.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
