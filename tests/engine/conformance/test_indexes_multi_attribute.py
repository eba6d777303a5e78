"""Global secondary indexes with multi-attribute keys (DynamoDB, November 2025).

Reference: Developer Guide, "Using Global Secondary Indexes", section "Multi-attribute key schema"
(GSI.html#GSI.MultiAttributeKeys) and "Multi-attribute keys pattern" (GSI.DesignPattern.MultiAttributeKeys):
a GSI's partition key and its sort key may each be made of up to four attributes; KeySchema lists the
HASH elements first, then the RANGE elements. An item is indexed only with all of them. A Query gives
an equality on every HASH attribute and conditions on the RANGE attributes left to right without a
gap; only the last one named may use a range condition. Tables and LSIs keep one HASH and one RANGE.
The Query wording for a gap or a misplaced range condition is DynamoDB's as recorded by public test
suites run against AWS.
"""

from __future__ import annotations

import base64
import decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tablewright
from tablewright.engine.catalog import encode_component
from tablewright.engine.types import encode_key

from ._support import cases, engine_only, moto_differs, query_all, raises_dynamodb, scan_all

TABLE = "multi_key_table"
INDEX = "by_multi"


def _schema(hashes: list[str], ranges: list[str]) -> list[dict[str, str]]:
    return [{"AttributeName": a, "KeyType": "HASH"} for a in hashes] + [
        {"AttributeName": a, "KeyType": "RANGE"} for a in ranges
    ]


def _create(
    client: Any,
    hashes: list[tuple[str, str]],
    ranges: list[tuple[str, str]],
    projection: str = "ALL",
    key_schema: list[dict[str, str]] | None = None,
) -> None:
    """A table keyed on ``pk`` (S) with one GSI of the given HASH and RANGE ``(name, type)`` attributes."""
    definitions = {"pk": "S", **dict(hashes), **dict(ranges)}
    client.create_table(
        TableName=TABLE,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in definitions.items()],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": INDEX,
                "KeySchema": key_schema or _schema([a for a, _ in hashes], [a for a, _ in ranges]),
                "Projection": {"ProjectionType": projection},
            }
        ],
    )


def _query(client: Any, condition: str, values: dict[str, Any], **extra: Any) -> list[str]:
    """The table keys (pk) a Query of the index returns, in order, over all pages."""
    items, _ = query_all(
        client,
        TableName=TABLE,
        IndexName=INDEX,
        KeyConditionExpression=condition,
        ExpressionAttributeValues=values,
        **extra,
    )
    return [item["pk"]["S"] for item in items]


# ------------------------------------------------------------------------------------- key schemas


@pytest.mark.parametrize(("hashes", "ranges"), [(2, 0), (1, 4), (4, 1), (4, 4)])
def test_a_multi_attribute_key_schema_is_accepted_and_described_as_given(client, hashes, ranges):
    hash_attrs = [(f"h{i}", "S") for i in range(hashes)]
    range_attrs = [(f"r{i}", "N") for i in range(ranges)]
    _create(client, hash_attrs, range_attrs)
    index = client.describe_table(TableName=TABLE)["Table"]["GlobalSecondaryIndexes"][0]
    assert index["KeySchema"] == _schema([a for a, _ in hash_attrs], [a for a, _ in range_attrs])


H, R = "HASH", "RANGE"
BAD_GSI_SCHEMAS = {
    "five_hash": ([("a", H), ("b", H), ("c", H), ("d", H), ("e", H)], "maximum allowed number of HASH key"),
    "five_range": (
        [("a", H), ("b", R), ("c", R), ("d", R), ("e", R), ("f", R)],
        "maximum allowed number of RANGE key",
    ),
    "range_first": ([("a", R), ("b", H)], "The first KeySchemaElement is not a HASH key type"),
    "hash_after_range": ([("a", H), ("b", R), ("c", H)], "All HASH key attributes must precede RANGE key"),
    "duplicate_hash": ([("a", H), ("a", H)], "multiple key attributes with the same name"),
    "hash_and_range_twice": ([("a", H), ("b", H), ("a", R)], "multiple key attributes with the same name"),
    "undefined": ([("a", H), ("zz", H)], "Some index key attributes are not defined in AttributeDefinitions"),
}


@pytest.mark.parametrize(
    ("elements", "phrase"),
    cases(
        BAD_GSI_SCHEMAS,
        moto={
            case: "does not validate multi-attribute GSI key schemas"
            for case in (
                "five_hash",
                "five_range",
                "range_first",
                "hash_after_range",
                "duplicate_hash",
                "hash_and_range_twice",
            )
        },
    ),
)
def test_a_bad_gsi_key_schema_is_rejected(client, elements, phrase):
    names = sorted({name for name, _ in elements} - {"zz"})
    request = {
        "TableName": TABLE,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in ["pk", *names]],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": INDEX,
                "KeySchema": [{"AttributeName": a, "KeyType": k} for a, k in elements],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    }
    with raises_dynamodb("ValidationException", phrase):
        client.create_table(**request)


@pytest.mark.parametrize(
    "where", cases({"table": "table", "lsi": "lsi"}, moto={"lsi": "accepts two RANGE attributes in an LSI"})
)
def test_tables_and_lsis_keep_one_hash_and_one_range(client, where):
    three = [{"AttributeName": "pk", "KeyType": H}, {"AttributeName": "sk", "KeyType": R}]
    three.append({"AttributeName": "xk", "KeyType": R})
    request: dict[str, Any] = {
        "TableName": TABLE,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "xk")],
        "KeySchema": three if where == "table" else three[:2],
    }
    if where == "lsi":
        request["LocalSecondaryIndexes"] = [
            {"IndexName": "lsi1", "KeySchema": three[:1] + three[2:] + three[1:2], "Projection": {}}
        ]
        request["LocalSecondaryIndexes"][0]["Projection"] = {"ProjectionType": "ALL"}
    with raises_dynamodb("ValidationException", "Member must have length less than or equal to 2"):
        client.create_table(**request)


@moto_differs("accepts two HASH elements in a table key schema")
def test_a_table_key_of_two_hash_elements_is_rejected(client):
    with raises_dynamodb("ValidationException", "The second KeySchemaElement is not a RANGE key type"):
        client.create_table(
            TableName=TABLE,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "xk")],
            KeySchema=[{"AttributeName": "pk", "KeyType": H}, {"AttributeName": "xk", "KeyType": H}],
        )


def _update_table_create(client: Any, elements: list[tuple[str, str]]) -> dict:
    return client.update_table(
        TableName=TABLE,
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a, _ in elements],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "added",
                    "KeySchema": [{"AttributeName": a, "KeyType": k} for a, k in elements],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )


def test_update_table_creates_a_multi_attribute_gsi_and_backfills_it(client):
    client.create_table(
        TableName=TABLE,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
    )
    for pk, a, b, c in [
        ("p1", "x", "y", "2"),
        ("p2", "x", "y", "1"),
        ("p3", "x", "z", "0"),
        ("p4", "x", "y", None),
    ]:
        item = {"pk": {"S": pk}, "a": {"S": a}, "b": {"S": b}}
        if c is not None:
            item["c"] = {"S": c}
        client.put_item(TableName=TABLE, Item=item)
    _update_table_create(client, [("a", H), ("b", H), ("c", R)])
    client.get_waiter("table_exists").wait(TableName=TABLE, WaiterConfig={"Delay": 1, "MaxAttempts": 5})
    items, _ = query_all(
        client,
        TableName=TABLE,
        IndexName="added",
        KeyConditionExpression="a = :a AND b = :b",
        ExpressionAttributeValues={":a": {"S": "x"}, ":b": {"S": "y"}},
    )
    assert [i["pk"]["S"] for i in items] == ["p2", "p1"]  # p3 is another partition, p4 lacks c


@moto_differs("does not validate multi-attribute GSI key schemas")
def test_update_table_rejects_five_hash_attributes(client):
    client.create_table(
        TableName=TABLE,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
    )
    with raises_dynamodb("ValidationException", "maximum allowed number of HASH key attributes"):
        _update_table_create(client, [(a, H) for a in "abcde"])


# ------------------------------------------------------------------------------------------ writes

TWO_BY_TWO = ([("h1", "S"), ("h2", "N")], [("r1", "S"), ("r2", "B")])
FULL_ITEM = {
    "h1": {"S": "t"},
    "h2": {"N": "7"},
    "r1": {"S": "a"},
    "r2": {"B": b"\x00"},
}


@pytest.mark.parametrize("missing", ["h1", "h2", "r1", "r2"])
def test_an_item_without_every_key_attribute_is_not_in_the_index(client, missing):
    _create(client, *TWO_BY_TWO)
    client.put_item(TableName=TABLE, Item={"pk": {"S": "full"}, **FULL_ITEM})
    partial = {k: v for k, v in FULL_ITEM.items() if k != missing}
    client.put_item(TableName=TABLE, Item={"pk": {"S": "partial"}, **partial})
    scanned, _ = scan_all(client, TableName=TABLE, IndexName=INDEX)
    assert [i["pk"]["S"] for i in scanned] == ["full"]
    # Adding the missing attribute brings the item into the index; removing one takes it out again.
    client.update_item(
        TableName=TABLE,
        Key={"pk": {"S": "partial"}},
        UpdateExpression="SET #m = :v",
        ExpressionAttributeNames={"#m": missing},
        ExpressionAttributeValues={":v": FULL_ITEM[missing]},
    )
    assert sorted(i["pk"]["S"] for i in scan_all(client, TableName=TABLE, IndexName=INDEX)[0]) == [
        "full",
        "partial",
    ]
    client.update_item(TableName=TABLE, Key={"pk": {"S": "full"}}, UpdateExpression=f"REMOVE {missing}")
    assert [i["pk"]["S"] for i in scan_all(client, TableName=TABLE, IndexName=INDEX)[0]] == ["partial"]


BAD_INDEX_VALUES = {
    "hash_type": ("h2", {"S": "7"}, "Type mismatch for Index Key h2 Expected: N Actual: S"),
    "range_type": ("r2", {"S": "x"}, "Type mismatch for Index Key r2 Expected: B Actual: S"),
    "empty": ("r1", {"S": ""}, "cannot contain an empty string value"),
}
TYPES_UNCHECKED = "does not check the types of multi-attribute index keys on write"


@pytest.mark.parametrize(
    ("name", "value", "phrase"),
    cases(BAD_INDEX_VALUES, moto={"hash_type": TYPES_UNCHECKED, "range_type": TYPES_UNCHECKED}),
)
def test_a_bad_index_key_attribute_is_rejected_on_write(client, name, value, phrase):
    _create(client, *TWO_BY_TWO)
    with raises_dynamodb("ValidationException", phrase):
        client.put_item(TableName=TABLE, Item={"pk": {"S": "p"}, **FULL_ITEM, name: value})


# ---------------------------------------------------------------------------------------- ordering


def test_partitions_are_the_combination_of_all_hash_values(client):
    # Naively concatenated, ("a", "bc") and ("ab", "c") would be one partition.
    _create(client, [("h1", "S"), ("h2", "S")], [])
    for pk, h1, h2 in [("p1", "a", "bc"), ("p2", "ab", "c"), ("p3", "a", "bc")]:
        client.put_item(TableName=TABLE, Item={"pk": {"S": pk}, "h1": {"S": h1}, "h2": {"S": h2}})
    values = {":a": {"S": "a"}, ":b": {"S": "bc"}}
    assert sorted(_query(client, "h1 = :a AND h2 = :b", values)) == ["p1", "p3"]
    assert _query(client, "h1 = :a AND h2 = :b", {":a": {"S": "ab"}, ":b": {"S": "c"}}) == ["p2"]


def _sort_key(item: dict) -> tuple:
    """DynamoDB's order of the (N, S, B) sort-key components of the ordering tests."""
    return (
        decimal.Decimal(item["r1"]["N"]),
        item["r2"]["S"].encode("utf-8"),
        item["r3"]["B"],
    )


_numbers = st.decimals(min_value=-1000, max_value=1000, places=2, allow_nan=False).map(
    lambda d: str(d.normalize()) if d != 0 else "0"
)
_strings = st.text(
    alphabet=st.sampled_from(["a", "b", "\x00", "\x01", "é", "\U0001f600"]), min_size=1, max_size=4
)
_binaries = st.binary(min_size=1, max_size=4)
_rows = st.lists(st.tuples(_numbers, _strings, _binaries), min_size=1, max_size=12, unique=True)


@engine_only("a property test: a fresh in-memory engine per example")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=_rows)
def test_items_sort_by_each_range_attribute_in_turn(_aws_env, rows):
    """Within a partition, (N, S, B) RANGE components sort lexicographically, each in its type's order."""
    client = tablewright.connect()
    _create(client, [("h", "S")], [("r1", "N"), ("r2", "S"), ("r3", "B")])
    items = [
        {
            "pk": {"S": f"p{i}"},
            "h": {"S": "o"},
            "r1": {"N": n},
            "r2": {"S": s},
            "r3": {"B": b},
        }
        for i, (n, s, b) in enumerate(rows)
    ]
    for item in items:
        client.put_item(TableName=TABLE, Item=item)
    expected = [i["pk"]["S"] for i in sorted(items, key=_sort_key)]
    values = {":h": {"S": "o"}}
    assert _query(client, "h = :h", values) == expected
    assert _query(client, "h = :h", values, ScanIndexForward=False) == expected[::-1]
    assert _query(client, "h = :h", values, Limit=1) == expected  # one item per page, resumed each time
    # A range condition on the second attribute within an equality on the first.
    first = items[0]
    pivot = first["r2"]["S"].encode("utf-8")
    same_first = [i for i in sorted(items, key=_sort_key) if i["r1"] == first["r1"]]
    below = [i["pk"]["S"] for i in same_first if i["r2"]["S"].encode("utf-8") < pivot]
    condition = "h = :h AND r1 = :n AND r2 < :s"
    assert _query(client, condition, {**values, ":n": first["r1"], ":s": first["r2"]}) == below


@engine_only("reads the SQLite rows of the index")
def test_single_attribute_index_keys_are_stored_as_before(client):
    """Single-attribute index keys keep their plain encoding, so existing database files need no migration."""
    client.create_table(
        TableName=TABLE,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": a, "AttributeType": t} for a, t in [("pk", "S"), ("g", "S"), ("n", "N")]
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": INDEX,
                "KeySchema": _schema(["g"], ["n"]),
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
    )
    client.put_item(TableName=TABLE, Item={"pk": {"S": "p"}, "g": {"S": "a\x00b"}, "n": {"N": "-12.5"}})
    engine = tablewright.engine_of(client)
    meta = engine.store.table(TABLE)
    rows = engine.store.conn.execute(
        f"SELECT pk, sk FROM {meta.index_sql_name(meta.index(INDEX))}"
    ).fetchall()
    assert rows == [(encode_key({"S": "a\x00b"}), encode_key({"N": "-12.5"}))]


@engine_only("unit check of the component encoding")
@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.binary(max_size=5), min_size=2, max_size=2),
    st.lists(st.binary(max_size=5), min_size=2, max_size=2),
)
def test_component_encoding_orders_like_tuples(left, right):
    """Concatenated components compare exactly as the tuples of their raw bytes do."""

    def encoded(parts: list[bytes]) -> bytes:
        return b"".join(encode_component({"B": base64.b64encode(p).decode()}) for p in parts)

    assert (encoded(left) < encoded(right)) == (left < right)
    assert (encoded(left) == encoded(right)) == (left == right)


# ------------------------------------------------------------------------------------------ Query

# One partition (h1, h2) = ("t", 1) of items (pk, r1, r2, r3); p9 is in another partition.
QUERY_ITEMS = [
    ("p1", "a", 1, "x"),
    ("p2", "a", 2, "x"),
    ("p3", "a", 2, "y"),
    ("p4", "a", 3, "x"),
    ("p5", "ab", 1, "x"),
    ("p6", "b", -1, "z"),
    ("p7", "ba", 0, "x"),
]
QUERY_CASES = {
    "hash_only": ("", {}, ["p1", "p2", "p3", "p4", "p5", "p6", "p7"]),
    "first_eq": ("AND r1 = :a", {":a": "a"}, ["p1", "p2", "p3", "p4"]),
    "first_lt": ("AND r1 < :a", {":a": "ab"}, ["p1", "p2", "p3", "p4"]),
    "first_le": ("AND r1 <= :a", {":a": "ab"}, ["p1", "p2", "p3", "p4", "p5"]),
    "first_gt": ("AND r1 > :a", {":a": "a"}, ["p5", "p6", "p7"]),
    "first_ge": ("AND r1 >= :a", {":a": "ab"}, ["p5", "p6", "p7"]),
    "first_between": ("AND r1 BETWEEN :a AND :b", {":a": "ab", ":b": "b"}, ["p5", "p6"]),
    "first_begins_with": ("AND begins_with(r1, :a)", {":a": "b"}, ["p6", "p7"]),
    "second_eq": ("AND r1 = :a AND r2 = :n", {":a": "a", ":n": 2}, ["p2", "p3"]),
    "second_lt": ("AND r1 = :a AND r2 < :n", {":a": "a", ":n": 2}, ["p1"]),
    "second_le": ("AND r1 = :a AND r2 <= :n", {":a": "a", ":n": 2}, ["p1", "p2", "p3"]),
    "second_gt": ("AND r1 = :a AND r2 > :n", {":a": "a", ":n": 2}, ["p4"]),
    "second_ge": ("AND r1 = :a AND r2 >= :n", {":a": "a", ":n": 2}, ["p2", "p3", "p4"]),
    "second_between": (
        "AND r1 = :a AND r2 BETWEEN :n AND :m",
        {":a": "a", ":n": 2, ":m": 3},
        ["p2", "p3", "p4"],
    ),
    "third_eq": ("AND r1 = :a AND r2 = :n AND r3 = :x", {":a": "a", ":n": 2, ":x": "y"}, ["p3"]),
    "third_begins_with": (
        "AND r1 = :a AND r2 = :n AND begins_with(r3, :x)",
        {":a": "a", ":n": 2, ":x": "x"},
        ["p2"],
    ),
    "any_order": ("AND r2 = :n AND r1 = :a", {":a": "a", ":n": 2}, ["p2", "p3"]),
}


def _wire(value: Any) -> dict[str, str]:
    return {"N": str(value)} if isinstance(value, int) else {"S": value}


@pytest.fixture
def query_table(client: Any) -> Any:
    _create(client, [("h1", "S"), ("h2", "N")], [("r1", "S"), ("r2", "N"), ("r3", "S")])
    for pk, r1, r2, r3 in [*QUERY_ITEMS, ("p9", "a", 1, "x")]:
        h1 = "t" if pk != "p9" else "u"
        item = {"pk": pk, "h1": h1, "h2": 1, "r1": r1, "r2": r2, "r3": r3}
        client.put_item(TableName=TABLE, Item={k: _wire(v) for k, v in item.items()})
    return client


@pytest.mark.parametrize(("extra", "values", "expected"), cases(QUERY_CASES))
def test_query_conditions_on_a_multi_attribute_key(query_table, extra, values, expected):
    condition = f"h1 = :h1 AND h2 = :h2 {extra}".strip()
    wire = {":h1": {"S": "t"}, ":h2": {"N": "1"}, **{k: _wire(v) for k, v in values.items()}}
    assert _query(query_table, condition, wire) == expected
    assert _query(query_table, condition, wire, ScanIndexForward=False) == expected[::-1]


QUERY_ERRORS = {
    # DynamoDB says every HASH attribute needs an equality condition (not the single-key wording).
    "missing_hash": ("h1 = :h1", {}, "HASH key attributes h1, h2 must all have equality conditions"),
    "hash_range_op": (
        "h1 = :h1 AND h2 > :h2",
        {},
        "HASH key attributes h1, h2 must all have equality conditions",
    ),
    "hash_between": (
        "h1 = :h1 AND h2 BETWEEN :h2 AND :n",
        {":n": 2},
        "HASH key attributes h1, h2 must all have equality conditions",
    ),
    "hash_begins_with": (
        "begins_with(h1, :h1) AND h2 = :h2",
        {},
        "HASH key attributes h1, h2 must all have equality conditions",
    ),
    "skip_first_range": (
        "h1 = :h1 AND h2 = :h2 AND r2 = :n",
        {":n": 1},
        "RANGE key attributes r1 must have equality conditions specified in the query because a condition "
        "is present on key attribute r2",
    ),
    "gap": (
        "h1 = :h1 AND h2 = :h2 AND r1 = :a AND r3 = :a",
        {":a": "a"},
        "RANGE key attributes r2 must have equality conditions specified in the query because a condition "
        "is present on key attribute r3",
    ),
    "range_op_not_last": (
        "h1 = :h1 AND h2 = :h2 AND r1 > :a AND r2 = :n",
        {":a": "a", ":n": 1},
        "RANGE key attributes r1 must have equality conditions specified in the query because a condition "
        "is present on key attribute r2",
    ),
    "begins_with_not_last": (
        "h1 = :h1 AND h2 = :h2 AND begins_with(r1, :a) AND r2 = :n",
        {":a": "a", ":n": 1},
        "RANGE key attributes r1 must have equality conditions specified in the query",
    ),
    "not_a_key": (
        "h1 = :h1 AND h2 = :h2 AND extra = :a",
        {":a": "a"},
        "Query condition missed key schema element: r1",
    ),
    "wrong_hash_type": (
        "h1 = :h1 AND h2 = :a",
        {":a": "1"},
        "Condition parameter type does not match schema type",
    ),
    "wrong_range_type": (
        "h1 = :h1 AND h2 = :h2 AND r1 = :a AND r2 = :a",
        {":a": "a"},
        "does not match schema type",
    ),
    "begins_with_number": (
        "h1 = :h1 AND h2 = :h2 AND r1 = :a AND begins_with(r2, :n)",
        {":a": "a", ":n": 1},
        "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
    ),
}


@pytest.mark.parametrize(
    ("condition", "values", "phrase"),
    cases(
        QUERY_ERRORS,
        moto={
            "missing_hash": "names the missing partition key attribute ('Query condition missed key schema element: h2')",
            "hash_range_op": "reports 'Query key condition not supported'",
            "hash_between": "reports 'Query key condition not supported'",
            "hash_begins_with": "reports 'Query key condition not supported'",
            "range_op_not_last": "reports 'Query key condition not supported'",
            "begins_with_not_last": "reports 'Query key condition not supported'",
            "wrong_hash_type": "returns no items instead",
            "wrong_range_type": "returns no items instead",
            "begins_with_number": "does not check begins_with against the attribute's type",
        },
    ),
)
def test_query_errors_on_a_multi_attribute_key(query_table, condition, values, phrase):
    wire = {":h1": {"S": "t"}, ":h2": {"N": "1"}, **{k: _wire(v) for k, v in values.items()}}
    used = {k: v for k, v in wire.items() if k in condition}
    with raises_dynamodb("ValidationException", phrase):
        _query(query_table, condition, used)


@moto_differs("allows a filter on an index key attribute")
def test_a_filter_cannot_use_any_index_key_attribute(query_table):
    with raises_dynamodb("ValidationException", "Primary key attribute: r2"):
        _query(
            query_table,
            "h1 = :h1 AND h2 = :h2",
            {":h1": {"S": "t"}, ":h2": {"N": "1"}, ":n": {"N": "1"}},
            FilterExpression="r2 = :n",
        )


def test_pages_carry_the_table_key_and_every_index_key_attribute(query_table):
    request = {
        "TableName": TABLE,
        "IndexName": INDEX,
        "KeyConditionExpression": "h1 = :h1 AND h2 = :h2 AND r1 = :a",
        "ExpressionAttributeValues": {":h1": {"S": "t"}, ":h2": {"N": "1"}, ":a": {"S": "a"}},
        "Limit": 2,
    }
    page = query_table.query(**request)
    assert [i["pk"]["S"] for i in page["Items"]] == ["p1", "p2"]
    assert page["LastEvaluatedKey"] == {
        "pk": {"S": "p2"},
        "h1": {"S": "t"},
        "h2": {"N": "1"},
        "r1": {"S": "a"},
        "r2": {"N": "2"},
        "r3": {"S": "x"},
    }
    rest = query_table.query(**request, ExclusiveStartKey=page["LastEvaluatedKey"])
    assert [i["pk"]["S"] for i in rest["Items"]] == ["p3", "p4"]


def test_scan_of_the_index_returns_every_indexed_item_once(query_table):
    client = query_table
    client.put_item(
        TableName=TABLE, Item={"pk": {"S": "p10"}, "h1": {"S": "t"}, "h2": {"N": "1"}}
    )  # not indexed
    items, pages = scan_all(client, TableName=TABLE, IndexName=INDEX, Limit=2)
    assert sorted(i["pk"]["S"] for i in items) == sorted([row[0] for row in QUERY_ITEMS] + ["p9"])
    assert pages >= 4


def test_keys_only_projection_holds_every_key_attribute(client):
    _create(client, *TWO_BY_TWO, projection="KEYS_ONLY")
    client.put_item(TableName=TABLE, Item={"pk": {"S": "p"}, **FULL_ITEM, "other": {"S": "o"}})
    items, _ = scan_all(client, TableName=TABLE, IndexName=INDEX)
    assert items == [{"pk": {"S": "p"}, **FULL_ITEM}]
