"""Updates of unversioned entities: an UpdateItem of only what changed, guarded by what it was derived from.

Rewriting the whole item would undo a concurrent update of another attribute (lost update). So the
runtime sends ``SET`` for the attributes whose stored value changes and ``REMOVE`` for those that
go away: the caller's changes plus everything derived from them (index and table key attributes,
templates, TTLs, defaults, ``updated_at``). A derived value was computed from attributes the runtime
*read*; the condition requires those to be unchanged, so two writers never store a key composed
from a mix of their reads. If one did change, the update is planned again from a fresh read
(``failures.Stale``), and both writers' changes survive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..design.model import Entity
from .conditions import Condition
from .errors import ConditionFailedError
from .expressions import Placeholders
from .items import HIDDEN_PREFIX, natural, table_key, to_record
from .markers import unique_values
from .wire import item_to_wire, to_wire
from .writes import Plan, same_as_read

if TYPE_CHECKING:
    from .writes import Writer

# Computed kinds whose value depends on nothing stored but the write time (so do TTLs without `from`).
_UNGUARDED = ("created_at", "updated_at")


def plan_changes(
    writer: Writer,
    entity: Entity,
    old: Mapping[str, object],
    new: dict[str, object],
    touched: set[str],
    condition: Condition | None,
) -> Plan:
    """The UpdateItem (plus marker actions) that turns ``old`` into ``new``; ``touched`` are the
    attributes the caller changed or removed."""
    table = writer.rt.design.table_of(entity.name)
    key = table_key(table, old)
    sets = [n for n, v in new.items() if n not in key and (n not in old or to_wire(old[n]) != to_wire(v))]
    removes = [n for n in old if n not in new and n not in key and not n.startswith(HIDDEN_PREFIX)]
    record = to_record(entity, table, new)
    if not sets and not removes:
        # Nothing to write: the update takes effect at the read, so the caller's condition is
        # judged on what was read (skipping it would report success for a condition that is false).
        values = natural(entity, old) if condition is not None else None
        if condition is not None and not condition.holds(values):
            raise ConditionFailedError(
                entity.name, key, condition.text, condition.explain(values), verb="update"
            )
        return Plan([], [record])
    ph = Placeholders()
    clauses = []
    if sets:
        clauses.append("SET " + ", ".join(f"{ph.name(n)} = {ph.value(new[n])}" for n in sets))
    if removes:
        clauses.append("REMOVE " + ", ".join(ph.name(n) for n in removes))
    derived = [n for n in [*sets, *removes] if n not in touched and not _write_time(entity, n)]
    guarded = _read_dependencies(entity, touched, derived)
    guarded |= _changed_unique_attributes(entity, old, new)
    parts = [f"attribute_exists({ph.name(table.partition_key.name)})"]
    parts += [same_as_read(ph, name, old) for name in sorted(guarded)]
    body = {"Key": item_to_wire(key), "UpdateExpression": " ".join(clauses)}
    action = writer.item_action(
        entity, "Update", body, parts, ph, key, condition, must_exist=True, verb="update"
    )
    return Plan([action, *writer.unique_actions(entity, old, new)], [record])


def _write_time(entity: Entity, name: str) -> bool:
    attr = entity.attributes.get(name)
    computed = attr.computed if attr else None
    return computed is not None and (
        computed.kind in _UNGUARDED or (computed.kind == "ttl" and not computed.source)
    )


def _derivations(entity: Entity) -> list[set[str]]:
    """For every derived value (index/table key, template, TTL), the attributes it is computed from."""
    found = []
    for entry in entity.keys.values():
        fields = set(entry.pk.fields) | set(entry.sk.fields if entry.sk else ())
        found.append(fields | (entry.when.attributes if entry.when else set()))
    for attr in entity.attributes.values():
        computed = attr.computed
        if computed is None or _write_time(entity, attr.name):
            continue
        if computed.template is not None:
            found.append(set(computed.template.fields))
        elif computed.source:
            found.append({computed.source})
    return found


def _read_dependencies(entity: Entity, touched: set[str], derived: list[str]) -> set[str]:
    """What the plan's derived values were computed from, besides the caller's changes.

    A derived value fed by a touched attribute is recomputed from the *read* values of its other
    inputs, whether or not it changes (a key that stays absent is a result too); a value written
    without the caller asking (a default) must not overwrite a concurrent writer's.
    """
    found = set(derived)
    for inputs in _derivations(entity):
        if inputs & touched:
            found |= inputs
    return found - touched


def _changed_unique_attributes(
    entity: Entity, old: Mapping[str, object], new: Mapping[str, object]
) -> set[str]:
    """Attributes of unique constraints whose value moves: the marker released is the one read."""
    before, after = unique_values(entity.unique, old), unique_values(entity.unique, new)
    moved = {u.constraint for u in before if u not in after} | {
        u.constraint for u in after if u not in before
    }
    return {name for constraint in moved for name in constraint}
