"""The example systems' own commands end as tablewright's do when a user gets something wrong: one
line ``<program>: error: ...`` on stderr with the project's exit status (docs/cli.md), no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
VENDOR = ["--vendor-id", "3", "--vendor-url", "http://127.0.0.1:9"]


@pytest.mark.parametrize(
    ("script", "args", "status", "said"),
    [
        ("evse/jobs.py", ["daily-stats", "--db", "{garbage}"], 2, "is not a SQLite database"),
        ("evse/jobs.py", ["anomalies", "--endpoint", "notaurl"], 2, "is not an endpoint URL"),
        ("evse/simulate.py", ["--db", "/nonexistent/x.db"], 2, "directory /nonexistent does not exist"),
        ("evse/simulate.py", ["--endpoint", "http://127.0.0.1:9"], 3, "Could not connect"),
        ("evse/simulate.py", ["--scale", "nan"], 2, "--scale must be a positive number"),
        ("woms/sync.py", ["--db", "{garbage}", *VENDOR], 2, "is not a SQLite database"),
        ("woms/sync.py", ["--endpoint", "notaurl", *VENDOR], 2, "is not an endpoint URL"),
        ("woms/migration/legacy_sql.py", ["/nonexistent/w.sqlite"], 2, "folder /nonexistent does not exist"),
        ("woms/migration/legacy_sql.py", ["."], 2, ". is a folder"),
        ("woms/migration/legacy_sql.py", ["w.sqlite", "--plants", "-3"], 2, "not between 0 and 1,000,000"),
    ],
)
def test_a_wrong_argument_is_one_line_and_the_projects_status(tmp_path, script, args, status, said):
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all")
    command = [sys.executable, str(EXAMPLES / script), *(a.format(garbage=garbage) for a in args)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == status and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert said in lines[-1] and (len(lines) == 1 or lines[0].startswith("usage:")), result.stderr
    assert garbage.read_bytes() == b"not a database at all"
