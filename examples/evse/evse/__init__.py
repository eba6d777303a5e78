"""EVSE fleet (seed 000, ADR-006) on tablewright: SC-ID keys, Mountain Time sort keys, one event log,
per-device state, daily statistics. See ``examples/evse/README.md``."""

from .devices import register_device
from .fleet import DESIGN, EvseFleet
from .ids import day_range, from_mt, mt_date, sc_id, sc_id_collision_probability, to_mt, wall_clock_hours
from .ingest import FutureEventError, IngestResult, ScIdCollisionError, UnknownDeviceError, ingest_uplink
from .state import EFFECTS, apply_event, is_stale
from .stats import aggregate_day, refresh_daily_stats

__all__ = [
    "DESIGN",
    "EFFECTS",
    "EvseFleet",
    "FutureEventError",
    "IngestResult",
    "ScIdCollisionError",
    "UnknownDeviceError",
    "aggregate_day",
    "apply_event",
    "day_range",
    "from_mt",
    "ingest_uplink",
    "is_stale",
    "mt_date",
    "refresh_daily_stats",
    "register_device",
    "sc_id",
    "sc_id_collision_probability",
    "to_mt",
    "wall_clock_hours",
]
