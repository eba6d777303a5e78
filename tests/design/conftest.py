"""Shared fixtures: the van telemetry design from docs/design-file.md (the doc's example must load)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "design-file.md"


@pytest.fixture(scope="session")
def van_yaml() -> str:
    text = DOC.read_text(encoding="utf-8")
    return re.search(r"```yaml\n(version: 1.*?)```", text, re.S).group(1)
