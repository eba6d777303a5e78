"""Start ``tablewright explore`` as a real process and talk to it over HTTP."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DESIGNS = Path(__file__).parent / "designs"
EXAMPLE_NAMES = ["evse", "van-telemetry", "woms", "nexus", "sensor-api"]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
_URL = re.compile(r"(http://\S+/) ")


class Explore:
    """A running explorer: ``url``, an httpx ``client``, the process."""

    def __init__(self, process: subprocess.Popen, url: str) -> None:
        self.process = process
        self.url = url
        self.client = httpx.Client(base_url=url, timeout=30)

    def json(self, path: str, **params: object) -> dict:
        response = self.client.get(path, params={**params, "_format": "json"})
        assert response.headers["content-type"].startswith("application/json"), response.text[:300]
        return response.json()

    def token(self) -> str:
        page = self.client.get("/").text
        page = self.client.get(re.search(r'href="(/tables/[^"]+)"', page).group(1) + "/new").text
        return re.search(r'name="_token" value="([^"]+)"', page).group(1)


@contextmanager
def running(*args: str, timeout: float = 60.0) -> Iterator[Explore]:
    """``tablewright explore ARGS --port 0`` until the block ends."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    process = subprocess.Popen(
        [sys.executable, "-c", "from tablewright.cli import main; main()", "explore", *args, "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=ROOT,
    )
    deadline = time.monotonic() + timeout
    line = ""
    try:
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line and process.poll() is not None:
                raise AssertionError(f"explore exited with {process.returncode}: {process.stderr.read()}")
            found = _URL.search(line)
            if found:
                explore = Explore(process, found.group(1))
                yield explore
                explore.client.close()
                return
        raise AssertionError(f"explore did not start in {timeout}s: {line}")
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stderr.close()
