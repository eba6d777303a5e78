"""Cursors over every key type, and the parameter digest that binds a cursor to its run.

A cursor carries DynamoDB's LastEvaluatedKey: binary keys must come back as the same bytes, and the
text must be URL-safe (no padding ``=``: cursors travel in query strings). The digest must give one
value per parameter set however its numbers are spelled, and two values for two sets: a cursor
replayed with other parameters would read other data.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import CursorError, Runtime
from tablewright.runtime.cursor import CursorCodec, params_digest

DESIGN = """
version: 1
name: blobs
tables:
  blobs:
    name: Blobs
    partition_key: {name: owner, type: B}
    sort_key: {name: chunk, type: B}
entities:
  Chunk:
    table: blobs
    attributes:
      owner: {type: binary, required: true}
      chunk: {type: binary, required: true}
      size: number
    keys:
      table: {pk: "{owner}", sk: "{chunk}"}
patterns:
  chunks_of:
    params: {owner: binary}
    returns: Chunk
    means:
      where: "owner = :owner"
      order: chunk asc
    served:
      op: query
"""
# Chunk names whose base64 ends in padding of one and two "=", and bytes that are not text.
CHUNKS = [b"\x00", b"\xff\xfe", b"ab", b"abcd", b"\xfa\xfb\xfc", b"zzzzz"]


@pytest.fixture
def blobs() -> Runtime:
    rt = Runtime(loads(DESIGN), connect(), secret=b"test-secret")
    rt.create_tables()
    for index, chunk in enumerate(CHUNKS):
        rt.put("Chunk", {"owner": b"\x01own", "chunk": chunk, "size": index})
    rt.put("Chunk", {"owner": b"\x02other", "chunk": b"ab", "size": 99})
    return rt


def test_binary_keys_page_through_every_item_once(blobs):
    seen, cursor, cursors = [], None, []
    while True:
        page = blobs.run("chunks_of", owner=b"\x01own", limit=1, cursor=cursor)
        seen += [bytes(record["chunk"]) for record in page]
        if page.cursor is None:
            break
        cursors.append(page.cursor)
        cursor = page.cursor
    assert seen == sorted(CHUNKS)
    assert cursors and all("=" not in c and "+" not in c and "/" not in c for c in cursors)


def test_a_cursor_of_one_binary_parameter_is_refused_for_another(blobs):
    cursor = blobs.run("chunks_of", owner=b"\x01own", limit=1).cursor
    with pytest.raises(CursorError, match="different parameters"):
        blobs.run("chunks_of", owner=b"\x02other", limit=1, cursor=cursor)
    assert len(blobs.run("chunks_of", owner=bytearray(b"\x01own"), limit=1, cursor=cursor)) == 1


def test_the_key_round_trips_through_the_cursor_as_bytes():
    codec = CursorCodec(b"s")
    for chunk in CHUNKS:
        key = {"owner": {"B": b"\x01own"}, "chunk": {"B": chunk}, "n": {"N": "7"}, "s": {"S": "x=y"}}
        token = codec.encode("p", {}, 3, key)
        assert "=" not in token
        assert codec.decode(token, "p", {}) == (3, key)


def test_a_malformed_cursor_says_so():
    codec = CursorCodec(b"s")
    with pytest.raises(CursorError, match=r"cursor for pattern 'p' is malformed \(.+\)"):
        codec.decode("no-dot-here", "p", {})


@pytest.mark.parametrize(
    ("one", "same", "other"),
    [
        (Decimal("2.5"), Decimal("2.50"), Decimal("3.5")),
        (5, Decimal("5.0"), 6),
        (10**21, Decimal("1E+21"), 10**22),
        ([1, Decimal("2.5")], [Decimal("1"), Decimal("2.50")], [1, Decimal("3.5")]),
        ({"a": Decimal("0.10")}, {"a": Decimal("0.1")}, {"a": Decimal("0.2")}),
        (b"\x00", bytearray(b"\x00"), b"\x01"),
        (memoryview(b"\x00"), b"\x00", bytearray(b"\x01")),
        ("7", "7", 7),
    ],
)
def test_the_digest_is_one_per_value_and_tells_values_apart(one, same, other):
    assert params_digest({"x": one}) == params_digest({"x": same})
    assert params_digest({"x": one}) != params_digest({"x": other})
