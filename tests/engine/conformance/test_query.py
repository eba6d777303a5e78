"""Query: key condition operators, order, Limit and paging, the 1 MB page before the filter, Select, indexes.

Reference: Developer Guide, "Querying tables" (Query.html), "Paginating table query results"
(Query.Pagination.html): "A single Query only returns a result set that fits within the 1 MB size
limit" and the limit applies before FilterExpression (Query.FilterExpression.html).
"""

from __future__ import annotations

import pytest

from ._support import cases, moto_differs, put_all, query_all, raises_dynamodb


@pytest.fixture
def numbered(client, make_table) -> str:
    """hash_range_n table: partition "p" has sk 1..10, partition "q" has sk 1..3."""
    table = make_table("hash_range_n")
    items = [{"pk": {"S": "p"}, "sk": {"N": str(i)}, "odd": {"BOOL": i % 2 == 1}} for i in range(1, 11)]
    items += [{"pk": {"S": "q"}, "sk": {"N": str(i)}} for i in range(1, 4)]
    put_all(client, table, items)
    return table


def _sks(items) -> list[int]:
    return [int(item["sk"]["N"]) for item in items]


KEY_CONDITIONS = {
    "=": ("sk = :a", {":a": 4}, [4]),
    "<": ("sk < :a", {":a": 4}, [1, 2, 3]),
    "<=": ("sk <= :a", {":a": 4}, [1, 2, 3, 4]),
    ">": ("sk > :a", {":a": 8}, [9, 10]),
    ">=": ("sk >= :a", {":a": 8}, [8, 9, 10]),
    "BETWEEN": ("sk BETWEEN :a AND :b", {":a": 3, ":b": 5}, [3, 4, 5]),
    "BETWEEN one value": ("sk BETWEEN :a AND :a", {":a": 7}, [7]),
    "no match": ("sk > :a", {":a": 10}, []),
}


@pytest.mark.parametrize(("condition", "values", "expected"), cases(KEY_CONDITIONS))
def test_key_condition_operators_on_a_number_sort_key(client, numbered, condition, values, expected):
    response = client.query(
        TableName=numbered,
        KeyConditionExpression=f"pk = :p AND {condition}",
        ExpressionAttributeValues={":p": {"S": "p"}, **{k: {"N": str(v)} for k, v in values.items()}},
    )
    assert _sks(response["Items"]) == expected
    assert response["Count"] == len(expected)


def test_partition_only_condition_returns_the_whole_partition_in_order(client, numbered):
    items = client.query(
        TableName=numbered, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "q"}}
    )["Items"]
    assert _sks(items) == [1, 2, 3]
    assert all(item["pk"] == {"S": "q"} for item in items)


def test_begins_with_on_a_string_sort_key(client, make_table):
    table = make_table("hash_range_s")
    put_all(client, table, [{"pk": {"S": "p"}, "sk": {"S": s}} for s in ("a#1", "a#2", "ab", "b#1", "A#1")])
    items = client.query(
        TableName=table,
        KeyConditionExpression="pk = :p AND begins_with(sk, :pre)",
        ExpressionAttributeValues={":p": {"S": "p"}, ":pre": {"S": "a#"}},
    )["Items"]
    assert [i["sk"]["S"] for i in items] == ["a#1", "a#2"]


def test_begins_with_on_a_binary_sort_key(client, make_table):
    table = make_table("hash_range_b")
    put_all(
        client, table, [{"pk": {"S": "p"}, "sk": {"B": b}} for b in (b"\x01\x02", b"\x01\x03", b"\x02\x01")]
    )
    items = client.query(
        TableName=table,
        KeyConditionExpression="pk = :p AND begins_with(sk, :pre)",
        ExpressionAttributeValues={":p": {"S": "p"}, ":pre": {"B": b"\x01"}},
    )["Items"]
    assert [i["sk"]["B"] for i in items] == [b"\x01\x02", b"\x01\x03"]


def test_scan_index_forward_false_reverses_the_order(client, numbered):
    items = client.query(
        TableName=numbered,
        KeyConditionExpression="pk = :p AND sk <= :a",
        ExpressionAttributeValues={":p": {"S": "p"}, ":a": {"N": "4"}},
        ScanIndexForward=False,
    )["Items"]
    assert _sks(items) == [4, 3, 2, 1]


@pytest.mark.parametrize("forward", [True, False])
@pytest.mark.parametrize("limit", [1, 3, 4, 10, 11])
def test_limit_and_exclusive_start_key_page_to_exhaustion(client, numbered, limit, forward):
    request = {
        "TableName": numbered,
        "KeyConditionExpression": "pk = :p",
        "ExpressionAttributeValues": {":p": {"S": "p"}},
        "Limit": limit,
        "ScanIndexForward": forward,
    }
    first = client.query(**request)
    assert first["Count"] == min(limit, 10)
    if limit < 10:
        # The page stopped at Limit: LastEvaluatedKey is the key of the last item returned.
        assert first["LastEvaluatedKey"] == {"pk": first["Items"][-1]["pk"], "sk": first["Items"][-1]["sk"]}
    elif limit > 10:
        assert "LastEvaluatedKey" not in first
    items, pages = query_all(client, **request)
    expected = list(range(1, 11)) if forward else list(range(10, 0, -1))
    assert _sks(items) == expected
    assert pages >= -(-10 // limit)


@moto_differs("omits LastEvaluatedKey when Limit is reached on the last item")
@pytest.mark.parametrize("limit", [5, 10])
def test_a_page_that_fills_limit_exactly_still_has_a_last_evaluated_key(client, numbered, limit):
    # DynamoDB stops reading when Limit is reached without looking ahead, so the caller learns that
    # the result is complete only from a following (empty) page without LastEvaluatedKey.
    request = {
        "TableName": numbered,
        "KeyConditionExpression": "pk = :p",
        "ExpressionAttributeValues": {":p": {"S": "p"}},
        "Limit": limit,
    }
    _, pages = query_all(client, **request)
    assert pages == 10 // limit + 1


def test_limit_counts_items_read_before_the_filter(client, numbered):
    response = client.query(
        TableName=numbered,
        KeyConditionExpression="pk = :p",
        FilterExpression="odd = :t",
        ExpressionAttributeValues={":p": {"S": "p"}, ":t": {"BOOL": True}},
        Limit=4,
    )
    assert _sks(response["Items"]) == [1, 3]
    assert response["Count"] == 2
    assert response["ScannedCount"] == 4
    assert "LastEvaluatedKey" in response


def test_filter_expression_reduces_items_not_scanned_count(client, numbered):
    items, _ = query_all(
        client,
        TableName=numbered,
        KeyConditionExpression="pk = :p",
        FilterExpression="odd = :t",
        ExpressionAttributeValues={":p": {"S": "p"}, ":t": {"BOOL": True}},
    )
    assert _sks(items) == [1, 3, 5, 7, 9]
    response = client.query(
        TableName=numbered,
        KeyConditionExpression="pk = :p",
        FilterExpression="odd = :t",
        ExpressionAttributeValues={":p": {"S": "p"}, ":t": {"BOOL": True}},
    )
    assert (response["Count"], response["ScannedCount"]) == (5, 10)


def test_one_megabyte_page_is_applied_before_the_filter(client, make_table):
    table = make_table("hash_range_n")
    # 120 items of ~10 KB: about 1.2 MB in one partition, more than one page.
    filler = "x" * 10_000
    put_all(
        client, table, [{"pk": {"S": "p"}, "sk": {"N": str(i)}, "pad": {"S": filler}} for i in range(120)]
    )
    request = {
        "TableName": table,
        "KeyConditionExpression": "pk = :p",
        "FilterExpression": "attribute_exists(nosuch)",
        "ExpressionAttributeValues": {":p": {"S": "p"}},
    }
    first = client.query(**request)
    assert first["Count"] == 0
    assert first["Items"] == []
    assert 0 < first["ScannedCount"] < 120
    assert "LastEvaluatedKey" in first
    scanned, start = 0, None
    while True:
        page = client.query(**request, **({"ExclusiveStartKey": start} if start else {}))
        scanned += page["ScannedCount"]
        start = page.get("LastEvaluatedKey")
        if start is None:
            break
    assert scanned == 120


def test_select_count_returns_counts_without_items(client, numbered):
    response = client.query(
        TableName=numbered,
        KeyConditionExpression="pk = :p AND sk > :a",
        ExpressionAttributeValues={":p": {"S": "p"}, ":a": {"N": "6"}},
        Select="COUNT",
    )
    assert "Items" not in response
    assert (response["Count"], response["ScannedCount"]) == (4, 4)


def test_select_specific_attributes_with_a_projection(client, numbered):
    items = client.query(
        TableName=numbered,
        KeyConditionExpression="pk = :p AND sk = :a",
        ExpressionAttributeValues={":p": {"S": "p"}, ":a": {"N": "3"}},
        Select="SPECIFIC_ATTRIBUTES",
        ProjectionExpression="odd",
    )["Items"]
    assert items == [{"odd": {"BOOL": True}}]


BAD_SELECTS = {
    "ALL_PROJECTED_ATTRIBUTES without an index": (
        {"Select": "ALL_PROJECTED_ATTRIBUTES"},
        "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
    ),
    # The wording of these three as captured from DynamoDB by public conformance suites.
    "SPECIFIC_ATTRIBUTES without a projection": (
        {"Select": "SPECIFIC_ATTRIBUTES"},
        "1 validation error detected: Must specify the AttributesToGet or ProjectionExpression when "
        "choosing to get SPECIFIC_ATTRIBUTES",
    ),
    "ALL_ATTRIBUTES with a projection": (
        {"Select": "ALL_ATTRIBUTES", "ProjectionExpression": "odd"},
        "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get "
        "ALL_ATTRIBUTES",
    ),
    "COUNT with a projection": (
        {"Select": "COUNT", "ProjectionExpression": "odd"},
        "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only "
        "the Count",
    ),
}


@pytest.mark.parametrize(("extra", "phrase"), cases(BAD_SELECTS))
def test_invalid_select_combinations_are_rejected(client, numbered, extra, phrase):
    with raises_dynamodb("ValidationException", phrase):
        client.query(
            TableName=numbered,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "p"}},
            **extra,
        )


BAD_KEY_CONDITIONS = {
    "missing partition key": ("sk = :a", {":a": {"N": "1"}}, "Query condition missed key schema element"),
    "OR": ("pk = :p OR sk = :a", {":p": {"S": "p"}, ":a": {"N": "1"}}, "KeyConditionExpression"),
    "non-key attribute": ("pk = :p AND odd = :t", {":p": {"S": "p"}, ":t": {"BOOL": True}}, ""),
    "range on the partition key": ("pk > :p", {":p": {"S": "p"}}, ""),
    "wrong value type for the sort key": (
        "pk = :p AND sk = :a",
        {":p": {"S": "p"}, ":a": {"S": "1"}},
        "",
    ),
}


@pytest.mark.parametrize(
    ("condition", "values", "phrase"),
    cases(
        BAD_KEY_CONDITIONS,
        moto={
            "wrong value type for the sort key": "accepts a mistyped key value",
            "OR": "its tokenizer raises AssertionError",
        },
    ),
)
def test_invalid_key_conditions_are_rejected(client, numbered, condition, values, phrase):
    with raises_dynamodb("ValidationException", phrase):
        client.query(TableName=numbered, KeyConditionExpression=condition, ExpressionAttributeValues=values)


@moto_differs("accepts key attributes in a Query FilterExpression")
def test_filter_on_a_key_attribute_is_rejected(client, numbered):
    with raises_dynamodb(
        "ValidationException", "Filter Expression can only contain non-primary key attributes"
    ):
        client.query(
            TableName=numbered,
            KeyConditionExpression="pk = :p",
            FilterExpression="sk > :a",
            ExpressionAttributeValues={":p": {"S": "p"}, ":a": {"N": "1"}},
        )


def test_query_of_a_missing_table_is_resource_not_found(client):
    with raises_dynamodb("ResourceNotFoundException", "Requested resource not found"):
        client.query(
            TableName="nosuch", KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p"}}
        )


# --------------------------------------------------------------------------------------------- indexes


@pytest.fixture
def indexed(client, make_table) -> str:
    """gsi table: items in two GSI partitions with numeric gsk; one item not in the index."""
    table = make_table("gsi")
    items = [
        {
            "pk": {"S": f"p{i}"},
            "sk": {"S": "s"},
            "gpk": {"S": "g" if i < 6 else "h"},
            "gsk": {"N": str(10 - i)},
        }
        for i in range(8)
    ]
    items.append({"pk": {"S": "sparse"}, "sk": {"S": "s"}})
    put_all(client, table, items)
    return table


def test_query_a_global_index_orders_by_the_index_sort_key(client, indexed):
    items, _ = query_all(
        client,
        TableName=indexed,
        IndexName="gsi1",
        KeyConditionExpression="gpk = :g",
        ExpressionAttributeValues={":g": {"S": "g"}},
    )
    assert [int(i["gsk"]["N"]) for i in items] == [5, 6, 7, 8, 9, 10]
    assert [i["pk"]["S"] for i in items] == ["p5", "p4", "p3", "p2", "p1", "p0"]


def test_paging_a_global_index_uses_table_and_index_keys(client, indexed):
    request = {
        "TableName": indexed,
        "IndexName": "gsi1",
        "KeyConditionExpression": "gpk = :g",
        "ExpressionAttributeValues": {":g": {"S": "g"}},
        "Limit": 2,
    }
    first = client.query(**request)
    assert set(first["LastEvaluatedKey"]) == {"pk", "sk", "gpk", "gsk"}
    items, _ = query_all(client, **request)
    assert [int(i["gsk"]["N"]) for i in items] == [5, 6, 7, 8, 9, 10]


def test_consistent_read_on_a_global_index_is_rejected(client, indexed):
    with raises_dynamodb(
        "ValidationException", "Consistent reads are not supported on global secondary indexes"
    ):
        client.query(
            TableName=indexed,
            IndexName="gsi1",
            KeyConditionExpression="gpk = :g",
            ExpressionAttributeValues={":g": {"S": "g"}},
            ConsistentRead=True,
        )


def test_query_a_local_index_with_consistent_read(client, make_table):
    table = make_table("lsi")
    put_all(
        client,
        table,
        [{"pk": {"S": "p"}, "sk": {"S": f"s{i}"}, "lsk": {"N": str(-i)}} for i in range(5)]
        + [{"pk": {"S": "p"}, "sk": {"S": "no-lsk"}}],
    )
    items = client.query(
        TableName=table,
        IndexName="lsi1",
        KeyConditionExpression="pk = :p AND lsk < :z",
        ExpressionAttributeValues={":p": {"S": "p"}, ":z": {"N": "0"}},
        ConsistentRead=True,
    )["Items"]
    assert [i["sk"]["S"] for i in items] == ["s4", "s3", "s2", "s1"]


@moto_differs("answers ResourceNotFoundException with its own wording")
def test_query_of_an_unknown_index_is_rejected(client, indexed):
    with raises_dynamodb("ValidationException", "The table does not have the specified index: nosuch"):
        client.query(
            TableName=indexed,
            IndexName="nosuch",
            KeyConditionExpression="gpk = :g",
            ExpressionAttributeValues={":g": {"S": "g"}},
        )


def test_select_all_projected_attributes_on_an_index(client, make_table):
    table = make_table("gsi", projection={"ProjectionType": "INCLUDE", "NonKeyAttributes": ["keep"]})
    client.put_item(
        TableName=table,
        Item={
            "pk": {"S": "p"},
            "sk": {"S": "s"},
            "gpk": {"S": "g"},
            "gsk": {"N": "1"},
            "keep": {"S": "k"},
            "drop": {"S": "d"},
        },
    )
    items = client.query(
        TableName=table,
        IndexName="gsi1",
        KeyConditionExpression="gpk = :g",
        ExpressionAttributeValues={":g": {"S": "g"}},
        Select="ALL_PROJECTED_ATTRIBUTES",
    )["Items"]
    assert items == [
        {"pk": {"S": "p"}, "sk": {"S": "s"}, "gpk": {"S": "g"}, "gsk": {"N": "1"}, "keep": {"S": "k"}}
    ]


EMPTY_PARTITIONS = {
    "table": ("hash_range_s", None, "pk"),
    "index": ("gsi", "gsi1", "gpk"),
}


# Real DynamoDB words it so on an index too (not the IndexName/IndexKey form of a write); an
# empty binary partition is not refused: it matches nothing, as no item can have one.
@pytest.mark.parametrize(("shape", "index", "name"), cases(EMPTY_PARTITIONS))
def test_a_query_for_an_empty_string_partition_is_refused(client, make_table, shape, index, name):
    table = make_table(shape)
    on_index = {"IndexName": index} if index else {}
    with raises_dynamodb("ValidationException", f"cannot contain an empty string value. Key: {name}"):
        client.query(
            TableName=table,
            KeyConditionExpression="#k = :p",
            ExpressionAttributeNames={"#k": name},
            ExpressionAttributeValues={":p": {"S": ""}},
            **on_index,
        )
    with raises_dynamodb("ValidationException", f"cannot contain an empty string value. Key: {name}"):
        client.query(
            TableName=table,
            KeyConditions={name: {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": ""}]}},
            **on_index,
        )
