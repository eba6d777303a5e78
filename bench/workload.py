"""The table and item shape the engine, results and server benchmarks share, so their figures compare."""

from __future__ import annotations

from typing import Any

TABLE = "bench"
DEFINITION = {
    "TableName": TABLE,
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "N"},
    ],
    "BillingMode": "PAY_PER_REQUEST",
}


def item(pk: str, sk: int) -> dict[str, Any]:
    """A ~200-byte item of the usual shape: strings, numbers, a set."""
    return {
        "pk": {"S": pk},
        "sk": {"N": str(sk)},
        "name": {"S": f"user {pk} {sk}"},
        "email": {"S": f"user{sk}@example.com"},
        "age": {"N": str(20 + sk % 50)},
        "score": {"N": f"{sk * 1.25:.2f}"},
        "tags": {"SS": ["a", "b", f"t{sk % 7}"]},
        "bio": {"S": "x" * 80},
    }


def key(pk: str, sk: int) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"N": str(sk)}}
