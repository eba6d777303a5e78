"""Differential tests of the fast write paths against the general path, on generated items.

* BatchWriteItem on an engine with ``fast_writes`` (blind tables: one executemany, no read of the old
  item) against the same requests on an engine without (every write read, evaluated, applied).
* ``load_items`` (bulk load) against PutItem after PutItem.

Both engines get the same requests over four tables (plain, with GSI and LSI, with a stream, with
point-in-time recovery) and must answer the same (responses, consumed capacity, UnprocessedItems,
errors) and store the same: item rows (key bytes, size, item), index entries, stream records and
point-in-time before-images. Items hold every type, numbers in odd spellings, sets, nested maps and
lists, and some invalid values, so refusals are compared too.
"""

from __future__ import annotations

import base64
import sqlite3
from decimal import Decimal
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewright.engine import DynamoDBError, Engine, load_items

PLAIN, INDEXED, STREAMED, RECOVERED = "plain_t", "indexed_t", "streamed_t", "recovered_t"
TABLES = (PLAIN, INDEXED, STREAMED, RECOVERED)
KEY_SCHEMA = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
DEFINITIONS = [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}]


def _engine(*, fast: bool) -> Engine:
    engine = Engine(clock=lambda: 1_700_000_000.0)  # one clock: stream and history times compare
    engine.fast_writes = fast
    base = {"KeySchema": KEY_SCHEMA, "BillingMode": "PAY_PER_REQUEST"}
    engine.create_table({**base, "TableName": PLAIN, "AttributeDefinitions": DEFINITIONS})
    engine.create_table(
        {
            **base,
            "TableName": INDEXED,
            "AttributeDefinitions": [
                *DEFINITIONS,
                {"AttributeName": "g", "AttributeType": "S"},
                {"AttributeName": "l", "AttributeType": "N"},
            ],
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "by_g",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["m"]},
                }
            ],
            "LocalSecondaryIndexes": [
                {
                    "IndexName": "by_l",
                    "KeySchema": [
                        {"AttributeName": "pk", "KeyType": "HASH"},
                        {"AttributeName": "l", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        }
    )
    engine.create_table(
        {
            **base,
            "TableName": STREAMED,
            "AttributeDefinitions": DEFINITIONS,
            "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        }
    )
    engine.create_table({**base, "TableName": RECOVERED, "AttributeDefinitions": DEFINITIONS})
    engine.update_continuous_backups(
        {"TableName": RECOVERED, "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}}
    )
    return engine


# ------------------------------------------------------------------------------------- generated items

_digits = st.integers(min_value=-(10**12), max_value=10**12)


@st.composite
def odd_numbers(draw: st.DrawFn) -> str:
    """One number in one of the spellings clients send: leading/trailing zeros, exponents, signs."""
    value = draw(_digits)
    scale = draw(st.integers(min_value=0, max_value=4))
    text = str(abs(value))
    if scale:
        text = text.rjust(scale + 1, "0")
        text = f"{text[:-scale]}.{text[-scale:]}"
    sign = "-" if value < 0 else ""
    spelling = draw(st.sampled_from(["plain", "zeros", "trailing", "exponent", "plus"]))
    if spelling == "zeros":
        text = "00" + text
    elif spelling == "trailing":
        text = text + ("" if "." in text else ".") + "00"
    elif spelling == "exponent":
        text = f"{text}E{draw(st.integers(min_value=-5, max_value=5))}"
    elif spelling == "plus" and not sign:
        sign = "+"
    return sign + text


_binary = st.binary(max_size=12).map(lambda b: base64.b64encode(b).decode())
_strings = st.one_of(st.text(max_size=8), st.text("abcxyz019 #", max_size=8))  # ASCII half the time
_scalar = st.one_of(
    _strings.map(lambda s: {"S": s}),
    odd_numbers().map(lambda n: {"N": n}),
    _binary.map(lambda b: {"B": b}),
    st.booleans().map(lambda b: {"BOOL": b}),
    st.just({"NULL": True}),
    st.lists(_strings, min_size=1, max_size=3, unique=True).map(lambda v: {"SS": v}),
    st.lists(odd_numbers(), min_size=1, max_size=3, unique_by=lambda n: Decimal(n)).map(lambda v: {"NS": v}),
    st.lists(_binary, min_size=1, max_size=2, unique=True).map(lambda v: {"BS": v}),
)
# Values DynamoDB refuses: empty or repeated sets ("1.0" and "1" are one number), bad numbers.
_invalid = st.sampled_from(
    [
        {"SS": []},
        {"SS": ["a", "a"]},
        {"NS": ["1.0", "1"]},
        {"N": "1e200"},
        {"N": "12345678901234567890123456789012345678901"},
        {"N": " 1"},
        {"S": "x", "N": "1"},
        {},
        {"M": {"": {"S": "x"}}},
    ]
)
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(
        st.dictionaries(st.text(min_size=1, max_size=4), inner, max_size=3).map(lambda m: {"M": m}),
        st.lists(inner, max_size=3).map(lambda v: {"L": v}),
    ),
    max_leaves=6,
)
_names = st.sampled_from(["a", "b", "m", "nested", "ü"])


@st.composite
def items(draw: st.DrawFn) -> dict[str, Any]:
    """An item with a key from a small pool (so writes replace each other), sometimes a bad key."""
    item: dict[str, Any] = draw(st.dictionaries(_names, _value, max_size=4))
    item["pk"] = {"S": draw(st.sampled_from(["p1", "ä"]))}
    item["sk"] = {"N": draw(st.sampled_from(["1", "2", "2.0", "3E0", "-0.50"]))}
    if draw(st.booleans()):  # the GSI's key (sparse: often absent)
        item["g"] = {"S": draw(st.sampled_from(["g1", "g2", "ü"]))}
    if draw(st.booleans()):  # the LSI's sort key
        item["l"] = {"N": draw(odd_numbers())}
    if draw(st.integers(min_value=0, max_value=59)) == 31:
        item[draw(st.sampled_from(["pk", "sk", "g", "l"]))] = draw(_scalar)  # key or index key of any type
    if draw(st.integers(min_value=0, max_value=59)) == 31:
        item[draw(_names)] = draw(_invalid)
    if draw(st.booleans()):  # over 1 KB sometimes: capacity counts the larger of old and new item
        item["pad"] = {"S": "y" * draw(st.sampled_from([0, 900, 1500, 2500]))}
    if draw(st.integers(min_value=0, max_value=59)) == 31:
        item["big"] = {"S": "x" * 410_000}  # over the 400 KB item limit
    return item


def _keys(item: dict[str, Any]) -> dict[str, Any]:
    return {"pk": item["pk"], "sk": item["sk"]}


@st.composite
def batches(draw: st.DrawFn) -> dict[str, Any]:
    """A BatchWriteItem request over some tables: puts and deletes, maybe duplicate keys, maybe capacity."""
    request: dict[str, Any] = {"RequestItems": {}}
    for table in draw(st.lists(st.sampled_from(TABLES), min_size=1, max_size=3, unique=True)):
        entries = []
        seen: set[str] = set()
        for _ in range(draw(st.integers(min_value=1, max_value=6))):
            item = draw(items())
            sort = item["sk"]
            key = repr((item["pk"], Decimal(sort["N"]).normalize() if "N" in sort else sort))
            if key in seen and draw(st.integers(min_value=0, max_value=9)) != 7:
                continue  # a repeated key is refused: keep it rare
            seen.add(key)
            if draw(st.booleans()):
                entries.append({"PutRequest": {"Item": item}})
            else:
                entries.append({"DeleteRequest": {"Key": _keys(item)}})
        request["RequestItems"][table] = entries
    mode = draw(st.sampled_from([None, "NONE", "TOTAL", "INDEXES"]))
    if mode:
        request["ReturnConsumedCapacity"] = mode
    return request


# ------------------------------------------------------------------------------------------ comparison


def _answer(call: Any) -> Any:
    try:
        return ("ok", call())
    except DynamoDBError as error:
        return ("error", error.code, error.message)


def _stored(engine: Engine) -> dict[str, Any]:
    """Everything a write leaves in the file, by table name: rows, index entries, stream, history."""
    conn: sqlite3.Connection = engine.store.conn
    ids = dict(conn.execute("SELECT name, id FROM tw_tables").fetchall())
    names = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    out: dict[str, Any] = {}
    for table, table_id in ids.items():
        out[table] = conn.execute(f"SELECT * FROM t{table_id} ORDER BY h, pk, sk").fetchall()
        for index in sorted(n for n in names if n.startswith(f"t{table_id}_i")):
            out[f"{table}/{index}"] = conn.execute(
                f"SELECT * FROM {index} ORDER BY 1, 2, 3, 4, 5, 6"
            ).fetchall()
        records = conn.execute("SELECT record FROM tw_stream WHERE table_id = ? ORDER BY seq", (table_id,))
        out[f"{table}/stream"] = [_without_event_id(orjson.loads(r[0])) for (r) in records.fetchall()]
        # Per key, PITR reads the first before-image after a moment: the multiset per table is what counts.
        out[f"{table}/history"] = sorted(
            conn.execute("SELECT at, h, pk, sk, size, item FROM tw_history WHERE table_id = ?", (table_id,)),
            key=repr,
        )
    return out


def _without_event_id(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "eventID"}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests=st.lists(batches(), min_size=2, max_size=6))
def test_batch_write_fast_path_stores_and_answers_as_the_general_path(requests: list[dict]) -> None:
    fast, general = _engine(fast=True), _engine(fast=False)
    for request in requests:
        answers = [
            _answer(lambda e=e, r=request: e.batch_write_item(orjson.loads(orjson.dumps(r))))
            for e in (fast, general)
        ]
        assert answers[0] == answers[1], request
    assert _stored(fast) == _stored(general)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    table=st.sampled_from(TABLES),
    loaded=st.lists(items(), max_size=30),
    transaction_items=st.integers(min_value=1, max_value=8),
)
def test_bulk_load_stores_what_put_item_after_put_item_stores(
    table: str, loaded: list[dict], transaction_items: int
) -> None:
    bulk, single = _engine(fast=True), _engine(fast=True)
    refused: list[tuple[int, str, str]] = []
    result = load_items(
        bulk,
        table,
        orjson.loads(orjson.dumps(loaded)),
        on_error=lambda position, raw, error: refused.append((position, error.code, error.message)),
        transaction_items=transaction_items,
    )
    expected = []
    for position, item in enumerate(loaded):
        answer = _answer(lambda item=item: single.put_item({"TableName": table, "Item": item}))
        if answer[0] == "error":
            expected.append((position, answer[1], answer[2]))
    assert refused == expected
    assert (result.loaded, result.rejected) == (len(loaded) - len(expected), len(expected))
    assert result.path == ("fast" if table in (PLAIN, RECOVERED) else result.path)
    assert result.path.startswith("fast" if table in (PLAIN, RECOVERED) else "general")
    assert _stored(bulk) == _stored(single)


def test_bulk_load_without_on_error_raises_putitems_error_and_keeps_earlier_transactions() -> None:
    engine = _engine(fast=True)
    good = [{"pk": {"S": "p"}, "sk": {"N": str(n)}} for n in range(5)]
    bad = {"pk": {"S": "p"}, "sk": {"S": "not a number"}}
    with pytest.raises(DynamoDBError, match="Type mismatch for key sk expected: N actual: S"):
        load_items(engine, PLAIN, [*good, bad], transaction_items=3)
    stored = engine.scan({"TableName": PLAIN})["Items"]
    assert sorted(int(i["sk"]["N"]) for i in stored) == [0, 1, 2]  # the second transaction held the bad item


def test_bulk_load_of_a_missing_table_is_resource_not_found() -> None:
    with pytest.raises(DynamoDBError, match="Table: nope_t not found"):
        load_items(Engine(), "nope_t", [{"pk": {"S": "x"}}])


def test_bulk_load_on_a_read_only_engine_is_refused(tmp_path: Any) -> None:
    path = tmp_path / "ro.db"
    _ = Engine(str(path)).close()
    with Engine(str(path), read_only=True) as engine, pytest.raises(DynamoDBError, match="read-only"):
        load_items(engine, PLAIN, [])


def test_bulk_load_sees_a_table_redefined_by_another_connection(tmp_path: Any) -> None:
    """A table dropped and re-created with indexes by another engine on the file between two loads:
    the second load takes the general path and writes index entries."""
    path = str(tmp_path / "shared.db")
    first, second = Engine(path), Engine(path)
    base = {"TableName": PLAIN, "KeySchema": KEY_SCHEMA, "BillingMode": "PAY_PER_REQUEST"}
    first.create_table({**base, "AttributeDefinitions": DEFINITIONS})
    assert load_items(first, PLAIN, [{"pk": {"S": "a"}, "sk": {"N": "1"}}]).path == "fast"
    second.delete_table({"TableName": PLAIN})
    second.create_table(
        {
            **base,
            "AttributeDefinitions": [*DEFINITIONS, {"AttributeName": "g", "AttributeType": "S"}],
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "by_g",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        }
    )
    result = load_items(first, PLAIN, [{"pk": {"S": "b"}, "sk": {"N": "2"}, "g": {"S": "x"}}])
    assert result.path.startswith("general") and result.loaded == 1
    found = second.query(
        {
            "TableName": PLAIN,
            "IndexName": "by_g",
            "KeyConditionExpression": "g = :g",
            "ExpressionAttributeValues": {":g": {"S": "x"}},
        }
    )
    assert found["Items"] == [{"pk": {"S": "b"}, "sk": {"N": "2"}, "g": {"S": "x"}}]
    first.close()
    second.close()


def test_bulk_load_refuses_an_item_over_its_collection_limit_alone_as_put_item_does() -> None:
    """On the general path a refusal inside the transaction (an LSI item collection over its limit)
    undoes that item only; PutItem after PutItem refuses the same items with the same error."""
    answers = []
    for bulk in (True, False):
        engine = _engine(fast=True)
        engine.item_collection_limit = 3_000
        loaded = [
            {"pk": {"S": "p1" if n % 2 else "p2"}, "sk": {"N": str(n)}, "pad": {"S": "y" * 900}}
            for n in range(8)
        ]
        refused: list[tuple[int, str]] = []
        if bulk:
            load_items(
                engine, INDEXED, loaded, on_error=lambda p, _, e, into=refused: into.append((p, e.code))
            )
        else:
            for position, item in enumerate(loaded):
                answer = _answer(lambda e=engine, i=item: e.put_item({"TableName": INDEXED, "Item": i}))
                if answer[0] == "error":
                    refused.append((position, answer[1]))
        answers.append((refused, _stored(engine)))
    assert answers[0] == answers[1]
    assert [code for _, code in answers[0][0]] == ["ItemCollectionSizeLimitExceededException"] * 2
