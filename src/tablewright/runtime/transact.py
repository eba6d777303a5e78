"""``rt.transact``: writes to several entities (any tables) as one TransactWriteItems, all or nothing.

Operations are built by ``rt.tx_put``, ``rt.tx_update``, ``rt.tx_delete`` and ``rt.tx_check`` and
planned exactly like the single-entity calls (``Writer.plan_*``), so each brings its uniqueness
markers, version guards and caller condition; the idempotency markers of the entities involved are
added once. Everything DynamoDB would refuse is refused first, naming the operation: every
validation error of every operation at once, two actions on one item, more than 100 actions or a
request over 4 MB (``TransactionTooLargeError``). A cancellation is explained from the
CancellationReasons in request order (``failures.py``).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import orjson

from ..design.predicates import Predicate
from ..design.validators import Violation
from .conditions import condition_of
from .errors import NotFoundError, RuntimeFailure, TransactionTooLargeError, ValidationError, in_operation
from .markers import request_digest
from .writes import (
    MAX_TRANSACTION_ACTIONS,
    Action,
    Plan,
    WriteResult,
    check_idempotency_key,
    check_idempotency_value,
    plan_text,
)

if TYPE_CHECKING:
    from .core import Runtime

MAX_TRANSACTION_BYTES = 4 * 1024 * 1024  # TransactWriteItems' aggregate request size


@dataclass(frozen=True)
class TxOp:
    """One operation of a transaction: ``verb`` is put (create), replace, update, delete or check (see the ``rt.tx_*`` helpers)."""

    verb: str
    entity: str
    key: Mapping[str, object] | None = None
    values: Mapping[str, object] = field(default_factory=dict)
    remove: tuple[str, ...] = ()
    expected_version: int | None = None
    condition: str | Predicate | None = None
    condition_params: Mapping[str, object] | None = None


def _plan_put(rt: Runtime, op: TxOp, now: datetime) -> Plan:
    entity = rt.entity(op.entity)
    return rt.writer.plan_put(
        entity,
        op.values,
        now=now,
        replace=op.verb == "replace",
        expected_version=op.expected_version,
        condition=condition_of(entity, op.condition, op.condition_params),
    )


def _plan_update(rt: Runtime, op: TxOp, now: datetime) -> Plan:
    entity = rt.entity(op.entity)
    condition = condition_of(entity, op.condition, op.condition_params)
    plan = rt.writer.plan_update(
        entity,
        op.key or {},
        op.values,
        remove=op.remove,
        expected_version=op.expected_version,
        now=now,
        condition=condition,
    )
    if plan.actions:
        return plan
    # Nothing to write, but the transaction commits later than the read the update was judged on:
    # a ConditionCheck holds it to the item still being there and the caller's condition still true.
    check = rt.writer.plan_check(entity, op.key or {}, condition, must_exist=True)
    return Plan(check.actions, plan.records)


def _plan_delete(rt: Runtime, op: TxOp, now: datetime) -> Plan:
    entity = rt.entity(op.entity)
    condition = condition_of(entity, op.condition, op.condition_params)
    plan = rt.writer.plan_delete(
        entity, op.key or {}, expected_version=op.expected_version, condition=condition
    )
    if plan is None:
        raise NotFoundError(f"{op.entity} {dict(op.key or {})} does not exist, so it cannot be deleted")
    return plan


def _plan_check(rt: Runtime, op: TxOp, now: datetime) -> Plan:
    entity = rt.entity(op.entity)
    condition = condition_of(entity, op.condition, op.condition_params)
    return rt.writer.plan_check(entity, op.key or {}, condition, expected_version=op.expected_version)


_PLANNERS: dict[str, Callable[[Runtime, TxOp, datetime], Plan]] = {
    "put": _plan_put,
    "replace": _plan_put,
    "update": _plan_update,
    "delete": _plan_delete,
    "check": _plan_check,
}


_BUILDERS = "build them with rt.tx_put, rt.tx_replace, rt.tx_update, rt.tx_delete or rt.tx_check"


def transact(rt: Runtime, ops: Sequence[TxOp], *, idempotency_key: object, now: datetime) -> WriteResult:
    """Plan every operation, check DynamoDB's limits, send one transaction (re-planned if a read went stale)."""
    if not ops:
        raise ValueError(f"transact needs at least one operation ({_BUILDERS})")
    strays = [f"[{i}] {type(op).__name__}" for i, op in enumerate(ops) if not isinstance(op, TxOp)]
    if strays:
        # A dict such as {"put": ...} would otherwise fail deep inside as an AttributeError.
        raise TypeError(f"transact operations {', '.join(strays)} are not operations: {_BUILDERS}")
    unknown = sorted({op.verb for op in ops} - set(_PLANNERS))
    if unknown:
        raise ValueError(
            f"unknown transaction operation(s) {unknown}: build them with rt.tx_put/replace/update/delete/check"
        )
    if idempotency_key is not None:
        check_idempotency_key(ops[0].entity, idempotency_key)
    return rt.writer.run(lambda: _plan(rt, ops, idempotency_key, now), _describe)


def _describe(plan: Plan) -> str:
    return plan_text(plan)


def _plan(rt: Runtime, ops: Sequence[TxOp], idempotency_key: object, now: datetime) -> Plan:
    actions: list[Action] = []
    records = []
    # Only what a put or replace writes carries a request's idempotency value: an update or a
    # delete of a Transfer keeps the transferId of the put that created it, whose marker exists,
    # and would be refused as that key's reuse (rt.update and rt.delete take no key from it either).
    created = []
    violations: list[Violation] = []
    for index, op in enumerate(ops):
        try:
            plan = _PLANNERS[op.verb](rt, op, now)
        except ValidationError as exc:
            violations += [
                Violation(v.entity, f"[{index}].{v.attribute}", v.rule, v.message) for v in exc.violations
            ]
            continue
        except RuntimeFailure as exc:
            raise in_operation(exc, index, op.verb, op.entity) from None
        for action in plan.actions:
            action.operation, action.verb = index, op.verb
        actions += plan.actions
        records += plan.records
        if op.verb in ("put", "replace"):
            created += plan.records
    if violations:
        names = {op.entity for op in ops}
        raise ValidationError(names.pop() if len(names) == 1 else "transaction", violations)
    actions += _idempotency_markers(rt, ops, created, idempotency_key, now)
    _refuse_two_actions_on_one_item(rt, actions)
    _check_limits(ops, actions)
    return Plan(actions, records)


def _request_parts(op: TxOp) -> list[object]:
    """What identifies an operation for its idempotency digest: what it creates in full, for the
    rest the key and the names it changes. A retry re-reads and may send other guard values or a
    value computed from the read (a balance), and must still be known as the same request."""
    if op.verb in ("put", "replace"):
        return [op.verb, op.entity, dict(op.values)]
    return [op.verb, op.entity, dict(op.key or {}), sorted(op.values), sorted(op.remove)]


def _idempotency_markers(
    rt: Runtime, ops: Sequence[TxOp], records: list, explicit: object, now: datetime
) -> list[Action]:
    """One marker per (entity, idempotency value) the transaction's creates and replaces write, plus
    the explicit key's."""
    wanted: dict[tuple[str, str], tuple[str, object]] = {}
    if explicit is not None:
        wanted[(ops[0].entity, repr(explicit))] = (ops[0].entity, explicit)
    for record in records:
        attribute = rt.entity(record.entity).idempotency_key
        if attribute and record.get(attribute) is not None:
            check_idempotency_value(rt.entity(record.entity), record[attribute])
            wanted.setdefault((record.entity, repr(record[attribute])), (record.entity, record[attribute]))
    if not wanted:
        return []
    request = request_digest("transact", *[part for op in ops for part in _request_parts(op)])
    return [
        rt.writer.idempotency_action(rt.entity(name), value, now, request) for name, value in wanted.values()
    ]


def _identity(rt: Runtime, action: Action) -> tuple[str, str]:
    ((_verb, request),) = action.request.items()
    table = request["TableName"]
    if "Key" in request:
        key = request["Key"]
    else:
        found = next(t for t in rt.design.tables.values() if t.table_name == table)
        names = {found.partition_key.name, found.sort_key.name if found.sort_key else ""}
        key = {n: v for n, v in request["Item"].items() if n in names}
    return table, _key_json(key)


def _json(value: object) -> str:
    """Wire JSON as sent (binary as base64), for identities and the request size."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_bytes)


# orjson writes what ``_json`` writes, sorted and compact, except: non-ASCII text raw (``_json``
# escapes it), DEL raw (``_json`` escapes it), some floats' exponents (1e-7, 1e-07) and NaN or
# Infinity as null. Anything it cannot write itself (bytes, and with these options datetimes,
# dataclasses and subclasses of str, int, dict, list) goes to ``default``.
_ORJSON_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)
_PLAIN_KEY_VALUES = (str, bytes)


def _key_json(key: Mapping[str, object]) -> str:
    """``_json`` of an item's key attributes, its identity in a transaction."""
    # Fast path: a key of S, N or B values (every key the runtime composes) has no float, so
    # orjson's output is ``_json``'s whenever it is ASCII without DEL, which it says for itself.
    if all(
        type(v) is dict and len(v) == 1 and type(next(iter(v.values()))) in _PLAIN_KEY_VALUES
        for v in key.values()
    ):
        try:
            text = orjson.dumps(key, default=_bytes, option=_ORJSON_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError: a non-str name, a lone surrogate
            return _json(key)
        if text.isascii() and b"\x7f" not in text:
            return text.decode("ascii")
    return _json(key)


def _size_over_limit(request: object) -> int | None:
    """The size of ``request`` as ``_json`` writes it when that is over the 4 MB limit, else None."""
    # Fast path: each byte of orjson's output is at most 6 of ``_json``'s (a DEL, or a non-ASCII
    # character as \uXXXX: 2 to 4 bytes of UTF-8 become 6 or 12; null becomes -Infinity at most; a
    # float's exponent a digit longer), so a request whose orjson is a sixth of the limit is under
    # it, and only a larger one is written out by ``_json`` to be measured.
    try:
        if 6 * len(orjson.dumps(request, default=_bytes, option=_ORJSON_OPTIONS)) <= MAX_TRANSACTION_BYTES:
            return None
    except TypeError:  # orjson.JSONEncodeError: a value or a depth orjson does not write
        pass
    size = len(_json(request).encode())
    return size if size > MAX_TRANSACTION_BYTES else None


def _bytes(value: object) -> str:
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    raise TypeError(f"{type(value).__name__} is not a wire value")


def _refuse_two_actions_on_one_item(rt: Runtime, actions: list[Action]) -> None:
    seen: dict[tuple[str, str], Action] = {}
    for action in actions:
        identity = _identity(rt, action)
        first = seen.setdefault(identity, action)
        if first is action:
            continue
        if action.kind == first.kind == "unique":  # two new items claim one unique value
            from .errors import UniquenessError

            error = UniquenessError(action.entity.name, action.subject.constraint, action.subject.value)  # type: ignore[union-attr]
            raise in_operation(error, action.operation or 0, action.verb, action.entity.name)  # type: ignore[union-attr]
        raise ValidationError(
            "transaction",
            [
                Violation(
                    "transaction",
                    f"[{action.operation}]",
                    "one_item",
                    "Transaction request cannot include multiple operations on one item: operations "
                    f"{first.operation} and {action.operation} both write {identity[0]} {identity[1]}",
                )
            ],
        )


def _check_limits(ops: Sequence[TxOp], actions: list[Action]) -> None:
    if len(actions) > MAX_TRANSACTION_ACTIONS:
        raise TransactionTooLargeError(
            f"a transaction of {len(ops)} operations needs {len(actions)} actions (items, uniqueness "
            f"markers and idempotency markers) but TransactWriteItems allows {MAX_TRANSACTION_ACTIONS}"
        )
    size = _size_over_limit({"TransactItems": [a.request for a in actions]})
    if size is not None:
        raise TransactionTooLargeError(
            f"a transaction of {len(ops)} operations is {size:,} bytes but TransactWriteItems allows "
            f"4 MB ({MAX_TRANSACTION_BYTES:,} bytes): Transaction request size exceeds the maximum "
            "allowed size of 4 MB"
        )
