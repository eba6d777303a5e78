"""Running each kind of step for real (``EXECUTORS``: step type -> function). Every executor is
resumable: it reads its step's state, skips what is done and records what it finishes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from . import tables
from .context import Context, MigrationError
from .io import KeySchemas, Writer, bind_transform, encode, guarded, outputs
from .load import Load, run_load
from .parallel import scan_parallel
from .progress import Bar
from .steps import Backfill, Copy, CreateIndex, CreateTable, DeleteTable, Item
from .verify import verify_copy


def _create_table(ctx: Context, step: CreateTable) -> dict[str, Any]:
    spec = step.spec if step.spec is not None else tables.like(ctx.client, step.like or "", step.table)
    calls = dict(step.calls)
    if step.ttl and "UpdateTimeToLive" not in calls:
        calls["UpdateTimeToLive"] = {
            "TableName": step.table,
            "TimeToLiveSpecification": {"Enabled": True, "AttributeName": step.ttl},
        }
    return {"table": step.table, "result": tables.create(ctx.client, spec, calls)}


def _create_index(ctx: Context, step: CreateIndex) -> dict[str, Any]:
    name = step.index["IndexName"]
    existing = ctx.client.describe_table(TableName=step.table)["Table"].get("GlobalSecondaryIndexes", [])
    if any(i["IndexName"] == name for i in existing):
        return {"table": step.table, "index": name, "result": "exists"}
    request: dict[str, Any] = {
        "TableName": step.table,
        "GlobalSecondaryIndexUpdates": [{"Create": step.index}],
    }
    if step.attribute_definitions:
        request["AttributeDefinitions"] = step.attribute_definitions
    ctx.client.update_table(**request)
    tables.wait_active(ctx.client, step.table)
    return {"table": step.table, "index": name, "result": "created"}


def _copy(ctx: Context, step: Copy) -> dict[str, Any]:
    status = ctx.state.step(step.id).get("status")
    if status not in ("copied", "verified"):
        _copy_items(ctx, step)
        ctx.state.update(step.id, status="copied")
    if status != "verified":
        verdict = verify_copy(ctx.client, step, segments=ctx.segments, page_size=ctx.page_size)
        ctx.state.update(step.id, verification=verdict.as_dict())
        if not verdict.ok:
            raise MigrationError(f"{step.id}: verification failed: {_failure(verdict.as_dict())}")
        ctx.state.update(step.id, status="verified")
    result = {"source": step.source, "target": step.target, **_written(ctx, step.id)}
    result["verification"] = ctx.state.step(step.id).get("verification")
    if step.delete_source:
        result["source_deleted"] = tables.delete(ctx.client, step.source)
    return result


def _failure(verdict: dict[str, Any]) -> str:
    parts = [
        f"{t}: expected {v['expected']['count']} items, found {v['actual']['count']}"
        + ("" if v["expected"]["count"] != v["actual"]["count"] else " (same count, different content)")
        for t, v in verdict["tables"].items()
        if not v["ok"]
    ]
    return "; ".join(parts)


def _written(ctx: Context, step_id: str) -> dict[str, int]:
    cursors = ctx.state.step(step_id).get("cursors", {})
    return {"writes": sum(c.get("written", 0) for c in cursors.values())}


def _copy_items(ctx: Context, step: Copy) -> None:
    keys = KeySchemas(ctx.client)
    writers: dict[int, Writer] = {}
    transform = bind_transform(ctx.client, step.source, step.transform)

    def handle(segment: int, items: list[Item]) -> int:
        writer = writers.setdefault(segment, Writer(ctx.client, keys))
        writes = [w for item in items for w in outputs(transform(item), step.target)]
        return writer.write(writes)

    total = tables.item_count(ctx.client, step.source)
    with Bar(ctx.console, f"copy {step.source} -> {step.target}", total) as bar:
        scan_parallel(
            ctx.client,
            step.source,
            handle,
            segments=ctx.segments,
            page_size=ctx.page_size,
            bar=bar,
            state=ctx.state,
            step_id=step.id,
        )


def _backfill_value(step: Backfill, item: Item) -> Any:
    if step.only_missing and step.attribute in item:
        return None
    return guarded(step.function, "backfill function", step.function)(item)


def _backfill(ctx: Context, step: Backfill) -> dict[str, Any]:
    keys = KeySchemas(ctx.client)

    def handle(_: int, items: list[Item]) -> int:
        done = 0
        for item in items:
            value = _backfill_value(step, item)
            if value is None:
                continue
            ctx.client.update_item(
                TableName=step.table,
                Key=encode({n: item[n] for n in keys(step.table)}),
                UpdateExpression="SET #a = :v",
                ExpressionAttributeNames={"#a": step.attribute},
                ExpressionAttributeValues=encode({":v": value}),
            )
            done += 1
        return done

    if ctx.state.step(step.id).get("status") != "written":
        with Bar(
            ctx.console, f"backfill {step.table}.{step.attribute}", tables.item_count(ctx.client, step.table)
        ) as bar:
            scan_parallel(
                ctx.client,
                step.table,
                handle,
                segments=ctx.segments,
                page_size=ctx.page_size,
                bar=bar,
                state=ctx.state,
                step_id=step.id,
            )
        ctx.state.update(step.id, status="written")
    wrong = _backfill_mismatches(ctx, step)
    if wrong:
        raise MigrationError(
            f"{step.id}: verification failed: {wrong} item(s) do not hold {step.attribute} = function(item)"
        )
    return {
        "table": step.table,
        "attribute": step.attribute,
        **_written(ctx, step.id),
        "verification": {"ok": True},
    }


def _backfill_mismatches(ctx: Context, step: Backfill) -> int:
    """Items that do not hold what the backfill was to give them. With ``only_missing`` that is an
    item still without the attribute: one that held a value before keeps it, whatever the function
    says now (after the run, nothing tells the items it filled from those it left alone)."""
    function = guarded(step.function, "backfill function", step.function)

    def wrong(item: Item) -> bool:
        if step.only_missing and step.attribute in item:
            return False
        want = function(item)
        return want is not None and item.get(step.attribute) != want

    def handle(_: int, items: list[Item]) -> int:
        return sum(1 for item in items if wrong(item))

    return scan_parallel(ctx.client, step.table, handle, segments=ctx.segments, page_size=ctx.page_size)


def _delete_table(ctx: Context, step: DeleteTable) -> dict[str, Any]:
    for copy in ctx.plan.copies_from(step.table):
        if ctx.state.step(copy.id).get("status") not in ("verified", "done"):
            raise MigrationError(
                f"{step.id}: refusing to delete {step.table!r}: the copy {copy.id!r} of this plan has not verified"
            )
    try:
        return {"table": step.table, "result": tables.delete(ctx.client, step.table)}
    except ClientError as error:
        raise MigrationError(f"{step.id}: {error}") from None


EXECUTORS: dict[type, Callable[[Context, Any], dict[str, Any]]] = {
    CreateTable: _create_table,
    CreateIndex: _create_index,
    Copy: _copy,
    Backfill: _backfill,
    DeleteTable: _delete_table,
    Load: run_load,
}
