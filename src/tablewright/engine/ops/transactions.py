"""TransactWriteItems and TransactGetItems: all-or-nothing over up to 100 items in any tables.

Every action's condition is evaluated before anything is written, inside one SQLite write transaction,
so a cancelled transaction writes nothing and a crash can never leave half of one applied.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from .. import expressions as ex
from ..actions import EXPRESSION_FIELDS, ConditionCheck, Delete, Expressions, Put, Update, key_from
from ..capacity import Consumed, merge, read_units
from ..errors import (
    ConditionalCheckFailedException,
    IdempotentParameterMismatchException,
    StaleDefinition,
    TransactionCanceledException,
    ValidationException,
)
from ..storage import is_lock_timeout
from ..types import Item, item_size, nesting_error, plain_item_sized, validate_item_sized
from ..validation import structure_validator
from .tables import require_table

if TYPE_CHECKING:
    from ..actions import Action
    from ..catalog import TableMeta
    from ..engine import Engine

MAX_ACTIONS = 100
MAX_REQUEST_BYTES = 4 * 1024 * 1024
TOKEN_SECONDS = 600


class _KeyRefused(Exception):
    """Internal: a Put's item key was refused; carries DynamoDB's error for the cancellation reason."""

    def __init__(self, error: ValidationException) -> None:
        super().__init__(error.message)
        self.error = error


class _Refused:
    """An action whose key DynamoDB refuses inside the transaction (a key attribute missing, of the
    wrong type, empty or too long): the transaction is cancelled with a ValidationError reason for it,
    rather than refused as a whole. ``position`` keeps it apart from every other action's key."""

    def __init__(self, table: TableMeta, error: ValidationException, position: int) -> None:
        self.table = table
        self.error = error
        self.encoded_key = (-1, b"", str(position).encode())

    def evaluate(self, conn: sqlite3.Connection) -> None:
        raise self.error


def _put(engine: Engine, spec: dict, memo: _Memo, plain: tuple[Item, int] | None) -> Action:
    table = require_table(engine, spec["TableName"])
    # ``plain``: the item and size the shortcut measured (plain_item_sized), validate_item_sized's.
    item, size = validate_item_sized(spec["Item"]) if plain is None else plain
    expressions = _parsed(memo, spec, condition="ConditionExpression")
    try:
        encoded = table.encode_item_key(item, for_item=True)
    except ValidationException as error:
        raise _KeyRefused(error) from None
    key = table.key_of(item)
    return Put(
        engine,
        table,
        key,
        expressions,
        spec.get("ReturnValuesOnConditionCheckFailure", "NONE"),
        True,
        item=item,
        encoded_key=encoded,
        item_size=size,
    )


def _keyed(kind: type, **parsers: str):
    def build(engine: Engine, spec: dict, memo: _Memo, plain: None) -> Action:
        table = require_table(engine, spec["TableName"])
        key = key_from(table, spec["Key"])
        expressions = _parsed(memo, spec, **parsers)
        return kind(
            engine,
            table,
            key,
            expressions,
            spec.get("ReturnValuesOnConditionCheckFailure", "NONE"),
            True,
        )

    return build


# Parsed expressions of one request by what parse() reads of an action (see _parsed); None: no memo.
_Memo = dict[bytes, Expressions] | None
_EXPRESSION_FIELDS = tuple(sorted(EXPRESSION_FIELDS))


def _parsed(memo: _Memo, spec: dict, **parsers: str) -> Expressions:
    """``Expressions.parse(spec, **parsers)``, once per request for actions whose expression members
    are the same (a transaction's actions often share their condition: ``attribute_not_exists(#k)``
    and its names map). Only successful parses are kept, so every error is parse()'s own; the parsed
    expressions are shared read-only (their scope only caches the values it has checked).

    The key is the JSON of everything parse() reads. That identifies the answer once the request has
    passed validation (names are strings, attribute values' payloads JSON strings, booleans, lists
    and maps, so no two different members serialise alike); without validation there is no memo.
    """
    if memo is None or EXPRESSION_FIELDS.isdisjoint(spec):
        return Expressions.parse(spec, **parsers)
    try:
        key = orjson.dumps([parsers, *(spec.get(name) for name in _EXPRESSION_FIELDS)])
    except TypeError:  # not JSON (an in-process caller's value): parsed on its own
        return Expressions.parse(spec, **parsers)
    parsed = memo.get(key)
    if parsed is None:
        parsed = memo[key] = Expressions.parse(spec, **parsers)
    return parsed


_BUILDERS = {
    "Put": _put,
    "Update": _keyed(Update, condition="ConditionExpression", update="UpdateExpression"),
    "Delete": _keyed(Delete, condition="ConditionExpression"),
    "ConditionCheck": _keyed(ConditionCheck, condition="ConditionExpression"),
}


def _build(
    engine: Engine, entry: dict, position: int, memo: _Memo, plain: tuple[Item, int] | None
) -> Action | _Refused:
    kinds = [k for k in _BUILDERS if k in entry]
    if len(kinds) != 1:
        raise ValidationException("TransactItems can only contain one of Check, Put, Update or Delete")
    spec = entry[kinds[0]]
    if kinds[0] == "ConditionCheck" and "ConditionExpression" not in spec:
        raise ValidationException("ConditionCheck requires a ConditionExpression")
    try:
        return _BUILDERS[kinds[0]](engine, spec, memo, plain)
    except _KeyRefused as refused:
        return _Refused(require_table(engine, spec["TableName"]), refused.error, position)


# Members that shape only the answer: a retry with the same token may ask for them differently without
# being "a change in other parameters" (capacity reporting changes nothing written).
_RESPONSE_ONLY = frozenset({"ClientRequestToken", "ReturnConsumedCapacity", "ReturnItemCollectionMetrics"})


def transact_write_items(engine: Engine, request: dict) -> dict:
    entries = request["TransactItems"]
    if len(entries) > MAX_ACTIONS:
        raise ValidationException(f"Member must have length less than or equal to {MAX_ACTIONS}")
    return _transact_write(engine, request, {} if engine.validates else None, None)


def _transact_write(
    engine: Engine, request: dict, memo: _Memo, plains: list[tuple[Item, int] | None] | None
) -> dict:
    """TransactWriteItems of a request that passed validation; ``plains``: the shortcut's measured
    items of its Puts (None for every other action), or None where the general path measures them."""
    entries = request["TransactItems"]
    # Actions first: building them validates every attribute value, nesting depth included.
    actions = [
        _build(engine, entry, position, memo, None if plains is None else plains[position])
        for position, entry in enumerate(entries)
    ]
    try:
        body = orjson.dumps(
            {k: v for k, v in request.items() if k not in _RESPONSE_ONLY}, option=orjson.OPT_SORT_KEYS
        )
    except TypeError:  # nested past orjson's limit in members no action reads
        raise nesting_error() from None
    if len(body) > MAX_REQUEST_BYTES:
        raise ValidationException("Transaction request size cannot exceed the maximum allowed size of 4 MB")
    seen = set()
    for action in actions:
        identity = (action.table.name, action.encoded_key)
        if identity in seen:
            raise ValidationException("Transaction request cannot include multiple operations on one item")
        seen.add(identity)
    token = request.get("ClientRequestToken")
    digest = None if token is None else hashlib.sha256(body).digest()  # only a token's record needs it
    with _ConflictingWrite(engine, len(actions)) as conn:
        if token is not None and _seen_before(engine, conn, token, digest):
            return _replayed(engine, conn, actions, request)
        reasons, failed = [], False
        for position, action in enumerate(actions):
            try:
                action.evaluate(conn)
                reasons.append({"Code": "None"})
            except ConditionalCheckFailedException as error:
                failed = True
                reason = {"Code": "ConditionalCheckFailed", "Message": error.message}
                if error.item is not None:
                    reason["Item"] = error.item
                reasons.append(reason)
            except ValidationException as error:
                # Only the first validation error is reported; every other action, even one whose
                # condition failed, is "None".
                reasons = [{"Code": "None"} for _ in actions]
                reasons[position] = {"Code": "ValidationError", "Message": error.message}
                raise TransactionCanceledException(reasons) from None
        if failed:
            raise TransactionCanceledException(reasons)
        for action in actions:
            action.apply(conn)
        response: dict[str, Any] = {}
        mode = request.get("ReturnConsumedCapacity")
        if mode in ("TOTAL", "INDEXES"):  # capacity is computed only when asked for
            rendered = merge([a.consumed for a in actions], mode, split=True)
            if rendered:
                response["ConsumedCapacity"] = rendered
        if token is not None:
            conn.execute(
                "INSERT OR REPLACE INTO tw_tokens (token, digest, response, created) VALUES (?, ?, ?, ?)",
                (token, digest, orjson.dumps(response), engine.clock()),
            )
        return response


_checks: dict[str, Callable[[Any], bool]] | None = None  # the shortcut's member checks, compiled on first use


def _shortcut_checks() -> dict[str, Callable[[Any], bool]]:
    global _checks
    if _checks is None:
        _checks = {
            "": structure_validator("TransactWriteItemsInput", frozenset({"TransactItems"})),
            "Put": structure_validator("Put", frozenset({"Item"})),
            "Update": structure_validator("Update"),
            "Delete": structure_validator("Delete"),
            "ConditionCheck": structure_validator("ConditionCheck"),
        }
    return _checks


def transact_write_shortcut(engine: Engine, request: Any) -> dict | None:
    """TransactWriteItems without request validation's walk of the request: what the engine answers,
    or ``None`` (nothing done) for a request with anything unusual or wrong in it, which the general
    path (request validation, then :func:`transact_write_items`) then answers, errors included.

    The general path walks each Put's item twice, checking its wire JSON types with the request, then
    validating it; here :func:`~tablewright.engine.types.plain_item_sized` does both in one walk.
    Every other member is checked by the compiled checks of request validation
    (:func:`~tablewright.engine.validation.structure_validator`), all of them before anything else, so
    once they have passed, the general path would run the same code as below: its errors are the
    general path's. ``Engine.fast_transactions = False`` turns it off.
    """
    if request.__class__ is not dict or not engine.fast_transactions:
        return None
    entries = request.get("TransactItems")
    if entries.__class__ is not list or not 0 < len(entries) <= MAX_ACTIONS:
        return None
    checks = _checks or _shortcut_checks()
    if len(request) > 1 and not checks[""](request):
        return None
    plains: list[tuple[Item, int] | None] = []
    for entry in entries:
        if entry.__class__ is not dict or len(entry) != 1:
            return None
        for kind, spec in entry.items():  # the one member
            check = checks.get(kind)
            if check is None or not check(spec):
                return None
            if kind == "Put":
                plain = plain_item_sized(spec.get("Item"))
                if plain is None:
                    return None
                plains.append(plain)
            else:
                plains.append(None)
    try:
        return _transact_write(engine, request, {}, plains)
    except StaleDefinition:  # a table was redefined meanwhile: nothing was written
        return None
    except sqlite3.OperationalError as error:  # dropped by another process: the general path refreshes
        if "no such table" in str(error):
            return None
        raise


class _ConflictingWrite:
    """``engine.store.write()`` for a transaction: when another writer (another process on the file)
    holds the write lock past the lock timeout, DynamoDB's answer for a transaction that met another
    in progress, a TransactionConflict per action. Nothing was applied."""

    def __init__(self, engine: Engine, actions: int) -> None:
        self.store = engine.store
        self.transaction = engine.store.write()
        self.actions = actions

    def __enter__(self) -> sqlite3.Connection:
        try:
            return self.transaction.__enter__()
        except sqlite3.OperationalError as error:
            if not is_lock_timeout(error) or not self.store.waits:
                raise  # (a thread that never waits gets WouldBlock from the engine, to run it elsewhere)
            reasons = [{"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"}]
            raise TransactionCanceledException(reasons * self.actions) from error

    def __exit__(self, *exc_info: object) -> None:
        self.transaction.__exit__(*exc_info)


def _seen_before(engine: Engine, conn: Any, token: str, digest: bytes) -> bool:
    """Whether a transaction with this token was applied within the last 10 minutes (the same one:
    another one's token raises IdempotentParameterMismatchException)."""
    conn.execute("DELETE FROM tw_tokens WHERE created < ?", (engine.clock() - TOKEN_SECONDS,))
    row = conn.execute("SELECT digest FROM tw_tokens WHERE token = ?", (token,)).fetchone()
    if row is None:
        return False
    if row[0] != digest:
        raise IdempotentParameterMismatchException(
            "Specified idempotent token was used with different request parameters within the 10 minutes window"
        )
    return True


def _replayed(engine: Engine, conn: Any, actions: list, request: dict) -> dict:
    """The answer to a retry of an applied transaction: nothing written again, and the capacity asked
    for now is that of reading the items (API Reference, TransactWriteItems, ClientRequestToken: "return
    the number of read capacity units consumed in reading the item"; strongly consistent reads here, as
    the Reference does not say which)."""
    consumed = []
    for action in actions:
        item = engine.store.get(conn, action.table, action.encoded_key)
        units = read_units(item_size(item) if item else 0, consistent=True)
        consumed.append(Consumed(action.table, "read", units))
    rendered = merge(consumed, request.get("ReturnConsumedCapacity"), split=True)
    return {"ConsumedCapacity": rendered} if rendered else {}


def transact_get_items(engine: Engine, request: dict) -> dict:
    entries = request["TransactItems"]
    if len(entries) > MAX_ACTIONS:
        raise ValidationException(f"Member must have length less than or equal to {MAX_ACTIONS}")
    plans = []
    seen = set()
    for entry in entries:
        spec = entry["Get"]
        table = require_table(engine, spec["TableName"])
        key = key_from(table, spec["Key"])
        encoded = table.encode_item_key(key, for_item=False)
        if (table.name, encoded) in seen:
            raise ValidationException("Transaction request cannot include multiple operations on one item")
        seen.add((table.name, encoded))
        plans.append((table, encoded, Expressions.parse(spec, projection="ProjectionExpression")))
    responses, consumed = [], []
    total = 0
    with engine.store.read() as conn:
        for table, encoded, expressions in plans:
            item = engine.store.get(conn, table, encoded)
            size = item_size(item) if item else 0
            total += size
            if total > MAX_REQUEST_BYTES:
                # DynamoDB rejects the whole request (API Reference, TransactGetItems); its wording of
                # the refusal is not recorded, so this is the API Reference's.
                raise ValidationException(
                    "The aggregate size of the items in the transaction cannot exceed 4 MB"
                )
            consumed.append(Consumed(table, "read", read_units(size, transactional=True)))
            if item is None:
                responses.append({})
            elif expressions.projection is not None:
                responses.append({"Item": ex.project(expressions.projection, item, expressions.names)})
            else:
                responses.append({"Item": item})
    response: dict[str, Any] = {"Responses": responses}
    rendered = merge(consumed, request.get("ReturnConsumedCapacity"), split=True)
    if rendered:
        response["ConsumedCapacity"] = rendered
    return response


OPERATIONS = {"TransactWriteItems": transact_write_items, "TransactGetItems": transact_get_items}
# Tried before request validation; an answer of None sends the request down the general path.
SHORTCUTS = {"TransactWriteItems": transact_write_shortcut}
