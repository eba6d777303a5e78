"""``--from create-table``: the DynamoDB API requests ``tablewright export --to create-table`` writes,
read back (the export's neutral form is these requests, so nothing needs translating).

Three shapes are read: the export's JSON (table -> operation -> request), one file of ``--out DIR``
(``<table>.CreateTable.json``, with the ``<table>.<Operation>.json`` files beside it), and a single
CreateTable request as ``aws dynamodb create-table --cli-input-json`` takes it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..design.files import read_text
from ..design.foreign import is_create_table_export, is_create_table_request
from ..export.settings import design_values
from .checks import check_create_table
from .writer import Imported, ImportedTable, assume_capacity

SUFFIX = ".CreateTable.json"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(read_text(path).removeprefix("\ufeff"))
    except ValueError as error:
        raise ValueError(f"{path}: not JSON: {error}") from None


def _beside(path: Path, request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The calls of one table from ``--out DIR``: this CreateTable and its sibling operation files."""
    calls = {"CreateTable": request}
    if path.name.endswith(SUFFIX):
        stem = path.name.removesuffix(SUFFIX)
        for sibling in sorted(path.parent.glob(f"{stem}.*.json")):
            operation = sibling.name.removeprefix(f"{stem}.").removesuffix(".json")
            if operation != "CreateTable" and "." not in operation:
                calls[operation] = _read_json(sibling)
    return calls


def _part(calls: dict[str, dict[str, Any]], operation: str, field: str) -> dict[str, Any]:
    value = calls.get(operation, {}).get(field)
    if value is not None and not isinstance(value, dict):
        raise ValueError(f"{operation}: {field} is a JSON object, not {type(value).__name__}")
    return value or {}


def table_from_calls(calls: dict[str, dict[str, Any]]) -> ImportedTable:
    """One table from its API requests (CreateTable, UpdateTimeToLive, UpdateContinuousBackups...)."""
    for operation, request in calls.items():
        if not isinstance(request, dict):
            raise ValueError(f"{operation}: a request is a JSON object, not {type(request).__name__}")
    create = dict(calls["CreateTable"])
    check_create_table(create, str(create["TableName"]))
    ttl = _part(calls, "UpdateTimeToLive", "TimeToLiveSpecification")
    pitr = _part(calls, "UpdateContinuousBackups", "PointInTimeRecoverySpecification")
    table = ImportedTable(
        create=create,
        ttl=ttl.get("AttributeName") if ttl.get("Enabled") else None,
        pitr=bool(pitr.get("PointInTimeRecoveryEnabled")),
        settings=design_values(calls),
    )
    assume_capacity(table)
    return table


def import_file(path: Path, **_: Any) -> Imported:
    """Every table of a create-table export, a file of its ``--out`` folder, or one request."""
    data = _read_json(path)
    try:
        if is_create_table_export(data):
            tables = [table_from_calls(calls) for calls in data.values()]
        elif is_create_table_request(data):
            tables = [table_from_calls(_beside(path, data))]
        else:
            tables = []
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{path}: {error}") from None
    if not tables:
        raise ValueError(
            f"{path}: neither a CreateTable request (TableName, KeySchema, ...) nor the JSON of "
            "`tablewright export --to create-table` (table -> operation -> request)"
        )
    name = path.name.removesuffix(SUFFIX) if path.name.endswith(SUFFIX) else path.stem
    return Imported(name=name, tables=tables, source=f"the CreateTable requests {path.name}")
