"""``tablewright serve`` started as a user starts it: a subprocess on a free port, stopped by SIGTERM."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TABLEWRIGHT = [sys.executable, "-c", "from tablewright.cli import main; main()"]


def bare_environment(home: Path) -> dict[str, str]:
    """The environment of a machine with no AWS configuration: no AWS_* variables, an empty HOME."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        HOME=str(home), AWS_CONFIG_FILE=str(home / "none"), AWS_SHARED_CREDENTIALS_FILE=str(home / "none")
    )
    return env


@contextmanager
def served(*args: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, list[str]]]:
    """Yield (URL, banner lines) of a running ``tablewright serve --port 0``."""
    process = subprocess.Popen(
        [*TABLEWRIGHT, "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        banner: list[str] = []
        for line in process.stdout:  # type: ignore[union-attr]
            banner.append(line.rstrip("\n"))
            if line.startswith("Press Ctrl+C"):
                break
        found = re.search(r"DynamoDB API at (http://\S+)", "\n".join(banner))
        assert found, f"serve did not start: {banner} {process.stderr.read()}"  # type: ignore[union-attr]
        yield found.group(1), banner
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
