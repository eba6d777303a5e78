"""Shared fixtures: the van telemetry design from docs/design-file.md (the doc's example must load).

The validators cache compiled patterns by text; under mutation testing (docs/mutation.md: mutmut
marks its processes with ``MUTANT_UNDER_TEST``) a warm cache would hide a mutant of the compiler
from every test but the first, so each test then starts with them empty.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablewright.design import validators

DOC = Path(__file__).resolve().parents[2] / "docs" / "design-file.md"


@pytest.fixture(scope="session")
def van_yaml() -> str:
    text = DOC.read_text(encoding="utf-8")
    return re.search(r"```yaml\n(version: 1.*?)```", text, re.S).group(1)


@pytest.fixture(autouse=True)
def _fresh_compiled_patterns() -> Iterator[None]:
    if "MUTANT_UNDER_TEST" in os.environ:
        validators.pattern_regex.cache_clear()
        validators.charset_regex.cache_clear()
    yield
