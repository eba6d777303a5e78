"""``Runtime``: a design joined to a DynamoDB client. Entities in, entities out, keys composed for you."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..design.model import AccessPattern, Design, Entity, Table
from ..design.predicates import Predicate
from ..design.templates import TemplateValueError
from . import tables as _tables
from .batches import put_many as _put_many
from .conditions import condition_of
from .cursor import CursorCodec
from .direct import data_client
from .errors import ConventionError, PatternError, ValidationError
from .items import compose, key_fields, key_instants_stored, key_type_violations, to_record
from .loading import load_many as _load_many
from .markers import request_digest
from .page import Page
from .params import prepare
from .reads import run_pattern
from .transact import TxOp
from .transact import transact as _transact
from .wire import Record, item_from_wire, item_to_wire
from .writes import (
    Plan,
    Writer,
    WriteResult,
    check_idempotency_key,
    check_mapping,
    check_mappings,
    check_version,
    idempotency_of,
)


def _load(path_or_design: str | os.PathLike | Design) -> Design:
    if isinstance(path_or_design, Design):
        return path_or_design
    from ..design import load

    return load(Path(path_or_design))


MAX_LIMIT = 2**31 - 1  # DynamoDB's largest Limit


def _moment(now: object) -> datetime:
    """The write time: ``now`` (a ``datetime``), or the clock's when None. An epoch number or a
    ``date`` is refused naming ``now``, not later by the design layer as a value of some attribute
    (and ``now=0`` must not quietly mean "the clock's time")."""
    if now is None:
        return datetime.now(UTC)
    if not isinstance(now, datetime):
        raise TypeError(
            f"now must be a datetime (e.g. datetime.now(UTC)), not {type(now).__name__} {now!r:.40}"
        )
    return now


def _names(remove: Sequence[str] | str) -> tuple[str, ...]:
    # remove="note" means the attribute note, not the attributes n, o, t and e.
    return (remove,) if isinstance(remove, str) else tuple(remove)


def _merged_params(
    name: str, params: Mapping[str, object] | None, keywords: Mapping[str, object]
) -> dict[str, object]:
    """A pattern's parameters from the mapping and the keywords of ``rt.run``. A name given both
    ways with two values is refused: either could be the one the caller meant."""
    if params is None:
        return dict(keywords)
    if not isinstance(params, Mapping):
        raise PatternError(
            f"pattern {name!r}: give the parameters as a mapping of names to values, not "
            f"{type(params).__name__}"
        )
    clashes = sorted(k for k in set(params) & set(keywords) if params[k] != keywords[k])
    if clashes:
        raise PatternError(
            f"pattern {name!r}: parameter(s) {', '.join(clashes)} given twice with different values "
            "(in params and as keywords)"
        )
    return {**params, **keywords}


class Runtime:
    """Entities and access patterns of ``design`` over ``client`` (any low-level boto3 DynamoDB client).

    ``client=None`` starts a fresh in-memory embedded engine. ``secret`` signs cursors; by default
    it is random, so cursors are only valid in this runtime: pass a fixed secret to resume a cursor
    in another process. On an in-process client, data-plane calls go straight to the engine
    (``direct.py``: same requests, responses and errors, without botocore's per-call cost);
    ``direct=False`` sends them through botocore, e.g. for event hooks registered on the client.
    """

    def __init__(
        self, design: Design, client: Any = None, *, secret: bytes | None = None, direct: bool = True
    ) -> None:
        if client is None:
            from .. import connect

            client = connect()
        self.design = design
        self.client = client
        # ``data`` serves GetItem/PutItem/Query/... ; ``client`` the control plane (and callers).
        self.data = data_client(client) if direct else client
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
        direct: bool = True,
    ) -> Runtime:
        """A runtime for a design file (or Design): on ``endpoint_url``, a SQLite file ``db``, or in memory."""
        from .. import connect

        client = connect(endpoint_url=endpoint_url) if endpoint_url else connect(db)
        return cls(_load(path_or_design), client, secret=secret, direct=direct)

    # ------------------------------------------------------------------------------------ tables
    def create_tables(self, *, exist_ok: bool = True) -> list[str]:
        """Every table as ``export --to create-table`` writes it: CreateTable (keys, billing, indexes,
        stream, class, tags, encryption, deletion protection), then TTL, PITR and other settings."""
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
        """The stored table key for natural key values (``PatternError`` naming missing fields or a
        value no key can hold, such as a timestamp finer than its attribute's precision;
        ``ValidationError`` for a value of the wrong type)."""
        wrong = key_type_violations(entity, natural_key)
        if wrong:
            raise ValidationError(entity.name, wrong)
        natural_key = key_instants_stored(entity, natural_key)
        try:
            key = entity.key(natural_key)
        except TemplateValueError as exc:
            raise PatternError(f"{entity.name}: {exc}") from None
        if key is None:
            missing = [f for f in key_fields(entity) if natural_key.get(f) is None]
            given = ", ".join(name for name, value in natural_key.items() if value is not None)
            raise PatternError(
                f"{entity.name}: the key needs {', '.join(missing)} (given: {given or 'nothing'})"
            )
        return key

    def read_raw(self, table: Table, key: Mapping[str, object]) -> dict[str, object] | None:
        """A consistent GetItem by stored key, as Python values (None when absent)."""
        response = self.data.get_item(TableName=table.table_name, Key=item_to_wire(key), ConsistentRead=True)
        return item_from_wire(response["Item"]) if "Item" in response else None

    # ------------------------------------------------------------------------------------ entities
    def get(self, entity: str, **natural_key: object) -> Record | None:
        """The entity stored under the key composed from its natural attributes, or None."""
        found = self.entity(entity)
        table = self.design.table_of(entity)
        item = self.read_raw(table, self.compose_key(found, natural_key))
        return None if item is None else to_record(found, table, item)

    def key(self, entity: str, **natural_key: object) -> dict[str, object]:
        """The stored table key of ``entity`` for its natural key attributes (``PatternError`` if incomplete)."""
        return self.compose_key(self.entity(entity), natural_key)

    def compose(
        self, entity: str, values: Mapping[str, object], *, now: datetime | None = None
    ) -> dict[str, object]:
        """The item a create of ``values`` stores: validated (``ValidationError`` listing every rule
        broken), with defaults, computed attributes, the discriminator and table/index keys. The
        version attribute is the write's business and is not set here."""
        return compose(self.entity(entity), dict(values), now=_moment(now), created=True)

    def put(
        self,
        entity: str,
        values: Mapping[str, object],
        *,
        condition: str | Predicate | None = None,
        condition_params: Mapping[str, object] | None = None,
        idempotency_key: object = None,
        now: datetime | None = None,
    ) -> WriteResult:
        """Validate and create one entity. Always conditional: an item already stored under the
        key fails with ``AlreadyExistsError`` (a ``ConflictError``) and is left as it was; ``replace``
        is the explicit overwrite. ``condition`` is a predicate over the stored natural attributes."""
        return self._write(entity, values, False, None, condition, condition_params, idempotency_key, now)

    def replace(
        self,
        entity: str,
        values: Mapping[str, object],
        *,
        expected_version: int | None = None,
        condition: str | Predicate | None = None,
        condition_params: Mapping[str, object] | None = None,
        idempotency_key: object = None,
        now: datetime | None = None,
    ) -> WriteResult:
        """Validate and write one entity whole, replacing what is stored under its key (or creating it).

        ``created_at`` is kept from the stored item. A versioned entity needs ``expected_version``
        (the version the caller read; ``ConflictError`` when another write came first), so a replace
        never silently undoes a concurrent write.
        """
        return self._write(
            entity, values, True, expected_version, condition, condition_params, idempotency_key, now
        )

    def _write(
        self,
        entity: str,
        values: Mapping[str, object],
        replace: bool,
        expected_version: int | None,
        condition: str | Predicate | None,
        condition_params: Mapping[str, object] | None,
        idempotency_key: object,
        now: datetime | None,
    ) -> WriteResult:
        found = self.entity(entity)
        values = check_mapping(entity, "values", values)
        expected_version = check_version(entity, expected_version)
        cond = condition_of(found, condition, condition_params)
        idem = idempotency_of(found, [values], idempotency_key)
        moment = _moment(now)
        return self.writer.run(
            lambda: self._with_idempotency(
                found,
                self.writer.plan_put(
                    found,
                    values,
                    now=moment,
                    replace=replace,
                    expected_version=expected_version,
                    condition=cond,
                ),
                idem,
                moment,
                ("replace" if replace else "put", entity, dict(values)),
            )
        )

    def _check_update_version(self, entity: str, key: Mapping[str, object], expected: int | None) -> None:
        """The design's ``version_on_update: required`` convention: every update names the version it read."""
        if self.design.conventions.requires_version_check and expected is None:
            raise ConventionError(
                f"{entity} {dict(key)}: update without expected_version; the design's convention "
                "version_on_update: required demands a version check on every update"
            )

    def update(
        self,
        entity: str,
        key: Mapping[str, object],
        changes: Mapping[str, object],
        *,
        expected_version: int | None = None,
        remove: Sequence[str] = (),
        condition: str | Predicate | None = None,
        condition_params: Mapping[str, object] | None = None,
        idempotency_key: object = None,
        now: datetime | None = None,
    ) -> WriteResult:
        """Change attributes of a stored entity, with a version check where the design asks for one.

        Versioned entities are rewritten whole under ``#version = :expected``; unversioned ones get an
        UpdateItem of only the changed attributes (and what derives from them), so concurrent updates
        of different attributes both survive. ``condition`` must hold for the stored item.
        """
        found = self.entity(entity)
        key, changes = check_mapping(entity, "key", key), check_mapping(entity, "changes", changes)
        expected_version = check_version(entity, expected_version)
        self._check_update_version(entity, key, expected_version)
        if idempotency_key is not None:
            check_idempotency_key(entity, idempotency_key)
        cond = condition_of(found, condition, condition_params)
        moment = _moment(now)
        # The key and the names it changes, not the values: a retry may compute them from a new read.
        remove = _names(remove)
        request = ("update", entity, dict(key), sorted(changes), sorted(remove))
        return self.writer.run(
            lambda: self._with_idempotency(
                found,
                self.writer.plan_update(
                    found,
                    key,
                    changes,
                    remove=remove,
                    expected_version=expected_version,
                    now=moment,
                    condition=cond,
                ),
                idempotency_key,
                moment,
                request,
            )
        )

    def delete(
        self,
        entity: str,
        key: Mapping[str, object],
        *,
        expected_version: int | None = None,
        condition: str | Predicate | None = None,
        condition_params: Mapping[str, object] | None = None,
    ) -> WriteResult:
        """Delete a stored entity and release its unique values (``applied=False`` when absent)."""
        found = self.entity(entity)
        key = check_mapping(entity, "key", key)
        expected_version = check_version(entity, expected_version)
        cond = condition_of(found, condition, condition_params)
        return self.writer.run(
            lambda: self.writer.plan_delete(found, key, expected_version=expected_version, condition=cond)
        )

    def _with_idempotency(
        self, entity: Entity, plan: Plan | None, idem: object, now: datetime, request: tuple
    ) -> Plan | None:
        """``plan`` with the idempotency marker of ``idem``; ``request`` (the parts the marker's
        digest is made of) is only digested when there is a key, off the path of plain writes."""
        if idem is not None and plan is not None:
            plan.actions.append(self.writer.idempotency_action(entity, idem, now, request_digest(*request)))
        return plan

    # ------------------------------------------------------------------------------------ transactions
    def transact(
        self, operations: Sequence[TxOp], *, idempotency_key: object = None, now: datetime | None = None
    ) -> WriteResult:
        """Write ``operations`` (from ``tx_put``/``tx_replace``/``tx_update``/``tx_delete``/``tx_check``) as one
        TransactWriteItems, with their uniqueness and idempotency markers; see ``transact.py``."""
        return _transact(self, operations, idempotency_key=idempotency_key, now=_moment(now))

    def tx_put(
        self,
        entity: str,
        values: Mapping[str, object],
        *,
        condition: str | Predicate | None = None,
        condition_params: Mapping[str, object] | None = None,
    ) -> TxOp:
        """A create for ``transact`` (same meaning as ``put``: fails if the item exists)."""
        self.entity(entity)
        return TxOp(
            "put",
            entity,
            values=check_mapping(entity, "values", values),
            condition=condition,
            condition_params=condition_params,
        )

    def tx_replace(
        self,
        entity: str,
        values: Mapping[str, object],
        *,
        expected_version: int | None = None,
        condition: str | Predicate | None = None,
        condition_params: Mapping[str, object] | None = None,
    ) -> TxOp:
        """A replace for ``transact`` (same meaning as ``replace``)."""
        self.entity(entity)
        return TxOp(
            "replace",
            entity,
            values=check_mapping(entity, "values", values),
            expected_version=check_version(entity, expected_version),
            condition=condition,
            condition_params=condition_params,
        )

    def tx_update(
        self,
        entity: str,
        key: Mapping[str, object],
        changes: Mapping[str, object],
        *,
        expected_version: int | None = None,
        remove: Sequence[str] = (),
        condition: str | Predicate | None = None,
        condition_params: Mapping[str, object] | None = None,
    ) -> TxOp:
        """An update for ``transact`` (same meaning as ``update``)."""
        self.entity(entity)
        key = check_mapping(entity, "key", key)
        expected_version = check_version(entity, expected_version)
        self._check_update_version(entity, key, expected_version)
        return TxOp(
            "update",
            entity,
            key=key,
            values=check_mapping(entity, "changes", changes),
            remove=_names(remove),
            expected_version=expected_version,
            condition=condition,
            condition_params=condition_params,
        )

    def tx_delete(
        self,
        entity: str,
        key: Mapping[str, object],
        *,
        expected_version: int | None = None,
        condition: str | Predicate | None = None,
        condition_params: Mapping[str, object] | None = None,
    ) -> TxOp:
        """A delete for ``transact``; the item must exist (``NotFoundError`` otherwise)."""
        self.entity(entity)
        return TxOp(
            "delete",
            entity,
            key=check_mapping(entity, "key", key),
            expected_version=check_version(entity, expected_version),
            condition=condition,
            condition_params=condition_params,
        )

    def tx_check(
        self,
        entity: str,
        key: Mapping[str, object],
        condition: str | Predicate | None,
        *,
        condition_params: Mapping[str, object] | None = None,
        expected_version: int | None = None,
    ) -> TxOp:
        """A ConditionCheck for ``transact``: ``condition`` (and/or the version) must hold for the item."""
        self.entity(entity)
        if condition is None and expected_version is None:
            raise ValueError(f"tx_check on {entity} needs a condition or an expected_version")
        return TxOp(
            "check",
            entity,
            key=check_mapping(entity, "key", key),
            expected_version=check_version(entity, expected_version),
            condition=condition,
            condition_params=condition_params,
        )

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
            check_mappings(entity, "items", items),
            idempotency_key=idempotency_key,
            now=_moment(now),
            atomic=atomic,
        )

    def load_many(
        self,
        entity: str,
        items: Sequence[Mapping[str, object]],
        *,
        now: datetime | None = None,
        on_progress: Callable[[int], None] | None = None,
    ) -> WriteResult:
        """Store a data set of one entity in bulk: composed and validated as ``put_many`` does, written
        unconditionally (a stored item with the same key is replaced), through the embedded engine's
        bulk load or BatchWriteItem on any other endpoint (``loading.py``). For sample data and seeding."""
        return _load_many(
            self,
            self.entity(entity),
            check_mappings(entity, "items", items),
            now=_moment(now),
            on_progress=on_progress,
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
        """Run access pattern ``name``; returns a ``Page`` of Records, a cursor and stats.

        ``limit`` (at most this many records) is a whole number from 1 to 2^31 - 1, DynamoDB's Limit.
        """
        pattern = self.pattern(name)
        if limit is not None and (type(limit) is not int or not 1 <= limit <= MAX_LIMIT):
            raise PatternError(
                f"pattern {name!r}: limit {limit!r} is not a whole number from 1 to {MAX_LIMIT}"
            )
        prepared = prepare(pattern, _merged_params(name, params, kwargs))
        return run_pattern(self, pattern, prepared, cursor=cursor, limit=limit)

    def prepare_params(self, name: str, params: Mapping[str, object]) -> dict[str, object]:
        """Parameters as ``run`` uses them (checked, datetimes converted): for in-memory evaluation."""
        return prepare(self.pattern(name), params)
