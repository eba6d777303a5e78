"""Why a conditional write failed: a cancelled plan mapped back to the action, and the error to raise.

DynamoDB answers a cancelled TransactWriteItems with one CancellationReason per action, in request
order (a plain conditional write fails as its one action). The first failing action decides,
except that an idempotency marker that already exists means the whole write was already applied
(when the marker holds the same request's digest; another request's is IdempotencyKeyReusedError).
For the entity's own item, the stored item is read again and compared with what the action
guarded: the version (``ConflictError``), existence, the caller's condition
(``ConditionFailedError``); if all of those still hold, what failed is a guard on a value the plan
read, so the plan is stale and is made again (``Stale``). An action DynamoDB refused as invalid (a
key over its size limit, an empty string in a key) is a ``ValidationError`` with DynamoDB's own
message: sending the write again would fail the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..design.validators import Violation
from .errors import (
    AlreadyExistsError,
    ConditionFailedError,
    ConflictError,
    IdempotencyKeyReusedError,
    RuntimeFailure,
    UniquenessError,
    ValidationError,
    in_operation,
)
from .items import natural
from .writes import Action, Stale, version_matches

if TYPE_CHECKING:
    from .core import Runtime

_FAILED = "ConditionalCheckFailed"
INVALID_REASON = "ValidationError"  # DynamoDB refused the action's request itself, not its condition
# Codes that say "try again": the item was locked by another transaction or the service was busy.
_TRANSIENT = {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"}


def explain(rt: Runtime, actions: Sequence[Action], reasons: list[dict]) -> bool:
    """Raise the error a failed plan means; returns False when it was already applied (idempotency)."""
    _refuse_invalid(actions, reasons)
    codes = [r.get("Code") for r in reasons]
    failed = [(a, c) for a, c in zip(actions, codes) if c not in (None, "None")]
    marker = next((a for a, c in failed if a.kind == "idem" and c == _FAILED), None)
    if marker is not None:
        if not rt.writer.same_request(marker):
            raise IdempotencyKeyReusedError(marker.entity.name if marker.entity else "?", marker.subject)
        return False
    for action, code in failed:
        if code in _TRANSIENT:
            raise Stale(code)
        if code != _FAILED:
            continue
        error = _EXPLAIN[action.kind](rt, action)
        if error is None:
            raise Stale(f"{action.kind} guard")
        if action.operation is not None and action.entity is not None:
            error = in_operation(error, action.operation, action.verb, action.entity.name)
        raise error
    raise ConflictError(
        actions[0].entity.name if actions[0].entity else "?",
        {},
        "the write to succeed",
        f"cancelled ({codes})",
    )


def _refuse_invalid(actions: Sequence[Action], reasons: list[dict]) -> None:
    """Raise a ``ValidationError`` naming every action DynamoDB refused as invalid, if any."""
    violations = [
        _invalid_action(action, reason.get("Message") or "no message given")
        for action, reason in zip(actions, reasons)
        if reason.get("Code") == INVALID_REASON
    ]
    if violations:
        entities = {violation.entity for violation in violations}
        raise ValidationError(entities.pop() if len(entities) == 1 else "transaction", violations)


def _invalid_action(action: Action, message: str) -> Violation:
    entity = action.entity.name if action.entity else "?"
    if action.kind in ("unique", "release"):
        # The marker's key holds the value: a value near the key size limit is refused here.
        where, what = "+".join(action.subject.constraint), "the uniqueness marker of this value"
    elif action.kind == "idem":
        where, what = "idempotency_key", "the idempotency marker of this key"
    else:
        where, what = "(item)", f"the {action.verb}"
    if action.operation is not None:
        where = f"[{action.operation}].{where}"  # as the transaction's own validation names operations
    return Violation(entity, where, "dynamodb", f"DynamoDB refused {what}: {message}")


def _unique(rt: Runtime, action: Action) -> RuntimeFailure:
    return UniquenessError(action.entity.name, action.subject.constraint, action.subject.value)  # type: ignore[union-attr]


def _release(rt: Runtime, action: Action) -> RuntimeFailure | None:
    return None  # the marker moved to another owner since the read: re-plan from fresh state


def _item(rt: Runtime, action: Action) -> RuntimeFailure | None:
    entity = action.entity
    assert entity is not None
    table = rt.design.table_of(entity.name)
    current = rt.read_raw(table, action.subject)
    actual = rt.writer.version_of(entity, current)
    if action.must_exist is False and current is not None:
        return AlreadyExistsError(entity.name, action.subject, actual)
    if action.versioned and not version_matches(action.expected, actual):
        return rt.writer.version_conflict(entity, action.subject, action.expected, current)
    if action.must_exist and current is None:
        if action.versioned:
            return ConflictError(entity.name, action.subject, action.expected, None)
        # Deleted since the read: planned again, so that the write answers as it does for an item
        # missing when read (an update NotFoundError, a delete "not found"), whatever the timing.
        return None
    values = None if current is None else natural(entity, current)
    if action.condition is not None and not action.condition.holds(values):
        return ConditionFailedError(
            entity.name,
            action.subject,
            action.condition.text,
            action.condition.explain(values),
            operation=action.operation,
            verb=action.verb,
        )
    return None


_EXPLAIN: dict[str, Callable[[Runtime, Action], RuntimeFailure | None]] = {
    "unique": _unique,
    "release": _release,
    "item": _item,
    "delete": _item,
    "check": _item,
    "idem": lambda rt, action: None,
}
