"""Sensor backend API (seed 002) on the tablewright runtime.

``devices`` registers devices and lists them by activity, ``api_keys`` creates, checks and revokes
peppered API keys, ``ingestion`` writes a batch of readings exactly once, ``readings`` queries them.
``open_runtime()`` gives a runtime on the example's design with its four tables created.
"""

from __future__ import annotations

from pathlib import Path

from tablewright.runtime import Runtime

DESIGN = Path(__file__).resolve().parent.parent / "design.yaml"


def open_runtime(db: str | None = None) -> Runtime:
    """A runtime on ``design.yaml``: a fresh in-memory engine, or the SQLite file ``db``; tables created."""
    rt = Runtime.open(DESIGN, db=db)
    rt.create_tables()
    return rt
