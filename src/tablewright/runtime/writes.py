"""Writes: put, update, delete with optimistic locking, caller conditions, uniqueness and idempotency markers.

Every write is *planned* as a list of ``Action``s (the item, marker puts, marker releases, the
idempotency marker) from what was read, then *executed*: one action goes out as a plain conditional
PutItem/UpdateItem/DeleteItem (half the cost of a transaction), more as one TransactWriteItems.
``rt.transact`` plans several operations and sends their actions together. A failed condition is
mapped back to the action that failed (``failures.py``), which is what lets the error name the
operation, entity, constraint or key involved; a plan whose read went stale is planned again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from ..design.model import Entity, Table
from ..design.timeutil import epoch_s, format_rfc3339
from ..design.validators import Violation
from .conditions import Condition
from .errors import ConflictError, NotFoundError, ValidationError
from .expressions import Placeholders
from .items import compose, natural, table_key, to_record, violations_of
from .markers import (
    CLAIMED_ATTRIBUTE,
    IDEMPOTENCY_RETENTION_SECONDS,
    KIND_ATTRIBUTE,
    OWNER_ATTRIBUTE,
    REQUEST_ATTRIBUTE,
    STATE_ATTRIBUTE,
    idempotency_text,
    marker_key,
    unique_text,
    unique_values,
)
from .wire import Record, item_from_wire, item_to_wire, to_wire

if TYPE_CHECKING:
    from .core import Runtime

MAX_TRANSACTION_ACTIONS = 100
HIDDEN_IDEMPOTENCY = "_tw_idem"
WRITE_ATTEMPTS = 5  # re-plans after a read went stale (an unversioned item changed underneath)
_SINGLE_WRITES = {"Put": "put_item", "Update": "update_item", "Delete": "delete_item"}


@dataclass
class Action:
    """One write in a plan.

    ``kind`` is item, delete, check, unique, release or idem; ``subject`` is what to name in an error
    (a table key, a UniqueValue, an idempotency key). The rest says what the condition guards, so a
    failure can be explained: ``expected`` version (when ``versioned``), ``must_exist`` (True: the item
    must exist, False: must not, None: either), the caller's ``condition``, the transaction
    ``operation`` index and its ``verb``.
    """

    kind: str
    request: dict
    subject: Any = None
    entity: Entity | None = None
    expected: object = None
    versioned: bool = False
    must_exist: bool | None = None
    condition: Condition | None = None
    operation: int | None = None
    verb: str = "write"


@dataclass
class Plan:
    """The actions of one write and the records it stores."""

    actions: list[Action]
    records: list[Record] = field(default_factory=list)


@dataclass
class WriteResult:
    """What a write did: ``applied`` is False for an idempotent retry ("already applied")."""

    applied: bool
    records: list[Record] = field(default_factory=list)
    transactions: int = 0
    plan: str = ""

    @property
    def record(self) -> Record | None:
        """The single record of a put/update."""
        return self.records[0] if self.records else None


class Stale(Exception):
    """The state a plan was made from changed before it committed: plan again."""


def request_of(verb: str, table: str, body: dict, parts: Sequence[str], ph: Placeholders) -> dict:
    """One TransactItems entry (``{verb: request}``) with the condition ``parts`` joined by AND."""
    request = {"TableName": table, **body}
    if parts:
        request["ConditionExpression"] = (
            parts[0] if len(parts) == 1 else " AND ".join(_grouped(p) for p in parts)
        )
    ph.apply(request)
    return {verb: request}


def _grouped(condition: str) -> str:
    """``condition`` in parentheses, unless it already is one parenthesised group: DynamoDB refuses
    redundant parentheses (``((a AND b))``)."""
    depth = 0
    for position, char in enumerate(condition):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            whole = position == len(condition) - 1 and condition.startswith("(")
            return condition if whole else f"({condition})"
    return f"({condition})"


class Writer:
    """The write half of a Runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    # ------------------------------------------------------------------------------------ helpers
    def owner(self, entity: Entity, item: Mapping[str, object]) -> str:
        """Who holds a unique marker: the entity and table key of the item."""
        key = table_key(self.rt.design.table_of(entity.name), item)
        return f"{entity.name}:" + "|".join(f"{k}={v!r}" for k, v in sorted(key.items()))

    def item_action(
        self,
        entity: Entity,
        wire_verb: str,
        body: dict,
        parts: list[str],
        ph: Placeholders,
        subject: Mapping[str, object],
        condition: Condition | None = None,
        **meta: Any,
    ) -> Action:
        """An action on the entity's own item; the caller's condition is ANDed to the guards."""
        table = self.rt.design.table_of(entity.name)
        if condition is not None:
            parts = [*parts, condition.render(ph)]
        kind = {"Put": "item", "Update": "item", "Delete": "delete", "ConditionCheck": "check"}[wire_verb]
        request = request_of(wire_verb, table.table_name, body, parts, ph)
        return Action(kind, request, dict(subject), entity, condition=condition, **meta)

    def unique_actions(self, entity: Entity, old: Mapping | None, new: Mapping | None) -> list[Action]:
        """The marker puts and deletes that move an item's unique values from ``old`` to ``new``."""
        table = self.rt.design.table_of(entity.name)
        if not entity.unique:
            return []  # fast path: no unique constraint, so no value to claim or release
        owner = self.owner(entity, new or old or {})
        before = unique_values(entity.unique, old or {})
        after = unique_values(entity.unique, new or {})
        # A marker carries the item's TTL value so it expires with the item; when that value moves,
        # a kept marker is put again (it is ours, so the owner guard lets it through), else it would
        # expire first and free the value while the item lives, or outlive an item that expired.
        expiry = (new or {}).get(table.ttl) if table.ttl else None
        refresh = bool(table.ttl) and old is not None and old.get(table.ttl) != expiry
        changes = [("unique", u) for u in after if u not in before or refresh]
        changes += [("release", u) for u in before if u not in after]
        actions = []
        for kind, unique in changes:
            key = marker_key(table, unique_text(entity.name, unique))
            ph = Placeholders()
            # Claimable when free or already ours, so a retried write does not trip on itself.
            cond = (
                f"attribute_not_exists({ph.name(table.partition_key.name)}) "
                f"OR {ph.name(OWNER_ATTRIBUTE)} = {ph.value(owner)}"
            )
            if kind == "unique":
                item = {**key, KIND_ATTRIBUTE: "unique", OWNER_ATTRIBUTE: owner, "_tw_entity": entity.name}
                if expiry is not None:
                    item[table.ttl] = expiry  # type: ignore[index]
                request = request_of("Put", table.table_name, {"Item": item_to_wire(item)}, [cond], ph)
            else:
                request = request_of("Delete", table.table_name, {"Key": item_to_wire(key)}, [cond], ph)
            actions.append(Action(kind, request, unique, entity))
        return actions

    def idempotency_action(
        self,
        entity: Entity,
        key: object,
        now: datetime,
        request: str | None = None,
        *,
        claim: int | None = None,
        takeover: int | None = None,
    ) -> Action:
        """The put of the idempotency marker ``key``, guarded so a second write with it fails.

        ``request`` (a :func:`request_digest`) is stored on the marker, so that the failure tells a
        retry from another request. ``claim`` (wall-clock ms) makes it the *pending* marker a
        chunked batch puts before its chunks; ``takeover`` (the claim time of a pending marker of
        the same request left by a writer that did not finish) lets this write replace exactly that.
        """
        table = self.rt.design.table_of(entity.name)
        item = {**marker_key(table, idempotency_text(entity.name, key)), KIND_ATTRIBUTE: "idem"}
        item["_tw_applied_at"] = format_rfc3339(now)
        if request is not None:
            item[REQUEST_ATTRIBUTE] = request
        if claim is not None:
            item[STATE_ATTRIBUTE], item[CLAIMED_ATTRIBUTE] = "pending", claim
        if table.ttl:
            item[table.ttl] = epoch_s(now + timedelta(seconds=IDEMPOTENCY_RETENTION_SECONDS))
        ph = Placeholders()
        cond = f"attribute_not_exists({ph.name(table.partition_key.name)})"
        if takeover is not None:
            cond += (
                f" OR ({ph.name(REQUEST_ATTRIBUTE)} = {ph.value(request)}"
                f" AND {ph.name(CLAIMED_ATTRIBUTE)} = {ph.value(takeover)})"
            )
        request_body = request_of("Put", table.table_name, {"Item": item_to_wire(item)}, [cond], ph)
        return Action("idem", request_body, key, entity)

    def idempotency_marker(self, entity: Entity, key: object) -> dict[str, object] | None:
        """The stored idempotency marker of ``key`` (a consistent read), or None."""
        table = self.rt.design.table_of(entity.name)
        return self.rt.read_raw(table, marker_key(table, idempotency_text(entity.name, key)))

    def same_request(self, action: Action) -> bool:
        """Whether the stored marker ``action`` failed on was put by the same request (a retry).

        A marker without a digest (written before digests existed) counts as the same request.
        """
        put = action.request["Put"]
        sent = put["Item"].get(REQUEST_ATTRIBUTE)
        table = next(t for t in self.rt.design.tables.values() if t.table_name == put["TableName"])
        names = {table.partition_key.name, table.sort_key.name if table.sort_key else None}
        key = {name: value for name, value in item_from_wire(put["Item"]).items() if name in names}
        stored = self.rt.read_raw(table, key) or {}
        return sent is None or REQUEST_ATTRIBUTE not in stored or to_wire(stored[REQUEST_ATTRIBUTE]) == sent

    def finish_idempotency(self, entity: Entity, key: object, request: str) -> None:
        """Mark a pending idempotency marker done (a chunked batch wrote every chunk): what a
        concurrent retry of the same request waits for."""
        table = self.rt.design.table_of(entity.name)
        ph = Placeholders()
        body = {
            "Key": item_to_wire(marker_key(table, idempotency_text(entity.name, key))),
            "UpdateExpression": f"REMOVE {ph.name(STATE_ATTRIBUTE)}, {ph.name(CLAIMED_ATTRIBUTE)}",
        }
        cond = f"{ph.name(REQUEST_ATTRIBUTE)} = {ph.value(request)}"
        ((_, update),) = request_of("Update", table.table_name, body, [cond], ph).items()
        self.rt.data.update_item(**update)

    def _unversioned_guard(
        self, entity: Entity, table: Table, old: Mapping | None, ph: Placeholders
    ) -> list[str]:
        # Without a version, guard what the plan depends on: existence and the unique values read.
        pk = ph.name(table.partition_key.name)
        if old is None:
            return [f"attribute_not_exists({pk})"]
        parts = [f"attribute_exists({pk})"]
        for name in dict.fromkeys(n for constraint in entity.unique for n in constraint):
            parts.append(same_as_read(ph, name, old))
        return parts

    def version_of(self, entity: Entity, item: Mapping | None) -> object:
        """What ``item`` holds as its version, for conflict messages: the version attribute, "an existing
        item" when the entity has none, None when there is no item."""
        if item is None:
            return None
        if entity.version_attribute:
            return item.get(entity.version_attribute)
        return "an existing item"

    def version_conflict(
        self, entity: Entity, key: Mapping[str, object], expected: object, item: Mapping | None
    ) -> ConflictError:
        """The ``ConflictError`` of a versioned write that expected ``expected`` and read ``item``."""
        return ConflictError(
            entity.name,
            key,
            expected,
            self.version_of(entity, item),
            found=stored_version_text(entity, item),
        )

    # ------------------------------------------------------------------------------------ plans
    def plan_put(
        self,
        entity: Entity,
        values: Mapping[str, object],
        *,
        now: datetime,
        replace: bool = False,
        expected_version: int | None = None,
        condition: Condition | None = None,
    ) -> Plan:
        """A create (``replace=False``) or a replace of one item, with its uniqueness markers.

        A create is always conditional (``attribute_not_exists``): an existing item under the key
        fails with ``AlreadyExistsError``, it is never overwritten. It reads nothing: a failure is
        explained afterwards. A replace reads the stored item (to keep ``created_at`` and move unique
        markers) and overwrites it; a versioned entity's replace needs ``expected_version``.
        """
        if not replace:
            if expected_version is not None:
                raise TypeError(
                    f"{entity.name}: a create has no version to expect; use rt.replace(..., expected_version=...)"
                )
            return self._plan_create(entity, values, now=now, condition=condition)
        if entity.version_attribute and expected_version is None:
            raise TypeError(
                f"{entity.name} is versioned ({entity.version_attribute}): rt.replace needs the "
                "expected_version it read, so a concurrent write is not silently undone (0 for an "
                "item stored without a version, or none)"
            )
        table = self.rt.design.table_of(entity.name)
        item = compose(entity, dict(values), now=now, created=True)
        key = table_key(table, item)
        old = self.rt.read_raw(table, key)
        ph = Placeholders()
        meta: dict[str, Any] = {"verb": "replace"}
        if old is not None:
            keep_created(entity, item, natural(entity, old))
        if entity.version_attribute:
            actual = self.version_of(entity, old)
            if not version_matches(expected_version, actual):
                raise self.version_conflict(entity, key, expected_version, old)
            item[entity.version_attribute] = (expected_version or 0) + 1
            parts = [replace_version_guard(ph, entity, table, expected_version, old)]
            meta.update(expected=expected_version, versioned=True, must_exist=old is not None)
        else:
            # Guard what the plan read (existence, unique values) so markers never go astray.
            parts = self._unversioned_guard(entity, table, old, ph)
        action = self.item_action(
            entity, "Put", {"Item": item_to_wire(item)}, parts, ph, key, condition, **meta
        )
        return Plan([action, *self.unique_actions(entity, old, item)], [to_record(entity, table, item)])

    def _plan_create(
        self, entity: Entity, values: Mapping[str, object], *, now: datetime, condition: Condition | None
    ) -> Plan:
        table = self.rt.design.table_of(entity.name)
        item = compose(entity, dict(values), now=now, created=True)
        key = table_key(table, item)
        ph = Placeholders()
        meta: dict[str, Any] = {"verb": "put", "must_exist": False}
        if entity.version_attribute:
            item[entity.version_attribute] = 1
            meta.update(expected=None, versioned=True)
        parts = [f"attribute_not_exists({ph.name(table.partition_key.name)})"]
        action = self.item_action(
            entity, "Put", {"Item": item_to_wire(item)}, parts, ph, key, condition, **meta
        )
        return Plan([action, *self.unique_actions(entity, None, item)], [to_record(entity, table, item)])

    def plan_update(
        self,
        entity: Entity,
        key: Mapping[str, object],
        changes: Mapping[str, object],
        *,
        remove: Sequence[str],
        expected_version: int | None,
        now: datetime,
        condition: Condition | None = None,
    ) -> Plan:
        """Read, merge, re-validate and plan the write back.

        Versioned entities are rewritten whole under the version check. Unversioned ones get an
        UpdateItem of only what changed (``updates.plan_changes``), so concurrent updates of
        different attributes both survive.
        """
        table = self.rt.design.table_of(entity.name)
        stored_key = self.rt.compose_key(entity, key)
        old = self.rt.read_raw(table, stored_key)
        if old is None:
            if expected_version is not None:
                raise ConflictError(entity.name, stored_key, expected_version, None)
            raise NotFoundError(f"{entity.name} {dict(key)} does not exist (table {table.table_name})")
        actual = self.version_of(entity, old) if entity.version_attribute else None
        if expected_version is not None and not version_matches(expected_version, actual):
            raise self.version_conflict(entity, stored_key, expected_version, old)
        stored = natural(entity, old)
        merged = {**stored, **changes}
        for name in [*remove, *_derived_from_stored(entity, changes)]:
            merged.pop(name, None)
        keep_created(entity, merged, stored)
        item = compose(entity, merged, now=now, created=False)
        if table_key(table, item) != stored_key:
            moved = [n for n in changes if n in _key_fields(entity)]
            raise ValidationError(
                entity.name,
                [
                    Violation(entity.name, n, "key", f"{n} is part of the table key and cannot change")
                    for n in moved
                ],
            )
        if not entity.version_attribute:
            from .updates import plan_changes

            return plan_changes(self, entity, old, item, set(changes) | set(remove), condition)
        ph = Placeholders()
        item[entity.version_attribute] = (actual or 0) + 1
        if actual is None:  # stored before the entity was versioned
            parts = [no_version_guard(ph, entity.version_attribute, old)]
        else:
            parts = [version_guard(ph, entity, table, actual)]
        body = {"Item": item_to_wire(item)}
        action = self.item_action(
            entity,
            "Put",
            body,
            parts,
            ph,
            stored_key,
            condition,
            expected=actual,
            versioned=True,
            must_exist=True,
            verb="update",
        )
        return Plan([action, *self.unique_actions(entity, old, item)], [to_record(entity, table, item)])

    def plan_delete(
        self,
        entity: Entity,
        key: Mapping[str, object],
        *,
        expected_version: int | None,
        condition: Condition | None = None,
    ) -> Plan | None:
        """Delete an item and release its unique values; None when there is nothing to delete."""
        table = self.rt.design.table_of(entity.name)
        stored_key = self.rt.compose_key(entity, key)
        old = self.rt.read_raw(table, stored_key)
        if old is None:
            if expected_version is not None:
                raise ConflictError(entity.name, stored_key, expected_version, None)
            return None
        actual = self.version_of(entity, old) if entity.version_attribute else None
        if expected_version is not None and not version_matches(expected_version, actual):
            raise self.version_conflict(entity, stored_key, expected_version, old)
        ph = Placeholders()
        if entity.version_attribute and actual is not None:
            parts = [version_guard(ph, entity, table, actual)]
        else:
            parts = self._unversioned_guard(entity, table, old, ph)
            if entity.version_attribute and expected_version == 0:
                # The caller expects no version: one a concurrent write gave it meanwhile refuses.
                parts.append(no_version_guard(ph, entity.version_attribute, old))
        versioned = bool(entity.version_attribute and actual is not None)
        body = {"Key": item_to_wire(stored_key)}
        action = self.item_action(
            entity,
            "Delete",
            body,
            parts,
            ph,
            stored_key,
            condition,
            expected=actual,
            versioned=versioned,
            must_exist=True,
            verb="delete",
        )
        return Plan([action, *self.unique_actions(entity, old, None)], [to_record(entity, table, old)])

    def plan_check(
        self,
        entity: Entity,
        key: Mapping[str, object],
        condition: Condition | None,
        *,
        expected_version: int | None = None,
        must_exist: bool = False,
    ) -> Plan:
        """A ConditionCheck on one item: the caller's condition and/or its version, and with
        ``must_exist`` that the item is still there."""
        table = self.rt.design.table_of(entity.name)
        stored_key = self.rt.compose_key(entity, key)
        ph = Placeholders()
        parts: list[str] = []
        meta: dict[str, Any] = {"verb": "check"}
        if must_exist:
            parts.append(f"attribute_exists({ph.name(table.partition_key.name)})")
            meta.update(must_exist=True)
        if expected_version is not None and entity.version_attribute:
            parts.append(version_guard(ph, entity, table, expected_version))
            meta.update(expected=expected_version, versioned=True, must_exist=True)
        body = {"Key": item_to_wire(stored_key)}
        return Plan(
            [self.item_action(entity, "ConditionCheck", body, parts, ph, stored_key, condition, **meta)]
        )

    # ------------------------------------------------------------------------------------ execution
    def execute(self, actions: Sequence[Action]) -> bool:
        """Send a plan; False when an idempotency marker shows it was already applied.

        Raises the runtime error explaining a failed condition, or ``Stale`` when the plan's read
        no longer holds and it should be planned again.
        """
        from .failures import INVALID_REASON, explain

        client = self.rt.data
        try:
            ((verb, request),) = actions[0].request.items()
            if len(actions) == 1 and verb in _SINGLE_WRITES:
                getattr(client, _SINGLE_WRITES[verb])(**request)
            else:
                client.transact_write_items(TransactItems=[a.request for a in actions])
        except ClientError as error:
            code = error.response["Error"]["Code"]
            if code == "ValidationException" and len(actions) == 1:
                # A single write DynamoDB refuses (an item over 400 KB) is said as a transaction's is.
                message = error.response["Error"].get("Message", "")
                return explain(self.rt, actions, [{"Code": INVALID_REASON, "Message": message}])
            if code not in ("ConditionalCheckFailedException", "TransactionCanceledException"):
                raise
            reasons = error.response.get("CancellationReasons") or [{"Code": "ConditionalCheckFailed"}]
            return explain(self.rt, actions, reasons)
        return True

    def run(
        self, plan: Callable[[], Plan | None], describe: Callable[[Plan], str] | None = None
    ) -> WriteResult:
        """Plan and execute, planning again (with a short backoff) while the plan's read goes stale."""
        delay = 0.01
        for _attempt in range(WRITE_ATTEMPTS):
            planned = plan()
            if planned is None:
                return WriteResult(False, [], 0, "not found")
            if not planned.actions:
                return WriteResult(True, planned.records, 0, "no change")
            try:
                applied = self.execute(planned.actions)
            except Stale:
                time.sleep(delay)  # another writer is mid-change: let it finish before re-reading
                delay *= 2
                continue
            text = (describe or plan_text)(planned) if applied else "already applied"
            return WriteResult(applied, planned.records, 1, text)
        first = planned.actions[0]
        raise ConflictError(
            first.entity.name if first.entity else "?",
            first.subject if isinstance(first.subject, Mapping) else {},
            "the state it read",
            f"concurrent changes on every one of {WRITE_ATTEMPTS} attempts",
        )


def same_as_read(ph: Placeholders, name: str, old: Mapping[str, object]) -> str:
    """A guard that attribute ``name`` still holds what was read (or is still absent)."""
    if old.get(name) is None and name not in old:
        return f"attribute_not_exists({ph.name(name)})"
    return f"{ph.name(name)} = {ph.value(old[name])}"


def stored_version_text(entity: Entity, item: Mapping | None) -> str | None:
    """How a conflict names a stored version no runtime write leaves, else None.

    Said plainly because the bare value misleads: an item without a version read as "found no
    item", and the text ``"3"`` (another tool's write) as "expected version 3 but found 3"."""
    name = entity.version_attribute
    if item is None or name is None:
        return None
    value = item.get(name)
    if value is None:
        return (
            f"an item without {name} (stored by another tool, or before {entity.name} was "
            "versioned; rt.update without expected_version gives it version 1)"
        )
    if type(value) is not int:
        return f"{name} {value!r} ({type(value).__name__}), not a whole number (stored by another tool?)"
    return None


def no_version_guard(ph: Placeholders, name: str, old: Mapping[str, object]) -> str:
    """That the item still has no version: absent, or NULL as another tool may have stored it
    (``attribute_not_exists`` is false for a NULL, so the update would be refused as stale on
    every attempt)."""
    if name in old:
        return f"attribute_type({ph.name(name)}, {ph.value('NULL')})"
    return f"attribute_not_exists({ph.name(name)})"


def version_matches(expected: object, actual: object) -> bool:
    """Whether the stored version ``actual`` is the one the caller expected. ``0`` expects an item
    without a version (absent or NULL: stored by another tool, or before the entity was versioned)
    or no item at all, so such an item can be replaced as ``rt.update`` updates it."""
    return actual == expected or (expected == 0 and actual is None)


def replace_version_guard(
    ph: Placeholders, entity: Entity, table: Table, expected: int | None, old: Mapping[str, object] | None
) -> str:
    """The condition of a versioned replace that read ``old``: the version read, or with
    ``expected=0`` that the item still has none (or still does not exist)."""
    if expected == 0 and old is not None:
        exists = f"attribute_exists({ph.name(table.partition_key.name)})"
        return f"{exists} AND {no_version_guard(ph, entity.version_attribute, old)}"  # type: ignore[arg-type]
    return version_guard(ph, entity, table, None if expected == 0 else expected)


def version_guard(ph: Placeholders, entity: Entity, table: Table, expected: object) -> str:
    """``#version = :expected``, or ``attribute_not_exists(pk)`` when creating."""
    if expected is None:
        return f"attribute_not_exists({ph.name(table.partition_key.name)})"
    return f"{ph.name(entity.version_attribute)} = {ph.value(expected)}"  # type: ignore[arg-type]


def _derived_from_stored(entity: Entity, changes: Mapping[str, object]) -> list[str]:
    """Computed attributes derived from other stored attributes (templates, TTLs ``from`` one).

    They are composed again from the merged values rather than carried over from the read: a stale
    copy would survive when its source is removed (``compose`` skips what it cannot render), and
    the update then removes them. ``created_at`` and what the caller sets explicitly are kept.
    """
    return [
        name
        for name, attr in entity.attributes.items()
        if attr.computed is not None
        and name not in changes
        and (attr.computed.kind == "template" or (attr.computed.kind == "ttl" and attr.computed.source))
    ]


def _key_fields(entity: Entity) -> set[str]:
    entry = entity.keys["table"]
    return set(entry.pk.fields) | set(entry.sk.fields if entry.sk else ())


def plan_text(plan: Plan) -> str:
    """How a plan went out: a single write or one transaction of N actions."""
    if len(plan.actions) == 1:
        return "single write"
    return f"1 transaction of {len(plan.actions)} actions"


# The marker of a key is its text: keys of other types would share markers (5 and "5", True and
# "True"), and a marker's partition key holds at most 2,048 bytes, the marker's own prefix included.
MAX_IDEMPOTENCY_KEY_BYTES = 1024


def keep_created(entity: Entity, item: dict[str, object], stored: Mapping[str, object]) -> None:
    """Put the stored ``created_at`` values back into ``item``: they are set when the item is first
    written (from the caller's value there, a migration's original time say) and never change after,
    whatever a replace or an update gives for them."""
    for name, attr in entity.attributes.items():
        if attr.computed is not None and attr.computed.kind == "created_at" and name in stored:
            item[name] = stored[name]


def check_idempotency_key(entity: str, key: object) -> None:
    """Refuse an explicit idempotency key that is not one: a non-empty str of at most 1,024 bytes."""
    problem = None
    if not isinstance(key, str) or not key.strip():
        problem = f"{key!r} is not an idempotency key: give a non-empty str (a request id)"
    else:
        try:
            size = len(key.encode("utf-8"))
        except UnicodeEncodeError:
            size, problem = 0, f"{key!r} is not UTF-8 text (a lone surrogate)"
        if size > MAX_IDEMPOTENCY_KEY_BYTES:
            problem = f"{size} bytes: an idempotency key holds at most {MAX_IDEMPOTENCY_KEY_BYTES}"
    if problem:
        raise ValidationError(entity, [Violation(entity, "idempotency_key", "idempotency_key", problem)])


def check_idempotency_value(entity: Entity, value: object) -> None:
    """Refuse a blank value of the entity's idempotency attribute, as an explicit key is refused:
    tools and forms send ``""`` for "no request id", and every such write would share one marker,
    the second refused as the first one's retry with another payload."""
    if isinstance(value, str) and not value.strip():
        attribute = entity.idempotency_key or "idempotency_key"
        problem = (
            f"{value!r} is not an idempotency key: give a non-empty request id, or leave "
            f"{attribute} out for a write without one"
        )
        raise ValidationError(entity.name, [Violation(entity.name, attribute, "idempotency_key", problem)])


def check_mapping(entity: str, argument: str, value: object) -> dict[str, object]:
    """``value`` (an item's values, a key, changes) as a dict, or a ValidationError that names the
    argument: a None or a list given by mistake is refused here, not by a TypeError from deep inside."""
    if isinstance(value, Mapping):
        return dict(value)
    raise ValidationError(
        entity,
        [
            Violation(
                entity,
                argument,
                "mapping",
                f"give a mapping of attribute names to values, not {_kind(value)}",
            )
        ],
    )


def check_mappings(entity: str, argument: str, values: object) -> list[dict[str, object]]:
    """Each of ``values`` (a batch's items) through :func:`check_mapping`; ``values`` itself a sequence."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise ValidationError(
            entity,
            [
                Violation(
                    entity, argument, "sequence", f"give a list of items (mappings), not {_kind(values)}"
                )
            ],
        )
    return [check_mapping(entity, f"{argument}[{number}]", one) for number, one in enumerate(values)]


def check_version(entity: str, expected: object) -> int | None:
    """``expected_version`` as an int (an integral Decimal, as read back through boto3, included), or a
    ValidationError: a version given as text or a float is a bug in the caller (a header or a form
    field not converted), and without this check it surfaced as a baffling "expected 1, found 1"."""
    if expected is None or (isinstance(expected, int) and not isinstance(expected, bool) and expected >= 0):
        return expected
    if isinstance(expected, Decimal) and expected.is_finite() and expected >= 0 and expected % 1 == 0:
        return int(expected)
    raise ValidationError(
        entity,
        [
            Violation(
                entity,
                "expected_version",
                "version",
                f"give the version read as a whole number of 0 or more (an int), not {_kind(expected)}",
            )
        ],
    )


def _kind(value: object) -> str:
    return "None" if value is None else f"a {type(value).__name__} ({value!r:.40})"


def idempotency_of(entity: Entity, items: Sequence[Mapping[str, object]], explicit: object) -> object:
    """The one idempotency key of a write: explicit, or the entity's idempotency attribute."""
    if explicit is not None:
        check_idempotency_key(entity.name, explicit)
        return explicit
    if not entity.idempotency_key:
        return None
    keys = {repr(item.get(entity.idempotency_key)): item.get(entity.idempotency_key) for item in items}
    keys.pop(repr(None), None)
    for value in keys.values():
        check_idempotency_value(entity, value)
    if len(keys) > 1:
        raise ValidationError(
            entity.name,
            [
                Violation(
                    entity.name,
                    entity.idempotency_key,
                    "idempotency_key",
                    f"one write needs one idempotency key but the items carry {len(keys)} different values",
                )
            ],
        )
    return next(iter(keys.values()), None)


def batch_violations(entity: Entity, items: Sequence[Mapping[str, object]]) -> list[Violation]:
    """Violations of every item of a batch, the attribute path prefixed with the item's index."""
    found = []
    for index, values in enumerate(items):
        for v in violations_of(entity, values):
            found.append(Violation(v.entity, f"[{index}].{v.attribute}", v.rule, v.message))
    return found
