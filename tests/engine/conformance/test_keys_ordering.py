"""Key identity and sort-key order: numbers by value, strings by UTF-8 bytes, binary by unsigned bytes.

Reference: Developer Guide, "Query operations" / KeyConditionExpression: "DynamoDB ... sorts the
results by sort key value ... Number values are sorted numerically; String by UTF-8 bytes;
Binary as unsigned bytes" (Query.KeyConditionExpressions.html, HowItWorks.NamingRulesDataTypes.html).
"""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from ._support import moto_differs, put_all, query_all


def _shuffled(values: list) -> list:
    values = list(values)
    random.Random(7).shuffle(values)
    return values


def _query_sort_keys(client, table: str, forward: bool = True) -> list:
    items, _ = query_all(
        client,
        TableName=table,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "p"}},
        ScanIndexForward=forward,
    )
    return [next(iter(item["sk"].values())) for item in items]


NUMBERS = ["-1000", "-10", "-2.5", "-1", "-0.001", "0", "0.001", "0.5", "1", "2", "9", "10", "100", "1E+20"]


@pytest.mark.parametrize("forward", [True, False])
def test_number_sort_keys_order_numerically(client, make_table, forward):
    table = make_table("hash_range_n")
    put_all(client, table, [{"pk": {"S": "p"}, "sk": {"N": v}} for v in _shuffled(NUMBERS)])
    got = [Decimal(v) for v in _query_sort_keys(client, table, forward)]
    assert got == sorted((Decimal(v) for v in NUMBERS), reverse=not forward)


# "Z" < "a" (ASCII), "é" is 2 bytes, U+FF21 is 3 bytes, "😀" is 4 bytes. UTF-16 order would put
# "😀" (surrogate 0xD83D) before U+FF21; UTF-8 byte order puts it after.
STRINGS = ["A", "AB", "B", "Z", "a", "ab", "z", "é", "\uff21", "😀", "1", "10", "9", " "]


@pytest.mark.parametrize("forward", [True, False])
def test_string_sort_keys_order_by_utf8_bytes(client, make_table, forward):
    table = make_table("hash_range_s")
    put_all(client, table, [{"pk": {"S": "p"}, "sk": {"S": v}} for v in _shuffled(STRINGS)])
    expected = sorted(STRINGS, key=lambda v: v.encode("utf-8"), reverse=not forward)
    assert _query_sort_keys(client, table, forward) == expected


# Signed byte order would put 0x80 and 0xff before 0x00.
BINARIES = [b"\x00", b"\x00\x00", b"\x01", b"\x7f", b"\x80", b"\xfe", b"\xff", b"\xff\x00"]


@pytest.mark.parametrize("forward", [True, False])
def test_binary_sort_keys_order_by_unsigned_bytes(client, make_table, forward):
    table = make_table("hash_range_b")
    put_all(client, table, [{"pk": {"S": "p"}, "sk": {"B": v}} for v in _shuffled(BINARIES)])
    assert _query_sort_keys(client, table, forward) == sorted(BINARIES, reverse=not forward)


@moto_differs("does not normalise numbers, so equal numbers are different keys")
@pytest.mark.parametrize(("written", "read_with"), [("1.0", "1"), ("01", "1"), ("1e2", "100"), ("-0", "0")])
def test_number_keys_are_equal_by_value(client, make_table, written, read_with):
    table = make_table("hash_n")
    client.put_item(TableName=table, Item={"pk": {"N": written}, "v": {"S": "first"}})
    item = client.get_item(TableName=table, Key={"pk": {"N": read_with}})["Item"]
    assert item == {"pk": {"N": read_with}, "v": {"S": "first"}}
    # Writing the same number in another spelling replaces the item rather than adding one.
    client.put_item(TableName=table, Item={"pk": {"N": read_with}, "v": {"S": "second"}})
    assert client.scan(TableName=table)["Count"] == 1


def test_string_keys_are_exact_not_case_or_normalisation_folded(client, make_table):
    table = make_table("hash_s")
    # "é" precomposed (U+00E9) and decomposed (e + U+0301) are different byte strings.
    keys = ["a", "A", "\u00e9", "e\u0301"]
    put_all(client, table, [{"pk": {"S": k}} for k in keys])
    assert client.scan(TableName=table)["Count"] == 4
    for k in keys:
        assert client.get_item(TableName=table, Key={"pk": {"S": k}})["Item"] == {"pk": {"S": k}}


def test_put_replaces_the_whole_item(client, make_table):
    table = make_table("hash_range_s")
    key = {"pk": {"S": "p"}, "sk": {"S": "s"}}
    client.put_item(TableName=table, Item={**key, "a": {"S": "1"}, "b": {"S": "2"}})
    client.put_item(TableName=table, Item={**key, "c": {"S": "3"}})
    assert client.get_item(TableName=table, Key=key)["Item"] == {**key, "c": {"S": "3"}}


def test_items_differing_only_in_sort_key_are_distinct(client, make_table):
    table = make_table("hash_range_s")
    put_all(client, table, [{"pk": {"S": "p"}, "sk": {"S": v}} for v in ("a", "b")])
    put_all(client, table, [{"pk": {"S": "q"}, "sk": {"S": "a"}}])
    assert _query_sort_keys(client, table) == ["a", "b"]
    assert client.scan(TableName=table)["Count"] == 3
