"""Table metadata: key schemas, indexes and projections, as the engine needs them on every request.

A table's definition is stored as one JSON document (its TableDescription plus engine-only fields);
:class:`TableMeta` is the parsed, read-only view built from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .errors import ValidationException
from .types import (
    MAX_ITEM_SIZE,
    Item,
    encode_key,
    invalid,
    is_canonical_number,
    item_size,
    partition_hash,
    validate_item,
)

MAX_PARTITION_KEY_BYTES = 2048
MAX_SORT_KEY_BYTES = 1024


@dataclass(frozen=True)
class KeySchema:
    """The hash and optional range attribute of a table or index, with their scalar types."""

    hash_name: str
    hash_type: str
    range_name: str | None = None
    range_type: str | None = None

    # Cached: read on every request (frozen, so computed once per schema).
    @cached_property
    def names(self) -> tuple[str, ...]:
        return (self.hash_name, self.range_name) if self.range_name else (self.hash_name,)

    @cached_property
    def typed(self) -> tuple[tuple[str, str], ...]:
        """``(name, scalar type)`` of the hash and range attribute."""
        pairs = [(self.hash_name, self.hash_type)]
        if self.range_name:
            pairs.append((self.range_name, self.range_type or ""))
        return tuple(pairs)

    def extract(self, item: Item) -> Item:
        return {name: item[name] for name in self.names if name in item}


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
        hash_value = item.get(self.key.hash_name)
        if hash_value is None or self.key.hash_type not in hash_value:
            return None
        range_value = None
        if self.key.range_name:
            range_value = item.get(self.key.range_name)
            if range_value is None or self.key.range_type not in range_value:
                return None
        return encode_key(hash_value), encode_key(range_value) if range_value else b""

    def check_item(self, item: Item) -> None:
        """Reject index key attributes of the wrong type or empty, as DynamoDB does on write."""
        for name, kind in (
            (self.key.hash_name, self.key.hash_type),
            (self.key.range_name, self.key.range_type),
        ):
            if name is None or name not in item:
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

    @property
    def has_local_indexes(self) -> bool:
        return any(index.kind == "LSI" for index in self.indexes.values())

    @property
    def sql_name(self) -> str:
        return f"t{self.id}"

    def index_sql_name(self, index: IndexMeta) -> str:
        return f"t{self.id}_i{index.number}"

    def index(self, name: str) -> IndexMeta:
        try:
            return self.indexes[name]
        except KeyError:
            raise ValidationException(f"The table does not have the specified index: {name}") from None

    # ------------------------------------------------------------------------------------- key checks

    def key_of(self, item: Item) -> Item:
        return self.key.extract(item)

    def encode_item_key(self, item: Item, *, for_item: bool) -> tuple[int, bytes, bytes]:
        """Check the primary key attributes of an item (``for_item``) or a Key map, and encode them."""
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

    def request_key(self, raw: Any) -> Item:
        """Validate a request's Key map and return it normalised (encode_item_key checks the schema).

        A well-formed key (the schema's attributes, S or canonical N values) is copied as it is; anything
        else goes through full validation, which raises DynamoDB's exact error for what is wrong.
        """
        key = self._plain_key(raw)
        return validate_item(raw, "key") if key is None else key

    def _plain_key(self, raw: Any) -> Item | None:
        """A copy of ``raw`` if it needs no normalisation (validate_item would return it unchanged)."""
        if type(raw) is not dict or len(raw) != len(self.key.names):
            return None
        key: Item = {}
        for name, kind in self.key.typed:
            value = raw.get(name)
            if type(value) is not dict or len(value) != 1:
                return None
            payload = value.get(kind)
            if not (type(payload) is str and (kind == "S" or (kind == "N" and is_canonical_number(payload)))):
                return None
            key[name] = {kind: payload}
        return key

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
    hash_name = next(k["AttributeName"] for k in key_schema if k["KeyType"] == "HASH")
    range_name = next((k["AttributeName"] for k in key_schema if k["KeyType"] == "RANGE"), None)
    return KeySchema(
        hash_name, definitions[hash_name], range_name, definitions[range_name] if range_name else None
    )


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
