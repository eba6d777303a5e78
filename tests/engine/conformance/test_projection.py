"""ProjectionExpression: top-level, nested map paths, list indexes, placeholders and overlap errors.

Reference: Developer Guide, "Using projection expressions" (Expressions.ProjectionExpressions.html)
and "Specifying item attributes" (document paths, list elements, nested attributes).
"""

from __future__ import annotations

import pytest

from ._support import cases, raises_dynamodb

KEY = {"pk": {"S": "k"}}
ITEM = {
    **KEY,
    "a": {"S": "1"},
    "b": {"N": "2"},
    "m": {
        "M": {
            "x": {"N": "1"},
            "y": {"M": {"z": {"S": "deep"}, "q": {"S": "other"}}},
            "l": {"L": [{"M": {"w": {"N": "1"}}}, {"M": {"w": {"N": "2"}, "v": {"N": "9"}}}]},
        }
    },
    "l": {"L": [{"N": "10"}, {"N": "20"}, {"N": "30"}, {"N": "40"}]},
    "dotted.nm": {"S": "d"},
}

PROJECTIONS = {
    "one attribute": ("a", {"a": ITEM["a"]}),
    "two attributes": ("a, b", {"a": ITEM["a"], "b": ITEM["b"]}),
    "the key only when asked": ("pk", KEY),
    "nested member": ("m.x", {"m": {"M": {"x": {"N": "1"}}}}),
    "deeply nested member": ("m.y.z", {"m": {"M": {"y": {"M": {"z": {"S": "deep"}}}}}}),
    "sibling nested members merge": (
        "m.x, m.y.z",
        {"m": {"M": {"x": {"N": "1"}, "y": {"M": {"z": {"S": "deep"}}}}}},
    ),
    "list element": ("l[1]", {"l": {"L": [{"N": "20"}]}}),
    "list elements keep list order": ("l[0], l[2]", {"l": {"L": [{"N": "10"}, {"N": "30"}]}}),
    "member of a list element": ("m.l[1].w", {"m": {"M": {"l": {"L": [{"M": {"w": {"N": "2"}}}]}}}}),
    "missing attribute is omitted": ("a, nosuch", {"a": ITEM["a"]}),
    "index past the end is omitted": ("a, l[9]", {"a": ITEM["a"]}),
    "missing nested member is omitted": ("a, m.nosuch", {"a": ITEM["a"]}),
    "a dot outside a placeholder is a path": ("a, dotted.nm", {"a": ITEM["a"]}),
}


@pytest.mark.parametrize(
    ("projection", "expected"),
    cases(PROJECTIONS, moto={"list elements keep list order": "returns only the last list element"}),
)
def test_get_item_projection(client, make_table, projection, expected):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=ITEM)
    got = client.get_item(TableName=table, Key=KEY, ProjectionExpression=projection)["Item"]
    assert got == expected


def test_placeholder_names_an_attribute_containing_a_dot(client, make_table):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=ITEM)
    got = client.get_item(
        TableName=table,
        Key=KEY,
        ProjectionExpression="#d, #m.#x",
        ExpressionAttributeNames={"#d": "dotted.nm", "#m": "m", "#x": "x"},
    )["Item"]
    assert got == {"dotted.nm": {"S": "d"}, "m": {"M": {"x": {"N": "1"}}}}


@pytest.mark.parametrize("operation", ["query", "scan"])
def test_query_and_scan_apply_the_projection(client, make_table, operation):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=ITEM)
    client.put_item(TableName=table, Item={"pk": {"S": "other"}, "a": {"S": "2"}, "b": {"N": "3"}})
    request = {"TableName": table, "ProjectionExpression": "a, m.y.q"}
    if operation == "query":
        request.update(KeyConditionExpression="pk = :k", ExpressionAttributeValues={":k": KEY["pk"]})
    items = getattr(client, operation)(**request)["Items"]
    assert {"a": ITEM["a"], "m": {"M": {"y": {"M": {"q": {"S": "other"}}}}}} in items
    assert all(set(item) <= {"a", "m"} for item in items)


BAD_PROJECTIONS = {
    "same path twice": ("a, a", "Two document paths overlap"),
    "map and its member": ("m, m.x", "Two document paths overlap"),
    "list and its element": ("l[0], l", "Two document paths overlap"),
    "reserved word": ("name", "Attribute name is a reserved keyword; reserved keyword: name"),
    "undefined name placeholder": (
        "#nope",
        "An expression attribute name used in the document path is not defined; attribute name: #nope",
    ),
    "syntax": ("a,, b", "Syntax error"),
}


@pytest.mark.parametrize(
    ("projection", "phrase"),
    cases(
        BAD_PROJECTIONS,
        moto={
            **{
                k: "does not reject overlapping paths" for k in ("map and its member", "list and its element")
            },
            "syntax": "does not reject this syntax error",
            "undefined name placeholder": "ignores undefined name placeholders in projections",
        },
    ),
)
def test_invalid_projections_are_rejected(client, make_table, projection, phrase):
    table = make_table("hash_s")
    client.put_item(TableName=table, Item=ITEM)
    with raises_dynamodb("ValidationException", phrase):
        client.get_item(TableName=table, Key=KEY, ProjectionExpression=projection)


def test_unused_projection_name_placeholder_is_rejected(client, make_table):
    table = make_table("hash_s")
    with raises_dynamodb("ValidationException", "unused in expressions", "#unused"):
        client.get_item(
            TableName=table,
            Key=KEY,
            ProjectionExpression="#a",
            ExpressionAttributeNames={"#a": "a", "#unused": "b"},
        )
