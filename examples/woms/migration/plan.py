"""The WOMS SQL database -> the tables of ``../design.yaml``, loaded, resumable and verified:

    python examples/woms/migration/legacy_sql.py woms.sqlite        # the SQL data (3,622 plants)
    WOMS_SQL=woms.sqlite tablewright migrate examples/woms/migration/plan.py --db woms.db

Each SQL table is one ``Load`` step (keyset-paged by its primary key, checkpointed per page, then
verified row by row: every row transformed again and every item read back and compared). Parents
load before children; alerts, the largest table, last. The SQL database is only read.
"""

from __future__ import annotations

import sql_transforms as transforms

from tablewright.migrate import CreateTable, Load, Plan, SqliteRows

SQL = transforms.sql_path()
TABLES = [t.table_name for t in transforms.DESIGN.tables.values()]


def _load(table: str, transform, key: tuple[str, ...] = ("id",)) -> Load:
    target = transforms.DESIGN.table_of(transform.__name__.title().replace("_", "")).table_name
    return Load(SqliteRows(SQL, table, key), target, transform, name=f"load:{table}")


PLAN = Plan(
    [
        *(CreateTable.from_design(transforms.DESIGN, name) for name in TABLES),
        _load("organizations", transforms.organization),
        _load("accounts", transforms.account),
        _load("vendors", transforms.vendor),
        _load("plants", transforms.plant),
        _load("work_orders", transforms.work_order),
        _load("work_order_plants", transforms.work_order_plant, ("work_order_id", "plant_id")),
        _load("alerts", transforms.alert),
    ],
    name="woms-sql",
)
