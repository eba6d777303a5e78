"""DynamoDB operations, one module per area; each module's ``OPERATIONS`` maps names to functions.

``SHORTCUTS`` maps names to functions tried before request validation: each answers the requests it
recognises, exactly as the general path would, and returns ``None`` for the others.
"""

from __future__ import annotations

from . import (
    backups,
    batch,
    exports,
    features_off,
    items,
    partiql,
    pitr,
    query_shortcut,
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
SHORTCUTS = {**items.SHORTCUTS, **query_shortcut.SHORTCUTS, **transactions.SHORTCUTS}
