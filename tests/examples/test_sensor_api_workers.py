"""examples/sensor-api with several worker processes (``serve.py --workers``): the workers share the
database file and the cursor secret, one stopped worker does not stop the others, a worker that dies
ends the service with its status, and a stop signal ends every worker cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_sensor_api_service import ADMIN, BOOT, CAPS, PEPPER, SERVE, batch, kill_group, start, stop  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked")
ENV = {"SENSOR_API_ADMIN_TOKEN": ADMIN, "API_KEY_PEPPER": PEPPER}


def workers_of(process: subprocess.Popen, expected: int = 0) -> list[int]:
    """The worker processes, once ``expected`` of them are there (the socket listens, and says so,
    before they are forked), or what there is after 10 s."""
    deadline = time.monotonic() + 10
    while True:
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        if len(children) >= expected or time.monotonic() > deadline:
            return [int(pid) for pid in children]
        time.sleep(0.02)


def ended(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"


def processes_naming(text: str) -> list[int]:
    """Live processes whose command line holds ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and text in (entry / "cmdline").read_text()
                and not ended(int(entry.name))
            ):
                found.append(int(entry.name))
        except OSError:
            continue  # gone meanwhile
    return found


def register(url: str, key: str, mac: str) -> None:
    body = {"hardware_id": mac, "boot_id": BOOT, "firmware_version": "1.0.16", "capabilities": CAPS}
    answer = httpx.post(f"{url}/v1/devices", json=body, headers={"X-API-Key": key})
    assert answer.status_code == 201, answer.text


def new_key(url: str) -> str:
    answer = httpx.post(f"{url}/admin/api-keys", json={}, headers={"Authorization": f"Bearer {ADMIN}"})
    return answer.json()["api_key"]


def test_workers_share_the_tables_and_the_cursor_secret(tmp_path):
    process, url = start(tmp_path, "--db", str(tmp_path / "s.db"), "--workers", "3", env=ENV)
    try:
        assert len(workers_of(process, 3)) == 3
        key = new_key(url)
        macs = [f"AA:BB:CC:DD:EE:{n:02X}" for n in range(12)]
        for mac in macs:  # a new connection each: the workers take them as they come
            register(url, key, mac)
        pages, cursor = [], None
        while True:  # each page on a new connection: a cursor one worker signed, another reads
            params = {"limit": 5, **({"cursor": cursor} if cursor else {})}
            answer = httpx.get(f"{url}/v1/devices", params=params, headers={"X-API-Key": key})
            assert answer.status_code == 200, answer.text
            pages.append([device["hardware_id"] for device in answer.json()["items"]])
            cursor = answer.json().get("cursor")
            if not cursor:
                break
        assert sorted(mac for page in pages for mac in page) == macs
    finally:
        process.terminate()
        status = process.wait(timeout=20)
        kill_group(process)
    assert status == 0


def test_a_stopped_worker_leaves_the_others_answering(tmp_path):
    process, url = start(tmp_path, "--db", str(tmp_path / "s.db"), "--workers", "2", env=ENV)
    try:
        first, second = workers_of(process, 2)
        key = new_key(url)
        register(url, key, "AA:BB:CC:DD:EE:01")
        os.kill(first, signal.SIGSTOP)
        for n in range(4):  # every new connection is taken by the worker still running
            answer = httpx.post(
                f"{url}/v1/batches",
                json=batch(f"b{n}", int(time.time() * 1000) - n, hardware_id="AA:BB:CC:DD:EE:01"),
                headers={"X-API-Key": key},
                timeout=10,
            )
            assert answer.status_code == 201, answer.text
        os.kill(first, signal.SIGCONT)
        process.terminate()
        assert process.wait(timeout=20) == 0
        assert ended(first) and ended(second)
    finally:
        kill_group(process)


def test_a_worker_that_dies_ends_the_service_with_its_status(tmp_path):
    process, url = start(tmp_path, "--db", str(tmp_path / "s.db"), "--workers", "2", env=ENV)
    try:
        first, second = workers_of(process, 2)
        os.kill(first, signal.SIGKILL)
        assert process.wait(timeout=20) == 128 + signal.SIGKILL
        log = process.stderr.read()
        assert f"worker {first} ended (killed by SIGKILL); stopping the others" in log
        assert "Traceback" not in log
        deadline = time.monotonic() + 10
        while not ended(second) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ended(second)
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"{url}/openapi.json", timeout=2)
    finally:
        kill_group(process)


def test_one_worker_per_core_by_default_and_one_in_memory(tmp_path):
    process, _url = start(tmp_path, "--db", str(tmp_path / "s.db"), env=ENV)
    try:
        cores = len(os.sched_getaffinity(0))
        expected = cores if cores > 1 else 0  # one process serves alone, without workers
        assert len(workers_of(process, expected)) == expected
    finally:
        stop(process)
    process, _url = start(tmp_path, env=ENV)
    try:
        time.sleep(0.5)
        assert workers_of(process) == []
    finally:
        stop(process)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--workers", "2"], "--workers above 1 needs --db or --endpoint"),
        (["--workers", "0", "--db", "x.db"], "--workers 0 is not a number of processes from 1 to 64"),
        (["--workers", " 2x", "--db", "x.db"], "invalid int value"),
    ],
)
def test_a_worker_count_that_cannot_work_is_refused_before_listening(tmp_path, args, says):
    done = subprocess.run(
        [sys.executable, str(SERVE), "--port", "0", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **ENV},
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert "listening" not in done.stdout and not (tmp_path / "x.db").exists()


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize(
    ("make", "says"),
    [
        (
            lambda folder: (folder / "x.db").write_bytes(b"not a database, 5 KB" * 256),
            "is not a SQLite database",
        ),
        (lambda folder: (folder / "x.db").mkdir(), "is a directory, not a database file"),
    ],
)
def test_a_database_that_cannot_be_opened_is_one_line_before_listening(tmp_path, workers, make, says):
    make(tmp_path)
    done = subprocess.run(
        [sys.executable, str(SERVE), "--port", "0", "--db", str(tmp_path / "x.db"), "--workers", workers],
        capture_output=True,
        text=True,
        env={**os.environ, **ENV},
        timeout=60,
    )
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert done.stderr.startswith("sensor-api serve: error: ") and "Traceback" not in done.stderr


@pytest.mark.parametrize("workers", ["1", "3"])
def test_a_stop_signal_right_after_it_listens_ends_every_process(tmp_path, workers):
    """However soon a signal follows the listening line (workers still being forked, the server not
    yet holding SIGINT), the service ends without a traceback and leaves no worker behind."""
    for delay, sig in [
        (0.0, signal.SIGINT),
        (0.002, signal.SIGTERM),
        (0.004, signal.SIGINT),
        (0.2, signal.SIGINT),
    ]:
        process, _url = start(tmp_path, "--db", str(tmp_path / "s.db"), "--workers", workers, env=ENV)
        time.sleep(delay)
        process.send_signal(sig)
        try:
            try:
                status = process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"still running 20 s after {sig.name} at {delay} s") from None
            log = process.stderr.read()
            assert status in (0, 130, -sig), (delay, sig, status, log)
            assert "Traceback" not in log, log
            assert not processes_naming(str(tmp_path / "s.db")), (delay, sig)  # before kill_group
        finally:
            kill_group(process)
