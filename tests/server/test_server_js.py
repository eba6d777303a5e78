"""The AWS SDK for JavaScript v3 (client and document client) against the served engine."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

JS = Path(__file__).parent / "js"


def _install() -> None:
    """Install the pinned SDK into tests/server/js/node_modules (git-ignored) once."""
    if (JS / "node_modules" / "@aws-sdk" / "lib-dynamodb").is_dir():
        return
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("node/npm are not installed")
    result = subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund"], cwd=JS, capture_output=True, text=True, timeout=300
    )
    if result.returncode != 0:
        pytest.skip(f"npm could not install the AWS SDK (registry unreachable?): {result.stderr[-500:]}")


def test_js_sdk_v3_flow(server):
    _install()
    result = subprocess.run(
        ["node", "flow.mjs", server.url], cwd=JS, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "js flow ok" in result.stdout
