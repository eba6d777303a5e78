"""The EVSE nightly jobs, one command each (README, "Run it"):

    python examples/evse/jobs.py daily-stats --db evse.db [--day 2025-11-01]
    python examples/evse/jobs.py anomalies   --db evse.db [--day 2025-11-01] [--now "2025-11-02T07:00:00Z"]

``--day`` is a Mountain Time date from 2000-01-01 to 2099-12-31, the days an event can fall on
(default: yesterday in Mountain Time); ``--now`` may not be before that day's start. Both jobs
cover every device with a state item (the fleet overview's one Scan) and can be re-run at will:
daily stats are recomputed from the day's events, anomalies are written create-only. ``--endpoint URL`` instead of
``--db`` runs them against DynamoDB. Exit codes: 0 done, 2 bad arguments, 3 tables unreachable or
not the ingestion's (another design's database).
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from botocore.exceptions import BotoCoreError, ClientError  # noqa: E402
from evse import DESIGN, refresh_daily_stats  # noqa: E402
from evse.anomalies import run_anomaly_job  # noqa: E402
from evse.ids import MOUNTAIN, day_start_ms, from_mt, parse_day, to_mt  # noqa: E402

from tablewright.cli.errors import reported  # noqa: E402
from tablewright.design.timeutil import parse_rfc3339  # noqa: E402
from tablewright.runtime import Runtime  # noqa: E402

PROGRAM = "evse jobs"
# The tables the ingestion writes: without them a file or endpoint is another design's, or nothing was
# ingested yet. The jobs create only their own tables (daily stats, anomalies) when those are missing.
INGESTED = ("evse-devices", "evse-events", "evse-device-state")


def _fail(code: int, message: str) -> None:
    print(f"{PROGRAM}: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def _day(text: str | None) -> str:
    if text is None:
        return (datetime.now(MOUNTAIN).date() - timedelta(days=1)).isoformat()
    try:  # YYYY-MM-DD as written, on a day an event can fall on (2000-01-01..2099-12-31)
        return parse_day(text.strip()).isoformat()
    except ValueError as error:
        _fail(2, f"--day {error}")
    raise AssertionError  # unreachable


def _now_ms(text: str | None, day: str) -> int:
    """The instant the anomaly job judges at; never before the day's start (README, "Anomalies")."""
    start = day_start_ms(day)
    if text is None:  # the end of the day examined, or the present if that is earlier
        end = from_mt(f"{(date.fromisoformat(day) + timedelta(days=1)).isoformat()} 00:00:00.000")
        now_ms = min(end, int(datetime.now(UTC).timestamp() * 1000))
        if now_ms < start:
            _fail(
                2,
                f"--day {day} has not begun (it starts at {to_mt(start)} Mountain Time): nothing to judge yet",
            )
        return now_ms
    try:
        moment = parse_rfc3339(text.strip())
    except ValueError:
        _fail(2, f"--now {text!r} is not an RFC 3339 time (YYYY-MM-DDTHH:MM:SS[.fff] and Z or +hh:mm)")
    now_ms = int(moment.timestamp() * 1000)
    if now_ms < start:  # as of a moment before the day began, nothing of the day can be judged
        _fail(2, f"--now {text!r} is before the start of --day {day} ({to_mt(start)} Mountain Time)")
    return now_ms


def _require_ingested_tables(rt: Runtime, where: str) -> None:
    names: list[str] = []
    request: dict[str, str] = {}
    while True:
        page = rt.client.list_tables(**request)
        names += page.get("TableNames", [])
        if "LastEvaluatedTableName" not in page:
            break
        request = {"ExclusiveStartTableName": page["LastEvaluatedTableName"]}
    missing = [name for name in INGESTED if name not in names]
    if missing:
        _fail(
            3,
            f"{where} has no {', '.join(missing)} table (it has: {', '.join(names) or 'no tables'}): "
            "another design's database, or nothing ingested yet (run simulate.py or the handler first)",
        )


def daily_stats(rt: Runtime, day: str) -> int:
    """Recompute every device's statistics for ``day``; prints one line per device."""
    states = rt.run("fleet_overview").items
    for state in states:
        stats = refresh_daily_stats(rt, str(state["device_id"]), day)
        print(f"{state['device_id']} {day}: {stats['event_count']} events, {stats['energy_wh']} Wh")
    print(f"daily-stats {day}: {len(states)} devices")
    return 0


def anomalies(rt: Runtime, day: str, now_ms: int) -> int:
    """Detect and record ``day``'s anomalies; prints each new one."""
    findings = run_anomaly_job(rt, day, now_ms)
    for found in findings.recorded:
        extra = f" missed={found['missed']}" if "missed" in found else ""
        print(f"{found['device_id']} {found['kind']} since {found['since_mt']}{extra}")
    print(f"anomalies {day}: {len(findings.recorded)} new, {len(findings.already_known)} already recorded")
    return 0


@reported(PROGRAM)
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROGRAM, description="EVSE nightly jobs")
    parser.add_argument("job", choices=["daily-stats", "anomalies"])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", help="SQLite file of the embedded engine")
    where.add_argument("--endpoint", help="DynamoDB endpoint URL")
    parser.add_argument(
        "--day", help="Mountain Time date YYYY-MM-DD, 2000-01-01..2099-12-31 (default: yesterday)"
    )
    parser.add_argument(
        "--now", help="anomalies: the time to judge the day's log at (RFC 3339, not before the day's start)"
    )
    args = parser.parse_args(argv)
    if args.db and not Path(args.db).is_file():
        _fail(2, f"--db {args.db}: no such file (run the simulator or the ingestion first)")
    day = _day(args.day)
    now_ms = _now_ms(args.now, day) if args.job == "anomalies" else None
    try:
        rt = Runtime.open(DESIGN, endpoint_url=args.endpoint, db=args.db)
        _require_ingested_tables(rt, args.endpoint or args.db)
        rt.create_tables()
        if args.job == "daily-stats":
            return daily_stats(rt, day)
        assert now_ms is not None
        return anomalies(rt, day, now_ms)
    except (ClientError, BotoCoreError) as error:
        _fail(3, f"the tables at {args.endpoint or args.db}: {error}")
    return 3


if __name__ == "__main__":
    raise SystemExit(main())
