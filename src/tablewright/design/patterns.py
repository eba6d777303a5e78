"""Access patterns: what they mean (a predicate, order, limit) and how DynamoDB serves them.

The served part binds parameters to the key templates of an entity, so the runtime composes keys
exactly as items were written: ``pattern.key_condition(params)`` returns the rendered key condition
and ``pattern.buckets(params)`` splits a time window across partition buckets.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .entities import Attribute, EntityKey
from .predicates import Predicate
from .templates import KeyTemplate, KeyValue
from .templates.filters import BUCKET_FILTERS
from .timeutil import epoch_ms, epoch_s, format_with_digits, instants_as_text, to_datetime

OPS = ("get", "query", "scan", "batch_get", "transact_get")
SORT_OPS = ("eq", "lt", "le", "gt", "ge", "between", "begins_with")
# Bounds that must lie above every key starting with a prefix (see ``greatest_key_with_prefix``).
_UPPER_BOUNDS = {("le", 0), ("gt", 0), ("between", 1)}
# DynamoDB's longest sort key, in UTF-8 bytes (a table's and an index's alike).
SORT_KEY_BYTES = 1024
# The largest character UTF-8 writes in 1, 2, 3 and 4 bytes: U+007F, U+07FF, U+FFFF, U+10FFFF.
_LARGEST_CHARACTER_OF_BYTES = {1: "\x7f", 2: "\u07ff", 3: "\uffff", 4: "\U0010ffff"}
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
        that bucket); the end is kept, because the partition itself bounds the bucket. Buckets are
        the template's: ``{at|tz:America/Denver|year}`` steps through Denver's years, whose starts
        are 07:00 UTC. Without declared buckets, returns ``[params]``.
        """
        spec = self.served.buckets
        if spec is None:
            return [dict(params)]
        start_name, end_name = spec.start.lstrip(":"), spec.end.lstrip(":")
        unit = {n: a.format for n, a in self.params.items() if a.format}
        start = to_datetime(params[start_name], unit.get(start_name))
        end = to_datetime(params[end_name], unit.get(end_name))
        step, zone = self._bucket_clock(spec)
        if start > end:  # a window that ends before it starts holds no instant, so no bucket
            return []
        result = [dict(params)]
        for moment in _bucket_starts(start, end, step, zone)[1:]:
            result.append({**params, start_name: _like(params[start_name], moment, unit.get(start_name))})
        return result if self.served.forward else result[::-1]

    def param_precision(self, name: str) -> tuple[str, bool] | None:
        """``(precision, truncate)`` parameter ``name`` is spelled in when it is a timestamp.

        Its own declared ``precision`` first; else that of the rfc3339 attribute it stands for in the
        served key (a field with no filter bound to it, which the key template gives that attribute's
        precision); else None. Both sides of a run then see one spelling: the key DynamoDB is asked
        with, and the value ``means`` compares stored strings with.
        """
        declared = self.params.get(name)
        if declared is not None and declared.precision:
            return declared.precision, declared.truncate
        for template, bindings in self._key_bindings():
            precision = _precision_of_param(template, _explicit(template, bindings), name)
            if precision is not None:
                return precision
        return None

    def _key_bindings(self) -> list[tuple[KeyTemplate, Binding]]:
        """Each key template of the served key with the bindings its values come from."""
        entry = self.served.entity_key
        if entry is None:
            return []
        pairs: list[tuple[KeyTemplate, Binding]] = [(entry.pk, self.served.partition)]
        if entry.sk is not None:
            sort = SortCondition("eq", ({},)) if self.served.op == "get" else self.served.sort
            pairs += [(entry.sk, bound) for bound in (sort.bounds if sort else ())]
        return pairs

    def _bucket_clock(self, spec: Buckets) -> tuple[str, tzinfo]:
        """The bucket step and the zone whose wall clock the partition key's date filter reads."""
        entry = self.served.entity_key
        found, zone = _date_filter(entry.pk, spec.attribute) if entry else (None, UTC)
        step = spec.step or found
        if step not in _STEPS:
            raise ValueError(f"pattern {self.name!r}: bucket step {step!r} is not one of {sorted(_STEPS)}")
        return step, zone


def _explicit(template: KeyTemplate, bindings: Binding) -> Binding:
    """``bindings`` with a bare ``:param`` bound (key ``*``) given to the template's one field."""
    if "*" in bindings and len(template.fields) == 1:
        return {template.fields[0]: bindings["*"]}
    return bindings


def _param_of(bindings: Binding, name: str) -> str | None:
    """The parameter a field takes its value from (explicitly ``:param``, else the same-named one);
    None when it is bound to a literal."""
    ref = bindings.get(name, f":{name}")
    return ref[1:] if isinstance(ref, str) and ref.startswith(":") else None


def _precision_of_param(template: KeyTemplate, bindings: Binding, name: str) -> tuple[str, bool] | None:
    """The precision ``template`` gives parameter ``name``: that of a field bound to it and inserted
    as text (no filter), as ``KeyTemplate`` normalises only those."""
    for fld in template.field_parts:
        if not fld.filters and fld.name in template.precisions and _param_of(bindings, fld.name) == name:
            return template.precisions[fld.name]
    return None


def _bind(template: KeyTemplate, bindings: Binding, params: Mapping[str, object]) -> dict[str, object]:
    """Values for a template's fields: explicit bindings first, then same-named params."""
    bindings = _explicit(template, bindings)
    values: dict[str, object] = {}
    for name in template.fields:
        param = _param_of(bindings, name)
        if param is None:
            values[name] = bindings[name]
        elif param in params:
            values[name] = params[param]
    return dict(instants_as_text(values, template.precisions))


def _bound(
    template: KeyTemplate, op: str, position: int, binding: Binding, params: Mapping[str, object]
) -> KeyValue:
    values = _bind(template, binding, params)
    full = template.render(values)
    if full is not None:
        return full
    prefix = template.render_prefix(values)
    return greatest_key_with_prefix(prefix) if (op, position) in _UPPER_BOUNDS else prefix


def greatest_key_with_prefix(prefix: str) -> str:
    """The greatest sort key DynamoDB can store that starts with ``prefix``: an inclusive upper bound.

    DynamoDB orders strings by their UTF-8 bytes, so ``prefix + "\\uffff"`` (EF BF BF) lies below
    keys continuing with U+FFFF itself or any character from U+10000 on (emoji, CJK extension B: F0..F4
    lead bytes). ``prefix + U+10FFFF`` is still below ``prefix + U+10FFFF + "x"``. Incrementing the
    prefix's last character gives the least string above them all, but only as an exclusive bound:
    ``BETWEEN`` is inclusive, and would also take a key that is exactly that string (another entity's,
    in a shared partition). What is exact is the largest key a sort key can hold, 1024 bytes: the
    prefix, then U+10FFFF (F4 8F BF BF, the highest bytes a UTF-8 character has) while four bytes
    fit, then the largest character of the bytes left. No stored key with the prefix sorts above it.
    """
    room = SORT_KEY_BYTES - len(prefix.encode("utf-8", "surrogatepass"))
    if room <= 0:  # no key this long can be stored: the prefix bounds what can
        return prefix
    fours, rest = divmod(room, 4)
    return prefix + _LARGEST_CHARACTER_OF_BYTES[4] * fours + _LARGEST_CHARACTER_OF_BYTES.get(rest, "")


def _date_filter(template: KeyTemplate, attribute: str) -> tuple[str | None, tzinfo]:
    """The bucket step of ``attribute``'s date filter in ``template`` and the zone it reads the
    wall clock in (an earlier ``|tz:``, else UTC); without a date filter, None and the zone of the
    field's ``|tz:`` (an explicit ``step`` then steps that zone's clock)."""
    found: tuple[str | None, tzinfo] = (None, UTC)
    for fld in template.field_parts:
        if fld.name != attribute:
            continue
        zone: tzinfo = UTC
        for call in fld.filters:
            if call.name in BUCKET_FILTERS:
                return BUCKET_FILTERS[call.name], zone
            if call.name == "tz":
                zone = _zone(call.arg)
        found = (None, zone)
    return found


def _zone(name: str | None) -> tzinfo:
    # An unknown zone is reported when the key is rendered (TemplateValueError naming the template).
    try:
        return ZoneInfo((name or "").strip())
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def _bucket_starts(start: datetime, end: datetime, step: str, zone: tzinfo) -> list[datetime]:
    """``start``, then the first instant of each later bucket up to ``end``: buckets are ``step``s
    (year, month, day, hour) of the wall clock in ``zone``, each listed once, none left out.

    Stepping the wall clock, not UTC: Denver's 2026 begins at 2026-01-01T07:00Z, and a UTC step
    would list 2025 twice and 2026 never. Where the wall clock skips (a DST gap) the bucket starts
    at the transition, and a bucket skipped whole is not listed.
    """
    starts = [start]
    try:
        wall = _floor(start.astimezone(zone).replace(tzinfo=None), step)
    except OverflowError:
        raise ValueError(f"{start.isoformat()} is outside the years {zone} can show") from None
    while True:
        try:
            wall = _STEPS[step](wall)
            moment = _first_instant(wall, zone)
        except (ValueError, OverflowError):  # past 9999-12-31, datetime's last day: no more buckets
            break
        if moment > end:
            break
        if moment > starts[-1]:
            starts.append(moment)
    return starts


def _first_instant(wall: datetime, zone: tzinfo) -> datetime:
    """The first instant whose wall clock in ``zone`` reads ``wall`` or later (a bucket's start)."""
    as_first = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    as_second = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    if as_second >= as_first:  # the clock reads ``wall`` once, or twice (DST ends): fold 0 is the first
        return as_first
    # The clock skips ``wall`` (DST begins): fold 1 reads it with the offset after the jump, which
    # lands before the jump; fold 0 with the offset before it, after. The jump lies between.
    return _bisect(as_second, as_first, lambda m: m.astimezone(zone).replace(tzinfo=None) >= wall)


def _bisect(low: datetime, high: datetime, reached: Callable[[datetime], bool]) -> datetime:
    """The first instant in ``(low, high]`` where ``reached`` holds (false at ``low``, true at ``high``)."""
    while high - low > timedelta(microseconds=1):
        middle = low + (high - low) // 2
        low, high = (low, middle) if reached(middle) else (middle, high)
    return high


def _floor(wall: datetime, step: str) -> datetime:
    keep = {"year": 1, "month": 2, "day": 3, "hour": 4}[step]
    parts = (wall.year, wall.month, wall.day, wall.hour)
    floor = (wall.year, 1, 1, 0)
    return datetime(*(parts[i] if i < keep else floor[i] for i in range(4)))


def _next_month(wall: datetime) -> datetime:
    return wall.replace(year=wall.year + wall.month // 12, month=wall.month % 12 + 1)


# Steps of a naive wall clock: a day is the next date, whatever length DST gives it.
_STEPS: dict[str, Callable[[datetime], datetime]] = {
    "year": lambda wall: wall.replace(year=wall.year + 1),
    "month": _next_month,
    "day": lambda wall: wall + timedelta(days=1),
    "hour": lambda wall: wall + timedelta(hours=1),
}
_FRACTION = re.compile(r"\.(\d+)")


def _like(original: object, moment: datetime, unit: str | None) -> object:
    """``moment`` in the same representation (and fraction digits) as the caller's parameter."""
    if isinstance(original, datetime):
        return moment
    if isinstance(original, str):
        fraction = _FRACTION.search(original)
        return format_with_digits(moment, len(fraction.group(1)) if fraction else 0)
    return epoch_ms(moment) if unit == "epoch_ms" else epoch_s(moment)
