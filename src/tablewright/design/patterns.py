"""Access patterns: what they mean (a predicate, order, limit) and how DynamoDB serves them.

The served part binds parameters to the key templates of an entity, so the runtime composes keys
exactly as items were written: ``pattern.key_condition(params)`` returns the rendered key condition
and ``pattern.buckets(params)`` splits a time window across partition buckets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from .entities import Attribute, EntityKey
from .predicates import Predicate
from .templates import KeyTemplate, KeyValue
from .timeutil import epoch_ms, epoch_s, format_rfc3339, to_datetime

OPS = ("get", "query", "scan", "batch_get", "transact_get")
SORT_OPS = ("eq", "lt", "le", "gt", "ge", "between", "begins_with")
# Bounds that must cover every key starting with a prefix get the highest BMP character appended.
_UPPER_BOUNDS = {("le", 0), ("gt", 0), ("between", 1)}
Binding = Mapping[str, object]


@dataclass
class Order:
    """Result order: an attribute and a direction."""

    attribute: str
    descending: bool = False


@dataclass
class Means:
    """What a pattern returns, independent of keys: a predicate, an order and a limit."""

    where: Predicate | None = None
    order: Order | None = None
    limit: int | None = None


@dataclass
class SortCondition:
    """A sort key condition; ``bounds`` are bindings (template field -> ``:param`` or literal)."""

    op: str
    bounds: tuple[Binding, ...]


@dataclass
class Buckets:
    """A window over ``attribute`` from param ``start`` to ``end`` spanning partition buckets."""

    attribute: str
    start: str
    end: str
    step: str | None = None  # year | month | day | hour; inferred from the template's date filter


@dataclass
class KeyCondition:
    """A composed key condition, ready to be written as a KeyConditionExpression."""

    index: str | None
    partition_name: str
    partition_value: KeyValue
    sort_name: str | None = None
    sort_op: str | None = None
    sort_values: tuple[KeyValue, ...] = ()


@dataclass
class Served:
    """How DynamoDB serves a pattern. ``entity_key`` is resolved when the design links."""

    op: str
    index: str | None = None
    via: str | None = None
    partition: dict[str, object] = field(default_factory=dict)
    sort: SortCondition | None = None
    filter: Predicate | None = None
    forward: bool = True
    page_size: int | None = None
    consistent: bool = False
    buckets: Buckets | None = None
    keys: str | None = None  # batch_get: the param holding the list of keys
    items: tuple[dict[str, object], ...] = ()  # transact_get: {entity, bind}
    entity_key: EntityKey | None = None


@dataclass
class AccessPattern:
    """A named access pattern with typed parameters, the entities it returns, its means and serving."""

    name: str
    params: dict[str, Attribute]
    returns: tuple[str, ...]
    means: Means
    served: Served
    description: str | None = None
    # Parameter sets `tablewright check` runs the pattern with (the design's `examples:`).
    examples: tuple[dict[str, object], ...] = ()
    # Why `check` does not run this pattern (`unchecked: reason`); None means it must have examples.
    unchecked: str | None = None

    def key_condition(self, params: Mapping[str, object]) -> KeyCondition:
        """Compose the key condition for ``params`` through the entity's key templates.

        Raises ``ValueError`` naming the missing parameter when the partition key cannot be composed.
        """
        entry = self.served.entity_key
        if entry is None or self.served.op not in ("get", "query"):
            raise ValueError(f"pattern {self.name!r} ({self.served.op}) has no key condition to compose")
        values = _bind(entry.pk, self.served.partition, params)
        pk = entry.pk.render(values)
        if pk is None:
            missing = [f for f in entry.pk.fields if values.get(f) is None]
            raise ValueError(
                f"pattern {self.name!r}: partition key needs {', '.join(missing)} (not in params)"
            )
        condition = KeyCondition(self.served.index, entry.partition_name, pk)
        if entry.sort_name is None or entry.sk is None:
            return condition
        sort = self.served.sort
        if self.served.op == "get":
            sort = SortCondition("eq", ({},))
        if sort is None:
            return condition
        rendered = tuple(_bound(entry.sk, sort.op, i, b, params) for i, b in enumerate(sort.bounds))
        condition.sort_name, condition.sort_op, condition.sort_values = entry.sort_name, sort.op, rendered
        return condition

    def buckets(self, params: Mapping[str, object]) -> list[dict[str, object]]:
        """One params dict per partition bucket the window spans, in ``forward`` order.

        Each dict has the window start moved to the bucket start (so the partition key composes to
        that bucket); the end is kept, because the partition itself bounds the bucket. Without
        declared buckets, returns ``[params]``.
        """
        spec = self.served.buckets
        if spec is None:
            return [dict(params)]
        start_name, end_name = spec.start.lstrip(":"), spec.end.lstrip(":")
        unit = {n: a.format for n, a in self.params.items() if a.format}
        start = to_datetime(params[start_name], unit.get(start_name))
        end = to_datetime(params[end_name], unit.get(end_name))
        step = spec.step or (
            self.served.entity_key.pk.bucket_step(spec.attribute) if self.served.entity_key else None
        )
        if step not in _STEPS:
            raise ValueError(f"pattern {self.name!r}: bucket step {step!r} is not one of {sorted(_STEPS)}")
        result: list[dict[str, object]] = []
        cursor = _floor(start.astimezone(UTC), step)
        while cursor <= end:
            bucket = dict(params)
            bucket[start_name] = _like(params[start_name], max(start, cursor), unit.get(start_name))
            result.append(bucket)
            try:
                cursor = _STEPS[step](cursor)
            except (ValueError, OverflowError):  # past 9999-12-31, datetime's last day: no more buckets
                break
        return result if self.served.forward else result[::-1]


def _bind(template: KeyTemplate, bindings: Binding, params: Mapping[str, object]) -> dict[str, object]:
    """Values for a template's fields: explicit bindings first, then same-named params."""
    if "*" in bindings and len(template.fields) == 1:
        bindings = {template.fields[0]: bindings["*"]}
    values: dict[str, object] = {}
    for name in template.fields:
        if name in bindings:
            ref = bindings[name]
            if isinstance(ref, str) and ref.startswith(":"):
                if ref[1:] in params:
                    values[name] = params[ref[1:]]
            else:
                values[name] = ref
        elif name in params:
            values[name] = params[name]
    return values


def _bound(
    template: KeyTemplate, op: str, position: int, binding: Binding, params: Mapping[str, object]
) -> KeyValue:
    values = _bind(template, binding, params)
    full = template.render(values)
    if full is not None:
        return full
    prefix = template.render_prefix(values)
    return prefix + "\uffff" if (op, position) in _UPPER_BOUNDS else prefix


def _floor(moment: datetime, step: str) -> datetime:
    keep = {"year": 1, "month": 2, "day": 3, "hour": 4}[step]
    parts = (moment.year, moment.month, moment.day, moment.hour)
    floor = (moment.year, 1, 1, 0)
    return datetime(*(parts[i] if i < keep else floor[i] for i in range(4)), tzinfo=UTC)


def _next_month(moment: datetime) -> datetime:
    return moment.replace(year=moment.year + moment.month // 12, month=moment.month % 12 + 1)


_STEPS = {
    "year": lambda m: m.replace(year=m.year + 1),
    "month": _next_month,
    "day": lambda m: datetime.fromordinal(m.toordinal() + 1).replace(tzinfo=UTC),
    "hour": lambda m: datetime.fromtimestamp(m.timestamp() + 3600, UTC),
}


def _like(original: object, moment: datetime, unit: str | None) -> object:
    """``moment`` in the same representation (and string precision) as the caller's parameter."""
    if isinstance(original, datetime):
        return moment
    if isinstance(original, str):
        return format_rfc3339(moment, millis="." in original)
    return epoch_ms(moment) if unit == "epoch_ms" else epoch_s(moment)
