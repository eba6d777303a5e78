"""Writes: put, update, delete and put_many with optimistic locking, uniqueness and idempotency markers.

Every write is planned as a list of ``Action``s (the item, marker puts, marker releases, the
idempotency marker). One action goes out as a plain conditional PutItem/DeleteItem (half the cost
of a transaction); more go out as one TransactWriteItems. A failed condition is mapped back to the
action that failed, which is what lets the error name the entity, constraint or key involved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from ..design.model import Entity, Table
from ..design.timeutil import epoch_s, format_rfc3339
from ..design.validators import Violation
from .errors import ConflictError, UniquenessError, ValidationError
from .expressions import Placeholders
from .items import compose, natural, table_key, to_record, violations_of
from .markers import (
    IDEMPOTENCY_RETENTION_SECONDS,
    KIND_ATTRIBUTE,
    OWNER_ATTRIBUTE,
    idempotency_text,
    marker_key,
    unique_text,
    unique_values,
)
from .wire import Record, item_to_wire

if TYPE_CHECKING:
    from .core import Runtime

MAX_TRANSACTION_ACTIONS = 100
HIDDEN_IDEMPOTENCY = "_tw_idem"


@dataclass
class Action:
    """One write in a plan: ``kind`` is item, delete, unique, release or idem; ``subject`` is what to
    name in an error (a table key, a UniqueValue, an idempotency key)."""

    kind: str
    request: dict
    subject: Any = None


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


def _conditional(kind: str, table: str, body: dict, condition: str | None, ph: Placeholders) -> Action:
    request = {"TableName": table, **body}
    if condition:
        request["ConditionExpression"] = condition
        ph.apply(request)
    return Action(kind, {"Put" if "Item" in body else "Delete": request})


class Writer:
    """The write half of a Runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    # ------------------------------------------------------------------------------------ helpers
    def owner(self, entity: Entity, item: Mapping[str, object]) -> str:
        key = table_key(self.rt.design.table_of(entity.name), item)
        return f"{entity.name}:" + "|".join(f"{k}={v!r}" for k, v in sorted(key.items()))

    def _item_put(self, entity: Entity, item: dict, condition: tuple[str, Placeholders] | None) -> Action:
        table = self.rt.design.table_of(entity.name)
        cond, ph = condition or (None, Placeholders())
        action = _conditional("item", table.table_name, {"Item": item_to_wire(item)}, cond, ph)
        action.subject = table_key(table, item)
        return action

    def _unique_actions(self, entity: Entity, old: Mapping | None, new: Mapping | None) -> list[Action]:
        table = self.rt.design.table_of(entity.name)
        owner = self.owner(entity, new or old or {})
        before = unique_values(entity.unique, old or {})
        after = unique_values(entity.unique, new or {})
        actions = []
        for unique in after:
            if unique in before:
                continue
            key = marker_key(table, unique_text(entity.name, unique))
            item = {**key, KIND_ATTRIBUTE: "unique", OWNER_ATTRIBUTE: owner, "_tw_entity": entity.name}
            # Claimable when free or already ours, so a retried write does not trip on itself.
            ph = Placeholders()
            pk = ph.name(table.partition_key.name)
            cond = f"attribute_not_exists({pk}) OR {ph.name(OWNER_ATTRIBUTE)} = {ph.value(owner)}"
            action = _conditional("unique", table.table_name, {"Item": item_to_wire(item)}, cond, ph)
            action.subject = unique
            actions.append(action)
        for unique in before:
            if unique in after:
                continue
            key = marker_key(table, unique_text(entity.name, unique))
            ph = Placeholders()
            pk = ph.name(table.partition_key.name)
            cond = f"attribute_not_exists({pk}) OR {ph.name(OWNER_ATTRIBUTE)} = {ph.value(owner)}"
            action = _conditional("release", table.table_name, {"Key": item_to_wire(key)}, cond, ph)
            action.subject = unique
            actions.append(action)
        return actions

    def _idempotency_action(self, entity: Entity, key: object, now: datetime) -> Action:
        table = self.rt.design.table_of(entity.name)
        item = {**marker_key(table, idempotency_text(entity.name, key)), KIND_ATTRIBUTE: "idem"}
        item["_tw_applied_at"] = format_rfc3339(now)
        if table.ttl:
            item[table.ttl] = epoch_s(now + timedelta(seconds=IDEMPOTENCY_RETENTION_SECONDS))
        ph = Placeholders()
        cond = f"attribute_not_exists({ph.name(table.partition_key.name)})"
        action = _conditional("idem", table.table_name, {"Item": item_to_wire(item)}, cond, ph)
        action.subject = key
        return action

    def idempotency_applied(self, entity: Entity, key: object) -> bool:
        """True when the idempotency marker for ``key`` exists (a consistent read)."""
        table = self.rt.design.table_of(entity.name)
        return self.rt.read_raw(table, marker_key(table, idempotency_text(entity.name, key))) is not None

    def _version_condition(self, entity: Entity, table: Table, current: object) -> tuple[str, Placeholders]:
        ph = Placeholders()
        if current is None:
            return f"attribute_not_exists({ph.name(table.partition_key.name)})", ph
        return f"{ph.name(entity.version_attribute)} = {ph.value(current)}", ph  # type: ignore[arg-type]

    def _unversioned_condition(
        self, entity: Entity, table: Table, old: Mapping | None
    ) -> tuple[str, Placeholders]:
        # Without a version, guard what the plan depends on: existence and the unique values read.
        ph = Placeholders()
        pk = ph.name(table.partition_key.name)
        if old is None:
            return f"attribute_not_exists({pk})", ph
        parts = [f"attribute_exists({pk})"]
        for constraint in entity.unique:
            for name in constraint:
                if old.get(name) is None:
                    parts.append(f"attribute_not_exists({ph.name(name)})")
                else:
                    parts.append(f"{ph.name(name)} = {ph.value(old[name])}")
        return " AND ".join(parts), ph

    # ------------------------------------------------------------------------------------ execution
    def execute(self, entity: Entity, actions: Sequence[Action], idem_key: object = None) -> bool:
        """Send a plan; returns False when an idempotency marker shows it was already applied."""
        client = self.rt.client
        try:
            if len(actions) == 1:
                ((verb, request),) = actions[0].request.items()
                (client.put_item if verb == "Put" else client.delete_item)(**request)
            else:
                client.transact_write_items(TransactItems=[a.request for a in actions])
        except ClientError as error:
            code = error.response["Error"]["Code"]
            if code not in ("ConditionalCheckFailedException", "TransactionCanceledException"):
                raise
            if idem_key is not None and self.idempotency_applied(entity, idem_key):
                return False
            reasons = error.response.get("CancellationReasons") or [{"Code": "ConditionalCheckFailed"}]
            self._raise_for(entity, actions, reasons)
        return True

    def _raise_for(self, entity: Entity, actions: Sequence[Action], reasons: list[dict]) -> None:
        failed = [a for a, r in zip(actions, reasons) if r.get("Code") not in (None, "None")]
        for action in failed or actions:
            if action.kind == "unique":
                raise UniquenessError(entity.name, action.subject.constraint, action.subject.value)
        for action in failed or actions:
            if action.kind in ("item", "delete"):
                table = self.rt.design.table_of(entity.name)
                current = self.rt.read_raw(table, action.subject)
                actual = self._version_of(entity, current)
                raise ConflictError(entity.name, action.subject, getattr(action, "expected", None), actual)
        codes = [r.get("Code") for r in reasons]
        raise ConflictError(entity.name, {}, "the write to succeed", f"cancelled ({codes})")

    def _version_of(self, entity: Entity, item: Mapping | None) -> object:
        if item is None:
            return None
        if entity.version_attribute:
            return item.get(entity.version_attribute)
        return "a concurrent change"

    # ------------------------------------------------------------------------------------ operations
    def put(
        self,
        entity: Entity,
        values: Mapping[str, object],
        *,
        expected_version: int | None,
        idempotency_key: object,
        now: datetime,
    ) -> WriteResult:
        """Create (or, with ``expected_version``, replace) one item with its markers."""
        table = self.rt.design.table_of(entity.name)
        values = dict(values)
        idem = _idempotency_of(entity, [values], idempotency_key)
        created = expected_version is None
        item = compose(entity, values, now=now, created=created)
        key = table_key(table, item)
        old = self.rt.read_raw(table, key) if (entity.unique or not created) else None
        if not created and old is not None:
            keep = natural(entity, old)
            for name, attr in entity.attributes.items():
                if attr.computed is not None and attr.computed.kind == "created_at" and name in keep:
                    item[name] = keep[name]
        if entity.version_attribute:
            actual = self._version_of(entity, old) if not created else None
            if not created and actual != expected_version:
                raise ConflictError(entity.name, key, expected_version, actual)
            item[entity.version_attribute] = (expected_version or 0) + 1
            condition = self._version_condition(entity, table, expected_version)
        else:
            condition = self._unversioned_condition(entity, table, old) if entity.unique else None
        action = self._item_put(entity, item, condition)
        action.expected = expected_version  # type: ignore[attr-defined]
        actions = [action, *self._unique_actions(entity, old, item)]
        if idem is not None:
            actions.append(self._idempotency_action(entity, idem, now))
        applied = self.execute(entity, actions, idem)
        record = to_record(entity, table, item)
        return WriteResult(applied, [record], 1, "already applied" if not applied else _plan_text(actions))

    def update(
        self,
        entity: Entity,
        key: Mapping[str, object],
        changes: Mapping[str, object],
        *,
        remove: Sequence[str],
        expected_version: int | None,
        idempotency_key: object,
        now: datetime,
    ) -> WriteResult:
        """Read, merge, re-validate and write back conditionally (the whole item, so index keys that
        no longer compose disappear and sparse indexes stay right)."""
        table = self.rt.design.table_of(entity.name)
        stored_key = self.rt.compose_key(entity, key)
        old = self.rt.read_raw(table, stored_key)
        if old is None:
            if expected_version is not None:
                raise ConflictError(entity.name, stored_key, expected_version, None)
            from .errors import NotFoundError

            raise NotFoundError(f"{entity.name} {dict(key)} does not exist (table {table.table_name})")
        actual = self._version_of(entity, old) if entity.version_attribute else None
        if expected_version is not None and actual != expected_version:
            raise ConflictError(entity.name, stored_key, expected_version, actual)
        merged = {**natural(entity, old), **changes}
        for name in remove:
            merged.pop(name, None)
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
        if entity.version_attribute:
            item[entity.version_attribute] = (actual or 0) + 1
            condition = self._version_condition(entity, table, actual)
            if actual is None:  # stored before the entity was versioned
                ph = Placeholders()
                condition = (f"attribute_not_exists({ph.name(entity.version_attribute)})", ph)
        else:
            condition = self._unversioned_condition(entity, table, old)
        action = self._item_put(entity, item, condition)
        action.expected = actual  # type: ignore[attr-defined]
        actions = [action, *self._unique_actions(entity, old, item)]
        idem = idempotency_key
        if idem is not None:
            actions.append(self._idempotency_action(entity, idem, now))
        applied = self.execute(entity, actions, idem)
        record = to_record(entity, table, item)
        return WriteResult(applied, [record], 1, "already applied" if not applied else _plan_text(actions))

    def delete(
        self, entity: Entity, key: Mapping[str, object], *, expected_version: int | None
    ) -> WriteResult:
        """Delete an item and release its unique values, in one transaction."""
        table = self.rt.design.table_of(entity.name)
        stored_key = self.rt.compose_key(entity, key)
        old = self.rt.read_raw(table, stored_key)
        if old is None:
            if expected_version is not None:
                raise ConflictError(entity.name, stored_key, expected_version, None)
            return WriteResult(False, [], 0, "not found")
        actual = self._version_of(entity, old) if entity.version_attribute else None
        if expected_version is not None and actual != expected_version:
            raise ConflictError(entity.name, stored_key, expected_version, actual)
        if entity.version_attribute and actual is not None:
            cond, ph = self._version_condition(entity, table, actual)
        else:
            cond, ph = self._unversioned_condition(entity, table, old)
        action = _conditional("delete", table.table_name, {"Key": item_to_wire(stored_key)}, cond, ph)
        action.subject, action.expected = stored_key, actual  # type: ignore[attr-defined]
        actions = [action, *self._unique_actions(entity, old, None)]
        self.execute(entity, actions)
        return WriteResult(True, [to_record(entity, table, old)], 1, _plan_text(actions))


def _key_fields(entity: Entity) -> set[str]:
    entry = entity.keys["table"]
    return set(entry.pk.fields) | set(entry.sk.fields if entry.sk else ())


def _plan_text(actions: Sequence[Action]) -> str:
    if len(actions) == 1:
        return "single write"
    return f"1 transaction of {len(actions)} actions"


def _idempotency_of(entity: Entity, items: Sequence[Mapping[str, object]], explicit: object) -> object:
    """The one idempotency key of a write: explicit, or the entity's idempotency attribute."""
    if explicit is not None or not entity.idempotency_key:
        return explicit
    keys = {repr(item.get(entity.idempotency_key)): item.get(entity.idempotency_key) for item in items}
    keys.pop(repr(None), None)
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
