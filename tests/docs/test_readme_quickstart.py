"""The README's quick start, run as written in a fresh folder: every ```yaml file=NAME``` block is
saved as NAME, every ```console``` block's ``$ command`` is run by the shell, and what it prints must
be what the README shows (numbers with a fraction — timings, costs — and table borders aside)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```\s*$", re.S | re.M)
BORDERS = re.compile(r"[│┃┏┓┗┛┡┩┳┻╇━─└┘┴┬├┤┼]")
FRACTION = re.compile(r"\d+\.\d+")


def _blocks() -> list[tuple[str, str, str]]:
    return [(m.group(1), m.group(2).strip(), m.group(3)) for m in FENCE.finditer(README.read_text())]


def _steps() -> list[tuple[str, str, str]]:
    """("file", name, text) and ("run", command, expected output), in README order."""
    steps = []
    for language, info, body in _blocks():
        if language == "yaml" and info.startswith("file="):
            steps.append(("file", info.removeprefix("file="), body))
        elif language == "console":
            command, output = None, []
            for line in body.splitlines():
                if line.startswith("$ "):
                    if command:
                        steps.append(("run", command, "\n".join(output)))
                    command, output = line[2:], []
                else:
                    output.append(line)
            if command:
                steps.append(("run", command, "\n".join(output)))
    return steps


def _normal(text: str) -> list[str]:
    lines = (" ".join(FRACTION.sub("#", BORDERS.sub(" ", line)).split()) for line in text.splitlines())
    return [line for line in lines if line]


def test_the_readme_has_a_quick_start_to_run() -> None:
    steps = _steps()
    files = [s for s in steps if s[0] == "file"]
    commands = [s[1] for s in steps if s[0] == "run"]
    assert [f[1] for f in files] == ["design.yaml"]
    assert any(c.startswith("tablewright lint") for c in commands)
    assert any(c.startswith("tablewright cost") for c in commands)
    assert any(c.startswith("tablewright check") for c in commands)
    assert any(c.startswith("tablewright init") for c in commands)
    assert "tablewright explore" in README.read_text()


def test_the_quick_start_runs_as_written(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("COLUMNS", None)
    for kind, what, text in _steps():
        if kind == "file":
            (tmp_path / what).write_text(text)
            continue
        result = subprocess.run(
            ["bash", "-c", what], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        shown = result.stdout + result.stderr
        assert "Traceback" not in shown, shown
        assert _normal(shown) == _normal(text), f"$ {what}\n{shown}"
        assert result.returncode == (1 if what.startswith("tablewright lint") else 0), shown
