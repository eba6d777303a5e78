"""SQL rows -> WOMS items (``../design.yaml``), each validated by the design before it is written.

Every transform returns the item with the **marker items** of its unique constraints (the
runtime's own ``tablewright.runtime.markers`` texts and owner), so loaded data is guarded exactly
as data written through the runtime: a vendor sync of an alert that was loaded is a duplicate, a
plant active in a loaded work order cannot be assigned to another. Transforms are deterministic
(the migration re-applies a resumed page and verifies by transforming again): ``created_at`` and
``updated_at`` come from the row, an alert's uuid4 id is derived from its SQL id.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import uuid
from contextlib import closing
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from tablewright.design import load
from tablewright.design.templates import fold
from tablewright.migrate import MigrationError
from tablewright.runtime import Runtime
from tablewright.runtime.markers import (
    KIND_ATTRIBUTE,
    OWNER_ATTRIBUTE,
    marker_key,
    unique_text,
    unique_values,
)

DESIGN = load(Path(__file__).resolve().parent.parent / "design.yaml")
SQL_VARIABLE = "WOMS_SQL"  # the SQL database the plan loads (default: woms.sqlite in the working directory)
MARKER_ENTITY = "_tw_entity"  # what the runtime records on a unique marker besides kind and owner
Row = dict[str, Any]


def sql_path() -> str:
    """The SQL database: ``$WOMS_SQL`` or ``woms.sqlite``."""
    return os.environ.get(SQL_VARIABLE) or "woms.sqlite"


@cache
def _runtime() -> Runtime:
    # Composes items and names marker owners; never writes (the migration's writer does).
    return Runtime(DESIGN)


def sql_time(text: str | None) -> datetime | None:
    """``2025-01-15 14:30:00[.ffffff]+00`` (SQL) as an aware UTC datetime."""
    if text is None:
        return None
    return datetime.fromisoformat(text.strip().replace(" ", "T")).astimezone(UTC)


def rfc3339(text: str | None) -> str | None:
    moment = sql_time(text)
    return None if moment is None else moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _stored(entity: str, values: Row, at: datetime | None) -> list[tuple[str, Row]]:
    """The item ``values`` compose to (``ValidationError`` naming every broken rule) and its markers."""
    rt = _runtime()
    found = rt.entity(entity)
    clean = {k: v for k, v in values.items() if v is not None}
    item = rt.compose(entity, clean, now=at or datetime(2000, 1, 1, tzinfo=UTC))
    if found.version_attribute:
        item[found.version_attribute] = 1  # what a create through the runtime stores
    table = DESIGN.table_of(entity)
    writes = [(table.table_name, item)]
    for unique in unique_values(found.unique, item):
        marker = {
            **marker_key(table, unique_text(entity, unique)),
            KIND_ATTRIBUTE: "unique",
            OWNER_ATTRIBUTE: rt.writer.owner(found, item),
            MARKER_ENTITY: entity,
        }
        if table.ttl and item.get(table.ttl) is not None:
            marker[table.ttl] = item[table.ttl]  # expires with its item, as the runtime's markers do
        writes.append((table.table_name, marker))
    return writes


def _lookup(sql: str) -> dict[Any, tuple]:
    """First column -> the others, for a query over the SQL database (cached per database)."""
    return _lookup_in(str(Path(sql_path()).resolve()), sql)


@cache
def _lookup_in(path: str, sql: str) -> dict[Any, tuple]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return {row[0]: row[1:] for row in db.execute(sql)}


def organization(row: Row) -> list[tuple[str, Row]]:
    return _stored("Organization", {"org_id": row["id"], "name": row["name"]}, sql_time(row["created_at"]))


def account(row: Row) -> list[tuple[str, Row]]:
    _refuse_a_folded_twin(row)
    values = {k: row.get(k) for k in ("org_id", "email", "name", "role")}
    return _stored("Account", {"account_id": row["id"], **values}, sql_time(row["created_at"]))


def _refuse_a_folded_twin(row: Row) -> None:
    """Stop at an account whose address folds to an earlier account's (README, decision 15). The SQL
    database's unique index is on ``lower(email)``, the design's on the folded address, so
    "Straße@x.org" and "STRASSE@x.org" are two accounts there and would share one unique marker here:
    which person keeps the login is not the migration's to decide."""
    first = _first_account_by_address(str(Path(sql_path()).resolve())).get(fold(str(row["email"])))
    if first is not None and first[0] != row["id"]:
        raise MigrationError(
            f"accounts {first[0]} ({first[1]!r}) and {row['id']} ({row['email']!r}) have one email "
            f"address for the design ({fold(str(row['email']))!r}, case-folded): merge or rename one "
            "in the SQL database, then run the migration again"
        )


@cache
def _first_account_by_address(path: str) -> dict[str, tuple[int, str]]:
    """Folded address -> the account (lowest id, its email) that has it first, over all SQL accounts."""
    first: dict[str, tuple[int, str]] = {}
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        for account_id, email in db.execute("SELECT id, email FROM accounts ORDER BY id"):
            first.setdefault(fold(str(email)), (account_id, email))
    return first


def vendor(row: Row) -> list[tuple[str, Row]]:
    # The SQL has no slot: the n-th vendor of an organisation by id takes slot n (<= 50, checked).
    slots = _lookup("SELECT id, ROW_NUMBER() OVER (PARTITION BY org_id ORDER BY id) FROM vendors")
    values = {
        "vendor_id": row["id"],
        "org_id": row["org_id"],
        "org_slot": slots[row["id"]][0],
        "name": row["name"],
        "api_kind": row.get("api_kind"),
        "token_expires_at": rfc3339(row.get("token_expires_at")),
    }
    return _stored("Vendor", values, sql_time(row["created_at"]))


PLANT_COLUMNS = (
    "org_id",
    "vendor_id",
    "vendor_plant_id",
    "name",
    "latitude",
    "longitude",
    "capacity_kw",
    "current_power_kw",
    "daily_energy_kwh",
    "monthly_energy_mwh",
    "yearly_energy_mwh",
    "total_energy_mwh",
)


def plant(row: Row) -> list[tuple[str, Row]]:
    values = {k: row.get(k) for k in PLANT_COLUMNS}
    values.update(plant_id=row["id"], network_status=row["network_status"].upper())
    return _stored("Plant", values, sql_time(row["updated_at"]))


def work_order(row: Row) -> list[tuple[str, Row]]:
    values = {
        "work_order_id": row["id"],
        "org_id": row["org_id"],
        "title": row["title"],
        "status": row["status"].upper(),
    }
    return _stored("WorkOrder", values, sql_time(row["created_at"]))


def work_order_plant(row: Row) -> list[tuple[str, Row]]:
    orders = _lookup("SELECT id, org_id FROM work_orders")
    plants = _lookup("SELECT id, vendor_id FROM plants")
    values = {
        "work_order_id": row["work_order_id"],
        "plant_id": row["plant_id"],
        "org_id": orders[row["work_order_id"]][0],
        "vendor_id": plants[row["plant_id"]][0],
        "is_active": True if row["is_active"] else None,  # inactive: no value, so no marker (design)
    }
    return _stored("WorkOrderPlant", values, sql_time(row["assigned_at"]))


def alert_id(sql_id: int) -> str:
    """A uuid4 for an SQL alert id: the same every run, so a resumed load rewrites, never duplicates."""
    digest = hashlib.sha256(f"woms-alert:{sql_id}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def alert(row: Row) -> list[tuple[str, Row]]:
    plants = _lookup("SELECT id, vendor_plant_id FROM plants")
    values = {
        "plant_id": row["plant_id"],
        "alert_id": alert_id(row["id"]),
        "vendor_id": row["vendor_id"],
        "vendor_plant_id": plants[row["plant_id"]][0],
        "vendor_alert_id": row["vendor_alert_id"],
        "alert_time": rfc3339(row["alert_time"]),
        "severity": row["severity"].upper() if row.get("severity") else None,
        "status": row["status"].upper(),
        "message": row.get("message"),
    }
    return _stored("Alert", values, sql_time(row["alert_time"]))


def as_decimal(value: object) -> object:
    """REAL columns arrive as Decimal already (``SqliteRows``); kept for callers comparing values."""
    return Decimal(str(value)) if isinstance(value, float) else value
