"""``load_many``: a data set of one entity stored as fast as the client allows (sample data, seeding).

Each item is validated and composed exactly as ``put_many`` composes it (declared defaults, key
templates, timestamps, version 1, uniqueness markers), and two items of the load may not share a
table key or a unique value. Unlike ``put_many`` the items are not conditional: a load replaces an
item already stored under the same key (sample data loads into fresh tables, and a repeated load of
the same generator output rewrites the same items), and writes no idempotency marker.

On the embedded engine the items go through its bulk load (:func:`tablewright.engine.load_items`:
PutItem's rules, hundreds of items per SQLite transaction); on any other endpoint, including Amazon
DynamoDB, through BatchWriteItem, 25 at a time, retrying UnprocessedItems with back-off.
docs/runtime.md explains the choice.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..design.model import Entity, Table
from ..design.validators import Violation
from ..engine.types import MAX_ITEM_SIZE, item_size
from .direct import DirectClient, to_engine
from .errors import RuntimeFailure, ValidationError
from .items import KEY_BYTES, compose, table_key, to_record
from .markers import KIND_ATTRIBUTE, OWNER_ATTRIBUTE, marker_key, unique_text, unique_values
from .wire import item_from_wire, item_to_wire
from .writes import WriteResult, batch_violations

if TYPE_CHECKING:
    from .core import Runtime

BATCH_WRITE_LIMIT = 25
BATCH_GET_LIMIT = 100
BATCH_ATTEMPTS = 12


def load_many(
    rt: Runtime,
    entity: Entity,
    items: Sequence[Mapping[str, object]],
    *,
    now: datetime,
    on_progress: Callable[[int], None] | None = None,
) -> WriteResult:
    """Store ``items`` of ``entity`` in bulk (see the module docstring); ``on_progress(n)`` is told as
    ``n`` more items are stored."""
    violations = batch_violations(entity, items)
    if violations:
        raise ValidationError(entity.name, violations)
    table = rt.design.table_of(entity.name)
    composed = [compose(entity, dict(values), now=now, created=True) for values in items]
    if entity.version_attribute:
        for item in composed:
            item[entity.version_attribute] = 1
    markers = _markers(rt, entity, composed)
    released = _check_against_stored(rt, entity, composed) if entity.unique else []
    wire = [item_to_wire(item) for item in composed] + [item_to_wire(m) for m in markers]
    too_large = _size_violations(entity, wire[: len(composed)])
    if too_large:
        raise ValidationError(entity.name, too_large)
    if isinstance(rt.data, DirectClient):
        _engine_load(rt.data, table.table_name, wire, len(composed), on_progress)
        transactions = 0
    else:
        transactions = _batch_load(rt.data, table.table_name, wire, len(composed), on_progress)
    transactions += _delete(rt.data, table.table_name, released)
    records = [to_record(entity, table, item) for item in composed]
    return WriteResult(True, records, transactions, f"bulk load of {len(composed)} items")


def _size_violations(entity: Entity, wire: list[dict]) -> list[Violation]:
    """Items over DynamoDB's 400 KB, found before anything is written. An endpoint refuses a
    BatchWriteItem whole but only that one: the batches of 25 sent before it stay stored, and its
    error names no item (the engine's bulk load refuses the whole load, so both paths now agree)."""
    return [
        Violation(
            entity.name,
            f"[{index}].(item)",
            "dynamodb",
            "DynamoDB would refuse the put: Item size has exceeded the maximum allowed size "
            f"({size:,} bytes, at most {MAX_ITEM_SIZE:,})",
        )
        for index, item in enumerate(wire)
        if (size := item_size(to_engine(item))) > MAX_ITEM_SIZE
    ]


def _markers(rt: Runtime, entity: Entity, composed: list[dict]) -> list[dict]:
    """The uniqueness markers of the items; two items of the load sharing a key or a unique value
    are refused here, since unconditional writes would let the second silently win."""
    table = rt.design.table_of(entity.name)
    problems: list[Violation] = []
    keys: dict[str, int] = {}
    owners: dict[str, int] = {}
    markers: list[dict] = []
    for index, item in enumerate(composed):
        key = repr(sorted(table_key(table, item).items()))
        if key in keys:
            problems.append(
                Violation(entity.name, f"[{index}]", "key", f"has the same table key as item [{keys[key]}]")
            )
        keys.setdefault(key, index)
        owner = rt.writer.owner(entity, item)
        for unique in unique_values(entity.unique, item):
            text = unique_text(entity.name, unique)
            if text in owners:
                problems.append(
                    Violation(
                        entity.name,
                        f"[{index}]",
                        "unique",
                        f"has the same {'+'.join(unique.constraint)} as item [{owners[text]}]",
                    )
                )
                continue
            owners[text] = index
            key = marker_key(table, text)
            oversize = _marker_size_violation(entity, index, unique.constraint, key, table)
            if oversize is not None:
                problems.append(oversize)
                continue
            marker = {
                **key,
                KIND_ATTRIBUTE: "unique",
                OWNER_ATTRIBUTE: owner,
                "_tw_entity": entity.name,
            }
            if table.ttl and item.get(table.ttl) is not None:
                marker[table.ttl] = item[table.ttl]  # expires with its item
            markers.append(marker)
    if problems:
        raise ValidationError(entity.name, problems)
    return markers


def _marker_size_violation(
    entity: Entity, index: int, constraint: Sequence[str], marker: Mapping[str, object], table: Table
) -> Violation | None:
    """A uniqueness marker whose partition key (it holds the value) DynamoDB would refuse as too
    long, said before the load reads or writes anything: DynamoDB's own error names neither item
    nor value. Its sort key is a short constant."""
    value = marker[table.partition_key.name]
    size = len(value.encode("utf-8") if isinstance(value, str) else value)  # type: ignore[arg-type]
    if size <= KEY_BYTES["partition"]:
        return None
    message = (
        f"the uniqueness marker of this value has a partition key of {size:,} bytes; "
        f"DynamoDB holds at most {KEY_BYTES['partition']:,}"
    )
    return Violation(entity.name, f"[{index}].{'+'.join(constraint)}", "dynamodb", message)


def _check_against_stored(rt: Runtime, entity: Entity, composed: list[dict]) -> list[dict]:
    """Refuse unique values owned by other stored items; return the keys of the markers that the
    stored items being replaced hold and their replacements do not (to delete after the load)."""
    table = rt.design.table_of(entity.name)
    claims: dict[str, tuple[int, str]] = {}  # marker text -> (index in the load, owner)
    for index, item in enumerate(composed):
        owner = rt.writer.owner(entity, item)
        for unique in unique_values(entity.unique, item):
            claims[unique_text(entity.name, unique)] = (index, owner)
    stored_markers = _markers_by_text(rt, table, claims)
    problems = [
        Violation(
            entity.name,
            f"[{index}]",
            "unique",
            f"a unique value of this item already belongs to the stored item {stored_owner}; "
            "load_many writes unconditionally and would take it over (put_many refuses it instead)",
        )
        for text, (index, owner) in claims.items()
        if (stored_owner := stored_markers.get(text, owner)) != owner
    ]
    if problems:
        raise ValidationError(entity.name, problems)
    held: dict[str, str] = {}  # marker text -> owner, for values the replaced items hold
    for stored in _batch_get(rt.data, table.table_name, [table_key(table, item) for item in composed]):
        owner = rt.writer.owner(entity, stored)
        for unique in unique_values(entity.unique, stored):
            if (text := unique_text(entity.name, unique)) not in claims:
                held[text] = owner
    owned = _markers_by_text(rt, table, held)
    return [marker_key(table, text) for text, owner in held.items() if owned.get(text) == owner]


def _markers_by_text(rt: Runtime, table: Table, texts: Mapping[str, object]) -> dict[str, str]:
    """The owner of each stored marker among ``texts``."""
    pk = table.partition_key.name
    found = _batch_get(rt.data, table.table_name, [marker_key(table, text) for text in texts])
    return {_text(marker[pk]): str(marker.get(OWNER_ATTRIBUTE)) for marker in found}


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes | bytearray) else str(value)


def _batch_get(client: Any, table: str, keys: list[dict]) -> list[dict]:
    """The stored items of ``keys`` (Python values), by BatchGetItem in chunks of 100."""
    found: list[dict] = []

    def send(request: dict) -> dict:
        response = client.batch_get_item(RequestItems=request)
        found.extend(item_from_wire(raw) for raw in response.get("Responses", {}).get(table, []))
        return response

    for start in range(0, len(keys), BATCH_GET_LIMIT):
        chunk = keys[start : start + BATCH_GET_LIMIT]
        _until_processed(send, {table: {"Keys": [item_to_wire(k) for k in chunk]}}, "UnprocessedKeys")
    return found


def _delete(client: Any, table: str, keys: list[dict]) -> int:
    """Delete ``keys`` by BatchWriteItem; returns the number of calls."""
    requests = [{"DeleteRequest": {"Key": item_to_wire(key)}} for key in keys]
    return _batch_write(client, table, requests)


def _engine_load(
    client: DirectClient,
    table: str,
    wire: list[dict],
    entities: int,
    on_progress: Callable[[int], None] | None,
) -> None:
    from ..engine import DynamoDBError, load_items

    done = 0

    def advance(count: int) -> None:  # markers come last and are not entity items
        nonlocal done
        step = max(0, min(count, entities - done))
        done += count
        if on_progress is not None and step:
            on_progress(step)

    try:
        load_items(client.engine, table, [to_engine(item) for item in wire], on_progress=advance)
    except DynamoDBError as error:
        raise client.client_error("BatchWriteItem", error) from None


def _batch_load(
    client: Any, table: str, wire: list[dict], entities: int, on_progress: Callable[[int], None] | None
) -> int:
    """BatchWriteItem, 25 at a time, retrying UnprocessedItems with full-jitter back-off."""
    calls = 0
    for start in range(0, len(wire), BATCH_WRITE_LIMIT):
        chunk = wire[start : start + BATCH_WRITE_LIMIT]
        calls += _batch_write(client, table, [{"PutRequest": {"Item": item}} for item in chunk])
        stored = max(0, min(len(chunk), entities - start))
        if on_progress is not None and stored:
            on_progress(stored)
    return calls


def _batch_write(client: Any, table: str, requests: list[dict]) -> int:
    """BatchWriteItem of ``requests`` 25 at a time; returns the number of calls."""
    calls = 0
    for start in range(0, len(requests), BATCH_WRITE_LIMIT):
        pending = {table: requests[start : start + BATCH_WRITE_LIMIT]}
        calls += _until_processed(
            lambda r: client.batch_write_item(RequestItems=r), pending, "UnprocessedItems"
        )
    return calls


def _until_processed(send: Callable[[dict], dict], request: dict, leftover: str) -> int:
    """Send ``request``, then what each answer left ``leftover`` (UnprocessedItems/UnprocessedKeys),
    with full-jitter back-off; returns the number of calls."""
    for attempt in range(BATCH_ATTEMPTS):
        request = send(request).get(leftover) or {}
        if not request:
            return attempt + 1
        time.sleep(random.uniform(0, min(5.0, 0.05 * 2**attempt)))
    raise RuntimeFailure(f"{', '.join(request)}: {leftover} still left after {BATCH_ATTEMPTS} attempts")
