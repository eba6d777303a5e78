"""A versioned replace through the runtime moves the stored version on by one, every time (issue 15,
requirement 6): a replace that wrote the version it was given, or none, would let two writers who
read the same version both succeed."""

from __future__ import annotations

import pytest

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import ConflictError, Runtime

DESIGN = """
version: 1
tables:
  docs: {partition_key: PK, sort_key: SK}
entities:
  Doc:
    table: docs
    version: rev
    attributes:
      id: {type: string, required: true}
      body: {type: string}
      rev: {type: number}
    keys:
      table: {pk: "D#{id}", sk: "DOC"}
"""


def _runtime() -> Runtime:
    rt = Runtime(loads(DESIGN), connect(), secret=b"s")
    rt.create_tables()
    return rt


def _stored_rev(rt: Runtime) -> str:
    """The version as DynamoDB stores it, read past the runtime."""
    item = rt.client.get_item(
        TableName="docs", Key={"PK": {"S": "D#d"}, "SK": {"S": "DOC"}}, ConsistentRead=True
    )
    return item["Item"]["rev"]["N"]


def test_each_versioned_replace_increments_the_stored_version():
    rt = _runtime()
    rt.put("Doc", {"id": "d", "body": "v1"})
    assert _stored_rev(rt) == "1"
    for expected in range(1, 6):
        rt.replace("Doc", {"id": "d", "body": f"v{expected + 1}"}, expected_version=expected)
        assert _stored_rev(rt) == str(expected + 1)
    assert rt.get("Doc", id="d")["body"] == "v6"


def test_two_writers_who_read_one_version_cannot_both_replace():
    rt = _runtime()
    rt.put("Doc", {"id": "d", "body": "first"})
    rt.replace("Doc", {"id": "d", "body": "writer A"}, expected_version=1)
    with pytest.raises(ConflictError):
        rt.replace("Doc", {"id": "d", "body": "writer B"}, expected_version=1)
    assert rt.get("Doc", id="d")["body"] == "writer A"
    assert _stored_rev(rt) == "2"


def test_the_version_in_the_replacing_values_is_not_what_gets_stored():
    rt = _runtime()
    rt.put("Doc", {"id": "d", "body": "first"})
    rt.replace("Doc", {"id": "d", "body": "second", "rev": 1}, expected_version=1)
    assert _stored_rev(rt) == "2"
