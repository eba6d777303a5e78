"""``Runtime``: a design joined to a DynamoDB client. Entities in, entities out, keys composed for you."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..design.model import AccessPattern, Design, Entity, Table
from . import tables as _tables
from .batches import put_many as _put_many
from .cursor import CursorCodec
from .errors import ConventionError, PatternError
from .items import to_record
from .page import Page
from .params import prepare
from .reads import run_pattern
from .wire import Record, item_from_wire, item_to_wire
from .writes import Writer, WriteResult


def _load(path_or_design: str | os.PathLike | Design) -> Design:
    if isinstance(path_or_design, Design):
        return path_or_design
    from ..design import load

    return load(Path(path_or_design))


class Runtime:
    """Entities and access patterns of ``design`` over ``client`` (any low-level boto3 DynamoDB client).

    ``client=None`` starts a fresh in-memory embedded engine. ``secret`` signs cursors; by default
    it is random, so cursors are only valid in this runtime: pass a fixed secret to resume a cursor
    in another process.
    """

    def __init__(self, design: Design, client: Any = None, *, secret: bytes | None = None) -> None:
        if client is None:
            from .. import connect

            client = connect()
        self.design = design
        self.client = client
        self.codec = CursorCodec(secret or os.urandom(32))
        self.writer = Writer(self)

    @classmethod
    def open(
        cls,
        path_or_design: str | os.PathLike | Design,
        endpoint_url: str | None = None,
        db: str | os.PathLike | None = None,
        *,
        secret: bytes | None = None,
    ) -> Runtime:
        """A runtime for a design file (or Design): on ``endpoint_url``, a SQLite file ``db``, or in memory."""
        from .. import connect

        client = connect(endpoint_url=endpoint_url) if endpoint_url else connect(db)
        return cls(_load(path_or_design), client, secret=secret)

    # ------------------------------------------------------------------------------------ tables
    def create_tables(self, *, exist_ok: bool = True) -> list[str]:
        """CreateTable (keys, billing, indexes, stream, class) and UpdateTimeToLive for every table."""
        return _tables.create_tables(self.client, list(self.design.tables.values()), exist_ok=exist_ok)

    def update_tables(self, *, delete_indexes: bool = False) -> list[str]:
        """Bring existing tables in line with the design (see ``tables.update_tables``)."""
        return _tables.update_tables(
            self.client, list(self.design.tables.values()), delete_indexes=delete_indexes
        )

    # ------------------------------------------------------------------------------------ lookups
    def entity(self, name: str) -> Entity:
        """The design entity ``name``; ``KeyError`` naming the known entities otherwise."""
        try:
            return self.design.entities[name]
        except KeyError:
            raise KeyError(
                f"unknown entity {name!r} (design has: {', '.join(self.design.entities)})"
            ) from None

    def pattern(self, name: str) -> AccessPattern:
        """The access pattern ``name``; ``PatternError`` naming the known patterns otherwise."""
        try:
            return self.design.patterns[name]
        except KeyError:
            known = ", ".join(self.design.patterns)
            raise PatternError(f"unknown access pattern {name!r} (design has: {known})") from None

    def compose_key(self, entity: Entity, natural_key: Mapping[str, object]) -> dict[str, object]:
        """The stored table key for natural key values (``PatternError`` naming missing fields)."""
        key = entity.key(natural_key)
        if key is None:
            entry = entity.keys["table"]
            fields = [*entry.pk.fields, *(entry.sk.fields if entry.sk else ())]
            missing = [f for f in fields if natural_key.get(f) is None]
            raise PatternError(
                f"{entity.name}: the key needs {', '.join(missing)} (given: {', '.join(natural_key)})"
            )
        return key

    def read_raw(self, table: Table, key: Mapping[str, object]) -> dict[str, object] | None:
        """A consistent GetItem by stored key, as Python values (None when absent)."""
        response = self.client.get_item(
            TableName=table.table_name, Key=item_to_wire(key), ConsistentRead=True
        )
        return item_from_wire(response["Item"]) if "Item" in response else None

    # ------------------------------------------------------------------------------------ entities
    def get(self, entity: str, **natural_key: object) -> Record | None:
        """The entity stored under the key composed from its natural attributes, or None."""
        found = self.entity(entity)
        table = self.design.table_of(entity)
        item = self.read_raw(table, self.compose_key(found, natural_key))
        return None if item is None else to_record(found, table, item)

    def put(
        self,
        entity: str,
        values: Mapping[str, object],
        *,
        expected_version: int | None = None,
        idempotency_key: object = None,
        now: datetime | None = None,
    ) -> WriteResult:
        """Validate and write one entity (create, or replace ``expected_version``)."""
        return self.writer.put(
            self.entity(entity),
            values,
            expected_version=expected_version,
            idempotency_key=idempotency_key,
            now=now or datetime.now(UTC),
        )

    def update(
        self,
        entity: str,
        key: Mapping[str, object],
        changes: Mapping[str, object],
        *,
        expected_version: int | None = None,
        remove: Sequence[str] = (),
        idempotency_key: object = None,
        now: datetime | None = None,
    ) -> WriteResult:
        """Change attributes of a stored entity, with a version check where the design asks for one."""
        found = self.entity(entity)
        if self.design.conventions.requires_version_check and expected_version is None:
            raise ConventionError(
                f"{entity} {dict(key)}: update without expected_version; the design's convention "
                "version_on_update: required demands a version check on every update"
            )
        return self.writer.update(
            found,
            key,
            changes,
            remove=remove,
            expected_version=expected_version,
            idempotency_key=idempotency_key,
            now=now or datetime.now(UTC),
        )

    def delete(
        self, entity: str, key: Mapping[str, object], *, expected_version: int | None = None
    ) -> WriteResult:
        """Delete a stored entity and release its unique values."""
        return self.writer.delete(self.entity(entity), key, expected_version=expected_version)

    def put_many(
        self,
        entity: str,
        items: Sequence[Mapping[str, object]],
        *,
        idempotency_key: object = None,
        now: datetime | None = None,
        atomic: bool = False,
    ) -> WriteResult:
        """Write a batch once (idempotent under one key), planned within the 100-action limit."""
        return _put_many(
            self,
            self.entity(entity),
            items,
            idempotency_key=idempotency_key,
            now=now or datetime.now(UTC),
            atomic=atomic,
        )

    # ------------------------------------------------------------------------------------ patterns
    def run(
        self,
        name: str,
        params: Mapping[str, object] | None = None,
        *,
        cursor: str | None = None,
        limit: int | None = None,
        **kwargs: object,
    ) -> Page:
        """Run access pattern ``name``; returns a ``Page`` of Records, a cursor and stats."""
        pattern = self.pattern(name)
        prepared = prepare(pattern, {**(params or {}), **kwargs})
        return run_pattern(self, pattern, prepared, cursor=cursor, limit=limit)

    def prepare_params(self, name: str, params: Mapping[str, object]) -> dict[str, object]:
        """Parameters as ``run`` uses them (checked, datetimes converted): for in-memory evaluation."""
        return prepare(self.pattern(name), params)
