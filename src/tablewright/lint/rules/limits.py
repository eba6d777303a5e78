"""Limit rules (TW4xx): item size, key size, transactions, batches, projected attributes."""

from __future__ import annotations

from collections.abc import Iterator

from tablewright.cost.sizes import sample_item

from ..context import Context, pattern_path
from ..registry import Hit, rule

ITEM_LIMIT = 400 * 1024
ITEM_WARNING = 300 * 1024  # a typical item this large leaves little room to grow
PK_LIMIT, SK_LIMIT = 2048, 1024
TRANSACTION_ACTIONS, TRANSACTION_BYTES = 100, 4 * 1024 * 1024
BATCH_GET_KEYS, INCLUDE_LIMIT = 100, 100
MARKER_BYTES = 100


@rule(
    "TW401",
    "item-too-large",
    "limits",
    "error",
    "An item can exceed DynamoDB's 400 KB item size limit.",
    "DynamoDB rejects any write of an item over 400 KB (attribute names and values, and LSI entries) with "
    "'Item size has exceeded the maximum allowed size'.",
    "Bound the list/map/string that grows, split the item into several (one per element), compress it, "
    "or store the payload in S3 with a pointer.",
)
def item_too_large(ctx: Context) -> Iterator[Hit]:
    for name in ctx.design.entities:
        size = ctx.size(name)
        if size.largest is not None and size.largest > ITEM_LIMIT:
            yield Hit(
                ("entities", name, "attributes"),
                f"{name}: the largest item its attributes allow is {size.largest / 1024:,.0f} KB (> 400 KB)",
            )
        elif size.source == "volumes" and size.typical > ITEM_WARNING:
            yield Hit(
                ("volumes", "entities", name, "item_size"),
                f"{name}: declared item size {size.typical / 1024:,.0f} KB is near the 400 KB limit",
                severity="error" if size.typical > ITEM_LIMIT else "warning",
            )


@rule(
    "TW402",
    "transaction-too-large",
    "limits",
    "error",
    "A write that must be one transaction can exceed 100 actions or 4 MB.",
    "TransactWriteItems takes at most 100 actions and 4 MB; a larger request fails as a whole with a "
    "ValidationException ('Member must have length less than or equal to 100'). Idempotency and "
    "uniqueness markers are actions too.",
    "Cap the batch so items + markers <= 100, or split it into several transactions with the idempotency "
    "marker in the last one (tablewright's runtime does this, giving up all-or-nothing).",
)
def transaction_too_large(ctx: Context) -> Iterator[Hit]:
    batches = dict(ctx.options.get("batches", {}))  # type: ignore[call-overload]
    for name, entity in ctx.design.entities.items():
        declared = getattr(entity, "max_batch", None)
        count, extra = (declared, 0) if declared else batches.get(name, (0, 0))
        if not count:
            continue
        markers_per_item = len(entity.unique)
        idem = 1 if entity.idempotency_key else 0
        actions = count * (1 + markers_per_item) + idem + extra
        size = ctx.size(name)
        per_item = size.largest if size.largest is not None else size.typical
        total = count * (per_item + markers_per_item * MARKER_BYTES) + (idem + extra) * MARKER_BYTES
        parts = [f"{count} {name} item(s)"]
        if markers_per_item:
            parts.append(f"{count * markers_per_item} unique marker(s)")
        if idem:
            parts.append("1 idempotency marker")
        if extra:
            parts.append(f"{extra} other put(s)")
        where = ("entities", name)
        if actions > TRANSACTION_ACTIONS:
            yield Hit(
                where,
                f"a batch of {' + '.join(parts)} = {actions} actions; TransactWriteItems takes at most 100",
            )
        if total > TRANSACTION_BYTES:
            yield Hit(
                where,
                f"a batch of {count} {name} item(s) can reach {total / 1024**2:,.1f} MB; a transaction takes 4 MB",
            )


@rule(
    "TW403",
    "batch-too-large",
    "limits",
    "error",
    "A batch read asks for more keys than one request takes.",
    "BatchGetItem takes at most 100 keys ('Too many items requested for the BatchGetItem call') and "
    "TransactGetItems at most 100 items.",
    "Bound the key list (max_length: 100) and split larger lists into several requests.",
)
def batch_too_large(ctx: Context) -> Iterator[Hit]:
    for pattern in ctx.design.patterns.values():
        served = pattern.served
        if served.op == "batch_get":
            param = pattern.params.get((served.keys or "").lstrip(":"))
            if param is not None and param.max_length and param.max_length > BATCH_GET_KEYS:
                yield Hit(
                    pattern_path(pattern.name, "params", param.name),
                    f"pattern {pattern.name} can batch {param.max_length} keys; BatchGetItem takes 100",
                )
        if served.op == "transact_get" and len(served.items) > TRANSACTION_ACTIONS:
            yield Hit(
                pattern_path(pattern.name, "served", "items"),
                f"pattern {pattern.name} reads {len(served.items)} items in one transaction; the limit is 100",
            )


@rule(
    "TW404",
    "include-projection-limit",
    "limits",
    "error",
    "A table's indexes project more than 100 INCLUDE attributes in total.",
    "DynamoDB allows at most 100 projected (INCLUDE) attributes summed over all of a table's secondary "
    "indexes; CreateTable/UpdateTable fail beyond that.",
    "Project ALL on the index that needs most attributes, or trim the INCLUDE lists.",
)
def include_limit(ctx: Context) -> Iterator[Hit]:
    for tname, table in ctx.design.tables.items():
        total = sum(
            len(i.projection.attributes) for i in table.indexes.values() if i.projection.type == "INCLUDE"
        )
        if total > INCLUDE_LIMIT:
            yield Hit(
                ("tables", tname, "indexes"),
                f"indexes of table {tname} project {total} INCLUDE attributes (> 100)",
            )


@rule(
    "TW405",
    "key-too-long",
    "limits",
    "error",
    "A key value can exceed DynamoDB's key size limits.",
    "A partition key value may be at most 2,048 bytes and a sort key value at most 1,024 bytes; longer "
    "values are rejected on write.",
    "Bound the attributes the key template uses (max_length), or key on a hash of the long value.",
)
def key_too_long(ctx: Context) -> Iterator[Hit]:
    for placement in ctx.placements():
        item = sample_item(placement.entity, largest=True)
        if item is None:
            continue
        for role, template, limit in (
            ("partition", placement.key.pk, PK_LIMIT),
            ("sort", placement.key.sk, SK_LIMIT),
        ):
            if template is None:
                continue
            try:
                value = template.render(item)
            except (ValueError, TypeError):
                continue
            length = len(value.encode()) if isinstance(value, str) else 0
            if length > limit:
                yield Hit(
                    placement.path,
                    f"{placement.label}: {role} key {template.source!r} of {placement.entity.name} can be "
                    f"{length:,} bytes (limit {limit:,})",
                )
