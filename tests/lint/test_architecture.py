"""lint and cost depend on the design model only: no engine, runtime or AWS SDK (except cost --measure)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DESIGN = Path(__file__).resolve().parents[1] / "cost" / "designs" / "van.yaml"
PROBE = f"""
import sys
from tablewright.lint import lint_file
from tablewright.cost import build
from tablewright.lint.runner import load_design
import tablewright.cli.lint, tablewright.cli.cost
lint_file({str(DESIGN)!r})
build(load_design({str(DESIGN)!r}))
print(sorted(m for m in sys.modules if m.split(".")[0] in ("boto3", "botocore")
      or m.startswith(("tablewright.engine", "tablewright.runtime", "tablewright.client"))))
"""


def test_lint_and_cost_import_no_engine_runtime_or_sdk() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
