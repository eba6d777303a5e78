"""Running access patterns by name: one reader per ``served.op`` in the ``READERS`` table.

Query and scan readers follow pages (and buckets) until the wanted number of matches is collected,
because DynamoDB applies ``Limit`` *before* the filter: one request can return fewer matches than
asked for, even none, while more exist further on.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from ..design.model import AccessPattern, Design, Entity, Table
from ..design.templates import TemplateValueError
from .errors import CursorError, PatternError
from .expressions import Placeholders, filter_expression, key_condition_expression
from .items import Classifier, key_fields, key_instants_stored, key_type_violations, table_key, to_record
from .page import Page
from .params import convert
from .wire import item_from_wire, item_to_wire

if TYPE_CHECKING:
    from .core import Runtime

BATCH_GET_SIZE = 100


class Run:
    """One pattern run: its pattern, converted params, limit and where to start."""

    def __init__(self, rt: Runtime, pattern: AccessPattern, params: dict, limit: int | None) -> None:
        self.rt, self.pattern, self.params, self.limit = rt, pattern, params, limit
        self.served = pattern.served
        self.via: Entity = rt.design.entities[self.served.via or pattern.returns[0]]
        self.table = rt.design.table_of(self.via.name)
        self.projected = _partly_projected(self.table, pattern)
        untyped = _drops_entity_type(rt.design, self.table, pattern, self.projected)
        self.classify = Classifier(rt.design, pattern.returns, refuse_ambiguous=untyped)
        self.page = Page()

    def convert_param(self, name: str, value: object) -> object:
        attr = self.pattern.params.get(name)
        return convert(attr.format if attr else None, value)

    def take(self, raw_items: list[dict]) -> int | None:
        """Type and keep raw items; returns the index of the item that completed the limit, if any."""
        for index, raw in enumerate(raw_items):
            item = item_from_wire(raw)
            entity = self.classify(item)
            if entity is None:
                self.page.stats.skipped += 1
                continue
            table = self.rt.design.table_of(entity.name)
            self.page.items.append(to_record(entity, table, item, projected=self.projected))
            if self.limit is not None and len(self.page.items) >= self.limit:
                return index
        return None

    def call(self, method: str, request: dict) -> dict:
        request["ReturnConsumedCapacity"] = "TOTAL"
        response = getattr(self.rt.data, method)(**request)
        stats = self.page.stats
        stats.requests += 1
        stats.add_capacity(response.get("ConsumedCapacity"))
        return response


def _partly_projected(table: Table, pattern: AccessPattern) -> frozenset[str] | None:
    """The non-key attributes the pattern's index projects when it does not project them all
    (``KEYS_ONLY``: none; ``INCLUDE``: its list), else None: items arrive whole."""
    index_name = pattern.served.index
    if index_name is None or index_name not in table.indexes:
        return None
    projection = table.indexes[index_name].projection
    return None if projection.type.upper() == "ALL" else frozenset(projection.attributes)


def _drops_entity_type(
    design: Design, table: Table, pattern: AccessPattern, projected: frozenset[str] | None
) -> bool:
    """Whether the pattern reads through an index that does not project the entity-type attribute
    of an entity it returns (``projected``: what ``_partly_projected`` found the index to project):
    there every item arrives untyped, and one whose keys fit several entities is an error to raise
    (elsewhere an untyped item is foreign data, skipped as before)."""
    if projected is None:
        return False
    pk, sk = table.key_schema(pattern.served.index)
    keys = {pk.name, *(k.name for k in (sk, table.partition_key, table.sort_key) if k)}
    tags = {design.entities[name].entity_type_attribute for name in pattern.returns}
    return any(tag and tag not in projected | keys for tag in tags)


def _index_key(run: Run, raw: Mapping[str, Any]) -> dict:
    """The ExclusiveStartKey that resumes right after ``raw``: table key plus index key."""
    names = [run.table.partition_key.name] + ([run.table.sort_key.name] if run.table.sort_key else [])
    if run.served.index:
        pk, sk = run.table.key_schema(run.served.index)
        names += [pk.name] + ([sk.name] if sk else [])
    return {name: raw[name] for name in dict.fromkeys(names)}


def _paged(
    run: Run, requests: list[Callable[[], dict]], method: str, position: int, start_key: dict | None
) -> None:
    """Send ``requests[position:]`` following LastEvaluatedKey until the limit is met; set the cursor."""
    has_filter = run.served.filter is not None
    from_cursor = start_key is not None
    while position < len(requests):
        request = requests[position]()
        if start_key:
            request["ExclusiveStartKey"] = start_key
        if "Limit" not in request and run.limit is not None and not has_filter:
            request["Limit"] = max(run.limit - len(run.page.items), 1)
        response = _resumed(run, method, request) if from_cursor else run.call(method, request)
        from_cursor = False
        items = response.get("Items", [])
        run.page.stats.items_read += response.get("ScannedCount", len(items))
        last = run.take(items)
        start_key = response.get("LastEvaluatedKey")
        if last is not None:
            if last < len(items) - 1:
                start_key = _index_key(run, items[last])
            if start_key is None:
                position += 1
            if position < len(requests):
                run.page.cursor = run.rt.codec.encode(run.pattern.name, run.params, position, start_key)
            return
        if start_key is None:
            position += 1


def _resumed(run: Run, method: str, request: dict) -> dict:
    """The request that resumes at a cursor's key. A key DynamoDB refuses as a start (a cursor
    issued before the design moved the pattern to another index or key) is a ``CursorError``
    naming the pattern, not the service's error about a key the caller never wrote."""
    try:
        return run.call(method, request)
    except ClientError as error:
        message = error.response.get("Error", {}).get("Message", "")
        code = error.response.get("Error", {}).get("Code")
        if code != "ValidationException" or not _START_KEY_REFUSED.search(message):
            raise
        raise CursorError(
            f"cursor for pattern {run.pattern.name!r} does not fit the pattern as the design now "
            f"serves it (DynamoDB: {message}); start again without a cursor"
        ) from None


# DynamoDB's words for an ExclusiveStartKey it refuses ("The provided starting key is invalid",
# "Exclusive Start Key must have same size as table's key schema").
_START_KEY_REFUSED = re.compile(r"start(ing)? key", re.IGNORECASE)


def _query_request(run: Run, params: Mapping[str, object]) -> dict:
    try:
        condition = run.pattern.key_condition(params)
    except ValueError as exc:
        raise PatternError(str(exc)) from None
    ph = Placeholders()
    request = {
        "TableName": run.table.table_name,
        "KeyConditionExpression": key_condition_expression(condition, ph),
        "ScanIndexForward": run.served.forward,
    }
    return _common(run, request, params, ph)


def _common(run: Run, request: dict, params: Mapping[str, object], ph: Placeholders) -> dict:
    served = run.served
    if served.index:
        request["IndexName"] = served.index
    if served.filter is not None:
        request["FilterExpression"] = filter_expression(served.filter, params, ph, run.convert_param)
    if served.page_size:
        request["Limit"] = served.page_size
    if served.consistent:
        request["ConsistentRead"] = True
    return ph.apply(request)


def read_query(run: Run, position: int, start_key: dict | None) -> None:
    """Query, one request list entry per partition bucket."""
    buckets = run.pattern.buckets(run.params)
    requests = [lambda b=b: _query_request(run, b) for b in buckets]
    _paged(run, requests, "query", position, start_key)


def read_scan(run: Run, position: int, start_key: dict | None) -> None:
    """Scan the table or index, with the served filter."""
    requests = [lambda: _common(run, {"TableName": run.table.table_name}, run.params, Placeholders())]
    _paged(run, requests, "scan", position, start_key)


def read_get(run: Run, position: int, start_key: dict | None) -> None:
    """GetItem on the composed key."""
    try:
        condition = run.pattern.key_condition(run.params)
    except ValueError as exc:
        raise PatternError(str(exc)) from None
    key = {condition.partition_name: condition.partition_value}
    if condition.sort_name:
        key[condition.sort_name] = condition.sort_values[0]
    request = {"TableName": run.table.table_name, "Key": item_to_wire(key)}
    if run.served.consistent:
        request["ConsistentRead"] = True
    response = run.call("get_item", request)
    found = [response["Item"]] if "Item" in response else []
    run.page.stats.items_read += len(found)
    run.take(found)


def _bound_values(entity: Entity, element: object, bind: Mapping[str, object], params: Mapping) -> dict:
    """Values for an entity's table key fields from a binding map, an element and same-named params."""
    fields = key_fields(entity)
    if element is not None and not isinstance(element, Mapping):
        # A bare value fills the one key field the parameters do not give (``ids`` with ``owner``).
        open_fields = [f for f in fields if f not in params]
        if len(open_fields) != 1:
            raise PatternError(
                f"a key for {entity.name} needs {', '.join(fields)}; got the single value {element!r}"
            )
        return {**{f: params[f] for f in fields if f in params}, open_fields[0]: element}
    values: dict[str, object] = {}
    for name in fields:
        ref = bind.get(name, f":{name}")
        if isinstance(ref, str) and ref.startswith(":"):
            source = element if isinstance(element, Mapping) and ref[1:] in element else params
            if ref[1:] in source:
                values[name] = source[ref[1:]]
        else:
            values[name] = ref
    return values


def _compose(run: Run, entity: Entity, values: Mapping[str, object], where: str) -> dict:
    """The table key of ``entity`` for one key of the run, held to ``rt.get``'s rules: a value of
    the wrong type (a datetime for a string id, text for a number key) is refused rather than
    composed into a key no item has, which reads as "not found"; a datetime for an epoch attribute
    is the number it stores. ``where`` names the key in the error (``mss[2]``)."""
    prefix = f"pattern {run.pattern.name!r}: {where}"
    wrong = key_type_violations(entity, values)
    if wrong:
        raise PatternError(f"{prefix}: " + "; ".join(str(v) for v in wrong))
    try:
        key = entity.key(key_instants_stored(entity, values))
    except TemplateValueError as exc:
        raise PatternError(f"{prefix}: {entity.name}: {exc}") from None
    if key is None:
        raise PatternError(f"{prefix}: cannot compose the key of {entity.name} from {dict(values)}")
    return key


def read_batch_get(run: Run, position: int, start_key: dict | None) -> None:
    """BatchGetItem in chunks of 100, unprocessed keys retried, results in request order."""
    name = (run.served.keys or "").lstrip(":")
    elements = run.params.get(name)
    if not isinstance(elements, list | tuple):
        raise PatternError(f"pattern {run.pattern.name!r}: parameter {name} must be a list of keys")
    keys = [
        _compose(run, run.via, _bound_values(run.via, e, {}, run.params), f"{name}[{i}]")
        for i, e in enumerate(elements)
    ]
    unique = list({repr(sorted(k.items())): k for k in keys}.values())
    found: dict[str, dict] = {}
    for start in range(position, len(unique), BATCH_GET_SIZE):
        chunk = unique[start : start + BATCH_GET_SIZE]
        pending: dict = {run.table.table_name: {"Keys": [item_to_wire(k) for k in chunk]}}
        delay = 0.05
        while pending:
            response = run.call("batch_get_item", {"RequestItems": pending})
            for raw in response.get("Responses", {}).get(run.table.table_name, []):
                found[repr(sorted(table_key(run.table, item_from_wire(raw)).items()))] = raw
            pending = response.get("UnprocessedKeys") or {}
            if pending:
                time.sleep(delay)
                delay = min(delay * 2, 2.0)
    ordered = [found[r] for k in unique if (r := repr(sorted(k.items()))) in found]
    run.page.stats.items_read += len(ordered)
    last = run.take(ordered)
    if last is not None and last < len(ordered) - 1:
        # Resume at the key after the last returned item.
        returned = repr(sorted(table_key(run.table, item_from_wire(ordered[last])).items()))
        offset = next(i for i, k in enumerate(unique) if repr(sorted(k.items())) == returned) + 1
        run.page.cursor = run.rt.codec.encode(run.pattern.name, run.params, offset, None)


def read_transact_get(run: Run, position: int, start_key: dict | None) -> None:
    """TransactGetItems over the entities and bindings the pattern lists."""
    requests = []
    for spec in run.served.items:
        entity = run.rt.entity(str(spec["entity"]))
        bound = _bound_values(entity, None, spec.get("bind") or {}, run.params)  # type: ignore[arg-type]
        key = _compose(run, entity, bound, f"item {len(requests)} ({entity.name})")
        table = run.rt.design.table_of(entity.name)
        requests.append({"Get": {"TableName": table.table_name, "Key": item_to_wire(key)}})
    response = run.call("transact_get_items", {"TransactItems": requests})
    found = [r["Item"] for r in response.get("Responses", []) if r.get("Item")]
    run.page.stats.items_read += len(found)
    run.take(found)


READERS: dict[str, Callable[[Run, int, dict | None], None]] = {
    "get": read_get,
    "query": read_query,
    "scan": read_scan,
    "batch_get": read_batch_get,
    "transact_get": read_transact_get,
}


def run_pattern(
    rt: Runtime, pattern: AccessPattern, params: dict, *, cursor: str | None, limit: int | None
) -> Page:
    """Run a pattern with prepared params; see ``Runtime.run``."""
    started = time.perf_counter()
    run = Run(rt, pattern, params, limit if limit is not None else pattern.means.limit)
    position, start_key = rt.codec.decode(cursor, pattern.name, params) if cursor else (0, None)
    READERS[pattern.served.op](run, position, start_key)
    run.page.stats.items_returned = len(run.page.items)
    run.page.stats.latency_ms = (time.perf_counter() - started) * 1000
    return run.page
