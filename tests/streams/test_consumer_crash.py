"""A consumer SIGKILLed mid-stream and restarted handles every change at least once, in order per item."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import tablewright
from tablewright.engine import Engine

from ._support import create_table, read_all

SCRIPT = Path(__file__).with_name("_consumer_process.py")
GUARD_SECONDS = 120  # only stops a broken test from hanging; nothing asserts on durations


def _changes(ddb, start: int, count: int) -> None:
    """Puts, updates and deletes spread over ten items."""
    for n in range(start, start + count):
        key = {"pk": {"S": f"item{n % 10}"}}
        if n % 7 == 6:
            ddb.delete_item(TableName="orders", Key=key)
        else:
            ddb.update_item(
                TableName="orders",
                Key=key,
                UpdateExpression="SET n = :n",
                ExpressionAttributeValues={":n": {"N": str(n)}},
            )


def _handled(log: Path) -> list[dict]:
    entries = []
    for line in log.read_text().splitlines() if log.exists() else []:
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short by the kill; its batch is delivered again after the restart
    return entries


def _spawn(tmp_path: Path, tag: str, mode: str) -> subprocess.Popen:
    arguments = [
        str(tmp_path / "app.db"),
        str(tmp_path / "checkpoint.json"),
        str(tmp_path / "handled.log"),
        tag,
        mode,
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen([sys.executable, str(SCRIPT), *arguments], env=env)


def test_a_killed_consumer_resumes_from_its_checkpoint_without_losing_changes(tmp_path):
    log = tmp_path / "handled.log"
    with Engine(str(tmp_path / "app.db")) as engine:
        ddb = tablewright.connect(engine=engine)
        arn = create_table(ddb)
        _changes(ddb, 0, 150)

        first = _spawn(tmp_path, "first", "forever")
        _changes(ddb, 150, 150)  # written while the consumer is reading
        deadline = time.monotonic() + GUARD_SECONDS
        while len(_handled(log)) < 60 and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.005)
        first.send_signal(signal.SIGKILL)
        first.wait()
        before_restart = {e["seq"] for e in _handled(log)}

        _changes(ddb, 300, 100)
        second = _spawn(tmp_path, "second", "drain")
        assert second.wait(timeout=GUARD_SECONDS) == 0

        truth = read_all(tablewright.connect(service="dynamodbstreams", engine=engine), arn)

    assert first.returncode == -signal.SIGKILL
    assert 60 <= len(before_restart) < 300, "the consumer was not killed in the middle of the stream"
    handled = _handled(log)
    resumed = [e["seq"] for e in handled if e["run"] == "second"]
    assert resumed[0] > min(before_restart), "the restarted consumer started over instead of resuming"
    assert len(truth) > 390  # 400 changes; a delete of an item that does not exist writes no record
    assert {e["seq"] for e in handled} == {r["dynamodb"]["SequenceNumber"] for r in truth}
    for item in {r["dynamodb"]["Keys"]["pk"]["S"] for r in truth}:
        expected = [
            r["dynamodb"]["SequenceNumber"] for r in truth if r["dynamodb"]["Keys"]["pk"]["S"] == item
        ]
        first_deliveries = list(dict.fromkeys(e["seq"] for e in handled if e["key"] == item))
        assert first_deliveries == expected, f"changes of {item} were handled out of order"
