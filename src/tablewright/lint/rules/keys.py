"""Key rules (TW1xx): partition keys that concentrate load, and LSI item collections that can fill up."""

from __future__ import annotations

from collections.abc import Iterator

from tablewright.cost import analysis
from tablewright.cost.estimate import PARTITION_RCU, PARTITION_WCU, key_write_load

from ..context import Context, Placement
from ..registry import Hit, rule

LOW_CARDINALITY = 10  # at most this many live key values counts as "low"
LOAD_SHARE = 0.10  # a low-cardinality key matters once one value carries 10% of a partition's limit
LSI_COLLECTION_BYTES = 10 * 1024**3
LSI_HORIZON_MONTHS = 36  # growth is judged over three years


def _load(ctx: Context, placement: Placement) -> tuple[float | None, float | None]:
    name = (
        placement.table_name if placement.index is None else f"{placement.table_name}/{placement.index.name}"
    )
    target = ctx.estimate.targets.get(name)
    return (target.partition_wcu, target.partition_rcu) if target else (None, None)


def _percent(value: float, limit: int) -> str:
    return f"{value:,.1f} units/s ({value / limit:.0%} of {limit:,})"


@rule(
    "TW101",
    "low-cardinality-partition-key",
    "keys",
    "warning",
    "A partition key with few (or one) values carries a large share of the load on one key value.",
    "DynamoDB serves each partition key value from one partition: 3,000 read and 1,000 write units per "
    "second at most. A status, a type or a constant as partition key puts everything on a handful of "
    "values; as volumes grow those values throttle while the rest of the table idles.",
    "Add a high-cardinality component to the key (an id), shard it ({attr|shard:N}) and fan reads out, "
    "or make the index sparse so only the few items that need it land there.",
)
def low_cardinality(ctx: Context) -> Iterator[Hit]:
    for placement in ctx.placements():
        card = analysis.key_cardinality(placement.entity, placement.key.pk)
        if card.kind not in ("constant", "enum") or card.values is None or card.values > LOW_CARDINALITY:
            continue
        wcu, rcu = _load(ctx, placement)
        # The writes on this entity's own key values, not the busiest key of everything in the table
        # (in a single-table design another entity's key may be the busy one).
        own = key_write_load(
            ctx.design, placement.entity.name, placement.key_name if placement.index else None
        )
        wcu = own if own is not None else wcu
        pk = placement.key.pk.source
        if not ctx.has_volumes:
            if card.kind == "constant":
                yield Hit(
                    placement.path,
                    f"{placement.label}: partition key {pk!r} of {placement.entity.name} is a constant; every item "
                    "shares one key value (declare volumes so lint can judge the load)",
                    severity="info",
                )
            continue
        busy = [
            f"writes {_percent(wcu, PARTITION_WCU)}"
            if wcu and PARTITION_WCU * LOAD_SHARE <= wcu <= PARTITION_WCU
            else "",
            f"reads {_percent(rcu, PARTITION_RCU)}"
            if rcu and PARTITION_RCU * LOAD_SHARE <= rcu <= PARTITION_RCU
            else "",
        ]
        busy = [b for b in busy if b]
        head = (
            f"{placement.label}: partition key {pk!r} of {placement.entity.name} has {card.values} value(s)"
        )
        if busy:
            yield Hit(placement.path, f"{head} ({card.why}); at peak one value takes {' and '.join(busy)}")
        elif not (wcu and wcu > PARTITION_WCU) and not (rcu and rcu > PARTITION_RCU):  # TW103 reports those
            yield Hit(placement.path, f"{head}; {_headroom(ctx, placement, wcu)}", severity="info")


def _headroom(ctx: Context, placement: Placement, wcu: float | None) -> str:
    """How far a quiet low-cardinality key is from mattering: the entity's writes/day (creates and
    updates) at which its busiest value reaches ``LOAD_SHARE`` of a partition's write units."""
    volume = ctx.design.volumes.entities.get(placement.entity.name)
    per_day = (volume.writes_per_second + volume.updates_per_second) * 86400 if volume else 0.0
    if not wcu or not per_day:
        return "no writes declared on it, so its load cannot be judged"
    reach = per_day * PARTITION_WCU * LOAD_SHARE / wcu
    return (
        f"busiest value {wcu:.2g} WCU/s at peak; it reaches {LOAD_SHARE:.0%} of a partition "
        f"({PARTITION_WCU * LOAD_SHARE:,.0f} WCU/s) at {reach:,.0f} writes/day (now {per_day:,.0f})"
    )


@rule(
    "TW102",
    "time-partition-key",
    "keys",
    "warning",
    "A timestamp or a date bucket is (the varying part of) a partition key.",
    "With a date bucket as partition key every write of the period goes to the current bucket: one hot "
    "key value. A raw timestamp as partition key spreads writes but makes a time range unqueryable: each "
    "instant is its own partition, so ranges need a Scan.",
    "Lead the key with a high-cardinality id (USER#{userId}#{ts|year}) or keep the time in the sort key; "
    "for time series prefer one table per period (AWS's recommended pattern).",
)
def time_partition_key(ctx: Context) -> Iterator[Hit]:
    for placement in ctx.placements():
        card = analysis.key_cardinality(placement.entity, placement.key.pk)
        if card.kind != "time":
            continue
        head = f"{placement.label}: partition key {placement.key.pk.source!r} of {placement.entity.name}"
        if card.values is None:
            yield Hit(placement.path, f"{head} is a raw timestamp ({card.why})")
            continue
        # A date bucket puts the period's writes on one value: a problem only under load, as for
        # TW101 (WOMS insolation: 0.02 units/s per day against 1,000, and the day is what is read).
        wcu = key_write_load(
            ctx.design, placement.entity.name, placement.key_name if placement.index else None
        )
        if wcu is None:
            load = "; all current writes hit one key value (declare the entity's writes so lint can judge the load)"
        elif wcu >= PARTITION_WCU * LOAD_SHARE:
            load = f"; all current writes hit one key value: {_percent(wcu, PARTITION_WCU)} at peak"
        else:
            continue
        yield Hit(placement.path, f"{head} is a time bucket ({card.why}){load}")


@rule(
    "TW103",
    "hot-partition",
    "keys",
    "error",
    "At the declared peak one partition key value needs more than a partition can serve.",
    "A single partition key value is served by one partition: 1,000 write units and 3,000 read units per "
    "second. Beyond that requests throttle, whatever the table's total capacity.",
    "Shard the key ({attr|shard:N}) and fan reads out, cache the hot reads, or spread the key with a "
    "higher-cardinality attribute.",
)
def hot_partition(ctx: Context) -> Iterator[Hit]:
    for target in ctx.estimate.targets.values():
        over = []
        if target.partition_wcu and target.partition_wcu > PARTITION_WCU:
            over.append(f"writes {_percent(target.partition_wcu, PARTITION_WCU)}")
        if target.partition_rcu and target.partition_rcu > PARTITION_RCU:
            over.append(f"reads {_percent(target.partition_rcu, PARTITION_RCU)}")
        if over:
            path = (
                ("tables", target.table)
                if target.index is None
                else ("tables", target.table, "indexes", target.index)
            )
            yield Hit(path, f"{target.name}: at peak the busiest key value needs {' and '.join(over)}")


@rule(
    "TW104",
    "lsi-unbounded-collection",
    "keys",
    "warning",
    "A table with a local secondary index stores item collections that can grow past 10 GB.",
    "With an LSI, all items sharing a partition key value (an item collection, table and LSI entries) "
    "must fit in 10 GB; the next write fails with ItemCollectionSizeLimitExceededException.",
    "Expire old items with TTL, bound the collection (e.g. a time bucket in the partition key), or use a "
    "GSI, which has no collection limit.",
)
def lsi_collections(ctx: Context) -> Iterator[Hit]:
    design = ctx.design
    for tname, table in design.tables.items():
        lsis = [i for i in table.indexes.values() if i.kind == "local"]
        if not lsis or table.sort_key is None:
            continue
        for entity in design.entities_in(tname):
            if table.ttl and table.ttl in entity.attributes:
                continue  # TTL bounds the collection
            volume = design.volumes.entities.get(entity.name)
            if volume is not None:
                size = ctx.size(entity.name).typical + 100
                horizon = (
                    (volume.items + volume.growth_per_month * LSI_HORIZON_MONTHS) * size * (1 + len(lsis))
                )
                if horizon < LSI_COLLECTION_BYTES:
                    continue  # even all items in one collection would fit
                growth = f"{volume.growth_per_month:,} items/month, no TTL"
            else:
                growth = "no TTL and no volumes to bound it"
            yield Hit(
                ("tables", tname, "indexes", lsis[0].name),
                f"table {tname} has LSI {lsis[0].name}; item collections of {entity.name} grow without bound "
                f"({growth}) and are capped at 10 GB per partition key value",
            )
