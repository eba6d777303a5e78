"""Verification: a pattern's ``means`` evaluated over in-memory records vs what ``served`` returns.

``means`` says *what* a pattern returns (predicate, order, limit) without keys; ``served`` says how
DynamoDB is asked. Evaluating the first directly over the sample data and comparing it with the
second through a real client catches key templates, filters, Limit and bucket mistakes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from ..design.model import AccessPattern
from ..design.predicates import MISSING
from ..design.timeutil import parse_rfc3339
from .items import Classifier, to_record
from .page import Stats
from .wire import Record, item_from_wire

if TYPE_CHECKING:
    from .core import Runtime


@dataclass
class Verdict:
    """The comparison for one pattern and one parameter set."""

    pattern: str
    params: dict
    ok: bool = True
    expected: int = 0
    returned: int = 0
    missing: list[dict] = field(default_factory=list)
    extra: list[dict] = field(default_factory=list)
    out_of_order: bool = False
    # The ``means.order`` attribute when the served items lack it (an index that does not project
    # it): their order cannot be judged, and a caller sorting them again could not either.
    unprojected_order: str | None = None
    index: str | None = None
    error: str | None = None
    stats: Stats = field(default_factory=Stats)
    # The records themselves, for showing both sides (``tablewright explore``); not in check's report.
    served_records: list[Record] = field(default_factory=list, repr=False)
    expected_records: list[Record] = field(default_factory=list, repr=False)

    def summary(self) -> str:
        """One line saying what differs."""
        if self.error:
            return f"error: {self.error}"
        if self.ok:
            return "ok"
        parts = []
        if self.missing:
            parts.append(f"{len(self.missing)} missing (e.g. {_short(self.missing[0])})")
        if self.extra:
            parts.append(f"{len(self.extra)} extra (e.g. {_short(self.extra[0])})")
        if self.out_of_order:
            parts.append("out of order")
        if self.unprojected_order:
            where = f"index {self.index}" if self.index else "the served read"
            parts.append(f"orders by {self.unprojected_order}, which {where} does not project")
        if self.expected != self.returned:
            parts.append(f"expected {self.expected} items, served {self.returned}")
        return "; ".join(parts)


def _short(key: Mapping[str, object]) -> str:
    return f"{key.get('entity')} " + "/".join(str(v) for k, v in key.items() if k != "entity")


class _SortKey:
    """Orders values the way ``means.order`` means: missing last, instants as instants."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __lt__(self, other: _SortKey) -> bool:
        if self.value is MISSING or other.value is MISSING:
            return other.value is MISSING and self.value is not MISSING
        pair = _comparable(self.value, other.value)
        if pair is None:  # different types: order by type name for a stable, total order
            return type(self.value).__name__ < type(other.value).__name__
        return pair[0] < pair[1]  # type: ignore[operator]


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | Decimal | float):
        return "number"
    return "instant" if isinstance(value, datetime) else type(value).__name__


def _comparable(a: object, b: object) -> tuple[object, object] | None:
    """Two order values made comparable, or None when their types differ.

    The design's predicate semantics: numbers with numbers, strings with strings, and a ``datetime``
    with an RFC 3339 string as instants. Written here because the design package keeps its own
    version private (``predicates._pair``).
    """
    kinds = {_kind(a), _kind(b)}
    if kinds == {"instant", "str"}:
        try:
            return tuple(parse_rfc3339(x) if isinstance(x, str) else x for x in (a, b))  # type: ignore[return-value]
        except ValueError:
            return None
    return (a, b) if len(kinds) == 1 else None


def _order_value(record: Mapping[str, object], attribute: str) -> object:
    return record.get(attribute, MISSING)


def evaluate_means(
    pattern: AccessPattern, params: Mapping[str, object], records: Iterable[Record]
) -> list[Record]:
    """The records ``means`` selects, in its order, up to its limit."""
    means = pattern.means
    chosen = [r for r in records if r.entity in pattern.returns]
    if means.where is not None:
        chosen = [r for r in chosen if means.where.evaluate(r, params)]
    if means.order is not None:
        attribute = means.order.attribute
        chosen.sort(key=lambda r: _SortKey(_order_value(r, attribute)), reverse=means.order.descending)
    return chosen[: means.limit] if means.limit is not None else chosen


def compare(
    pattern: AccessPattern,
    expected: list[Record],
    served: list[Record],
    verdict: Verdict,
    stored: Iterable[Record] | None = None,
) -> Verdict:
    """Fill ``verdict`` with the differences; ties on the order attribute are interchangeable.
    ``stored`` (every record ``means`` was evaluated over; ``expected`` when not given) tells a
    served record that lacks the order attribute from the stored item that holds it."""
    order = pattern.means.order
    verdict.expected, verdict.returned = len(expected), len(served)
    want = {r.identity: r for r in expected}
    got = {r.identity: r for r in served}
    missing = [r for i, r in want.items() if i not in got]
    extra = [r for i, r in got.items() if i not in want]
    if order is not None and pattern.means.limit is not None and len(expected) == pattern.means.limit:
        # At the limit boundary, records tied with the last expected one may stand in for each other.
        boundary = _order_value(expected[-1], order.attribute) if expected else MISSING
        tied = [r for r in missing if _order_value(r, order.attribute) == boundary]
        swaps = [r for r in extra if _order_value(r, order.attribute) == boundary]
        if len(tied) == len(swaps):
            missing = [r for r in missing if r not in tied]
            extra = [r for r in extra if r not in swaps]
    verdict.missing = [dict(r.key, entity=r.entity) for r in missing]
    verdict.extra = [dict(r.key, entity=r.entity) for r in extra]
    if order is not None and _lacks_order_attribute(order.attribute, stored or expected, served):
        # Said beside missing and extra records too: a limit over an order it cannot see misses some.
        verdict.unprojected_order, verdict.index = order.attribute, pattern.served.index
    elif order is not None and not missing and not extra:
        values = [repr(_order_value(r, order.attribute)) for r in served]
        verdict.out_of_order = values != [repr(_order_value(r, order.attribute)) for r in expected]
    differs = verdict.missing or verdict.extra or verdict.out_of_order or verdict.unprojected_order
    verdict.ok = not differs and len(expected) == len(served)
    return verdict


def _lacks_order_attribute(attribute: str, stored: Iterable[Record], served: list[Record]) -> bool:
    """Whether a served record lacks ``attribute`` that the same stored item has: the index it was
    read through does not project it (an item stored without it lacks it on both sides)."""
    lacking = [record for record in served if attribute not in record]
    if not lacking:
        return False  # the usual case: no index of the stored items to build
    by_identity = {r.identity: r for r in stored}
    return any(attribute in by_identity.get(record.identity, {}) for record in lacking)


def verify_pattern(
    rt: Runtime, name: str, params: Mapping[str, object], records: Iterable[Record]
) -> Verdict:
    """Run pattern ``name`` both ways over ``records`` (what was written) and compare."""
    records = list(records)  # read twice: by ``means`` and to tell what the served items lack
    verdict = Verdict(name, dict(params))
    try:
        pattern = rt.pattern(name)
        prepared = rt.prepare_params(name, params)
        page = rt.run(name, prepared)
        expected = evaluate_means(pattern, prepared, records)
    except Exception as exc:  # a failing pattern is a finding to report, not a crash of the check
        verdict.ok, verdict.error = False, f"{type(exc).__name__}: {exc}"
        return verdict
    verdict.stats = page.stats
    verdict.served_records, verdict.expected_records = list(page.items), expected
    return compare(pattern, expected, page.items, verdict, stored=records)


def stored_records(rt: Runtime, entities: Iterable[str]) -> list[Record]:
    """Every stored item of ``entities`` as a Record (a consistent Scan of their tables).

    What ``means`` is evaluated over when the data was not written by this process (an existing
    database, an endpoint, or sample data since edited).
    """
    wanted = [rt.entity(name) for name in dict.fromkeys(entities)]
    records: list[Record] = []
    for table_name in dict.fromkeys(entity.table for entity in wanted):
        table = rt.design.tables[table_name]
        classify = Classifier(rt.design, [e.name for e in wanted if e.table == table_name])
        request: dict = {"TableName": table.table_name, "ConsistentRead": True}
        while True:
            response = rt.data.scan(**request)
            for raw in response.get("Items", []):
                item = item_from_wire(raw)
                entity = classify(item)
                if entity is not None:
                    records.append(to_record(entity, table, item))
            if "LastEvaluatedKey" not in response:
                break
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]
    return records
