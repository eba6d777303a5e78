"""DynamoDB Streams operations (ListStreams, DescribeStream, GetShardIterator, GetRecords).

The write path already appends one JSON record per item change to ``tw_stream`` in the write's own
transaction; this module only reads them. Sequence numbers are the ``tw_stream.seq`` values
(increasing in commit order, since writers are serialised).

Shards roll over as DynamoDB's do, about every four hours: a stream's shards are consecutive
``SHARD_SECONDS`` periods from its creation, each the child of the one before. A shard closes when its
period ends (its EndingSequenceNumber is the last record written in it), a reader that drains a
closed shard gets no next iterator and moves on to the child, and a shard whose period ended more than
24 hours ago is gone with its records. Nothing is stored for this: a period's boundary is the newest
record written before the period ended, fixed once it has (cached per process).

A shard iterator is an opaque, HMAC-signed token holding the stream, shard and read position
(``p``: read records with ``seq > p``) and the time it was issued, so the engine keeps no per-iterator
state and a forged or altered token is refused. Retention (24 hours) is enforced lazily: a read first
deletes records older than the horizon and remembers the highest trimmed sequence number, so a
position behind it raises TrimmedDataAccessException as DynamoDB does.

Each enabling of a table's stream is a *generation* with its own StreamArn: the table's records with
``after < seq <= end``. ``tw_streams`` holds a row per generation opened by UpdateTable or closed by
UpdateTable/DeleteTable, so the write path still appends one row and nothing else (writers are serialised,
so the last sequence number at the moment of enabling or disabling is an exact boundary). A stream enabled
by CreateTable (or by an engine from before generations) has no row until it is closed: it is the table's
``LatestStreamArn`` and holds all the table's records. A closed generation stays readable, and listed, for
24 hours after it was closed.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import hmac
import os
import re
import weakref
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import (
    ExpiredIteratorException,
    ResourceNotFoundException,
    TrimmedDataAccessException,
    ValidationException,
)
from ..types import item_size
from ..validation.messages import NOT_NULL, validation_error

if TYPE_CHECKING:
    import sqlite3

    from ..engine import Engine
    from ..storage import Store

RETENTION_SECONDS = 24 * 3600
SHARD_SECONDS = 4 * 3600  # DynamoDB: "shards ... are created and deleted automatically", about every 4 hours
_NO_END = 2**63 - 1  # the upper sequence bound of an open shard
ITERATOR_LIFETIME_SECONDS = 15 * 60
MAX_RECORDS = 1000
MAX_STREAMS_PER_PAGE = 100  # ListStreams' Limit ("the upper limit is 100")
MAX_SHARDS_PER_PAGE = 100  # DescribeStream's Limit
MAX_RESPONSE_BYTES = 1024 * 1024
SEQUENCE_DIGITS = 21  # DynamoDB's sequence numbers have at least 21 digits
_LABEL_FORMAT = "%Y-%m-%dT%H:%M:%S.%f"
# What DynamoDB accepts as a stream ARN before looking the stream up: anything else is a ValidationException,
# a well-formed ARN of a stream that does not exist a ResourceNotFoundException.
_STREAM_ARN = re.compile(r"arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d{12}:table/[A-Za-z0-9_.-]{3,255}/stream/\S+")

# The signing key is per database, so every engine (and process) sharing one file accepts the others' iterators.
_secrets: weakref.WeakKeyDictionary[Store, bytes] = weakref.WeakKeyDictionary()


# ------------------------------------------------------------------------------------------- streams


def _label_time(label: str) -> float:
    parsed = datetime.datetime.strptime(label, _LABEL_FORMAT)
    return parsed.replace(tzinfo=datetime.UTC).timestamp()


def _shard_id(arn: str, label: str, period: int = 0) -> str:
    # Shaped like DynamoDB's ("shardId-<20 digits>-<8 hex>"): the period's start in ms, and a hash of the
    # stream (and period), so ids are stable and never repeat across a table's streams.
    started = int((_label_time(label) + period * SHARD_SECONDS) * 1000)
    salt = arn if period == 0 else f"{arn}#{period}"
    return f"shardId-{started:020d}-{zlib.crc32(salt.encode()):08x}"


def _sequence(seq: int) -> str:
    return f"{seq:0{SEQUENCE_DIGITS}d}"


@dataclass(frozen=True)
class Generation:
    """One StreamArn of a table: its records are the table's with ``after < seq <= end``."""

    arn: str
    table_id: int
    table_name: str
    label: str
    view_type: str | None
    key_schema: list[dict[str, str]]
    after: int
    end: int | None  # None while the stream is enabled (its shard is open)
    closed: float | None  # when it was disabled or its table deleted

    @classmethod
    def from_row(cls, row: tuple) -> Generation:
        arn, table_id, name, label, view, key_schema, after, end, closed = row
        return cls(arn, table_id, name, label, view, orjson.loads(key_schema), after, end, closed)

    def row(self) -> tuple:
        key_schema = orjson.dumps(self.key_schema)
        return (
            self.arn,
            self.table_id,
            self.table_name,
            self.label,
            self.view_type,
            key_schema,
            *self.span(),
        )

    def span(self) -> tuple[int, int | None, float | None]:
        return self.after, self.end, self.closed

    @property
    def until(self) -> int:
        """The highest sequence number the shard can hold."""
        return _NO_END if self.end is None else self.end

    def expired(self, now: float) -> bool:
        return self.closed is not None and self.closed + RETENTION_SECONDS <= now


def _latest(engine: Engine, conn: sqlite3.Connection, description: dict, table_id: int) -> Generation | None:
    """A table's latest stream as its description states it (from its ``tw_streams`` row, if it has one)."""
    arn = description.get("LatestStreamArn")
    if arn is None:
        return None
    row = engine.store.stream_generation(conn, arn)
    if row is not None:
        return Generation.from_row(row)
    # No row: enabled by CreateTable, or by an older engine; it holds all the table's records.
    spec = description.get("StreamSpecification") or {}
    enabled = bool(spec.get("StreamEnabled"))
    end = None
    if not enabled:  # disabled by an older engine, which kept no boundary: it ends at the table's last record
        _, _, newest = engine.store.stream_bounds(conn, table_id)
        end = newest or engine.store.stream_watermark(conn, table_id) or engine.store.stream_last_seq(conn)
    view = spec.get("StreamViewType") if enabled else None
    label = description["LatestStreamLabel"]
    return Generation(
        arn, table_id, description["TableName"], label, view, description["KeySchema"], 0, end, None
    )


def open_stream(engine: Engine, conn: sqlite3.Connection, table_id: int, description: dict) -> None:
    """Record the generation UpdateTable just enabled (in its transaction): it holds only the records
    written from now on."""
    generation = Generation(
        arn=description["LatestStreamArn"],
        table_id=table_id,
        table_name=description["TableName"],
        label=description["LatestStreamLabel"],
        view_type=description["StreamSpecification"]["StreamViewType"],
        key_schema=description["KeySchema"],
        after=engine.store.stream_last_seq(conn),
        end=None,
        closed=None,
    )
    engine.store.stream_save(conn, generation.row())


def close_stream(engine: Engine, conn: sqlite3.Connection, table_id: int, description: dict) -> None:
    """Close the table's latest stream (UpdateTable disabling it or enabling a new one, DeleteTable; in
    its transaction): the shard ends at its last record, and the stream stays readable for 24 hours."""
    latest = _latest(engine, conn, description, table_id)
    if latest is None or latest.closed is not None:
        return
    end = latest.end if latest.end is not None else engine.store.stream_end(conn, table_id, latest.after)
    closed = Generation(
        latest.arn,
        table_id,
        latest.table_name,
        latest.label,
        latest.view_type,
        latest.key_schema,
        latest.after,
        end,
        engine.clock(),
    )
    engine.store.stream_save(conn, closed.row())


def _generations(engine: Engine, conn: sqlite3.Connection) -> list[Generation]:
    """Every stream still readable: the recorded generations and the live tables' latest streams."""
    found = {row[0]: Generation.from_row(row) for row in engine.store.stream_generations(conn)}
    for name in engine.store.tables():
        meta = engine.store.table(name)
        if meta is not None and meta.description.get("LatestStreamArn") not in found:
            latest = _latest(engine, conn, meta.description, meta.id)
            if latest is not None:
                found[latest.arn] = latest
    now = engine.clock()
    return [g for g in found.values() if not g.expired(now)]


def _check_arn(arn: str, member: str = "StreamArn") -> None:
    """DynamoDB refuses a ``member`` that is not shaped like a stream ARN before it looks anything up."""
    if not _STREAM_ARN.fullmatch(arn):
        raise ValidationException(f"Invalid {member}")


def _at_most(value: int, member: str, limit: int) -> None:
    # The service's own upper bounds: botocore's model only knows the lower bound (1) of these Limits.
    if value > limit:
        raise validation_error([(value, member, f"Member must have value less than or equal to {limit}")])


def _stream_of(engine: Engine, arn: str) -> Generation:
    """The stream ``arn`` (current, or closed less than 24 hours ago): ValidationException if ``arn`` is not
    a stream ARN, ResourceNotFoundException if no such stream is readable."""
    _check_arn(arn)
    store = engine.store
    with store.read() as conn:
        row = store.stream_generation(conn, arn)
        if row is not None:
            generation = Generation.from_row(row)
        else:
            prefix = engine.arn("")
            name = (
                arn[len(prefix) :].split("/stream/")[0]
                if arn.startswith(prefix) and "/stream/" in arn
                else None
            )
            meta = store.table(name) if name else None
            generation = _latest(engine, conn, meta.description, meta.id) if meta else None
    if generation is None or generation.arn != arn or generation.expired(engine.clock()):
        raise ResourceNotFoundException(f"Requested resource not found: Stream: {arn} not found")
    return generation


def _retained(engine: Engine, table_id: int) -> int:
    """Trim the table's records older than the retention period; return the trim watermark."""
    store, horizon = engine.store, engine.clock() - RETENTION_SECONDS
    with store.read() as conn:
        _, oldest_created, _ = store.stream_bounds(conn, table_id)
        watermark = store.stream_watermark(conn, table_id)
    if oldest_created is not None and oldest_created < horizon and not engine.read_only:
        with store.write() as conn:
            watermark = store.stream_trim(conn, table_id, horizon)
    return watermark


def trim_streams(engine: Engine) -> int:
    """Apply the retention to every table's records, read or not, also of deleted tables (for the TTL
    sweeper), and forget streams closed more than 24 hours ago; return how many tables were trimmed."""
    store = engine.store
    with store.read() as conn:
        table_ids = store.stream_tables(conn)
        before = {table_id: store.stream_watermark(conn, table_id) for table_id in table_ids}
    trimmed = sum(_retained(engine, table_id) != before[table_id] for table_id in table_ids)
    with store.write() as conn:
        store.stream_expire(conn, engine.clock() - RETENTION_SECONDS)
    return trimmed


def list_streams(engine: Engine, request: dict) -> dict:
    limit = request.get("Limit", MAX_STREAMS_PER_PAGE)
    _at_most(limit, "limit", MAX_STREAMS_PER_PAGE)
    start = request.get("ExclusiveStartStreamArn")
    if start is not None:
        _check_arn(start, "ExclusiveStartStreamArn")
    name = request.get("TableName")
    with engine.store.read() as conn:
        generations = _generations(engine, conn)
        table_exists = name is None or engine.store.table(name) is not None
    if name is not None:
        generations = [g for g in generations if g.table_name == name]
        # A deleted table's streams stay listed under its name for their 24 hours.
        if not table_exists and not generations:
            raise ResourceNotFoundException(f"Requested resource not found: Table: {name} not found")
    streams = sorted(
        ({"StreamArn": g.arn, "TableName": g.table_name, "StreamLabel": g.label} for g in generations),
        key=lambda s: s["StreamArn"],
    )
    streams = [s for s in streams if start is None or s["StreamArn"] > start]
    response: dict[str, Any] = {"Streams": streams[:limit]}
    if len(streams) > limit:
        response["LastEvaluatedStreamArn"] = streams[limit - 1]["StreamArn"]
    return response


@dataclass(frozen=True)
class Shard:
    """One period of a stream: the generation's records with ``after < seq <= until``."""

    shard_id: str
    parent_id: str | None
    after: int
    end: int | None  # None while open: the stream's current period

    @property
    def until(self) -> int:
        return _NO_END if self.end is None else self.end


# Boundaries of periods that have ended never change: computed once per database and process.
_boundaries: weakref.WeakKeyDictionary[Store, dict[tuple[str, int], int]] = weakref.WeakKeyDictionary()
_SETTLED_SECONDS = 5.0  # a write stamped just before a period ended commits within this


def _boundary(engine: Engine, conn: sqlite3.Connection, generation: Generation, period: int) -> int:
    """The last sequence number of an ended ``period``: the newest record written before it ended, or
    the trim watermark (or the stream's start) when none of those is retained."""
    cache = _boundaries.setdefault(engine.store, {})
    key = (generation.arn, period)
    if key in cache:
        return cache[key]
    ended = _label_time(generation.label) + (period + 1) * SHARD_SECONDS
    store = engine.store
    found = store.stream_before(conn, generation.table_id, ended, generation.after, generation.until)
    if found is None:
        found = max(
            generation.after, min(store.stream_watermark(conn, generation.table_id), generation.until)
        )
    if engine.clock() > ended + _SETTLED_SECONDS:
        cache[key] = found
    return found


def _shards(engine: Engine, conn: sqlite3.Connection, generation: Generation) -> list[Shard]:
    """The stream's shards still readable, oldest first: one per period that ended less than 24 hours
    ago, and the current one (or, for a disabled stream, the one it was disabled in)."""
    now, started = engine.clock(), _label_time(generation.label)
    last = max(0, int(((generation.closed or now) - started) // SHARD_SECONDS))
    first = min(last, max(0, int((now - RETENTION_SECONDS - started) // SHARD_SECONDS)))
    shards = []
    for period in range(first, last + 1):
        after = generation.after if period == 0 else _boundary(engine, conn, generation, period - 1)
        end = generation.end if period == last else _boundary(engine, conn, generation, period)
        parent = _shard_id(generation.arn, generation.label, period - 1) if period else None
        shards.append(Shard(_shard_id(generation.arn, generation.label, period), parent, after, end))
    return shards


def _shard_of(engine: Engine, generation: Generation, shard_id: str) -> Shard:
    """The readable shard ``shard_id`` of the stream, or ResourceNotFoundException."""
    with engine.store.read() as conn:
        found = next((s for s in _shards(engine, conn, generation) if s.shard_id == shard_id), None)
    if found is None:
        raise ResourceNotFoundException(
            f"Requested resource not found: Shard: {shard_id} in Stream: {generation.arn} not found"
        )
    return found


def _described(engine: Engine, generation: Generation, shard: Shard) -> tuple[dict[str, Any], bool]:
    """A shard as DescribeStream lists it, and whether it holds no retained record.

    An open shard with nothing retained starts where its next record will be numbered; a closed one
    that never held a record starts (and ends) at its end."""
    watermark = _retained(engine, generation.table_id)
    with engine.store.read() as conn:
        oldest, _, _ = engine.store.stream_bounds(conn, generation.table_id, shard.after, shard.until)
        last_assigned = engine.store.stream_last_seq(conn)
    if shard.end is None:
        number_range = {"StartingSequenceNumber": _sequence(oldest or max(watermark, last_assigned) + 1)}
    else:
        empty_start = min(max(watermark, shard.after) + 1, shard.end)
        number_range = {
            "StartingSequenceNumber": _sequence(oldest or empty_start),
            "EndingSequenceNumber": _sequence(shard.end),
        }
    described: dict[str, Any] = {"ShardId": shard.shard_id, "SequenceNumberRange": number_range}
    if shard.parent_id is not None:
        described["ParentShardId"] = shard.parent_id
    return described, oldest is None


def _check_filter(shard_filter: dict) -> None:
    # Both members are optional in the service model, but DynamoDB refuses a filter without either.
    missing = [
        (None, f"shardFilter.{path}", NOT_NULL)
        for member, path in (("Type", "type"), ("ShardId", "shardId"))
        if member not in shard_filter
    ]
    if missing:
        raise validation_error(missing)


def _selected(shards: list[dict[str, Any]], request: dict) -> list[dict[str, Any]]:
    """The shards DescribeStream answers with: those after ``ExclusiveStartShardId`` (none if it is not a
    shard of the stream), and of those only the children of the ``CHILD_SHARDS`` filter's shard."""
    start = request.get("ExclusiveStartShardId")
    if start is not None:
        ids = [shard["ShardId"] for shard in shards]
        shards = shards[ids.index(start) + 1 :] if start in ids else []
    shard_filter = request.get("ShardFilter")
    if shard_filter is not None:  # CHILD_SHARDS, the only type (the model's enum checked it)
        shards = [shard for shard in shards if shard.get("ParentShardId") == shard_filter["ShardId"]]
    return shards


def describe_stream(engine: Engine, request: dict) -> dict:
    limit = request.get("Limit", MAX_SHARDS_PER_PAGE)
    _at_most(limit, "limit", MAX_SHARDS_PER_PAGE)
    if "ShardFilter" in request:
        _check_filter(request["ShardFilter"])
    generation = _stream_of(engine, request["StreamArn"])
    _retained(engine, generation.table_id)
    with engine.store.read() as conn:
        readable = _shards(engine, conn, generation)
    shards = _selected([_described(engine, generation, shard)[0] for shard in readable], request)
    description: dict[str, Any] = {
        "StreamArn": generation.arn,
        "StreamLabel": generation.label,
        "StreamStatus": "ENABLED" if generation.end is None else "DISABLED",
        "CreationRequestDateTime": _label_time(generation.label),
        "TableName": generation.table_name,
        "KeySchema": generation.key_schema,
        "Shards": shards[:limit],
    }
    if len(shards) > limit:
        description["LastEvaluatedShardId"] = shards[limit - 1]["ShardId"]
    if generation.view_type:
        description["StreamViewType"] = generation.view_type
    return {"StreamDescription": description}


# ----------------------------------------------------------------------------------------- iterators


def _secret(engine: Engine) -> bytes:
    secret = _secrets.get(engine.store)
    if secret is None and engine.read_only:
        # Nothing can be stored: the file's key if it has one, else one for this engine's lifetime.
        with engine.store.read() as conn:
            stored = engine.store.stored_stream_secret(conn)
        secret = _secrets[engine.store] = stored or os.urandom(32)
    if secret is None:
        with engine.store.write() as conn:
            secret = _secrets[engine.store] = engine.store.stream_secret(conn)
    return secret


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _issue(engine: Engine, arn: str, shard_id: str, position: int) -> str:
    payload = _b64(orjson.dumps({"a": arn, "s": shard_id, "p": position, "t": engine.clock()}))
    signature = hmac.new(_secret(engine), payload.encode(), hashlib.sha256).digest()[:18]
    return f"{payload}.{_b64(signature)}"


def _redeem(engine: Engine, iterator: str) -> dict[str, Any]:
    """The position inside a shard iterator, after checking its signature and age."""
    payload, _, signature = iterator.rpartition(".")
    expected = hmac.new(_secret(engine), payload.encode(), hashlib.sha256).digest()[:18]
    try:
        genuine = hmac.compare_digest(_unb64(signature), expected)
        state = orjson.loads(_unb64(payload)) if genuine else None
    except (binascii.Error, ValueError):
        state = None
    if not isinstance(state, dict):
        raise ValidationException(
            "Invalid ShardIterator: it was not issued by this endpoint or has been altered"
        )
    now = engine.clock()
    if now - state["t"] > ITERATOR_LIFETIME_SECONDS:
        raise ExpiredIteratorException(
            f"Iterator expired. The iterator was created at time {_iso(state['t'])} while right now it is "
            f"{_iso(now)} which is further in the future than the tolerated delay of "
            f"{ITERATOR_LIFETIME_SECONDS * 1000} milliseconds."
        )
    return state


def _iso(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).isoformat(timespec="milliseconds")


def _requested_sequence(request: dict) -> int:
    kind, text = request["ShardIteratorType"], request.get("SequenceNumber")
    if text is None:
        raise ValidationException(f"SequenceNumber is required for ShardIteratorType {kind}")
    if not text.isdigit():
        raise ValidationException(f"Invalid SequenceNumber: {text} is not a sequence number of this stream")
    return int(text)


# The request member each iterator type needs (and that no other type may carry).
_POSITIONED_BY = {
    "AT_SEQUENCE_NUMBER": "SequenceNumber",
    "AFTER_SEQUENCE_NUMBER": "SequenceNumber",
    "AT_TIMESTAMP": "Timestamp",
}


def _check_iterator_request(request: dict) -> None:
    kind = request["ShardIteratorType"]
    needed = _POSITIONED_BY.get(kind)
    for member in ("SequenceNumber", "Timestamp"):
        if member in request and member != needed:
            raise ValidationException(
                f"Invalid Request: {member} must not be given with ShardIteratorType {kind}"
            )
    if needed is not None and needed not in request:
        raise ValidationException(f"{needed} is required for ShardIteratorType {kind}")


@dataclass(frozen=True)
class _Reading:
    """What an iterator type's start is computed from."""

    engine: Engine
    generation: Generation
    shard: Shard
    request: dict
    start: int  # the shard's first readable position: records with seq > start
    newest: int | None  # the shard's newest retained record


def _before_timestamp(reading: _Reading) -> int:
    """The position just before the shard's first record written at or after the request's Timestamp."""
    generation = reading.generation
    with reading.engine.store.read() as conn:
        before = reading.engine.store.stream_before(
            conn, generation.table_id, float(reading.request["Timestamp"]), reading.start, reading.shard.until
        )
    return max(reading.start, before or 0)


# Where each iterator type starts reading: records with seq > the position.
_POSITIONS = {
    "TRIM_HORIZON": lambda reading: reading.start,
    "LATEST": lambda reading: max(reading.start, reading.newest or 0),
    "AT_SEQUENCE_NUMBER": lambda reading: _requested_sequence(reading.request) - 1,
    "AFTER_SEQUENCE_NUMBER": lambda reading: _requested_sequence(reading.request),
    "AT_TIMESTAMP": _before_timestamp,
}


def get_shard_iterator(engine: Engine, request: dict) -> dict:
    arn, shard_id, kind = request["StreamArn"], request["ShardId"], request["ShardIteratorType"]
    _check_iterator_request(request)
    generation = _stream_of(engine, arn)
    readable = _shard_of(engine, generation, shard_id)
    shard, empty = _described(engine, generation, readable)
    watermark = _retained(engine, generation.table_id)
    with engine.store.read() as conn:
        _, _, newest = engine.store.stream_bounds(conn, generation.table_id, readable.after, readable.until)
        last_assigned = engine.store.stream_last_seq(conn)
    start = max(watermark, readable.after)
    by_number = kind.endswith("_SEQUENCE_NUMBER")
    named = _requested_sequence(request) if by_number else None
    if empty and named == int(shard["SequenceNumberRange"]["StartingSequenceNumber"]):
        # The StartingSequenceNumber of a shard without records names its start, not a record: reading
        # at it or after it both begin with the shard's first record, whenever that is written.
        return {"ShardIterator": _issue(engine, arn, shard_id, start)}
    position = _POSITIONS[kind](_Reading(engine, generation, readable, request, start, newest))
    if position < watermark:
        raise TrimmedDataAccessException(
            f"The data you are trying to access has been trimmed: sequence number {_sequence(position + 1)} "
            f"is older than the trim horizon of shard {shard_id}"
        )
    # The sequence number named must be this shard's: not one of an earlier or a later stream of the table.
    if named is not None and named <= readable.after:
        raise ValidationException(
            f"Invalid SequenceNumber: {request['SequenceNumber']} is before the start of shard {shard_id}"
        )
    if position > last_assigned or (named is not None and named > readable.until):
        raise ValidationException(
            f"Invalid SequenceNumber: {request.get('SequenceNumber')} is beyond the end of shard {shard_id}"
        )
    return {"ShardIterator": _issue(engine, arn, shard_id, position)}


# ------------------------------------------------------------------------------------------- records


def _render(seq: int, created: float, raw: bytes) -> dict[str, Any]:
    """A stored record in the Streams API's shape, with the fields only known once it is committed."""
    record = orjson.loads(raw)
    body = record["dynamodb"]
    size = sum(item_size(body[part]) for part in ("Keys", "NewImage", "OldImage") if part in body)
    record["dynamodb"] = {
        "ApproximateCreationDateTime": int(created),
        **{part: body[part] for part in ("Keys", "NewImage", "OldImage") if part in body},
        "SequenceNumber": _sequence(seq),
        "SizeBytes": size,
        "StreamViewType": body["StreamViewType"],
    }
    identity = record.get("userIdentity")
    if identity:  # stored in Lambda's spelling; the Streams API capitalises the member names
        record["userIdentity"] = {"PrincipalId": identity["principalId"], "Type": identity["type"]}
    return record


def get_records(engine: Engine, request: dict) -> dict:
    limit = request.get("Limit", MAX_RECORDS)
    _at_most(limit, "limit", MAX_RECORDS)
    state = _redeem(engine, request["ShardIterator"])
    generation = _stream_of(engine, state["a"])
    watermark = _retained(engine, generation.table_id)
    position = state["p"]
    if position < watermark:
        raise TrimmedDataAccessException(
            f"The data you are trying to access has been trimmed: the iterator's position "
            f"{_sequence(position + 1)} is older than the trim horizon {_sequence(watermark + 1)}"
        )
    shard = _shard_of(engine, generation, state["s"])
    with engine.store.read() as conn:
        rows = engine.store.stream_read(conn, generation.table_id, position, limit, shard.until)
    records, size = [], 0
    for seq, created, raw in rows:
        if records and size + len(raw) > MAX_RESPONSE_BYTES:
            break
        records.append(_render(seq, created, raw))
        size += len(raw)
        position = seq
    response: dict[str, Any] = {"Records": records}
    drained = len(records) == len(rows) < limit
    # A closed shard (its period over, or its stream disabled) read to its end has no next iterator:
    # the reader goes on with its child shard, if there is one.
    if shard.end is None or not drained:
        response["NextShardIterator"] = _issue(engine, state["a"], state["s"], position)
    return response


OPERATIONS = {
    "ListStreams": list_streams,
    "DescribeStream": describe_stream,
    "GetShardIterator": get_shard_iterator,
    "GetRecords": get_records,
}
