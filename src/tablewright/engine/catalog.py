"""Table metadata: key schemas, indexes and projections, as the engine needs them on every request.

A table's definition is stored as one JSON document (its TableDescription plus engine-only fields);
:class:`TableMeta` is the parsed, read-only view built from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .errors import UnknownIndexException, ValidationException
from .types import (
    MAX_ITEM_SIZE,
    AttributeValue,
    Item,
    decode_binary,
    encode_key,
    encode_number_key,
    invalid,
    is_canonical_number,
    item_size,
    partition_hash,
    validate_item,
)

MAX_PARTITION_KEY_BYTES = 2048
MAX_SORT_KEY_BYTES = 1024
# Key bytes of a validated, normalised key payload, by type (see types.encode_key).
_PLAIN_ENCODERS = {"S": str.encode, "N": encode_number_key, "B": decode_binary}


@dataclass(frozen=True)
class KeySchema:
    """The HASH and RANGE attributes of a table or index, with their scalar types.

    Tables and LSIs have one HASH and at most one RANGE attribute. A GSI may have up to four of each
    (multi-attribute keys): ``hash_name``/``range_name`` are then the first of each and ``more_hash``/
    ``more_range`` the rest, in key-schema order, so single-attribute code paths stay as they were.
    """

    hash_name: str
    hash_type: str
    range_name: str | None = None
    range_type: str | None = None
    more_hash: tuple[tuple[str, str], ...] = ()
    more_range: tuple[tuple[str, str], ...] = ()

    # Cached: read on every request (frozen, so computed once per schema).
    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.typed)

    @cached_property
    def typed(self) -> tuple[tuple[str, str], ...]:
        """``(name, scalar type)`` of every key attribute: the HASH attributes, then the RANGE ones."""
        return self.hash_attributes + self.range_attributes

    @cached_property
    def hash_attributes(self) -> tuple[tuple[str, str], ...]:
        return ((self.hash_name, self.hash_type), *self.more_hash)

    @cached_property
    def range_attributes(self) -> tuple[tuple[str, str], ...]:
        if self.range_name is None:
            return ()
        return ((self.range_name, self.range_type or ""), *self.more_range)

    @cached_property
    def composite(self) -> bool:
        """True when the partition or the sort key is made of several attributes (GSIs only)."""
        return bool(self.more_hash or self.more_range)

    def extract(self, item: Item) -> Item:
        return {name: item[name] for name in self.names if name in item}


# -------------------------------------------------------------------------------- multi-attribute keys
# A key made of several attributes is stored as one byte string whose order is the lexicographic order
# of its components: each component is the attribute's single-attribute key bytes (encode_key) with
# every 0x00 escaped as 0x00 0xFF, followed by the terminator 0x00 0x01. The terminator sorts below
# any continuation (an escaped 0x00 or a byte >= 0x01), so a shorter component sorts first and no
# component is a prefix of another. Single-attribute keys keep their plain encoding (existing files).

COMPONENT_END = b"\x00\x01"


def escape_component(encoded: bytes) -> bytes:
    """The escaped body of one component (no terminator): a prefix of a value escapes to a prefix."""
    return encoded.replace(b"\x00", b"\x00\xff")


def encode_component(value: AttributeValue) -> bytes:
    """One attribute value as a terminated component of a multi-attribute key."""
    return escape_component(encode_key(value)) + COMPONENT_END


def encode_key_part(attributes: tuple[tuple[str, str], ...], values: tuple[AttributeValue, ...]) -> bytes:
    """The stored bytes of a partition or sort key: plain for one attribute, components for several."""
    if len(attributes) == 1:
        return encode_key(values[0])
    return b"".join(encode_component(value) for value in values)


@dataclass(frozen=True)
class IndexMeta:
    name: str
    kind: str  # "GSI" or "LSI"
    number: int  # stable per table: names the SQLite table of the index
    key: KeySchema
    projection: str  # ALL, KEYS_ONLY, INCLUDE
    non_key: tuple[str, ...] = ()
    table_key: KeySchema | None = None

    def entry_key(self, item: Item) -> tuple[bytes, bytes] | None:
        """The index key bytes of an item, or None when the item is not in this (sparse) index."""
        if self.key.composite:
            return self._composite_entry_key(item)
        hash_value = item.get(self.key.hash_name)
        if hash_value is None or self.key.hash_type not in hash_value:
            return None
        range_value = None
        if self.key.range_name:
            range_value = item.get(self.key.range_name)
            if range_value is None or self.key.range_type not in range_value:
                return None
        return encode_key(hash_value), encode_key(range_value) if range_value else b""

    def _composite_entry_key(self, item: Item) -> tuple[bytes, bytes] | None:
        """:meth:`entry_key` of a multi-attribute key: the item is indexed only with every attribute."""
        parts: list[bytes] = []
        for attributes in (self.key.hash_attributes, self.key.range_attributes):
            values = []
            for name, kind in attributes:
                value = item.get(name)
                if value is None or kind not in value:
                    return None
                values.append(value)
            parts.append(encode_key_part(attributes, tuple(values)) if attributes else b"")
        return parts[0], parts[1]

    def check_item(self, item: Item) -> None:
        """Reject index key attributes of the wrong type or empty, as DynamoDB does on write."""
        for name, kind in self.key.typed:
            if name not in item:
                continue
            value = item[name]
            actual = next(iter(value))
            if actual != kind:
                raise invalid(
                    f"Type mismatch for Index Key {name} Expected: {kind} Actual: {actual} IndexName: {self.name}"
                )
            if value[actual] == "":
                raise ValidationException(
                    "One or more parameter values are not valid. A value specified for a secondary index key is "
                    "not supported. The AttributeValue for a key attribute cannot contain an empty "
                    f"{'string' if kind == 'S' else 'binary'} value. IndexName: {self.name}, IndexKey: {name}"
                )
            if actual in ("S", "B"):
                self._check_key_size(name, value)

    def indexable(self, item: Item) -> bool:
        """Whether a stored item can enter this index: a GSI added to a table with data silently
        leaves out items whose key values it could not hold (empty, too long, another type)."""
        try:
            self.check_item(item)
        except ValidationException:
            return False
        return True

    def _check_key_size(self, name: str, value: AttributeValue) -> None:
        """Index keys have the table's limits: 2048 bytes per partition, 1024 per sort key attribute."""
        is_hash = any(name == hash_name for hash_name, _ in self.key.hash_attributes)
        limit = MAX_PARTITION_KEY_BYTES if is_hash else MAX_SORT_KEY_BYTES
        payload = value.get("S")
        # S: UTF-8 bytes; B: base64 text is 4/3 of its bytes, decoded only when it might be too long.
        if payload is not None:
            if len(payload) * 4 <= limit:
                return
            size = len(payload.encode("utf-8"))
        else:
            if len(value["B"]) * 3 // 4 <= limit:
                return
            size = len(encode_key(value))
        if size > limit:
            which = "hashkey" if is_hash else "rangekey"
            raise invalid(
                f"Size of {which} has exceeded the maximum size limit of {limit} bytes. "
                f"IndexName: {self.name}, IndexKey: {name}, size: {size} bytes"
            )

    def project(self, item: Item) -> Item:
        """The attributes of an item that the index stores."""
        if self.projection == "ALL":
            return item
        keep = set(self.key.names) | set(self.table_key.names if self.table_key else ())
        if self.projection == "INCLUDE":
            keep.update(self.non_key)
        return {name: value for name, value in item.items() if name in keep}


@dataclass
class TableMeta:
    """The parsed definition of one table."""

    id: int
    name: str
    key: KeySchema
    description: dict[str, Any]
    indexes: dict[str, IndexMeta] = field(default_factory=dict)
    ttl_attribute: str | None = None
    stream_view_type: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    # A TableMeta is never changed after it is built (a redefinition builds a new one), so what every
    # request derives from it is derived once.
    @cached_property
    def has_local_indexes(self) -> bool:
        return any(index.kind == "LSI" for index in self.indexes.values())

    @cached_property
    def blind_writes(self) -> bool:
        """Whether a put or delete needs nothing of the item it replaces: no secondary index to maintain
        from the old image and no stream record to build from it. Point-in-time recovery's before-images
        are taken by SQLite triggers (engine/snapshots.py), so they need no old item either."""
        return not self.indexes and not self.stream_view_type

    @cached_property
    def sql_name(self) -> str:
        return f"t{self.id}"

    @cached_property
    def select_item_sql(self) -> str:
        return f"SELECT item, size FROM {self.sql_name} WHERE h = ? AND pk = ? AND sk = ?"

    @cached_property
    def upsert_item_sql(self) -> str:
        return f"INSERT OR REPLACE INTO {self.sql_name} (h, pk, sk, size, item) VALUES (?, ?, ?, ?, ?)"

    @cached_property
    def guarded_upsert_item_sql(self) -> str:
        """The upsert, done only while the stored catalog version is the sixth parameter."""
        return (
            f"INSERT OR REPLACE INTO {self.sql_name} (h, pk, sk, size, item) SELECT ?, ?, ?, ?, ? "
            "FROM tw_meta WHERE key = 'catalog' AND value = ?"
        )

    def index_sql_name(self, index: IndexMeta) -> str:
        return f"t{self.id}_i{index.number}"

    def index(self, name: str) -> IndexMeta:
        try:
            return self.indexes[name]
        except KeyError:
            raise UnknownIndexException(f"The table does not have the specified index: {name}") from None

    # ------------------------------------------------------------------------------------- key checks

    def key_of(self, item: Item) -> Item:
        return self.key.extract(item)

    def encode_item_key(self, item: Item, *, for_item: bool) -> tuple[int, bytes, bytes]:
        """Check the primary key attributes of an item (``for_item``) or a Key map, and encode them."""
        if for_item:
            encoded = self._encode_plain_key(item)
            if encoded is not None:
                return encoded
        return self._encode_key_checked(item, for_item=for_item)

    def key_and_encoding(self, raw: Any) -> tuple[Item, tuple[int, bytes, bytes]]:
        """A request's Key map validated and normalised, with its encoding: one pass over a well-formed
        key (the schema's attributes, S or canonical N values), the full checks and exact errors otherwise."""
        plain = self.plain_key_and_encoding(raw)
        if plain is not None:
            return plain
        key = validate_item(raw, "key")
        return key, self._encode_key_checked(key, for_item=False)

    def plain_key_and_encoding(self, raw: Any) -> tuple[Item, tuple[int, bytes, bytes]] | None:
        """:meth:`key_and_encoding` of a key in the common shapes (exactly the schema's attributes, ASCII
        S or canonical N values, within the size limits), in one pass; ``None`` for any other value,
        whose checks (and errors) are the general path's. Never raises."""
        schema = self.key
        if type(raw) is dict and len(raw) == (1 if schema.range_name is None else 2):
            # The common shapes in one pass: S or canonical N values of the schema's attributes.
            key: Item = {}
            parts: list[bytes] = []
            for name, kind in schema.typed:
                value = raw.get(name)
                payload = value.get(kind) if type(value) is dict and len(value) == 1 else None
                if type(payload) is not str or not payload:
                    break
                if kind == "S":
                    if not payload.isascii():
                        break  # UTF-8 length and lone surrogates: the checked path
                    parts.append(payload.encode())
                elif kind == "N" and is_canonical_number(payload):
                    parts.append(encode_number_key(payload))
                else:
                    break
                key[name] = {kind: payload}
            else:
                pk = parts[0]
                sk = parts[1] if len(parts) > 1 else b""
                if len(pk) <= MAX_PARTITION_KEY_BYTES and len(sk) <= MAX_SORT_KEY_BYTES:
                    return key, (partition_hash(pk), pk, sk)
        return None

    def _encode_plain_key(self, item: Item) -> tuple[int, bytes, bytes] | None:
        """The encoded key of an already validated item whose key attributes are present, of the right
        type and within the limits; None for anything else (the checked path raises the exact error)."""
        schema = self.key
        value = item.get(schema.hash_name)
        payload = value.get(schema.hash_type) if type(value) is dict else None
        if not payload:  # missing, another type, or an empty string/binary
            return None
        try:
            pk = _PLAIN_ENCODERS[schema.hash_type](payload)
            if len(pk) > MAX_PARTITION_KEY_BYTES:
                return None
            sk = b""
            if schema.range_name is not None:
                value = item.get(schema.range_name)
                payload = value.get(schema.range_type) if type(value) is dict else None
                if not payload:
                    return None
                sk = _PLAIN_ENCODERS[schema.range_type](payload)
                if len(sk) > MAX_SORT_KEY_BYTES:
                    return None
        except UnicodeEncodeError:  # a lone surrogate in a Key map: validation words the error
            return None
        return partition_hash(pk), pk, sk

    def _encode_key_checked(self, item: Item, *, for_item: bool) -> tuple[int, bytes, bytes]:
        names = self.key.names
        if not for_item and (len(item) != len(names) or any(n not in item for n in names)):
            raise ValidationException("The provided key element does not match the schema")
        parts: list[bytes] = []
        for name, kind in (
            (self.key.hash_name, self.key.hash_type),
            (self.key.range_name, self.key.range_type),
        ):
            if name is None:
                continue
            value = item.get(name)
            if value is None:
                raise invalid(f"Missing the key {name} in the item")
            actual = next(iter(value))
            if actual != kind:
                if not for_item:
                    raise ValidationException("The provided key element does not match the schema")
                raise invalid(f"Type mismatch for key {name} expected: {kind} actual: {actual}")
            encoded = encode_key(value)
            if not encoded and kind in ("S", "B"):
                raise ValidationException(
                    "One or more parameter values are not valid. The AttributeValue for a key attribute cannot "
                    f"contain an empty {'string' if kind == 'S' else 'binary'} value. Key: {name}"
                )
            parts.append(encoded)
        if len(parts[0]) > MAX_PARTITION_KEY_BYTES:
            raise invalid("Size of hashkey has exceeded the maximum size limit of2048 bytes")
        if len(parts) > 1 and len(parts[1]) > MAX_SORT_KEY_BYTES:
            raise invalid("Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
        pk = parts[0]
        return partition_hash(pk), pk, parts[1] if len(parts) > 1 else b""

    def check_item(self, item: Item, size: int | None = None) -> int:
        """Validate a whole item for writing: key, index keys, size. Returns its size in bytes.

        ``size``: the item's size when the caller already measured it (while validating the request).
        """
        for index in self.indexes.values():
            index.check_item(item)
        if size is None:
            size = item_size(item)
        if size > MAX_ITEM_SIZE:
            raise ValidationException("Item size has exceeded the maximum allowed size")
        return size


def parse_key_schema(key_schema: list[dict], definitions: dict[str, str]) -> KeySchema:
    """The KeySchema of a stored description (already checked: HASH elements first, then RANGE ones)."""
    hashes = [
        (k["AttributeName"], definitions[k["AttributeName"]]) for k in key_schema if k["KeyType"] == "HASH"
    ]
    ranges = [
        (k["AttributeName"], definitions[k["AttributeName"]]) for k in key_schema if k["KeyType"] == "RANGE"
    ]
    range_name, range_type = ranges[0] if ranges else (None, None)
    return KeySchema(hashes[0][0], hashes[0][1], range_name, range_type, tuple(hashes[1:]), tuple(ranges[1:]))


def table_meta_from(row_id: int, document: dict[str, Any]) -> TableMeta:
    """Build the runtime view of a table from its stored document."""
    description = document["Description"]
    definitions = {d["AttributeName"]: d["AttributeType"] for d in description["AttributeDefinitions"]}
    key = parse_key_schema(description["KeySchema"], definitions)
    indexes: dict[str, IndexMeta] = {}
    numbers = document.get("IndexNumbers", {})
    for kind, field_name in (("GSI", "GlobalSecondaryIndexes"), ("LSI", "LocalSecondaryIndexes")):
        for index in description.get(field_name, []):
            projection = index["Projection"]
            indexes[index["IndexName"]] = IndexMeta(
                name=index["IndexName"],
                kind=kind,
                number=numbers[index["IndexName"]],
                key=parse_key_schema(index["KeySchema"], definitions),
                projection=projection["ProjectionType"],
                non_key=tuple(projection.get("NonKeyAttributes", ())),
                table_key=key,
            )
    ttl = document.get("TimeToLive", {})
    stream = description.get("StreamSpecification") or {}
    return TableMeta(
        id=row_id,
        name=description["TableName"],
        key=key,
        description=description,
        indexes=indexes,
        ttl_attribute=ttl.get("AttributeName") if ttl.get("TimeToLiveStatus") == "ENABLED" else None,
        stream_view_type=stream.get("StreamViewType") if stream.get("StreamEnabled") else None,
        tags=document.get("Tags", {}),
        extra=document,
    )
