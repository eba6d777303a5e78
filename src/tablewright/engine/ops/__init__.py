"""DynamoDB operations, one module per area; each module's ``OPERATIONS`` maps names to functions."""

from __future__ import annotations

from . import (
    backups,
    batch,
    exports,
    features_off,
    items,
    partiql,
    pitr,
    reads,
    settings,
    streams,
    tables,
    transactions,
)

OPERATIONS = {
    **tables.OPERATIONS,
    **settings.OPERATIONS,
    **items.OPERATIONS,
    **reads.OPERATIONS,
    **batch.OPERATIONS,
    **transactions.OPERATIONS,
    **streams.OPERATIONS,
    **partiql.OPERATIONS,
    **backups.OPERATIONS,
    **pitr.OPERATIONS,
    **features_off.OPERATIONS,
    **exports.OPERATIONS,
}
