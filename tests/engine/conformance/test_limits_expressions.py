"""Expression limits: 4 KB per expression, 255-byte placeholder keys, 300 operators.

Reference: Developer Guide, "Constraints in Amazon DynamoDB", expression parameters. Messages as
DynamoDB returns them: "Invalid <Kind>: Expression size has exceeded the maximum allowed size",
"<Map> contains invalid key: The expression attribute map contains a key that is too long",
"Invalid <Kind>: The expression contains too many operators; operator count: 301" (seen for a
FilterExpression, so the operator limit is not only UpdateExpression's).
"""

from __future__ import annotations

from typing import Any

import pytest

from ._support import cases, raises_dynamodb

MAX_EXPRESSION = 4096
_KEY = {"pk": {"S": "k"}}


def _padded(text: str, size: int) -> str:
    """``text`` followed by spaces up to exactly ``size`` bytes: whitespace counts towards the size."""
    return text + " " * (size - len(text.encode()))


# kind -> (client method, request without TableName, expression field, its unpadded text).
# The item {"pk": "k", "n": 1} exists, and every expression below succeeds on it unpadded.
SURFACES: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "UpdateExpression": (
        "update_item",
        {"Key": _KEY, "ExpressionAttributeValues": {":v": {"N": "2"}}},
        "UpdateExpression",
        "SET n = :v",
    ),
    "ConditionExpression": ("delete_item", {"Key": _KEY}, "ConditionExpression", "attribute_exists(n)"),
    "FilterExpression": ("scan", {}, "FilterExpression", "attribute_exists(n)"),
    "ProjectionExpression": ("get_item", {"Key": _KEY}, "ProjectionExpression", "n"),
    "KeyConditionExpression": (
        "query",
        {"ExpressionAttributeValues": {":k": {"S": "k"}}},
        "KeyConditionExpression",
        "pk = :k",
    ),
}


def _size_cases() -> list[Any]:
    table = {}
    for kind, surface in SURFACES.items():
        table[f"{kind} 4096 bytes"] = (kind, *surface, MAX_EXPRESSION, True)
        table[f"{kind} 4097 bytes"] = (kind, *surface, MAX_EXPRESSION + 1, False)
    return cases(
        table,
        moto={f"{kind} 4097 bytes": "does not limit the expression size" for kind in SURFACES},
    )


@pytest.mark.parametrize(("kind", "method", "request_", "field", "text", "size", "accepted"), _size_cases())
def test_expression_size_limit_is_4_kb(
    client, make_table, kind, method, request_, field, text, size, accepted
):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={**_KEY, "n": {"N": "1"}})
    call = getattr(client, method)
    request = {"TableName": table, **request_, field: _padded(text, size)}
    if accepted:
        call(**request)
    else:
        with raises_dynamodb(
            "ValidationException", f"Invalid {kind}: Expression size has exceeded the maximum allowed size"
        ):
            call(**request)
    # A rejected write leaves the item alone; an accepted one did what it says.
    item = client.get_item(TableName=table, Key=_KEY).get("Item")
    changed = {"update_item": item and item["n"] == {"N": "2"}, "delete_item": item is None}
    if method in changed:
        assert bool(changed[method]) is accepted


PLACEHOLDER_KEYS = {
    # id -> (map, key, accepted, message phrase); lengths are bytes including the # or :
    "name 255 bytes": ("ExpressionAttributeNames", "#" + "a" * 254, True, ""),
    "name 256 bytes": (
        "ExpressionAttributeNames",
        "#" + "a" * 255,
        False,
        "ExpressionAttributeNames contains invalid key: The expression attribute map contains a key "
        "that is too long; size of key: 256",
    ),
    "name too long and bad syntax": (
        "ExpressionAttributeNames",
        "#" + "a" * 255 + "-x",
        False,
        "The expression attribute map contains a key that is too long; size of key: 258",
    ),
    "value 255 bytes": ("ExpressionAttributeValues", ":" + "v" * 254, True, ""),
    "value 256 bytes": (
        "ExpressionAttributeValues",
        ":" + "v" * 255,
        False,
        "ExpressionAttributeValues contains invalid key: The expression attribute map contains a key "
        "that is too long;",
    ),
}


@pytest.mark.parametrize(
    ("mapping", "key", "accepted", "phrase"),
    cases(
        PLACEHOLDER_KEYS,
        moto={
            "name 256 bytes": "does not limit placeholder length",
            "value 256 bytes": "does not limit placeholder length",
            "name too long and bad syntax": "checks the key's syntax first",
        },
    ),
)
def test_placeholder_keys_are_at_most_255_bytes(client, make_table, mapping, key, accepted, phrase):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={**_KEY, "n": {"N": "1"}})
    if "-" in key:
        # The key cannot appear in the expression (that would be a syntax error of the expression):
        # the map is checked on its own, length before syntax.
        request = {"FilterExpression": "attribute_exists(#n)", mapping: {"#n": "n", key: "n"}}
    elif mapping == "ExpressionAttributeNames":
        request = {"FilterExpression": f"attribute_exists({key})", mapping: {key: "n"}}
    else:
        request = {"FilterExpression": f"n = {key}", mapping: {key: {"N": "1"}}}
    if accepted:
        assert client.scan(TableName=table, **request)["Count"] == 1
    else:
        with raises_dynamodb("ValidationException", phrase):
            client.scan(TableName=table, **request)


def _or_chain(comparisons: int) -> str:
    # n comparisons joined by n - 1 ORs: 2n - 1 operators.
    return " OR ".join(["n = :v"] * comparisons)


@pytest.mark.parametrize(
    ("comparisons", "accepted"),
    cases(
        {"299 operators": (150, True), "301 operators": (151, False)},
        moto={"301 operators": "does not count operators"},
    ),
)
def test_filter_expression_takes_at_most_300_operators(client, make_table, comparisons, accepted):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item={**_KEY, "n": {"N": "1"}})
    request = {
        "TableName": table,
        "FilterExpression": _or_chain(comparisons),
        "ExpressionAttributeValues": {":v": {"N": "1"}},
    }
    if accepted:
        assert client.scan(**request)["Count"] == 1
    else:
        with raises_dynamodb(
            "ValidationException",
            "Invalid FilterExpression: The expression contains too many operators; operator count: 301",
        ):
            client.scan(**request)


@pytest.mark.parametrize(
    ("actions", "accepted"),
    cases(
        # Each action "aN=:v+:v" holds one "+": 150 actions stay within 300 operators and 301 pass it
        # whether or not DynamoDB also counts each action's "=" (it does not document which).
        {"150 additions": (150, True), "301 additions": (301, False)},
        moto={"301 additions": "does not count operators"},
    ),
)
def test_update_expression_takes_at_most_300_operators(client, make_table, actions, accepted):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=_KEY)
    expression = "SET " + ",".join(f"a{i}=:v+:v" for i in range(actions))
    assert len(expression) <= MAX_EXPRESSION  # so that only the operator count can be at fault
    request = {
        "TableName": table,
        "Key": _KEY,
        "UpdateExpression": expression,
        "ExpressionAttributeValues": {":v": {"N": "1"}},
    }
    if accepted:
        client.update_item(**request)
        item = client.get_item(TableName=table, Key=_KEY)["Item"]
        assert len(item) == actions + 1 and item[f"a{actions - 1}"] == {"N": "2"}
    else:
        with raises_dynamodb(
            "ValidationException", "Invalid UpdateExpression: The expression contains too many operators"
        ):
            client.update_item(**request)
        assert client.get_item(TableName=table, Key=_KEY)["Item"] == _KEY
