"""Running the ``tablewright`` command as a user does, and checking its one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("tablewright")
COMMAND = (
    [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-c", "from tablewright.cli import main; main()"]
)


def run(
    *args: str, cwd: Path | None = None, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """``tablewright ARGS...`` in a subprocess (stdin closed), its output captured as text; ``env``
    adds to the environment."""
    return subprocess.run(
        [*COMMAND, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )


def one_line_error(result: subprocess.CompletedProcess, command: str, status: int, *words: str) -> str:
    """Assert the decided form: exit ``status``, one stderr line ``tablewright COMMAND: error: ...``
    (after any ``warning:`` lines the command printed before it failed)."""
    assert result.returncode == status, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = [
        line for line in result.stderr.strip().splitlines() if f"tablewright {command}: warning: " not in line
    ]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"tablewright {command}: error: "), lines[0]
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]
