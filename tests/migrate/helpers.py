"""Shared helpers: the ADR-006 example's folder on sys.path, legacy data on a fresh engine, table dumps."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import tablewright
from tablewright.migrate.checksum import canonical
from tablewright.migrate.io import decode

ROOT = Path(__file__).resolve().parents[2]
MIGRATION = ROOT / "examples" / "evse" / "migration"
PLAN = MIGRATION / "plan.py"
if str(MIGRATION) not in sys.path:
    sys.path.insert(0, str(MIGRATION))

import legacy  # noqa: E402  (the example's folder is not a package)


def dump(client: Any) -> dict[str, list[str]]:
    """Every table's full contents, canonical and sorted: equal dumps mean equal databases."""
    tables = {}
    for name in client.list_tables()["TableNames"]:
        items, request = [], {"TableName": name}
        while True:
            page = client.scan(**request)
            items += [json.dumps(canonical(decode(i)), sort_keys=True) for i in page["Items"]]
            if "LastEvaluatedKey" not in page:
                break
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        tables[name] = sorted(items)
    return tables


def items(client: Any, table: str) -> list[dict[str, Any]]:
    """Every item of a table as Python values."""
    found, request = [], {"TableName": table}
    while True:
        page = client.scan(**request)
        found += [decode(i) for i in page["Items"]]
        if "LastEvaluatedKey" not in page:
            return found
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


@pytest.fixture
def legacy_db(tmp_path: Path) -> Path:
    """A SQLite engine file holding generated legacy EVSE data (3 devices over the fall-back weekend)."""
    path = tmp_path / "legacy.db"
    legacy.load(tablewright.connect(path), seed=7, devices=3, days=2)
    return path


def things(db: Path) -> None:
    """Five items ("t0".."t4") in a table "things" keyed by id, in the database file ``db``."""
    client = tablewright.connect(db)
    client.create_table(
        TableName="things",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for n in range(5):
        client.put_item(TableName="things", Item={"id": {"S": f"t{n}"}})
