"""Point-in-time recovery: UpdateContinuousBackups, DescribeContinuousBackups, RestoreTableToPointInTime.

While PITR is enabled the engine keeps the before-image of every change to the table (SQLite triggers,
engine/snapshots.py), so a table can be restored, into a new table, as it was at any moment between
enabling PITR (or the start of the recovery period, 1-35 days) and now. Disabling PITR forgets the
history, as DynamoDB does. LatestRestorableDateTime is "now" (DynamoDB's lags about five minutes).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from .. import snapshots
from ..errors import (
    InvalidRestoreTimeException,
    PointInTimeRecoveryUnavailableException,
    ValidationException,
)
from .backups import restore_into, source_table
from .tables import describe, table_name_from_arn

if TYPE_CHECKING:
    from ..catalog import TableMeta
    from ..engine import Engine

_DAY = 86400.0


def restore_window(engine: Engine, meta: TableMeta) -> tuple[float, float] | None:
    """(earliest, latest) restorable times of a table, or None while PITR is off."""
    pitr = meta.extra.get("PointInTimeRecovery", {})
    if not pitr.get("Enabled"):
        return None
    now = engine.clock()
    return max(pitr["Since"], now - pitr.get("RecoveryPeriodInDays", 35) * _DAY), now


def trim_recovery_history(engine: Engine) -> int:
    """Forget, for every table with PITR on, the before-images older than its recovery window, so the
    history a long-running engine keeps is the window's size (the TTL sweeper calls this; a restore
    never needs them). Returns how many before-images were forgotten."""
    if engine.read_only:
        return 0
    forgotten = 0
    for name in engine.store.tables():
        meta = engine.store.table(name)
        window = restore_window(engine, meta) if meta is not None else None
        if meta is None or window is None:
            continue
        with engine.store.read() as conn:
            stale = snapshots.has_history_before(conn, meta, window[0])
        if stale:
            with engine.store.write() as conn:
                forgotten += snapshots.trim_history(conn, meta, window[0])
    return forgotten


def _continuous_backups(engine: Engine, meta: TableMeta) -> dict:
    """What DescribeContinuousBackups reports. ContinuousBackupsStatus is ENABLED for every table, as
    DynamoDB reports it (on-demand backups are always available); PITR is the table's setting."""
    pitr = meta.extra.get("PointInTimeRecovery", {})
    description: dict = {"PointInTimeRecoveryStatus": "ENABLED" if pitr.get("Enabled") else "DISABLED"}
    window = restore_window(engine, meta)
    if window is not None:
        description["RecoveryPeriodInDays"] = pitr.get("RecoveryPeriodInDays", 35)
        description["EarliestRestorableDateTime"], description["LatestRestorableDateTime"] = window
    return {"ContinuousBackupsStatus": "ENABLED", "PointInTimeRecoveryDescription": description}


def update_continuous_backups(engine: Engine, request: dict) -> dict:
    spec = request["PointInTimeRecoverySpecification"]
    days = spec.get("RecoveryPeriodInDays", 35)
    if not 1 <= days <= 35:
        raise ValidationException("RecoveryPeriodInDays must be between 1 and 35")
    with engine.store.write() as conn:
        meta = source_table(engine, request["TableName"])
        document = copy.deepcopy(meta.extra)
        before = document.get("PointInTimeRecovery", {})
        if spec["PointInTimeRecoveryEnabled"]:
            since = before["Since"] if before.get("Enabled") else engine.clock()
            document["PointInTimeRecovery"] = {"Enabled": True, "RecoveryPeriodInDays": days, "Since": since}
            snapshots.start_history(conn, meta)
        else:
            document["PointInTimeRecovery"] = {"Enabled": False}
            snapshots.stop_history(conn, meta)
        snapshots.trim_history(conn, meta, engine.clock() - days * _DAY)
        snapshots.forget_deleted_tables(conn)
        meta = engine.store.save_table(conn, meta.id, document)
    return {"ContinuousBackupsDescription": _continuous_backups(engine, meta)}


def describe_continuous_backups(engine: Engine, request: dict) -> dict:
    with engine.store.read():
        meta = source_table(engine, request["TableName"])
    return {"ContinuousBackupsDescription": _continuous_backups(engine, meta)}


def _source_name(engine: Engine, request: dict) -> str:
    if "SourceTableArn" in request:
        return table_name_from_arn(engine, request["SourceTableArn"])
    if "SourceTableName" not in request:
        raise ValidationException("Either SourceTableName or SourceTableArn must be provided")
    return request["SourceTableName"]


def restore_table_to_point_in_time(engine: Engine, request: dict) -> dict:
    name = _source_name(engine, request)
    latest = request.get("UseLatestRestorableTime", False)
    if latest and "RestoreDateTime" in request:
        raise ValidationException("Only one of RestoreDateTime or UseLatestRestorableTime can be specified")
    if not latest and "RestoreDateTime" not in request:
        raise ValidationException("Either RestoreDateTime or UseLatestRestorableTime must be specified")
    with engine.store.read() as conn:
        meta = source_table(engine, name)
        window = restore_window(engine, meta)
        if window is None:
            raise PointInTimeRecoveryUnavailableException(
                f"Point in time recovery is not enabled for table '{name}'"
            )
        moment = window[1] if latest else float(request["RestoreDateTime"])
        if not window[0] <= moment <= window[1]:
            raise InvalidRestoreTimeException(
                f"Restore time is not within the restorable window of table '{name}' "
                f"(from {window[0]:.3f} to {window[1]:.3f} seconds since the epoch): {moment:.3f}"
            )
        definition = describe(engine, conn, meta)

    def fill(conn, target: TableMeta) -> None:
        source = source_table(engine, name)
        snapshots.restore_rows_at(conn, source, target, moment)

    return restore_into(
        engine,
        definition,
        request,
        fill,
        {"SourceTableArn": engine.arn(name), "RestoreDateTime": moment},
    )


OPERATIONS = {
    "UpdateContinuousBackups": update_continuous_backups,
    "DescribeContinuousBackups": describe_continuous_backups,
    "RestoreTableToPointInTime": restore_table_to_point_in_time,
}
