"""Engine tests: under mutation testing only, forget cached expression parses between tests.

The parsers cache by expression text (grammar.py, keys.py). Mutation testing (docs/mutation.md)
maps each function to the tests that call it; with the cache warm, only the first test to parse a
given text calls the parser, so a mutant of the parser would be tried against that one test alone.
mutmut marks its processes with ``MUTANT_UNDER_TEST``; ordinary runs keep the cache.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tablewright.engine.expressions import grammar, keys


@pytest.fixture(autouse=True)
def _fresh_expression_parses() -> Iterator[None]:
    if "MUTANT_UNDER_TEST" in os.environ:
        for parse in (
            grammar.parse_condition,
            grammar.parse_update,
            grammar.parse_projection,
            keys.parse_key_condition,
        ):
            getattr(parse, "cache_clear", lambda: None)()
    yield
