"""Idempotent batch ingestion: readings + the ``processed_batches`` marker, written exactly once.

The document's plan is one TransactWriteItems: the marker with ``attribute_not_exists(batch_id)``
plus the readings, so a duplicate cancels everything. That fits 1-99 readings; the document also
allows 100, i.e. 101 actions, over DynamoDB's limit of 100. A 100-reading batch is therefore
written as one transaction of its readings followed by the marker (``MARKER_LAST``):

* reading keys are ``{timestamp_ms:013}#{batch_id}``, deterministic and owned by the batch, so a
  retry (after a crash, or racing the first attempt) rewrites the same items, never a second copy;
* the marker is written last, so a crash before it leaves no marker and the retry re-applies;
* readers still see all 100 readings or none (they are one transaction); only the marker lags.

The runtime's ``put_many`` plans the same way but keeps its marker in the readings' own table; the
document prescribes a separate ``processed_batches`` table, hence this module (README, decisions).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from botocore.exceptions import ClientError

from tablewright.design.validators import Violation
from tablewright.runtime import Runtime, ValidationError
from tablewright.runtime.items import compose
from tablewright.runtime.wire import item_to_wire
from tablewright.runtime.writes import batch_violations

from .clock import utc_now

MAX_READINGS = 100  # "Batch Size: 1-100 readings per request"
MAX_TRANSACTION_ACTIONS = 100  # DynamoDB TransactWriteItems
CONFLICT_RETRIES = 5  # TransactionConflict: another transaction held an item; back off and retry


class UnknownDeviceError(LookupError):
    """Readings for a hardware_id that never registered."""


class BatchConflictError(RuntimeError):
    """The batch_id was already processed for another device: not a retry, a collision."""


@dataclass
class IngestResult:
    """``status`` is ``accepted`` (this call wrote the batch) or ``duplicate`` (already processed)."""

    status: str
    batch_id: str
    readings: int
    plan: str


def ingest_batch(
    rt: Runtime,
    *,
    hardware_id: str,
    batch_id: str,
    boot_id: str,
    firmware_version: str,
    readings: Sequence[Mapping[str, object]],
    now: datetime | None = None,
) -> IngestResult:
    """Validate a batch (every rule, before any write) and store it once under ``batch_id``.

    Each reading is ``{timestamp_ms, sensors, sensor_status}``; the batch supplies hardware_id,
    batch_id, boot_id, firmware_version and the device's friendly_name at ingestion.
    """
    moment = utc_now(now)
    if not 1 <= len(readings) <= MAX_READINGS:
        problem = f"a batch holds 1-{MAX_READINGS} readings, got {len(readings)}"
        raise ValidationError("Reading", [Violation("Reading", "readings", "batch_size", problem)])
    device = rt.get("Device", hardware_id=hardware_id)
    if device is None:
        raise UnknownDeviceError(
            f"device {hardware_id!r} is not registered; register it before sending readings"
        )
    shared = {
        "hardware_id": hardware_id,
        "batch_id": batch_id,
        "boot_id": boot_id,
        "firmware_version": firmware_version,
    }
    if device.get("friendly_name"):
        shared["friendly_name"] = device["friendly_name"]
    values = [{**shared, **dict(r)} for r in readings]
    violations = batch_violations(rt.entity("Reading"), values) + _same_instant(values)
    if violations:
        raise ValidationError("Reading", violations)
    items = [compose(rt.entity("Reading"), v, now=moment, created=True) for v in values]
    marker = compose(
        rt.entity("ProcessedBatch"),
        {"batch_id": batch_id, "hardware_id": hardware_id},
        now=moment,
        created=True,
    )
    if len(items) + 1 <= MAX_TRANSACTION_ACTIONS:
        return _one_transaction(rt, marker, items)
    return _marker_last(rt, marker, items)


def _same_instant(values: Sequence[Mapping[str, object]]) -> list[Violation]:
    # Two readings of one batch at the same millisecond would compose the same ts_batch key and the
    # second would silently replace the first.
    seen: dict[object, int] = {}
    found = []
    for index, value in enumerate(values):
        ts = value.get("timestamp_ms")
        if ts in seen:
            message = f"timestamp_ms {ts} repeats reading [{seen[ts]}]: both would have the same ts_batch key"
            found.append(Violation("Reading", f"[{index}].timestamp_ms", "unique_in_batch", message))
        seen.setdefault(ts, index)
    return found


def _put(rt: Runtime, entity: str, item: Mapping[str, object], *, new: bool = False) -> dict:
    table = rt.design.table_of(entity)
    put: dict = {"TableName": table.table_name, "Item": item_to_wire(item)}
    if new:
        put["ConditionExpression"] = "attribute_not_exists(#pk)"
        put["ExpressionAttributeNames"] = {"#pk": table.partition_key.name}
    return put


def _one_transaction(rt: Runtime, marker: dict, items: list[dict]) -> IngestResult:
    """The document's plan: marker (must be new) + readings, all or nothing."""
    actions = [{"Put": _put(rt, "ProcessedBatch", marker, new=True)}]
    actions += [{"Put": _put(rt, "Reading", item)} for item in items]
    batch_id = str(marker["batch_id"])
    try:
        _with_conflict_retries(lambda: rt.client.transact_write_items(TransactItems=actions))
    except ClientError as error:
        reasons = error.response.get("CancellationReasons") or []
        if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
            return _duplicate(rt, marker, len(items))
        raise
    return IngestResult("accepted", batch_id, len(items), f"1 transaction of {len(actions)} actions")


def _marker_last(rt: Runtime, marker: dict, items: list[dict]) -> IngestResult:
    """Readings in transactions of at most 100 actions, then the marker (see the module docstring)."""
    processed = rt.get("ProcessedBatch", batch_id=marker["batch_id"])
    if processed is not None:
        return _duplicate(rt, marker, len(items), processed)
    chunks = [items[i : i + MAX_TRANSACTION_ACTIONS] for i in range(0, len(items), MAX_TRANSACTION_ACTIONS)]
    for chunk in chunks:
        actions = [{"Put": _put(rt, "Reading", item)} for item in chunk]
        _with_conflict_retries(lambda actions=actions: rt.client.transact_write_items(TransactItems=actions))
    try:
        rt.client.put_item(**_put(rt, "ProcessedBatch", marker, new=True))
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        # A concurrent retry of the same batch wrote the marker first: same items, one copy.
        return _duplicate(rt, marker, len(items))
    plan = f"{len(chunks)} transaction{'s' if len(chunks) > 1 else ''} of readings + marker"
    return IngestResult("accepted", str(marker["batch_id"]), len(items), plan)


def _duplicate(rt: Runtime, marker: dict, count: int, processed: Mapping | None = None) -> IngestResult:
    stored = processed or rt.get("ProcessedBatch", batch_id=marker["batch_id"])
    if stored is not None and stored["hardware_id"] != marker["hardware_id"]:
        raise BatchConflictError(
            f"batch_id {marker['batch_id']!r} was processed for device {stored['hardware_id']}, "
            f"not {marker['hardware_id']}"
        )
    return IngestResult("duplicate", str(marker["batch_id"]), count, "already processed")


def _with_conflict_retries(send: Callable[[], object]) -> None:
    delay = 0.02
    for attempt in range(CONFLICT_RETRIES):
        try:
            send()
            return
        except ClientError as error:
            reasons = error.response.get("CancellationReasons") or []
            conflict = any(r.get("Code") == "TransactionConflict" for r in reasons)
            if not conflict or attempt == CONFLICT_RETRIES - 1:
                raise
            time.sleep(delay)  # DynamoDB asks for a retry with backoff
            delay *= 2
