"""examples/van-telemetry's ingester against hostile input: a database path whose directory does not
exist, broker timestamps that are no whole milliseconds in the middle of a stream, and whole
numbers spelled with an exponent or a fraction of zero; the command runs as a process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tablewright.runtime import Runtime

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "van-telemetry"
sys.path.insert(0, str(EXAMPLE))
import van_telemetry  # noqa: E402

SCRIPT = str(EXAMPLE / "ingest.py")
VAN = "storyteller-van-01"


def ingest(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, SCRIPT, *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=120)


def line(timestamp_json: str, battery: float = 12.5) -> str:
    """One telemetry message with the ``timestamp`` written exactly as given (JSON text)."""
    payload = f'{{"battery_voltage": {battery}}}'
    return f'{{"topic": "van/{VAN}/telemetry", "payload": {payload}, "timestamp": {timestamp_json}}}'


def stored_timestamps(db: Path) -> list[int]:
    rt = Runtime.open(van_telemetry.DESIGN, db=str(db))
    items = rt.run("time_range", thing_name=VAN, start=946_684_800_000, end=4_102_444_799_999).items
    return [int(item["timestamp"]) for item in items]


def test_a_database_in_a_directory_that_does_not_exist_is_one_error_line(tmp_path):
    db = tmp_path / "nodir" / "x.db"
    done = ingest("--db", str(db), "-", stdin=line("1764000000000") + "\n")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"van ingest: error: directory {db.parent} does not exist (for database {db})"
    ]
    assert not db.parent.exists()


def test_a_bad_broker_timestamp_fails_its_line_and_the_stream_goes_on(tmp_path):
    good = [line(str(1_764_000_000_000 + n)) for n in range(8)]
    bad = ['"1764000000006"', "1764000000.007", '"2025-11-24T12:00:00Z"', "true", "null"]
    after = line("1764000000100")
    (tmp_path / "m.jsonl").write_text("\n".join([*good, *(line(b) for b in bad), after, ""]))
    done = ingest("--db", str(tmp_path / "van.db"), str(tmp_path / "m.jsonl"))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.strip() == "stored 9, unrouted 0, failed 5"
    assert done.stderr.splitlines() == [
        f"van ingest: line {9 + n}: van/{VAN}/telemetry: timestamp {b} is not whole milliseconds"
        for n, b in enumerate(bad)
    ]
    assert stored_timestamps(tmp_path / "van.db") == [
        *range(1_764_000_000_000, 1_764_000_000_008),
        1_764_000_000_100,
    ]


@pytest.mark.parametrize(
    ("spelled", "ms"),
    [
        ("1.764000000023e12", 1_764_000_000_023),
        ("1764000000024.0", 1_764_000_000_024),
        ("17640000000250E-1", 1_764_000_000_025),
    ],
)
def test_a_whole_number_of_milliseconds_is_accepted_however_spelled(tmp_path, spelled, ms):
    done = ingest("--db", str(tmp_path / "van.db"), "-", stdin=line(spelled) + "\n")
    assert done.returncode == 0 and done.stdout.strip() == "stored 1, unrouted 0, failed 0", done.stderr
    assert stored_timestamps(tmp_path / "van.db") == [ms]


def test_a_fraction_a_float_would_round_to_whole_is_still_refused(tmp_path):
    # 1764000000000.0000001 is 1764000000000.0 as a float: only the exact reading refuses it.
    stream = "\n".join([line("1764000000000.0000001"), line("1e999999999"), line("1764000000001"), ""])
    done = ingest("--db", str(tmp_path / "van.db"), "-", stdin=stream)
    assert done.returncode == 1 and done.stdout.strip() == "stored 1, unrouted 0, failed 2", done.stderr
    assert "line 1:" in done.stderr and "timestamp 1764000000000.0000001 is not whole" in done.stderr
    assert "line 2:" in done.stderr and "timestamp 1E+999999999 is not whole" in done.stderr
    assert stored_timestamps(tmp_path / "van.db") == [1_764_000_000_001]
