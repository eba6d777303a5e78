"""DynamoDB Streams operations (ListStreams, DescribeStream, GetShardIterator, GetRecords).

The write path already appends one JSON record per item change to ``tw_stream`` in the write's own
transaction; this module only reads them. Each table's stream is one shard whose sequence numbers
are the ``tw_stream.seq`` values (increasing in commit order, since writers are serialised).

A shard iterator is an opaque, HMAC-signed token holding the stream, shard and read position
(``p``: read records with ``seq > p``) and the time it was issued, so the engine keeps no per-iterator
state and a forged or altered token is refused. Retention (24 hours) is enforced lazily: a read first
deletes records older than the horizon and remembers the highest trimmed sequence number, so a
position behind it raises TrimmedDataAccessException as DynamoDB does.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import hmac
import weakref
import zlib
from typing import TYPE_CHECKING, Any

import orjson

from ..catalog import TableMeta
from ..errors import (
    ExpiredIteratorException,
    ResourceNotFoundException,
    TrimmedDataAccessException,
    ValidationException,
)
from ..types import item_size

if TYPE_CHECKING:
    from ..engine import Engine
    from ..storage import Store

RETENTION_SECONDS = 24 * 3600
ITERATOR_LIFETIME_SECONDS = 15 * 60
MAX_RECORDS = 1000
MAX_RESPONSE_BYTES = 1024 * 1024
SEQUENCE_DIGITS = 21  # DynamoDB's sequence numbers have at least 21 digits
_LABEL_FORMAT = "%Y-%m-%dT%H:%M:%S.%f"

# The signing key is per database, so every engine (and process) sharing one file accepts the others' iterators.
_secrets: weakref.WeakKeyDictionary[Store, bytes] = weakref.WeakKeyDictionary()


# ------------------------------------------------------------------------------------------- streams


def _label_time(label: str) -> float:
    parsed = datetime.datetime.strptime(label, _LABEL_FORMAT)
    return parsed.replace(tzinfo=datetime.UTC).timestamp()


def _shard_id(arn: str, label: str) -> str:
    # Shaped like DynamoDB's ("shardId-<20 digits>-<8 hex>") and stable for the life of the stream.
    return f"shardId-{int(_label_time(label) * 1000):020d}-{zlib.crc32(arn.encode()):08x}"


def _sequence(seq: int) -> str:
    return f"{seq:0{SEQUENCE_DIGITS}d}"


def _stream_of(engine: Engine, arn: str) -> TableMeta:
    """The table whose current stream is ``arn``; ResourceNotFoundException otherwise."""
    prefix = engine.arn("")
    name = arn[len(prefix) :].split("/stream/")[0] if arn.startswith(prefix) and "/stream/" in arn else None
    meta = engine.store.table(name) if name else None
    if meta is None or meta.description.get("LatestStreamArn") != arn:
        raise ResourceNotFoundException(f"Requested resource not found: Stream: {arn} not found")
    return meta


def _enabled(meta: TableMeta) -> bool:
    return bool(meta.description.get("StreamSpecification", {}).get("StreamEnabled"))


def _retained(engine: Engine, meta: TableMeta) -> int:
    """Trim the table's records older than the retention period; return the trim watermark."""
    store, horizon = engine.store, engine.clock() - RETENTION_SECONDS
    with store.read() as conn:
        _, oldest_created, _ = store.stream_bounds(conn, meta.id)
        watermark = store.stream_watermark(conn, meta.id)
    if oldest_created is not None and oldest_created < horizon:
        with store.write() as conn:
            watermark = store.stream_trim(conn, meta.id, horizon)
    return watermark


def trim_streams(engine: Engine) -> int:
    """Apply the retention to every table's stream, read or not (for the TTL sweeper); return the tables trimmed."""
    with engine.store.read():
        tables = [engine.store.table(name) for name in engine.store.tables()]
    before = {meta.id: _watermark(engine, meta) for meta in tables if meta is not None}
    return sum(_retained(engine, meta) != before[meta.id] for meta in tables if meta is not None)


def _watermark(engine: Engine, meta: TableMeta) -> int:
    with engine.store.read() as conn:
        return engine.store.stream_watermark(conn, meta.id)


def list_streams(engine: Engine, request: dict) -> dict:
    limit = request.get("Limit", 100)
    start = request.get("ExclusiveStartStreamArn")
    with engine.store.read():
        if "TableName" in request:
            meta = engine.store.table(request["TableName"])
            if meta is None:
                raise ResourceNotFoundException(
                    f"Requested resource not found: Table: {request['TableName']} not found"
                )
            tables = [meta]
        else:
            tables = [engine.store.table(name) for name in engine.store.tables()]
    streams = sorted(
        (
            {
                "StreamArn": m.description["LatestStreamArn"],
                "TableName": m.name,
                "StreamLabel": m.description["LatestStreamLabel"],
            }
            for m in tables
            if m is not None and "LatestStreamArn" in m.description
        ),
        key=lambda s: s["StreamArn"],
    )
    streams = [s for s in streams if start is None or s["StreamArn"] > start]
    response: dict[str, Any] = {"Streams": streams[:limit]}
    if len(streams) > limit:
        response["LastEvaluatedStreamArn"] = streams[limit - 1]["StreamArn"]
    return response


def describe_stream(engine: Engine, request: dict) -> dict:
    arn = request["StreamArn"]
    with engine.store.read():
        meta = _stream_of(engine, arn)
    watermark = _retained(engine, meta)
    with engine.store.read() as conn:
        oldest, _, newest = engine.store.stream_bounds(conn, meta.id)
        last_assigned = engine.store.stream_last_seq(conn)
    label = meta.description["LatestStreamLabel"]
    enabled = _enabled(meta)
    # With nothing retained, the shard starts where its next record will be numbered.
    number_range = {"StartingSequenceNumber": _sequence(oldest or max(watermark, last_assigned) + 1)}
    if not enabled:
        number_range["EndingSequenceNumber"] = _sequence(newest or watermark or last_assigned)
    shard = {"ShardId": _shard_id(arn, label), "SequenceNumberRange": number_range}
    description: dict[str, Any] = {
        "StreamArn": arn,
        "StreamLabel": label,
        "StreamStatus": "ENABLED" if enabled else "DISABLED",
        "CreationRequestDateTime": _label_time(label),
        "TableName": meta.name,
        "KeySchema": meta.description["KeySchema"],
        "Shards": [] if request.get("ExclusiveStartShardId") == shard["ShardId"] else [shard],
    }
    if meta.stream_view_type:
        description["StreamViewType"] = meta.stream_view_type
    return {"StreamDescription": description}


# ----------------------------------------------------------------------------------------- iterators


def _secret(engine: Engine) -> bytes:
    secret = _secrets.get(engine.store)
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


# Where each iterator type starts: (request, trim watermark, newest retained seq) -> read position.
_POSITIONS = {
    "TRIM_HORIZON": lambda request, watermark, newest: watermark,
    "LATEST": lambda request, watermark, newest: max(watermark, newest or 0),
    "AT_SEQUENCE_NUMBER": lambda request, watermark, newest: _requested_sequence(request) - 1,
    "AFTER_SEQUENCE_NUMBER": lambda request, watermark, newest: _requested_sequence(request),
}


def get_shard_iterator(engine: Engine, request: dict) -> dict:
    arn, shard_id = request["StreamArn"], request["ShardId"]
    with engine.store.read():
        meta = _stream_of(engine, arn)
    if shard_id != _shard_id(arn, meta.description["LatestStreamLabel"]):
        raise ResourceNotFoundException(
            f"Requested resource not found: Shard: {shard_id} in Stream: {arn} not found"
        )
    watermark = _retained(engine, meta)
    with engine.store.read() as conn:
        _, _, newest = engine.store.stream_bounds(conn, meta.id)
        last_assigned = engine.store.stream_last_seq(conn)
    position = _POSITIONS[request["ShardIteratorType"]](request, watermark, newest)
    if position < watermark:
        raise TrimmedDataAccessException(
            f"The data you are trying to access has been trimmed: sequence number {_sequence(position + 1)} "
            f"is older than the trim horizon of shard {shard_id}"
        )
    if position > last_assigned:
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
    state = _redeem(engine, request["ShardIterator"])
    limit = request.get("Limit", MAX_RECORDS)
    if limit > MAX_RECORDS:
        raise ValidationException(
            f"1 validation error detected: Value '{limit}' at 'limit' failed to satisfy constraint: "
            f"Member must have value less than or equal to {MAX_RECORDS}"
        )
    with engine.store.read():
        meta = _stream_of(engine, state["a"])
    watermark = _retained(engine, meta)
    position = state["p"]
    if position < watermark:
        raise TrimmedDataAccessException(
            f"The data you are trying to access has been trimmed: the iterator's position "
            f"{_sequence(position + 1)} is older than the trim horizon {_sequence(watermark + 1)}"
        )
    with engine.store.read() as conn:
        rows = engine.store.stream_read(conn, meta.id, position, limit)
    records, size = [], 0
    for seq, created, raw in rows:
        if records and size + len(raw) > MAX_RESPONSE_BYTES:
            break
        records.append(_render(seq, created, raw))
        size += len(raw)
        position = seq
    response: dict[str, Any] = {"Records": records}
    drained = len(records) == len(rows) < limit
    # A disabled stream's shard is closed: once it is read to its end there is no next iterator.
    if _enabled(meta) or not drained:
        response["NextShardIterator"] = _issue(engine, state["a"], state["s"], position)
    return response


OPERATIONS = {
    "ListStreams": list_streams,
    "DescribeStream": describe_stream,
    "GetShardIterator": get_shard_iterator,
    "GetRecords": get_records,
}
