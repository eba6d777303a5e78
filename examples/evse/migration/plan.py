"""ADR-006 as a migration plan: legacy tables -> the evse-* tables of ``../design.yaml``.

    tablewright migrate examples/evse/migration/plan.py --db evse.db --dry-run
    tablewright migrate examples/evse/migration/plan.py --db evse.db

The copy is not live replication: run it with writers stopped (the ADR deploys every Lambda at
once). Legacy tables are deleted by the plan, each only after its copy verified; the two orphans
(Decision 6) are deleted outright.
"""

from __future__ import annotations

from pathlib import Path

import transforms
from legacy import AGGREGATES, CONFIG, DEDUPE, EVENTS, REGISTRY

from tablewright.design import load
from tablewright.migrate import Copy, CreateTable, DeleteTable, Plan, Rename

DESIGN = load(Path(__file__).resolve().parent.parent / "design.yaml")


def _table(name: str) -> CreateTable:
    return CreateTable.from_design(DESIGN, name)


PLAN = Plan(
    [
        _table(transforms.EVENTS),  # with its event-type-index GSI
        _table(transforms.DEVICE_STATE),
        # Events and sentinels are one scan: events are re-keyed, sentinels fold into device state.
        Copy(EVENTS, transforms.EVENTS, transforms.event, delete_source=True, name="events"),
        Rename(
            REGISTRY,
            transforms.DEVICES,
            create=_table(transforms.DEVICES),
            transform=transforms.registry,
            delete_old=True,
        ),
        Rename(
            AGGREGATES,
            transforms.DAILY_STATS,
            create=_table(transforms.DAILY_STATS),
            transform=transforms.aggregates,
            delete_old=True,
        ),
        DeleteTable(DEDUPE),  # orphans (Decision 6)
        DeleteTable(CONFIG),
    ],
    name="adr-006",
)
