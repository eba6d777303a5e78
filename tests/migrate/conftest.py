"""Fixtures for the migration tests (helpers live in ``helpers.py``)."""

from .helpers import legacy_db  # noqa: F401  (a fixture)
