"""Running the ``tablewright`` command as a user does, and checking its one-line errors."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

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


@contextmanager
def unwritable_directory(tmp_path: Path) -> Iterator[Path]:
    """A directory this process cannot write: chmod where it bites (not root); as root, the immutable
    attribute (``chattr +i``, which binds root too; removed again on exit), else a read-only mount."""
    locked = tmp_path / "locked"
    locked.mkdir()
    if os.geteuid() != 0:
        locked.chmod(0o555)
        yield locked
        return
    chattr = shutil.which("chattr")
    if chattr and subprocess.run([chattr, "+i", str(locked)], capture_output=True).returncode == 0:
        try:
            yield locked
        finally:
            subprocess.run([chattr, "-i", str(locked)], check=True)
        return
    with open("/proc/mounts", encoding="utf-8") as mounts:
        for line in mounts:
            _, point, _, options, *_ = line.split()
            read_only_mount = "ro" in options.split(",") and not point.startswith("/mnt/")
            if read_only_mount and Path(point).is_dir() and not os.access(point, os.W_OK):
                yield Path(point)
                return
    if Path("/proc/sys").is_dir() and not os.access("/proc/sys", os.W_OK):
        yield Path("/proc/sys")
        return
    pytest.skip("no directory this process cannot write (root, no chattr, no read-only mount)")
