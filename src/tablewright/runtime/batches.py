"""``put_many``: a batch of items of one entity, idempotent under one key, within DynamoDB's limits.

TransactWriteItems takes at most 100 actions. A batch whose items, uniqueness markers and
idempotency marker fit is one transaction. A batch that does not fit (the sensor API's 100 readings
+ 1 marker = 101) is written in transactions of at most 100 actions between a **pending** marker
(which holds the request's digest, so another request with the key is refused before anything is
written) and the marker marked done; a refused chunk undoes the chunks before it. Item keys are
composed deterministically, so a retry rewrites the same items instead of adding copies, and every
item put is guarded by ``attribute_not_exists(pk) OR <idempotency attr> = :key`` so it can only
overwrite an item of the same batch. Every item is created (``attribute_not_exists``):
a batch never replaces an item stored before it. docs/runtime.md explains the trade-off.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from botocore.exceptions import ClientError

from ..design.model import Entity
from ..design.validators import Violation
from .errors import RuntimeFailure, TransactionTooLargeError, ValidationError, in_batch_item
from .expressions import Placeholders
from .items import compose, table_key, to_record
from .markers import CLAIMED_ATTRIBUTE, OWNER_ATTRIBUTE, STATE_ATTRIBUTE, request_digest
from .wire import from_wire, item_to_wire
from .writes import (
    HIDDEN_IDEMPOTENCY,
    MAX_TRANSACTION_ACTIONS,
    Action,
    Plan,
    Writer,
    WriteResult,
    batch_violations,
    idempotency_of,
    request_of,
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
    request = request_digest("put_many", entity.name, [dict(values) for values in items])
    marker = writer.idempotency_action(entity, idem, now, request)
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
    return _chunked(rt, entity, composed, records, idem, request, now)


# A pending marker older than this was left by a writer that stopped (a crash, a lost connection):
# the same request takes its batch over. Younger, a concurrent retry waits for it to finish.
PENDING_TAKEOVER_SECONDS = 10.0


def _chunked(
    rt: Runtime,
    entity: Entity,
    composed: list[dict],
    records: list,
    idem: object,
    request: str,
    now: datetime,
) -> WriteResult:
    """A batch too large for one transaction: a pending marker, the chunks, then the marker done.

    The marker comes first so that another request with the same key is refused before anything of
    it is written (two batches could otherwise interleave their chunks). A concurrent retry of the
    same request waits for the first to finish and reports it already applied; a pending marker
    left by a writer that stopped is taken over after ``PENDING_TAKEOVER_SECONDS``. A chunk that is
    refused (an item stored before the batch, a unique value taken) undoes the chunks before it and
    the marker: the batch is all or nothing, and a retry starts afresh.
    """
    writer = rt.writer
    marker = _claim(rt, entity, idem, request, now)
    if marker is None:
        return WriteResult(False, records, 1, "already applied")
    attribute = entity.idempotency_key or HIDDEN_IDEMPOTENCY
    if attribute == HIDDEN_IDEMPOTENCY:
        for item in composed:
            item[HIDDEN_IDEMPOTENCY] = idem
    batch = (attribute, idem)
    chunks = _pack([_group(writer, entity, item, batch) for item in composed])
    for done, chunk in enumerate(chunks):
        try:
            writer.run(lambda chunk=chunk: Plan(chunk))  # a retried chunk rewrites the same items
        except RuntimeFailure:
            _undo(rt, [a for c in chunks[:done] for a in c] + [marker], batch)
            raise
    writer.finish_idempotency(entity, idem, request)
    return WriteResult(
        True, records, len(chunks) + 2, f"chunked: {len(chunks)} transactions between marker writes"
    )


def _claim(rt: Runtime, entity: Entity, idem: object, request: str, now: datetime) -> Action | None:
    """Put the pending marker (the action that did), or None when this request was applied before.

    Raises ``IdempotencyKeyReusedError`` when the key belongs to another request.
    """
    writer = rt.writer
    takeover, delay = None, 0.02
    while True:
        claim = int(time.time() * 1000)
        action = writer.idempotency_action(entity, idem, now, request, claim=claim, takeover=takeover)
        if writer.run(lambda action=action: Plan([action])).applied:
            return action
        stored = writer.idempotency_marker(entity, idem)  # the same request's: explain checked it
        if stored is None:
            continue  # undone since: claim it again
        if stored.get(STATE_ATTRIBUTE) != "pending":
            return None
        claimed = int(stored.get(CLAIMED_ATTRIBUTE, 0))  # type: ignore[call-overload]
        if time.time() * 1000 - claimed > PENDING_TAKEOVER_SECONDS * 1000:
            takeover = claimed
            continue
        time.sleep(delay)
        delay = min(delay * 2, 0.25)


# What a written action of a refused batch is deleted under: that it is still this batch's.
_STILL_OURS = {
    "item": lambda ph, item, batch: f"{ph.name(batch[0])} = {ph.value(batch[1])}",
    "unique": lambda ph, item, batch: (
        f"{ph.name(OWNER_ATTRIBUTE)} = {ph.value(from_wire(item[OWNER_ATTRIBUTE]))}"
    ),
    "idem": lambda ph, item, batch: (
        f"{ph.name(CLAIMED_ATTRIBUTE)} = {ph.value(from_wire(item[CLAIMED_ATTRIBUTE]))}"
    ),
}


def _undo(rt: Runtime, written: list[Action], batch: tuple[str, object]) -> None:
    """Delete the items, unique markers and pending marker a refused batch wrote, each only while it
    is still this batch's (another writer may have taken a value since)."""
    for action in written:
        put = action.request["Put"]
        table = next(t for t in rt.design.tables.values() if t.table_name == put["TableName"])
        names = {table.partition_key.name, table.sort_key.name if table.sort_key else None}
        ph = Placeholders()
        guard = _STILL_OURS[action.kind](ph, put["Item"], batch)
        key = {n: v for n, v in put["Item"].items() if n in names}
        ((_, delete),) = request_of("Delete", table.table_name, {"Key": key}, [guard], ph).items()
        with contextlib.suppress(ClientError):  # gone already, or no longer ours: left alone
            rt.data.delete_item(**delete)


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
    results = []
    for index, values in enumerate(items):
        try:
            results.append(rt.put(entity.name, values, now=now))
        except RuntimeFailure as error:
            raise in_batch_item(error, index, entity.name) from None
    return WriteResult(True, [r.records[0] for r in results], len(results), f"{len(results)} writes")
