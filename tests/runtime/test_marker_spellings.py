"""One value, one spelling: what the runtime derives from a value (a uniqueness marker, an
idempotency digest, a cursor's parameter digest) depends on the value, not on how it was written
(``7`` or ``Decimal("7.0")``), and two values never share one marker. A transactional write that
DynamoDB refuses as invalid is a ValidationError carrying its message, not a conflict to retry."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import (
    ConflictError,
    IdempotencyKeyReusedError,
    Runtime,
    UniquenessError,
    ValidationError,
)

DESIGN = """
version: 1
tables:
  main: {partition_key: PK, sort_key: SK}
entities:
  Acct:
    table: main
    attributes:
      id: {type: string, required: true}
      code: {type: number}
      vendor: string
      vid: string
      email: string
      dims: map
      note: string
    keys:
      table: {pk: "A#{id}", sk: "A"}
    unique: [[code], [vendor, vid], [email]]
  Msg:
    table: main
    attributes:
      dev: {type: string, required: true}
      seq: {type: number, required: true}
      big: number
    keys:
      table: {pk: "D#{dev}", sk: "{seq:03}"}
patterns:
  by_big:
    params: {dev: string, big: number}
    returns: Msg
    means: {where: "dev = :dev AND big >= :big", order: seq asc, limit: 2}
    served: {op: query, filter: "big >= :big"}
"""


@pytest.fixture
def rt() -> Runtime:
    runtime = Runtime(loads(DESIGN), connect(), secret=b"test-secret")
    runtime.create_tables()
    return runtime


def _unique_markers(rt: Runtime) -> list[str]:
    items = rt.client.scan(TableName="main")["Items"]
    return sorted(i["PK"]["S"] for i in items if i["PK"]["S"].startswith("_tw#unique#"))


def _stored_ids(rt: Runtime) -> list[str]:
    items = rt.client.scan(TableName="main")["Items"]
    return sorted(i["id"]["S"] for i in items if "id" in i)


def test_a_number_claims_one_unique_marker_however_it_is_spelled(rt):
    rt.put("Acct", {"id": "1", "code": 7})
    with pytest.raises(UniquenessError):
        rt.put("Acct", {"id": "2", "code": Decimal("7.0")})
    with pytest.raises(UniquenessError):
        rt.put("Acct", {"id": "3", "code": Decimal("0.7E+1")})
    rt.put("Acct", {"id": "4", "code": Decimal("1E+3")})
    rt.put("Acct", {"id": "5", "code": Decimal("1.50")})
    # An int keeps the marker text it has always had: markers stored before still guard it.
    assert _unique_markers(rt) == [
        "_tw#unique#Acct#code#1.5",
        "_tw#unique#Acct#code#1000",
        "_tw#unique#Acct#code#7",
    ]
    assert _stored_ids(rt) == ["1", "4", "5"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("x#y", "z"), ("x", "y#z")),
        (("a\\", "#b"), ("a\\#", "b")),  # the escape character itself next to a separator
    ],
)
def test_composite_unique_values_that_join_alike_are_different_values(rt, first, second):
    rt.put("Acct", {"id": "1", "vendor": first[0], "vid": first[1]})
    rt.put("Acct", {"id": "2", "vendor": second[0], "vid": second[1]})
    with pytest.raises(UniquenessError):
        rt.put("Acct", {"id": "3", "vendor": first[0], "vid": first[1]})
    assert _stored_ids(rt) == ["1", "2"]


def test_composite_values_without_separator_or_escape_keep_their_marker_text(rt):
    rt.put("Acct", {"id": "1", "vendor": "acme", "vid": "p-1"})
    rt.put("Acct", {"id": "2", "vendor": "x#y", "vid": "z\\w", "email": "a#b@x.io"})
    assert _unique_markers(rt) == [
        "_tw#unique#Acct#email#a#b@x.io",  # one value is never escaped: its constraint is fixed
        "_tw#unique#Acct#vendor+vid#acme#p-1",
        "_tw#unique#Acct#vendor+vid#x\\#y#z\\\\w",
    ]


def _request_digest(rt: Runtime, key: str) -> str:
    marker = rt.client.get_item(
        TableName="main", Key={"PK": {"S": f"_tw#idem#Acct#{key}"}, "SK": {"S": "_tw#marker"}}
    )["Item"]
    return marker["_tw_request"]["S"]


def test_a_retry_spelling_its_numbers_otherwise_is_the_same_request(rt):
    first = {"id": "1", "code": 5000, "dims": {"w": Decimal("1.5"), "n": [1, 2]}}
    retry = {"id": "1", "code": Decimal("5000.0"), "dims": {"w": Decimal("1.50"), "n": [Decimal("1E+0"), 2]}}
    assert rt.put("Acct", first, idempotency_key="k4").applied
    again = rt.put("Acct", retry, idempotency_key="k4")
    assert not again.applied and again.plan == "already applied"
    # The digest runtimes stored for this request before numbers were digested by value: a marker
    # written then is still recognised as this request.
    assert _request_digest(rt, "k4") == "b3021452da1dbf24f65431a9f0aba237"
    with pytest.raises(IdempotencyKeyReusedError):
        rt.put("Acct", {**first, "code": 5001}, idempotency_key="k4")


# Issued before parameter digests took every int, for by_big(dev="d", big=5) at SK "003", secret
# b"test-secret": a cursor handed out then must still resume.
EARLIER_CURSOR = (
    "eyJwIjoiYnlfYmlnIiwiaCI6Ijk4ZGUwNWM2MTA3OTU4MzEiLCJiIjowLCJrIjp7IlBLIjpbIlMiLCJEI2QiXSwiU0siOlsiUyIsIjAwMyJdfX0"
    ".RdecOLD05F5R7F75tmQ-8kn4Vxh0b-cg4WbgnPRAy58"
)


def _all_pages(rt: Runtime, **params: object) -> list[int]:
    seqs, cursor = [], None
    while True:
        page = rt.run("by_big", cursor=cursor, **params)
        seqs += [record["seq"] for record in page]
        if page.cursor is None:
            return seqs
        cursor = page.cursor


def test_a_pattern_parameter_beyond_64_bits_pages_with_cursors(rt):
    for seq in range(6):
        rt.put("Msg", {"dev": "d", "seq": seq, "big": seq * 10**21})
    assert _all_pages(rt, dev="d", big=10**21) == [1, 2, 3, 4, 5]
    assert _all_pages(rt, dev="d", big=-(10**30)) == [0, 1, 2, 3, 4, 5]
    resumed = rt.run("by_big", dev="d", big=5, cursor=EARLIER_CURSOR)
    assert [record["seq"] for record in resumed] == [4, 5]


def test_a_transactional_write_dynamodb_refuses_as_invalid_is_a_validation_error(rt):
    # The marker's key holds the e-mail: 2,040 characters make it longer than DynamoDB's 2,048 bytes.
    with pytest.raises(ValidationError) as refused:
        rt.put("Acct", {"id": "1", "email": "e" * 2040})
    (violation,) = refused.value.violations
    assert (violation.entity, violation.attribute, violation.rule) == ("Acct", "email", "dynamodb")
    assert "Size of hashkey has exceeded the maximum size limit" in violation.message
    with pytest.raises(ValidationError, match=r"Acct\.\(item\): DynamoDB refused the put: Item size"):
        rt.put("Acct", {"id": "2", "email": "b@x.io", "note": "n" * 410_000})
    assert _stored_ids(rt) == []


def test_an_invalid_operation_of_a_transaction_is_named_by_its_index(rt):
    with pytest.raises(ValidationError) as refused:
        rt.transact([rt.tx_put("Acct", {"id": "1"}), rt.tx_put("Acct", {"id": "2", "email": "e" * 2040})])
    assert not isinstance(refused.value, ConflictError)
    assert [v.attribute for v in refused.value.violations] == ["[1].email"]
    assert _stored_ids(rt) == []


def test_a_single_write_dynamodb_refuses_as_invalid_is_a_validation_error_too(rt):
    rt.put("Acct", {"id": "1", "email": "a@x.io"})
    # No marker changes (the e-mail stays), so the update is one UpdateItem, not a transaction.
    with pytest.raises(ValidationError, match=r"Acct\.\(item\): DynamoDB refused the update: Item size"):
        rt.update("Acct", {"id": "1"}, {"note": "n" * 410_000})
    assert rt.get("Acct", id="1").get("note") is None
