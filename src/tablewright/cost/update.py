"""What one update of an existing item writes, index by index.

DynamoDB writes an index entry when an update changes what the index holds: an item whose index key
changes is deleted under the old key and put under the new one (2 writes); one that enters or leaves
a sparse index is put or deleted (1 write); one whose projected attributes change is rewritten
(1 write); an index the update does not touch costs nothing. Which
attributes an update changes comes from the volumes (``update_changes``), plus what the runtime
changes itself: ``updated_at`` stamps and computed attributes built from changed ones.
"""

from __future__ import annotations

from tablewright.design.model import Design, Entity, EntityKey, Index
from tablewright.design.volumes import EntityVolume

from . import analysis


def changed(design: Design, entity: Entity, volume: EntityVolume | None) -> set[str]:
    """Attributes an update changes: the declared ones (all non-key attributes when undeclared),
    ``updated_at`` stamps, and computed attributes whose template reads a changed one."""
    keys = _table_key_fields(entity)
    declared = volume.update_changes if volume else None
    found = set(declared) if declared is not None else {n for n in entity.attributes if n not in keys}
    for name, attr in entity.attributes.items():
        computed = attr.computed
        if computed is None:
            continue
        stamped = computed.kind == "updated_at"
        derived = computed.template is not None and bool(found & set(computed.template.fields))
        if stamped or derived:
            found.add(name)
    return found


def index_writes(design: Design, entity: Entity, index: Index, changes: set[str]) -> float:
    """Expected writes one update of an entity's item makes on an index (its membership included).

    Facts B (GSI write): the index key changed: 2 (delete + put); a projected attribute changed: 1;
    the item enters or leaves the index: 1 (a put, or a delete); not in the index before or after: 0.
    An update that changes an attribute of a sparse ``when:`` moves the item in or out: the item is
    assumed in the index before and after independently, with the index's share ``p`` each time, so
    ``2p(1-p)`` of such updates enter or leave (1 write) and ``p*p`` stay in (the writes of an item
    that stays). With the share unknown, each such update is assumed to enter or leave (at least 1).
    """
    entry = entity.keys.get(index.name)
    if entry is None or not changes:
        return 0.0
    inside = _writes_staying_in(entry, index, changes)
    if entry.when is None or not changes & entry.when.attributes:
        return analysis.membership(design, entity.name, index.name) * inside
    share = analysis.selectivity(entry.when, design, (entity.name,))
    if share is None:
        return float(max(1, inside))
    return 2 * share * (1 - share) + share * share * inside


def _writes_staying_in(entry: EntityKey, index: Index, changes: set[str]) -> int:
    """Writes an update makes on an item that is in the index before and after: 2 when its index key
    moves, 1 when a projected attribute changes, else 0."""
    key_fields = set(entry.pk.fields) | (set(entry.sk.fields) if entry.sk else set())
    if changes & key_fields:
        return 2
    projection = index.projection
    if projection.type == "ALL" or (projection.type == "INCLUDE" and changes & set(projection.attributes)):
        return 1
    return 0


def describe(name: str, volume: EntityVolume | None, changes: set[str], moved: list) -> str:
    """The assumption an update estimate rests on, for the report."""
    declared = volume is not None and volume.update_changes is not None
    what = ", ".join(sorted(changes)) or "nothing"
    source = "declared" if declared else "not declared (update_changes): every non-key attribute assumed"
    markers = (
        f"; unique values change ({', '.join('+'.join(u) for u in moved)}): markers swapped in a transaction"
        if moved
        else ""
    )
    return f"{name}: updates change {what} ({source}); each reads the item first{markers}"


def _table_key_fields(entity: Entity) -> set[str]:
    entry = entity.keys.get("table")
    if entry is None:
        return set()
    return set(entry.pk.fields) | (set(entry.sk.fields) if entry.sk else set())
