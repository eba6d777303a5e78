"""``put_many``: a batch of items of one entity, idempotent under one key, within DynamoDB's limits.

TransactWriteItems takes at most 100 actions. A batch whose items, uniqueness markers and
idempotency marker fit is one transaction. A batch that does not fit (the sensor API's 100 readings
+ 1 marker = 101) is written in transactions of at most 100 actions with the marker **last**: item
keys are composed deterministically, so a retry rewrites the same items instead of adding copies,
and every item put is guarded by ``attribute_not_exists(pk) OR <idempotency attr> = :key`` so it
can only overwrite an item of the same batch. Every item is created (``attribute_not_exists``):
a batch never replaces an item stored before it. docs/runtime.md explains the trade-off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ..design.model import Entity
from ..design.validators import Violation
from .errors import TransactionTooLargeError, ValidationError
from .expressions import Placeholders
from .items import compose, table_key, to_record
from .wire import item_to_wire
from .writes import (
    HIDDEN_IDEMPOTENCY,
    MAX_TRANSACTION_ACTIONS,
    Action,
    Plan,
    Writer,
    WriteResult,
    batch_violations,
    idempotency_of,
)

if TYPE_CHECKING:
    from .core import Runtime


def put_many(
    rt: Runtime,
    entity: Entity,
    items: Sequence[Mapping[str, object]],
    *,
    idempotency_key: object = None,
    now: datetime,
    atomic: bool = False,
) -> WriteResult:
    """Write a batch once. See the module docstring for the plan."""
    writer: Writer = rt.writer
    table = rt.design.table_of(entity.name)
    violations = batch_violations(entity, items)
    if violations:
        raise ValidationError(entity.name, violations)
    idem = idempotency_of(entity, items, idempotency_key)
    composed = [compose(entity, dict(values), now=now, created=True) for values in items]
    _refuse_duplicate_keys(entity, table, composed)
    if idem is None:
        return _without_idempotency(rt, entity, items, composed, now)
    if entity.version_attribute:
        for item in composed:
            item[entity.version_attribute] = 1
    marker = writer.idempotency_action(entity, idem, now)
    groups = [_group(writer, entity, item, None) for item in composed]
    total = sum(len(g) for g in groups) + 1
    records = [to_record(entity, table, item) for item in composed]
    if total <= MAX_TRANSACTION_ACTIONS:
        actions = [a for g in groups for a in g] + [marker]
        applied = writer.run(lambda: Plan(actions)).applied
        plan = f"1 transaction of {total} actions" if applied else "already applied"
        return WriteResult(applied, records, 1, plan)
    if atomic:
        raise TransactionTooLargeError(
            f"{entity.name}: an atomic write of {len(composed)} items needs {total} actions "
            f"(items, uniqueness markers and the idempotency marker) but TransactWriteItems allows "
            f"{MAX_TRANSACTION_ACTIONS}; split the batch or allow chunking (atomic=False)"
        )
    if writer.idempotency_applied(entity, idem):
        return WriteResult(False, records, 0, "already applied")
    attribute = entity.idempotency_key or HIDDEN_IDEMPOTENCY
    if attribute == HIDDEN_IDEMPOTENCY:
        for item in composed:
            item[HIDDEN_IDEMPOTENCY] = idem
    groups = [_group(writer, entity, item, (attribute, idem)) for item in composed]
    chunks = _pack(groups)
    for chunk in chunks:
        writer.run(lambda chunk=chunk: Plan(chunk))  # a retried chunk rewrites the same items
    applied = writer.run(lambda: Plan([marker])).applied
    plan = (
        f"chunked: {len(chunks)} transactions + marker" if applied else "already applied (concurrent retry)"
    )
    return WriteResult(applied, records, len(chunks) + 1, plan)


def _group(writer: Writer, entity: Entity, item: dict, same_batch: tuple[str, object] | None) -> list[Action]:
    """An item put and its uniqueness markers: never split across transactions."""
    table = writer.rt.design.table_of(entity.name)
    ph = Placeholders()
    condition = f"attribute_not_exists({ph.name(table.partition_key.name)})"
    if same_batch is not None:
        # A retried chunk may rewrite an item of its own batch, never anything else.
        condition += f" OR {ph.name(same_batch[0])} = {ph.value(same_batch[1])}"
    body = {"Item": item_to_wire(item)}
    action = writer.item_action(
        entity, "Put", body, [condition], ph, table_key(table, item), must_exist=False, verb="put"
    )
    return [action, *writer.unique_actions(entity, None, item)]


def _pack(groups: list[list[Action]]) -> list[list[Action]]:
    chunks: list[list[Action]] = [[]]
    for group in groups:
        if len(chunks[-1]) + len(group) > MAX_TRANSACTION_ACTIONS:
            chunks.append([])
        chunks[-1].extend(group)
    return [c for c in chunks if c]


def _refuse_duplicate_keys(entity: Entity, table, composed: list[dict]) -> None:
    seen: dict[str, int] = {}
    problems = []
    for index, item in enumerate(composed):
        key = repr(sorted(table_key(table, item).items()))
        if key in seen:
            problems.append(
                Violation(entity.name, f"[{index}]", "key", f"has the same table key as item [{seen[key]}]")
            )
        seen.setdefault(key, index)
    if problems:
        raise ValidationError(entity.name, problems)


def _without_idempotency(
    rt: Runtime, entity: Entity, items: Sequence[Mapping], composed: list[dict], now: datetime
) -> WriteResult:
    # BatchWriteItem cannot be conditional, and a batch creates: each item is its own conditional
    # put (same write units as BatchWriteItem), so an existing item is never silently replaced.
    results = [rt.put(entity.name, values, now=now) for values in items]
    return WriteResult(True, [r.records[0] for r in results], len(results), f"{len(results)} writes")
