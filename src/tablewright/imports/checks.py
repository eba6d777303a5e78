"""The shape every importer's CreateTable request must have before a design is written from it:
a HASH key, every key attribute defined once with a scalar type, indexes with distinct names and keys.
A source that breaks one of these is refused with the table and the property, instead of a design
that guesses (the writer would otherwise type an undefined key attribute as a string).
"""

from __future__ import annotations

from typing import Any

_SCALARS = ("S", "N", "B")


def _key_names(schema: Any, where: str) -> list[str]:
    if not isinstance(schema, list) or not all(
        isinstance(k, dict) and isinstance(k.get("AttributeName"), str) for k in schema
    ):
        raise ValueError(f"{where}: KeySchema must be a list of {{AttributeName, KeyType}}")
    if [k.get("KeyType") for k in schema] not in (["HASH"], ["HASH", "RANGE"]):
        raise ValueError(f"{where}: KeySchema must be a HASH key and an optional RANGE key, in that order")
    return [k["AttributeName"] for k in schema]


def check_create_table(create: dict[str, Any], table: str) -> None:
    """``ValueError`` naming the table and the property when ``create`` cannot become a design."""
    where = f"table {table}"
    definitions = create.get("AttributeDefinitions") or []
    if not isinstance(definitions, list) or not all(isinstance(d, dict) for d in definitions):
        raise ValueError(f"{where}: AttributeDefinitions must be a list of {{AttributeName, AttributeType}}")
    types = {}
    for definition in definitions:
        name, kind = definition.get("AttributeName"), definition.get("AttributeType")
        if kind not in _SCALARS:
            raise ValueError(f"{where}: attribute {name!r} has type {kind!r}; keys are S, N or B")
        types[name] = kind
    keyed = {"the table": create.get("KeySchema")}
    for field in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        indexes = create.get(field) or []
        if not isinstance(indexes, list) or not all(
            isinstance(i, dict) and i.get("IndexName") for i in indexes
        ):
            raise ValueError(f"{where}: {field} must be a list of indexes, each with an IndexName")
        for index in indexes:
            owner = f"index {index['IndexName']}"
            if owner in keyed:  # GSIs and LSIs share one namespace in DynamoDB
                raise ValueError(
                    f"{where}: two indexes are named {index['IndexName']!r}: which one the author meant "
                    "is not the importer's to guess"
                )
            keyed[owner] = index.get("KeySchema")
    for owner, schema in keyed.items():
        for name in _key_names(schema, f"{where}: {owner}"):
            if name not in types:
                raise ValueError(f"{where}: key attribute {name!r} of {owner} is not in AttributeDefinitions")
