"""Scan: filters, counts, Limit paging, parallel segments, index scans.

Reference: Developer Guide, "Scanning tables" (Scan.html) and "Parallel scan" (Scan.ParallelScan).
"""

from __future__ import annotations

import pytest

from ._support import put_all, raises_dynamodb, scan_all


@pytest.fixture
def hundred(client, make_table) -> str:
    """hash_s table with 100 items, n = 0..99, across many partition keys."""
    table = make_table("hash_s")
    put_all(client, table, [{"pk": {"S": f"item-{i:03d}"}, "n": {"N": str(i)}} for i in range(100)])
    return table


def _keys(items) -> list[str]:
    return [item["pk"]["S"] for item in items]


def test_scan_returns_every_item(client, hundred):
    items, _ = scan_all(client, TableName=hundred)
    assert sorted(_keys(items)) == [f"item-{i:03d}" for i in range(100)]


def test_filter_expression_on_scan(client, hundred):
    response = client.scan(
        TableName=hundred, FilterExpression="n >= :a", ExpressionAttributeValues={":a": {"N": "90"}}
    )
    assert sorted(int(i["n"]["N"]) for i in response["Items"]) == list(range(90, 100))
    assert (response["Count"], response["ScannedCount"]) == (10, 100)


def test_scan_filter_may_use_key_attributes(client, hundred):
    # Unlike Query, a Scan filter may name key attributes.
    response = client.scan(
        TableName=hundred, FilterExpression="pk = :k", ExpressionAttributeValues={":k": {"S": "item-042"}}
    )
    assert _keys(response["Items"]) == ["item-042"]


@pytest.mark.parametrize("limit", [1, 7, 33, 100])
def test_limit_paging_visits_every_item_once(client, hundred, limit):
    first = client.scan(TableName=hundred, Limit=limit)
    assert first["Count"] == limit == first["ScannedCount"]
    items, pages = scan_all(client, TableName=hundred, Limit=limit)
    assert sorted(_keys(items)) == [f"item-{i:03d}" for i in range(100)]
    assert pages >= -(-100 // limit)


@pytest.mark.parametrize("total", [1, 2, 4, 7])
def test_parallel_segments_cover_every_item_exactly_once(client, hundred, total):
    seen: list[str] = []
    for segment in range(total):
        items, _ = scan_all(client, TableName=hundred, Segment=segment, TotalSegments=total, Limit=10)
        seen.extend(_keys(items))
    assert sorted(seen) == [f"item-{i:03d}" for i in range(100)]


def test_parallel_segments_split_the_work(client, hundred):
    counts = [
        len(scan_all(client, TableName=hundred, Segment=segment, TotalSegments=4)[0]) for segment in range(4)
    ]
    assert sum(counts) == 100
    # 100 distinct partition keys hash over 4 segments: no single segment holds everything.
    assert max(counts) < 100


BAD_SEGMENTS = {
    "Segment without TotalSegments": ({"Segment": 0}, "TotalSegments"),
    "TotalSegments without Segment": ({"TotalSegments": 2}, "Segment"),
    "Segment not less than TotalSegments": ({"Segment": 2, "TotalSegments": 2}, "Segment"),
}


@pytest.mark.parametrize(("extra", "phrase"), BAD_SEGMENTS.values(), ids=BAD_SEGMENTS.keys())
def test_invalid_segments_are_rejected(client, hundred, extra, phrase):
    with raises_dynamodb("ValidationException", phrase):
        client.scan(TableName=hundred, **extra)


def test_select_count_on_scan(client, hundred):
    response = client.scan(
        TableName=hundred,
        Select="COUNT",
        FilterExpression="n < :a",
        ExpressionAttributeValues={":a": {"N": "5"}},
    )
    assert "Items" not in response
    assert (response["Count"], response["ScannedCount"]) == (5, 100)


def test_scan_a_sparse_global_index_sees_only_indexed_items(client, make_table):
    table = make_table("gsi")
    put_all(
        client,
        table,
        [
            {"pk": {"S": "in"}, "sk": {"S": "1"}, "gpk": {"S": "g"}, "gsk": {"N": "1"}},
            {"pk": {"S": "out"}, "sk": {"S": "1"}, "gpk": {"S": "g"}},  # no index sort key
            {"pk": {"S": "out"}, "sk": {"S": "2"}},
        ],
    )
    items, _ = scan_all(client, TableName=table, IndexName="gsi1")
    assert _keys(items) == ["in"]
    assert len(scan_all(client, TableName=table)[0]) == 3


def test_one_megabyte_page_applies_to_scan(client, make_table):
    table = make_table("hash_s")
    filler = "x" * 10_000
    put_all(client, table, [{"pk": {"S": f"k{i}"}, "pad": {"S": filler}} for i in range(120)])
    first = client.scan(TableName=table, FilterExpression="attribute_exists(nosuch)")
    assert first["Count"] == 0
    assert 0 < first["ScannedCount"] < 120
    assert "LastEvaluatedKey" in first


def test_scan_of_a_missing_table_is_resource_not_found(client):
    with raises_dynamodb("ResourceNotFoundException", "Requested resource not found"):
        client.scan(TableName="nosuch")
