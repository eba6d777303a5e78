"""Idempotent batch ingestion: readings + the ``processed_batches`` marker, written exactly once.

The document's plan is one TransactWriteItems: the marker with ``attribute_not_exists(batch_id)``
plus the readings, so a duplicate cancels everything. That fits 1-99 readings; the document also
allows 100, i.e. 101 actions, over DynamoDB's limit of 100. A 100-reading batch is therefore
written as the marker, *pending*, then one transaction of its readings, then the marker done
(``_marker_first``):

* the marker holds a digest of the readings (``readings_digest``), so a replay with other readings
  (more, fewer or changed) is a ``BatchConflictError`` decided from the marker alone, and for a
  100-reading batch decided before any reading of the second request is written: two requests
  sharing a batch_id can never mix or overwrite each other's readings;
* reading keys are ``{timestamp_ms:013}#{batch_id}``, deterministic and owned by the batch, so the
  same request sent again while the first is pending (a concurrent retry, or one after a crash)
  rewrites the same items, never a second copy, and finishes the marker;
* readers see all 100 readings or none (they are one transaction); only the marker lags;
* a readings transaction the table refuses (an item over 400 KB, say) wrote nothing, and sent again
  it would be refused again: the pending marker is released, so the corrected batch can use the
  batch_id; a write that may have happened (a crash, a timeout) keeps it for the retry to finish.

The runtime's ``put_many`` plans the same way but keeps its marker in the readings' own table; the
document prescribes a separate ``processed_batches`` table, hence this module (README, decisions).
Both plans go through the runtime's public calls: ``rt.transact`` validates every reading before
it writes anything (``rt.compose`` does first where the batch is refused for something else or
written in several transactions), writes the marker (a create) with the readings, and a
``ConflictError`` on operation 0 (the marker) means the batch_id was seen before.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Context, Decimal

from botocore.exceptions import ClientError

from tablewright.design.validators import Violation
from tablewright.runtime import (
    ConditionFailedError,
    ConflictError,
    Runtime,
    TransactionTooLargeError,
    ValidationError,
)

from .clock import rfc3339, utc_now

MAX_READINGS = 100  # "Batch Size: 1-100 readings per request"
MAX_TRANSACTION_ACTIONS = 100  # DynamoDB TransactWriteItems
SEEN_ATTEMPTS = 8  # optimistic retries of the activity update under a storm of one device's requests
MARKER_OPERATION = 0  # the marker is the first operation of the one-transaction plan
# The window of reading timestamps whose TTL (timestamp + 90 days) DynamoDB acts on as the retention
# means: TTL deletes ignore items whose TTL is more than five years in the past, and a clock running
# ahead would keep its readings past the retention (README, decisions).
OLDEST_READING = timedelta(days=5 * 365 - 90)
NEWEST_READING = timedelta(days=1)
BATCH_FIELDS = ("hardware_id", "batch_id")  # the batch's, never a reading's own
REPLAY_COMPARED = ("boot_id", "firmware_version", "sensors", "sensor_status")


class UnknownDeviceError(LookupError):
    """Readings for a hardware_id that never registered."""


class BatchConflictError(RuntimeError):
    """The batch_id was already processed for another device or with other readings: not a retry."""


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
    violations = _unknown_fields(readings) + _foreign_batch_fields(readings, shared)
    violations += _timestamp_window(readings, moment)
    values = [{**dict(r), **shared} for r in readings]  # the batch's identity wins, never a reading's
    repeated = _same_instant(values)
    one_transaction = len(values) + 1 <= MAX_TRANSACTION_ACTIONS
    if violations or repeated or not one_transaction or not _digestible(values):
        # Every reading's rules too, so that the answer lists every problem at once, and before
        # the marker of a batch written in several transactions (or whose digest cannot be made).
        # A batch of one transaction is checked by the transaction, before it writes anything:
        # each reading composed once, not twice (composing was half of an ingest's time).
        violations += _reading_violations(rt, values, moment)
    violations += repeated
    if violations:
        raise ValidationError("Reading", violations)
    marker = {"batch_id": batch_id, "hardware_id": hardware_id, "readings_digest": readings_digest(values)}
    if one_transaction:
        result = _one_transaction(rt, marker, values, moment)
    else:
        result = _marker_first(rt, marker, values, moment)
    if str(device.get("last_seen_at", "")) < rfc3339(moment):  # else a request this second moved it
        _seen(rt, hardware_id, moment)
    return result


def _seen(rt: Runtime, hardware_id: str, moment: datetime) -> None:
    """Move the device's ``last_seen_at`` (and with it gsi1sk) forward to this request, never back.

    After the batch, not inside its transaction: a crash in between leaves last_seen_at behind
    until the next request, which is acceptable for an activity listing; inside, every ingestion of
    a device would contend on its Device item and take a transaction action from the batch.
    """
    seen = rfc3339(moment)
    for _ in range(SEEN_ATTEMPTS):
        try:
            rt.update(
                "Device",
                {"hardware_id": hardware_id},
                {"last_seen_at": seen},
                condition="last_seen_at < :seen",
                condition_params={"seen": seen},
                now=moment,
            )
            return
        except ConditionFailedError:
            return  # a request at least as recent already moved it
        except ConflictError:
            continue  # a concurrent request of the same device wrote the item in between: re-read
    # Still contended after SEEN_ATTEMPTS: the concurrent writers carry the same or a later time,
    # so last_seen_at is moved by them; the batch itself is stored either way.


READING_FIELDS = ("timestamp_ms", "sensors", "sensor_status", *BATCH_FIELDS)


def _unknown_fields(readings: Sequence[Mapping[str, object]]) -> list[Violation]:
    """Fields a reading may not carry (README D12): the batch supplies boot_id, firmware_version and
    the friendly_name snapshot, the design computes the rest; taking them silently from a reading
    would let a client forge the "at ingestion" name."""
    return [
        Violation("Reading", f"[{index}].{name}", "unknown_field", "is not a field of a reading")
        for index, reading in enumerate(readings)
        for name in reading
        if name not in READING_FIELDS
    ]


def _foreign_batch_fields(
    readings: Sequence[Mapping[str, object]], batch: Mapping[str, object]
) -> list[Violation]:
    """A reading naming another device or batch than the request's (it would be stored under the batch)."""
    return [
        Violation(
            "Reading",
            f"[{index}].{name}",
            "batch_identity",
            f"{name} {reading[name]!r} differs from the batch's {batch[name]!r}",
        )
        for index, reading in enumerate(readings)
        for name in BATCH_FIELDS
        if name in reading and reading[name] != batch[name]
    ]


def _timestamp_window(readings: Sequence[Mapping[str, object]], now: datetime) -> list[Violation]:
    """Readings whose TTL DynamoDB would never act on (too old) or act on years late (ahead of now)."""
    oldest = int((now - OLDEST_READING).timestamp() * 1000)
    newest = int((now + NEWEST_READING).timestamp() * 1000)
    found = []
    for index, reading in enumerate(readings):
        ts = reading.get("timestamp_ms")
        if isinstance(ts, bool) or not isinstance(ts, (int, Decimal)) or oldest <= ts <= newest:
            continue  # in the window, or not a number: the design's epoch_ms rule names it
        problem = "older than" if ts < oldest else "newer than"
        message = (
            f"timestamp_ms {ts} is {problem} the accepted window [{oldest}, {newest}] (received "
            f"{rfc3339(now)}): its TTL would be one DynamoDB never acts on or keeps past the retention"
        )
        found.append(Violation("Reading", f"[{index}].timestamp_ms", "ttl_window", message))
    return found


def _reading_violations(
    rt: Runtime, values: Sequence[Mapping[str, object]], now: datetime
) -> list[Violation]:
    """Every rule every reading breaks, the attribute prefixed with the reading's index."""
    found = []
    for index, value in enumerate(values):
        try:
            rt.compose("Reading", value, now=now)
        except ValidationError as exc:
            found += [
                Violation(v.entity, f"[{index}].{v.attribute}", v.rule, v.message) for v in exc.violations
            ]
    return found


def _digestible(values: Sequence[Mapping[str, object]]) -> bool:
    """Whether every reading has a time ``readings_digest`` can spell: a finite number (a string, a
    map or a missing time is the validation's to name)."""
    return all(_is_number(value.get("timestamp_ms")) for value in values)


def _is_number(value: object) -> bool:
    return isinstance(value, int | Decimal) and not isinstance(value, bool) and Decimal(value).is_finite()


def _same_instant(values: Sequence[Mapping[str, object]]) -> list[Violation]:
    # Two readings of one batch at the same millisecond would compose the same ts_batch key and the
    # second would silently replace the first.
    seen: dict[object, int] = {}
    found = []
    for index, value in enumerate(values):
        ts = value.get("timestamp_ms")
        if not isinstance(ts, int | Decimal) or isinstance(ts, bool):
            continue  # not a number: the design's epoch_ms rule names it
        if ts in seen:
            message = f"timestamp_ms {ts} repeats reading [{seen[ts]}]: both would have the same ts_batch key"
            found.append(Violation("Reading", f"[{index}].timestamp_ms", "unique_in_batch", message))
        seen.setdefault(ts, index)
    return found


def _one_transaction(rt: Runtime, marker: dict, values: list[dict], now: datetime) -> IngestResult:
    """The document's plan: marker (must be new) + readings, all or nothing."""
    operations = [rt.tx_put("ProcessedBatch", marker)]
    operations += [rt.tx_put("Reading", value) for value in values]
    try:
        result = rt.transact(operations, now=now)
    except ConflictError as error:
        if getattr(error, "operation", None) != MARKER_OPERATION:
            raise
        return _duplicate(rt, marker, values)
    except ValidationError as error:
        # In the words of a batch checked before writing (each reading's rules, by index); the
        # marker's rules are the readings' batch_id rules, so it has none of its own to add.
        found = _reading_violations(rt, values, now)
        raise (ValidationError("Reading", found) if found else _as_readings(error, offset=-1)) from None
    return IngestResult("accepted", marker["batch_id"], len(values), result.plan)


_OPERATION = re.compile(r"\[(\d+)\]\.?")


def _as_readings(error: ValidationError, *, offset: int) -> ValidationError:
    """``error`` with a transaction's operation indexes (``[op].attribute``) turned into the indexes
    of the readings in the request: reading = op + ``offset``. A negative one is the marker, whose
    attributes are the batch's own (``batch_id``), named without an index."""
    violations = []
    for violation in error.violations:
        attribute = violation.attribute
        found = _OPERATION.match(attribute)
        if found:
            reading, rest = int(found.group(1)) + offset, attribute[found.end() :]
            if reading < 0:
                attribute = rest or "batch_id"
            else:
                attribute = f"[{reading}]" + (f".{rest}" if rest else "")
        violations.append(Violation(violation.entity, attribute, violation.rule, violation.message))
    return ValidationError("Reading", violations)


def _marker_first(rt: Runtime, marker: dict, values: list[dict], now: datetime) -> IngestResult:
    """The pending marker, the readings (one transaction), the marker done (module docstring)."""
    try:
        rt.put("ProcessedBatch", {**marker, "state": "pending"}, now=now)
        status = "accepted"
    except ConflictError:
        stored = _same_batch(rt, marker, values)  # or BatchConflictError: nothing of this one written
        if stored.get("state") != "pending":
            return IngestResult("duplicate", str(marker["batch_id"]), len(values), "already processed")
        status = "duplicate"  # the same request, still pending: finish it (a crash, or a racing retry)
    starts = range(0, len(values), MAX_TRANSACTION_ACTIONS)
    for first in starts:
        chunk = values[first : first + MAX_TRANSACTION_ACTIONS]
        try:
            # The same readings again when the same request finishes a pending batch: an explicit replace.
            rt.transact([rt.tx_replace("Reading", value) for value in chunk], now=now)
        except (ValidationError, TransactionTooLargeError, ClientError) as error:
            if not _refused(error):
                raise  # throttled or unreachable: it may yet have been written; the retry finishes it
            _release(rt, marker)
            if isinstance(error, ValidationError):
                raise _as_readings(error, offset=first) from None
            raise
    rt.update("ProcessedBatch", {"batch_id": marker["batch_id"]}, {"state": None}, now=now)
    plan = f"marker, {len(starts)} transaction{'s' if len(starts) > 1 else ''} of readings, marker done"
    return IngestResult(status, marker["batch_id"], len(values), plan)


def _refused(error: Exception) -> bool:
    """The table (or the runtime before sending) refused the request itself: nothing of it was
    written, and sent again it would be refused again. A ``ClientError`` other than DynamoDB's
    ValidationException (throttling, a timeout) leaves open whether it was written."""
    if isinstance(error, ClientError):
        return error.response.get("Error", {}).get("Code") == "ValidationException"
    return True


def _release(rt: Runtime, marker: Mapping[str, object]) -> None:
    """Delete the pending marker of a batch whose readings were refused, so the corrected batch may
    use the batch_id instead of getting a 30-day ``conflicting_replay``. Only a pending marker of
    these very readings: a finished one, or one of other readings, is not this request's."""
    with contextlib.suppress(ConditionFailedError):  # a racing copy of this request released it first
        rt.delete(
            "ProcessedBatch",
            {"batch_id": marker["batch_id"]},
            condition="state = :pending AND readings_digest = :digest",
            condition_params={"pending": "pending", "digest": marker["readings_digest"]},
        )


def readings_digest(values: Sequence[Mapping[str, object]]) -> str:
    """What identifies a batch's readings: every compared field of every reading, in time order.

    The friendly_name snapshot is left out: a rename between the first delivery and the retry does
    not make the retry another batch. A time is spelled as the whole number it is (1795804599193,
    however the request wrote it: ``1795804599193.0``, ``1795804599193e0``), the spelling every
    digest stored so far was made of, and the rows are ordered by that number.
    """
    rows = sorted(
        (
            [_time_text(value["timestamp_ms"]), *(_canonical(value.get(name)) for name in REPLAY_COMPARED)]
            for value in values
        ),
        key=lambda row: Decimal(row[0]),
    )
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


def _time_text(timestamp: object) -> str:
    # Validation let only whole numbers through; the fallback keeps this total for any number.
    number = Decimal(timestamp)  # type: ignore[arg-type]
    if number == number.to_integral_value():
        return str(int(number))
    return str(number.normalize(_WIDE))


_WIDE = Context(prec=100)  # normalising never rounds a number DynamoDB stores (38 digits)


def _canonical(value: object) -> object:
    # One spelling per number (7, 7.0, 7.00), so a retry that spells a value differently is a retry.
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, Decimal | int) and not isinstance(value, bool):
        return str(Decimal(value).normalize(_WIDE))
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    return value


def _same_batch(rt: Runtime, marker: Mapping, values: Sequence[Mapping[str, object]]) -> Mapping:
    """The stored marker of ``marker``'s batch_id, when it is this batch (else BatchConflictError)."""
    stored = rt.get("ProcessedBatch", batch_id=marker["batch_id"]) or {}
    if stored.get("hardware_id", marker["hardware_id"]) != marker["hardware_id"]:
        raise BatchConflictError(
            f"batch_id {marker['batch_id']!r} was processed for device {stored['hardware_id']}, "
            f"not {marker['hardware_id']}"
        )
    if "readings_digest" in stored:
        if stored["readings_digest"] != marker["readings_digest"]:
            raise BatchConflictError(
                f"batch_id {marker['batch_id']!r} was processed with other readings "
                f"(another number of readings, or other times or values)"
            )
    else:  # a marker written before digests: compare the readings themselves
        difference = _replay_difference(rt, values)
        if difference:
            raise BatchConflictError(
                f"batch_id {marker['batch_id']!r} was processed with other readings: {difference}"
            )
    return stored


def _duplicate(rt: Runtime, marker: dict, values: Sequence[Mapping[str, object]]) -> IngestResult:
    _same_batch(rt, marker, values)
    return IngestResult("duplicate", str(marker["batch_id"]), len(values), "already processed")


def _replay_difference(rt: Runtime, values: Sequence[Mapping[str, object]]) -> str | None:
    """What a replay changes in the stored batch (None when it is the same batch sent again).

    Only duplicates pay these reads (one GetItem per reading). The friendly_name snapshot is left
    out: a rename between the first delivery and the retry does not make the retry another batch.
    """
    for index, value in enumerate(values):
        stored = rt.get(
            "Reading",
            hardware_id=value["hardware_id"],
            timestamp_ms=value["timestamp_ms"],
            batch_id=value["batch_id"],
        )
        if stored is None:
            return f"reading [{index}] (timestamp_ms {value['timestamp_ms']}) is not in the stored batch"
        for name in REPLAY_COMPARED:
            if stored.get(name) != value.get(name):
                return f"reading [{index}].{name} differs from the stored reading"
    return None
