"""examples/evse against hostile input: payloads naming a key twice or nesting past DynamoDB's 32
levels, job days and ``--now`` outside what the log can hold, and a charger that falls silent late
in the evening (the silence the next day's anomaly run must report, once)."""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path

import pytest

from tablewright.runtime import Runtime

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "evse"
sys.path.insert(0, str(EXAMPLE))
import handler  # noqa: E402
from evse import DESIGN, refresh_daily_stats, register_device, sc_id  # noqa: E402
from evse.anomalies import run_anomaly_job  # noqa: E402
from evse.ids import from_mt, to_mt  # noqa: E402
from evse.uplink import UplinkError, decode_uplink, encode_uplink  # noqa: E402

UUID = "0f8fad5b-d9cb-469f-a165-70867728950e"
DEVICE = sc_id(UUID)
MINUTE = 60_000
QUARTER = 15 * MINUTE


@pytest.fixture
def rt() -> Runtime:
    runtime = Runtime.open(DESIGN)
    runtime.create_tables()
    register_device(runtime, {"wireless_device_id": UUID})
    return runtime


def uplink_with_payload(payload: bytes) -> dict:
    message = encode_uplink(UUID, 1_762_000_000_000, {"event_type": "telemetry"})
    message["PayloadData"] = base64.b64encode(payload).decode()
    return message


def nested(levels: int) -> bytes:
    """A telemetry payload whose ``x`` holds lists ``levels`` deep: ``x`` is DynamoDB level 1."""
    return b'{"event_type":"telemetry","x":' + b"[" * levels + b"]" * levels + b"}"


# ------------------------------------------------------------------------------ payload decoding
@pytest.mark.parametrize(
    ("payload", "key"),
    [
        (b'{"event_type":"telemetry","event_type":"interlock"}', "'event_type' twice"),
        (b'{"event_type":"telemetry","j1772_state":"B","j1772_state":"C"}', "'j1772_state' twice"),
    ],
)
def test_a_payload_naming_a_key_twice_is_rejected_naming_the_key(rt, payload, key):
    answer = handler.handler(uplink_with_payload(payload), None, rt=rt)
    assert answer["status"] == "rejected" and key in answer["reason"], answer
    assert answer["reason"].startswith("UplinkError")
    assert rt.run("fleet_overview").items == []  # nothing stored: neither value is trusted


def test_a_payload_nested_past_dynamodbs_32_levels_is_rejected_when_decoded(rt):
    # x at level 1 holding 31 lists: the deepest list sits at level 31, the last DynamoDB stores.
    assert decode_uplink(uplink_with_payload(nested(31)))["x"] is not None
    with pytest.raises(UplinkError, match="deeper than DynamoDB's 32 levels"):
        decode_uplink(uplink_with_payload(nested(32)))
    answer = handler.handler(uplink_with_payload(nested(500)), None, rt=rt)
    assert answer["status"] == "rejected" and "UplinkError" in answer["reason"]
    assert "32 levels" in answer["reason"]
    assert rt.run("fleet_overview").items == []


def test_an_event_nested_too_deeply_to_log_is_still_answered_rejected(rt):
    metadata: list = []
    for _ in range(100_000):  # built without recursion, as a forged event would arrive
        metadata = [metadata]
    message = uplink_with_payload(b'{"event_type":"telemetry"}')
    message["WirelessMetadata"] = metadata
    answer = handler.handler(message, None, rt=rt)
    assert answer["status"] == "rejected" and "Timestamp is missing" in answer["reason"]


# ------------------------------------------------------------------------------ job days and --now
def run_jobs(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, str(EXAMPLE / "jobs.py"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A database holding one charger's afternoon: paused at 16:00, charging at 16:15 and 16:30."""
    path = str(tmp_path / "evse.db")
    runtime = Runtime.open(DESIGN, db=path)
    runtime.create_tables()
    register_device(runtime, {"wireless_device_id": UUID})
    afternoon = [
        ("2025-10-20 15:45:00.000", {"event_type": "telemetry", "j1772_state": "B"}),
        ("2025-10-20 16:00:00.000", {"event_type": "scheduler", "scheduler_command": "pause"}),
        ("2025-10-20 16:15:00.000", {"event_type": "telemetry", "j1772_state": "C"}),
        ("2025-10-20 16:30:00.000", {"event_type": "telemetry", "j1772_state": "C"}),
    ]
    for at, body in afternoon:
        answer = handler.handler(encode_uplink(UUID, from_mt(at), body), None, rt=runtime)
        assert answer["status"] == "appended", answer
    return path


def refusal_of(day: str) -> list[str]:
    return [
        f"evse jobs: error: --day '{day}' is outside 2000-01-01..2099-12-31, the days an event can fall on "
        "(the design keeps event timestamps between 2000 and 2100)"
    ]


@pytest.mark.parametrize(
    ("job", "day"),
    [
        ("daily-stats", "9999-12-31"),
        ("daily-stats", "0001-01-01"),
        ("anomalies", "9999-12-31"),
        ("anomalies", "0001-01-01"),
    ],
)
def test_a_day_outside_what_the_log_can_hold_is_refused_in_one_line(db, tmp_path, job, day):
    done = run_jobs(job, "--db", db, "--day", day, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines() == refusal_of(day)
    assert done.stdout == ""  # nothing computed, nothing written


def test_job_days_run_from_2000_01_01_to_2099_12_31(db, tmp_path):
    for outside in ("1999-12-31", "2100-01-01"):
        refused = run_jobs("daily-stats", "--db", db, "--day", outside, cwd=tmp_path)
        assert refused.returncode == 2 and refused.stderr.strip().splitlines() == refusal_of(outside)
    first = run_jobs("daily-stats", "--db", db, "--day", "2000-01-01", cwd=tmp_path)
    last = run_jobs("daily-stats", "--db", db, "--day", "2099-12-31", cwd=tmp_path)
    judged = run_jobs(
        "anomalies", "--db", db, "--day", "2099-12-31", "--now", "2100-01-01T12:00:00Z", cwd=tmp_path
    )
    assert first.returncode == last.returncode == judged.returncode == 0, (first.stderr, last.stderr)
    assert "daily-stats 2099-12-31: 1 devices" in last.stdout and "anomalies 2099-12-31:" in judged.stdout


def test_daily_stats_refuse_a_day_no_event_can_fall_on_instead_of_writing_an_empty_one(rt):
    with pytest.raises(ValueError, match=r"outside 2000-01-01\.\.2099-12-31"):
        refresh_daily_stats(rt, DEVICE, "0001-01-01")
    assert rt.run("daily_stats", device_id=DEVICE, **{"from": "0001-01-01", "to": "9999-12-31"}).items == []


@pytest.mark.parametrize("now", ["2025-10-20T05:59:59.999Z", "2025-10-19T00:00:00Z", "0001-01-01T00:00:00Z"])
def test_a_now_before_the_days_start_is_refused(db, tmp_path, now):
    done = run_jobs("anomalies", "--db", db, "--day", "2025-10-20", "--now", now, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"evse jobs: error: --now '{now}' is before the start of --day 2025-10-20 "
        "(2025-10-20 00:00:00.000 Mountain Time)"
    ]
    assert Runtime.open(DESIGN, db=db).run("device_anomalies", device_id=DEVICE).items == []


def test_the_days_start_itself_is_a_valid_now(db, tmp_path):
    done = run_jobs(
        "anomalies", "--db", db, "--day", "2025-10-20", "--now", "2025-10-20T06:00:00Z", cwd=tmp_path
    )
    assert done.returncode == 0 and "anomalies 2025-10-20: 0 new" in done.stdout, done.stderr


def test_a_divergence_after_now_is_not_recorded_until_a_run_sees_it(db, tmp_path):
    # 16:15 Mountain (MDT) is 22:15 UTC: a run as of 16:00 knows nothing of the episode.
    early = run_jobs(
        "anomalies", "--db", db, "--day", "2025-10-20", "--now", "2025-10-20T22:00:00Z", cwd=tmp_path
    )
    assert early.returncode == 0 and "divergence" not in early.stdout, early.stdout
    assert Runtime.open(DESIGN, db=db).run("device_anomalies", device_id=DEVICE).items == []
    later = run_jobs("anomalies", "--db", db, "--day", "2025-10-20", cwd=tmp_path)
    assert f"{DEVICE} divergence since 2025-10-20 16:15:00.000" in later.stdout, later.stdout


# ------------------------------------------------------------------------------ silences across days
def ingest(rt: Runtime, at_mt: str, body: dict | None = None) -> None:
    body = body or {"event_type": "telemetry", "j1772_state": "B"}
    answer = handler.handler(encode_uplink(UUID, from_mt(at_mt), body), None, rt=rt)
    assert answer["status"] == "appended", answer


def every_quarter(rt: Runtime, first_mt: str, last_mt: str, *, skip: tuple[str, ...] = ()) -> None:
    """Telemetry every 15 minutes from ``first_mt`` to ``last_mt``, but for the ``skip`` ones (lost)."""
    for ms in range(from_mt(first_mt), from_mt(last_mt) + 1, QUARTER):
        if to_mt(ms) not in skip:
            ingest(rt, to_mt(ms))


def end_of(day: str) -> int:
    following = {"2025-10-20": "2025-10-21", "2025-10-21": "2025-10-22", "2025-10-22": "2025-10-23"}[day]
    return from_mt(f"{following} 00:00:00.000")


def silences(findings) -> list[tuple[str, int, str | None]]:
    return [
        (a["since_mt"], a["missed"], a.get("until_mt"))
        for a in findings.recorded
        if a["kind"] == "missed_uplinks"
    ]


def test_a_charger_silent_from_late_evening_is_reported_by_the_next_days_run_once(rt):
    every_quarter(rt, "2025-10-20 20:00:00.000", "2025-10-20 23:45:00.000")
    ingest(rt, "2025-10-20 23:59:00.000")  # then nothing
    day_itself = run_anomaly_job(rt, "2025-10-20", end_of("2025-10-20"))
    assert silences(day_itself) == []  # one minute quiet at midnight: no silence yet
    next_day = run_anomaly_job(rt, "2025-10-21", end_of("2025-10-21"))
    # 24 h 1 min silent by the end of 10-21: the 96 uplinks due by then
    assert silences(next_day) == [("2025-10-20 23:59:00.000", 96, None)]
    [found] = next_day.recorded
    assert (
        found["date"] == "2025-10-21" and found["detail"] == "silent until 2025-10-22 00:00:00.000 at least"
    )
    again = run_anomaly_job(rt, "2025-10-21", end_of("2025-10-21"))
    day_after = run_anomaly_job(rt, "2025-10-22", end_of("2025-10-22"))
    assert again.recorded == day_after.recorded == []  # one silence, one finding
    assert [a["since_mt"] for a in day_after.already_known] == ["2025-10-20 23:59:00.000"]
    assert len(rt.run("device_anomalies", device_id=DEVICE).items) == 1


def test_a_silence_the_days_own_run_found_is_not_recorded_again_by_the_next(rt):
    every_quarter(rt, "2025-10-20 20:00:00.000", "2025-10-20 23:00:00.000")
    late_run = run_anomaly_job(rt, "2025-10-20", end_of("2025-10-20"))  # an hour silent by midnight
    assert silences(late_run) == [("2025-10-20 23:00:00.000", 4, None)]
    next_day = run_anomaly_job(rt, "2025-10-21", end_of("2025-10-21"))
    assert next_day.recorded == [] and [a["kind"] for a in next_day.already_known] == ["missed_uplinks"]


def test_an_uplink_lost_at_midnight_is_one_finding_of_the_next_days_run(rt):
    every_quarter(rt, "2025-10-20 22:00:00.000", "2025-10-21 02:00:00.000", skip=("2025-10-21 00:00:00.000",))
    assert silences(run_anomaly_job(rt, "2025-10-20", end_of("2025-10-20"))) == []
    as_of_0210 = from_mt("2025-10-21 02:10:00.000")
    assert silences(run_anomaly_job(rt, "2025-10-21", as_of_0210)) == [
        ("2025-10-20 23:45:00.000", 1, "2025-10-21 00:15:00.000")
    ]


def test_a_silence_older_than_the_day_before_is_found_past_the_clouds_commands(rt):
    ingest(rt, "2025-10-17 23:00:00.000")  # the last uplink, three days before
    ingest(rt, "2025-10-18 16:00:00.000", {"event_type": "scheduler", "scheduler_command": "pause"})
    ingest(rt, "2025-10-19 21:00:00.000", {"event_type": "scheduler", "scheduler_command": "resume"})
    findings = run_anomaly_job(rt, "2025-10-20", end_of("2025-10-20"))
    # 3 days and 1 hour: 292 quarter-hours due since the last uplink
    assert silences(findings) == [("2025-10-17 23:00:00.000", 292, None)]
