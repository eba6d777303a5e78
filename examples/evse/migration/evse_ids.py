"""The ADR-006 key derivations for the migration, as the design's key templates (one rule, one place).

``sc_id``: Decision 2, ``SC-`` + the first 4 bytes of SHA-256 of the UUID, hex, upper case.
``to_mt``: Decision 3, Unix ms -> ``YYYY-MM-DD HH:MM:SS.mmm`` on the America/Denver wall clock.
"""

from __future__ import annotations

from tablewright.design.templates import KeyTemplate

SC_ID = KeyTemplate("SC-{wireless_device_id|sha256:4|upper}")
TIMESTAMP_MT = KeyTemplate(
    "{timestamp|tz:America/Denver|format:%Y-%m-%d %H:%M:%S.%L}", {"timestamp": "epoch_ms"}
)


def sc_id(wireless_device_id: str) -> str:
    """The SC-ID of a wireless device UUID."""
    return str(SC_ID.render({"wireless_device_id": wireless_device_id}))


def to_mt(ms: int) -> str:
    """The Mountain Time wall-clock sort key of a Unix ms instant."""
    return str(TIMESTAMP_MT.render({"timestamp": ms}))
