"""ADR-006 as a migration plan: legacy tables -> the evse-* tables of ``../design.yaml``.

    tablewright migrate examples/evse/migration/plan.py --db evse.db --dry-run
    tablewright migrate examples/evse/migration/plan.py --db evse.db

The copy is not live replication: run it with writers stopped (the ADR deploys every Lambda at
once). Legacy tables are deleted by the plan, each only after its copy verified; the two orphans
(Decision 6) are deleted outright. Rows that cannot be migrated are kept, with the reason, in
``<legacy table>-rejects`` (see ``transforms``); the registry goes first, so every other row is
checked against the SC-ID owner it names.
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


def _rejects(legacy_table: str) -> CreateTable:
    """Where the rows of ``legacy_table`` that cannot be migrated are kept (key: the legacy key as text)."""
    return CreateTable(
        spec={
            "TableName": transforms.rejects(legacy_table),
            "AttributeDefinitions": [{"AttributeName": "source_key", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "source_key", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST",
        }
    )


PLAN = Plan(
    [
        _rejects(REGISTRY),
        _rejects(EVENTS),
        _rejects(AGGREGATES),
        # The registry first: every event, sentinel and aggregate is checked against the UUID it holds.
        Rename(
            REGISTRY,
            transforms.DEVICES,
            create=_table(transforms.DEVICES),
            transform=transforms.registry,
            delete_old=True,
        ),
        _table(transforms.EVENTS),  # with its event-type-index GSI
        _table(transforms.DEVICE_STATE),
        _table("evse-anomalies"),  # new, empty: what the anomaly job (jobs.py) records
        # Events and sentinels are one scan: events are re-keyed, sentinels fold into device state.
        Copy(EVENTS, transforms.EVENTS, transforms.event, delete_source=True, name="events"),
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
