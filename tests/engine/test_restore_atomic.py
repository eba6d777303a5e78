"""A restore creates its table and fills it in one transaction: another process never sees the
restored table ACTIVE and empty (or half full), and a restore killed midway leaves no table."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tablewright.engine import Engine, load_items

ITEMS = 20_000
RESTORE = """
import sys
from tablewright.engine import Engine
engine = Engine(sys.argv[1])
print("starting", flush=True)
engine.handle("RestoreTableFromBackup", {"TargetTableName": "copy", "BackupArn": sys.argv[2]})
print("restored", flush=True)
"""

pytestmark = pytest.mark.slow


def _backup(path: str) -> str:
    engine = Engine(path)
    engine.handle(
        "CreateTable",
        {
            "TableName": "source",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    load_items(
        engine, "source", [{"pk": {"S": f"item-{n:06}"}, "body": {"S": "x" * 200}} for n in range(ITEMS)]
    )
    arn = engine.handle("CreateBackup", {"TableName": "source", "BackupName": "before"})["BackupDetails"][
        "BackupArn"
    ]
    engine.close()
    return arn


def _seen(engine: Engine) -> int | None:
    """The restored table's item count as another process sees it, or None while it does not exist."""
    if "copy" not in engine.handle("ListTables", {})["TableNames"]:
        return None
    return engine.handle("DescribeTable", {"TableName": "copy"})["Table"]["ItemCount"]


def test_another_process_sees_no_table_or_the_whole_table(tmp_path) -> None:
    path = str(tmp_path / "restore.db")
    arn = _backup(path)
    restore = subprocess.Popen([sys.executable, "-c", RESTORE, path, arn], stdout=subprocess.PIPE, text=True)
    observer = Engine(path)
    seen: set[int | None] = set()
    while restore.poll() is None:
        seen.add(_seen(observer))
    assert restore.returncode == 0
    seen.add(_seen(observer))
    assert seen <= {None, ITEMS}
    assert ITEMS in seen


@pytest.mark.parametrize("after", [0.0, 0.02, 0.1])
def test_a_restore_killed_midway_leaves_no_table(tmp_path, after: float) -> None:
    path = str(tmp_path / "restore.db")
    arn = _backup(path)
    restore = subprocess.Popen([sys.executable, "-c", RESTORE, path, arn], stdout=subprocess.PIPE, text=True)
    assert restore.stdout is not None and restore.stdout.readline() == "starting\n"
    time.sleep(after)
    os.kill(restore.pid, signal.SIGKILL)
    restore.wait()
    assert _seen(Engine(path)) in (None, ITEMS)
