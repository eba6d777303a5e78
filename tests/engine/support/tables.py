"""CreateTable requests for tests: a table keyed by a partition key and an optional sort key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablewright.engine import Engine


def keyed_table(
    name: str, hash_name: str, hash_type: str, range_name: str | None = None, range_type: str | None = None
) -> dict[str, Any]:
    """An on-demand table's CreateTable request (lists the caller may extend with indexes)."""
    schema = [{"AttributeName": hash_name, "KeyType": "HASH"}]
    definitions = [{"AttributeName": hash_name, "AttributeType": hash_type}]
    if range_name:
        schema.append({"AttributeName": range_name, "KeyType": "RANGE"})
        definitions.append({"AttributeName": range_name, "AttributeType": range_type})
    return {
        "TableName": name,
        "KeySchema": schema,
        "AttributeDefinitions": definitions,
        "BillingMode": "PAY_PER_REQUEST",
    }


def file_with_table(path: Path, table: dict[str, Any]) -> Path:
    """``path``, a new database file holding ``table`` (made through an engine that is closed again)."""
    with Engine(str(path)) as engine:
        engine.handle("CreateTable", table)
    return path
