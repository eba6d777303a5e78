"""Inputs nobody's example holds: numbers past 64 bits, malformed DynamoDB JSON, numbers past
DynamoDB's range, designs whose tables DynamoDB refuses, the ``.json`` spelling of every page.

In process (Starlette's test client over one in-memory engine): each test takes milliseconds, where
starting ``tablewright explore`` takes a second.
"""

from __future__ import annotations

import base64
import html
import json
import re
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablewright import connect, engine_of
from tablewright.explore import ExploreError, Explorer, create_app, open_explorer
from tablewright.explore.patterns import ParamError, parse_param

from .support import DESIGNS

with warnings.catch_warnings():  # starlette would rather have httpx2; httpx is what is installed
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def _client(explorer: Explorer) -> TestClient:
    return TestClient(create_app(explorer), base_url="http://127.0.0.1", raise_server_exceptions=False)


@pytest.fixture
def engine() -> object:
    """A DynamoDB client of a fresh in-memory engine."""
    return connect()


@pytest.fixture
def bare(engine) -> Iterator[TestClient]:
    """A writable explorer without a design over one table made with the client directly."""
    client = engine
    client.create_table(
        TableName="plain-table",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    streams = connect(engine=engine_of(client), service="dynamodbstreams")
    with _client(Explorer(client, streams, "test", writable=True)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def orders() -> Iterator[TestClient]:
    """The orders test design with its sample data, writable."""
    with _client(open_explorer([DESIGNS / "orders.yaml"], writable=True)) as test_client:
        yield test_client


def _token(client: TestClient, table: str) -> str:
    return re.search(r'name="_token" value="([^"]+)"', client.get(f"/tables/{table}/new").text).group(1)


def test_numbers_past_64_bits_are_shown_exactly_not_a_500(bare, engine):
    """DynamoDB keeps 38 digits; orjson refuses integers past 64 bits without asking ``default``."""
    big, negative = "12345678901234567890123456789012345678", "-99999999999999999999"
    item = {"pk": {"S": "big"}, "n": {"N": big}, "m": {"N": negative}, "ns": {"NS": [big, "1"]}}
    engine.put_item(TableName="plain-table", Item=item)
    table = bare.get("/tables/plain-table.json")
    assert table.status_code == 200 and table.json()["rows"][0]["plain"]["n"] == big
    assert bare.get("/tables/plain-table").status_code == 200
    page = bare.get("/tables/plain-table/item.json", params={"key": '{"pk":{"S":"big"}}'})
    assert page.status_code == 200, page.text[:300]
    assert page.json()["plain"]["m"] == negative and sorted(page.json()["plain"]["ns"], key=str) == [1, big]


def test_plain_json_holds_a_number_as_a_number_only_where_a_double_holds_it(bare, engine):
    """JavaScript reads JSON numbers into doubles: 2^53 + 1 would be copied as 2^53. The row's copy
    text is the server's, the same as the item page shows (it was worked out again in explore.js)."""
    numbers = {"odd": "9007199254740993", "even": "9007199254740992", "tiny": "0.0000001", "half": "-0.5"}
    item = {"pk": {"S": "n"}, **{k: {"N": v} for k, v in numbers.items()}, "ns": {"NS": ["9007199254740993"]}}
    engine.put_item(TableName="plain-table", Item=item)
    row_plain = bare.get("/tables/plain-table.json").json()["rows"][0]["plain"]
    assert row_plain == {
        "pk": "n",
        "odd": "9007199254740993",
        "even": 2**53,
        "tiny": 1e-7,
        "half": -0.5,
        "ns": ["9007199254740993"],
    }
    table_page = bare.get("/tables/plain-table").text
    (copies,) = re.findall(r'<script type="application/json" id="items-plain">(.*?)</script>', table_page)
    item_page = bare.get("/tables/plain-table/item", params={"key": '{"pk":{"S":"n"}}'}).text
    (shown,) = re.findall(r'<pre id="plain-json">(.*?)</pre>', item_page, re.S)
    assert json.loads(copies) == [html.unescape(shown)]


def test_every_page_answers_json_with_a_json_suffix(orders):
    """docs/explore.md: ``.json`` appended to any page's path; item, new and review were 404."""
    key = orders.get("/tables/explore-orders.json").json()["rows"][0]["key"]
    for path, params in [
        ("/designs/orders/review.json", {}),
        ("/tables/explore-orders/item.json", {"key": key}),
        ("/tables/explore-orders/new.json", {}),
    ]:
        response = orders.get(path, params=params)
        assert response.status_code == 200, (path, response.status_code)
        assert response.headers["content-type"].startswith("application/json"), path
    missing = orders.get("/tables/explore-orders/item.json", params={"key": "{"})
    assert missing.status_code == 404 and "key {" in missing.json()["error"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ('{"pk": "plain"}', 'pk: "plain" is not DynamoDB JSON'),
        ('{"pk": {"S": "a", "N": "1"}}', "is not DynamoDB JSON"),
        ('{"pk": {"S": "n"}, "x": {"N": 5}}', "x: N holds str, not 5"),
        ('{"pk": {"S": "m"}, "x": {"M": "s"}}', "x: 'M' with \"s\" is not a DynamoDB type"),
        ('{"pk": {"S": "l"}, "x": {"L": [{"Q": 1}]}}', "x[0]: 'Q'"),
        ('{"pk": {"S": "b"}, "x": {"B": "!!"}}', "x: '!!' is not base64"),
        ('{"pk": {"S": "f"}, "x": NaN}', "NaN is not a number"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_raw_writes_refuse_what_is_not_dynamodb_json(bare, body, reason):
    """Without a design, a malformed value was a 500 (botocore's ParamValidationError, a TypeError),
    and ``{"B": "!!"}`` was stored as empty binary (lenient base64)."""
    response = bare.post(
        "/tables/plain-table/new.json", data={"_token": _token(bare, "plain-table"), "json": body}
    )
    assert response.status_code == 409 and reason in response.json()["refused"], response.text[:300]
    assert bare.get("/tables/plain-table.json").json()["rows"] == []


def test_a_json_edit_nested_too_deeply_is_refused_not_a_500(orders):
    body = '{"customer": "C7", "order_id": "deep", "status": "open", "x": ' + "[" * 50_000 + "]" * 50_000
    response = orders.post(
        "/tables/explore-orders/new.json",
        data={"_token": _token(orders, "explore-orders"), "entity": "Order", "json": body + "}"},
    )
    assert response.status_code == 409 and "nested too deeply" in response.json()["refused"]


def test_a_number_past_dynamodbs_range_is_refused_at_once():
    """``int(Decimal("1e999999999"))`` ran for minutes: any GET of a pattern or view could ask it."""
    spec = type("Spec", (), {"type": "number"})()
    started = time.perf_counter()
    for text in ("-1E+126", "1e999999999"):  # (the old code failed on the first, hung on the second)
        with pytest.raises(ParamError, match="DynamoDB stores"):
            parse_param("n", spec, text)
    assert time.perf_counter() - started < 1
    assert parse_param("n", spec, "9.99e125") == int("999" + "0" * 123)
    with pytest.raises(ParamError, match="'0x10': not a number"):
        parse_param("n", spec, "0x10")


def test_a_design_whose_tables_dynamodb_refuses_is_unusable_input(tmp_path: Path):
    """An imported CloudFormation index named ``g`` (DynamoDB wants 3 characters): was an internal error."""
    design = tmp_path / "short.yaml"
    design.write_text(
        "version: 1\nname: short\ntables:\n  t:\n    name: short-names\n"
        "    partition_key: {name: id, type: S}\n"
        "    indexes:\n      g: {kind: global, partition_key: {name: g, type: S}}\n"
        "entities:\n  T:\n    table: t\n    attributes: {id: string, g: string}\n"
        '    keys: {table: {pk: "{id}"}}\n'
    )
    with pytest.raises(ExploreError, match="short.yaml: its tables cannot be created: .*IndexName") as error:
        open_explorer([design])
    assert error.value.exit_code == 2


ODD_TIMES = """
version: 1
name: odd-times
tables:
  t: {name: odd-times, partition_key: {name: pk, type: S}, sort_key: {name: sk, type: S}}
entities:
  Ev:
    table: t
    attributes: {dev: string, id: string, at: number, when: string}
    keys: {table: {pk: "DEV#{dev}", sk: "EV#{id}"}}
patterns:
  events:
    params: {dev: string, top: number}
    returns: Ev
    means: {where: "dev = :dev", order: id asc}
    served: {op: query}
views:
  line: {kind: timeline, pattern: events, params: {dev: d1, top: 5}, time: [at, when], label: id}
  week: {kind: calendar, pattern: events, params: {dev: d1, top: 5}, time: [at, when], label: id}
samples:
  Ev:
    - {dev: d1, id: a, at: 1700000000000}
    - {dev: d1, id: b, at: 1000000000000000000000000000000}
    - {dev: d1, id: c, when: "2023-11-15 10:00"}
"""


@pytest.fixture(scope="module")
def odd_times(tmp_path_factory) -> Iterator[TestClient]:
    """A design in a folder whose name needs escaping in a URL, with times views cannot place."""
    folder = tmp_path_factory.mktemp("designs") / "odd #1?"
    folder.mkdir()
    (folder / "design.yaml").write_text(ODD_TIMES)
    with _client(open_explorer([folder])) as test_client:
        yield test_client


def test_views_skip_a_time_out_of_range_rather_than_fail(odd_times):
    """An epoch of 1E+30 was ``OverflowError`` for the whole view; it is an item without a time."""
    line = odd_times.get("/designs/odd%20%231%3F/views/line.json")
    assert line.status_code == 200, line.text[:300]
    assert {e["label"]: e["time"] for e in line.json()["layout"]["entries"]}["b"] is None


def test_a_calendar_starts_at_a_time_not_at_a_number_parameter(odd_times):
    """``top: 5`` (not declared as epoch time) made the week start on 1970-01-01; with it ignored,
    the earliest item decides, and a wall clock and an instant are compared without a TypeError."""
    week = odd_times.get("/designs/odd%20%231%3F/views/week.json")
    assert week.status_code == 200, week.text[:300]
    days = {d["date"]: [e["label"] for e in d["entries"]] for d in week.json()["layout"]["days"]}
    assert days["2023-11-14"] == ["a"] and days["2023-11-15"] == ["c"]


def test_links_to_a_design_escape_its_name(odd_times):
    """A design folder called ``odd #1?`` was linked as ``/designs/odd #1?``: a fragment, a 404."""
    page = odd_times.get("/").text
    assert 'href="/designs/odd%20%231%3F/views/week"' in page
    assert odd_times.get("/designs/odd%20%231%3F/views/week").status_code == 200


@pytest.mark.parametrize(
    "query, said",
    [
        ("f_attr=status&f_value=open", "operator ''"),  # no operator: the scan came back unfiltered
        # the second row dropped
        ("f_attr=status&f_op=%3D&f_value=open&f_attr=customer&f_value=C1", "f_op given for 1 of 2"),
        # an exists row without a value: 'open' moved onto it and the second row compared with ''
        ("f_attr=status&f_op=exists&f_attr=status&f_op=%3D&f_value=open", "f_value given for 1 of 2"),
    ],
)
def test_a_filter_without_an_operator_is_refused_not_dropped(orders, query, said):
    response = orders.get("/tables/explore-orders.json?" + query)
    assert response.status_code == 400 and said in response.json()["error"], response.text[:300]


def test_a_cursor_edited_by_hand_is_refused_as_not_ours(orders):
    """``{"pk": {"M": 5}}`` decoded, then failed in the converter: ``AttributeError: 'int' object...``."""
    for key in (b'{"pk": {"M": 5}}', b'{"pk": {"L": 5}}'):
        cursor = base64.urlsafe_b64encode(key).decode()
        response = orders.get("/tables/explore-orders.json", params={"after": cursor})
        assert response.status_code == 400 and "is not a page cursor" in response.json()["error"]


def test_a_post_that_is_not_a_form_is_refused_not_taken_as_an_empty_edit(orders):
    """A JSON body read as a form was no fields: ``{"action": "delete"}`` answered "ok, updated"."""
    key = orders.get("/tables/explore-orders.json").json()["rows"][0]["key"]
    headers = {"X-Explore-Token": _token(orders, "explore-orders")}
    path = "/tables/explore-orders/item.json"
    sent = orders.post(path, params={"key": key}, json={"action": "delete"}, headers=headers)
    assert sent.status_code == 415 and "as a form" in sent.json()["error"]
    unknown = orders.post(path, params={"key": key}, data={"action": "remove"}, headers=headers)
    assert unknown.status_code == 400 and "use update or delete" in unknown.json()["error"]
    assert orders.get(path, params={"key": key}).status_code == 200


def test_an_edit_of_a_key_field_is_refused_not_dropped(orders):
    """The runtime cannot move an item to another key; the change was dropped and "updated" said."""
    key = orders.get("/tables/explore-orders.json").json()["rows"][0]["key"]
    form = {"_token": _token(orders, "explore-orders"), "action": "update", "attr:customer": "C999"}
    response = orders.post("/tables/explore-orders/item.json", params={"key": key}, data=form)
    assert response.status_code == 409 and "customer: part of the item's key" in response.json()["refused"]


_READINGS = """
version: 1
name: readings
tables:
  readings: {name: explore-readings, partition_key: {name: pk, type: S}, sort_key: {name: at_ns, type: N}}
entities:
  Reading:
    table: readings
    version: version
    attributes:
      sensor: {type: string, required: true}
      at_ns: {type: number, required: true}
      value: {type: number}
      version: {type: number}
    keys:
      table: {pk: "SENSOR#{sensor}", sk: "{at_ns}"}
samples:
  Reading:
    - {sensor: s1, at_ns: 1764201600123456789, value: 1, version: 1}
    - {sensor: s1, at_ns: 1764201600123456790, value: 2, version: 1}
"""


def test_an_item_whose_key_number_no_double_holds_is_edited_and_deleted(tmp_path: Path):
    """Nanosecond times pass 2^53: the edit must address the stored number, not its plain text."""
    (tmp_path / "design.yaml").write_text(_READINGS)
    with _client(open_explorer([tmp_path / "design.yaml"], writable=True)) as client:
        key = json.dumps({"pk": {"S": "SENSOR#s1"}, "at_ns": {"N": "1764201600123456789"}})
        form = {"_token": _token(client, "explore-readings"), "action": "update", "attr:value": "7"}
        updated = client.post("/tables/explore-readings/item.json", params={"key": key}, data=form)
        assert updated.status_code == 200, updated.text[:300]
        item = client.get("/tables/explore-readings/item.json", params={"key": key}).json()["item"]
        assert item["value"] == {"N": "7"} and item["version"] == {"N": "2"}
        form["action"] = "delete"
        deleted = client.post("/tables/explore-readings/item.json", params={"key": key}, data=form)
        assert deleted.status_code == 200, deleted.text[:300]
        rows = client.get("/tables/explore-readings.json").json()["rows"]
        assert [r["item"]["at_ns"]["N"] for r in rows] == ["1764201600123456790"]


@pytest.mark.parametrize("seen", ["abc", "2.0", "²", "-1"])
def test_a_version_that_is_not_a_number_is_refused_not_ignored(orders, seen):
    """Ignored, the edit went ahead without its optimistic check and could undo a change stored since."""
    row = orders.get("/tables/explore-orders.json").json()["rows"][0]
    form = {
        "_token": _token(orders, "explore-orders"),
        "action": "update",
        "_version": seen,
        "attr:status": "paid",
    }
    response = orders.post("/tables/explore-orders/item.json", params={"key": row["key"]}, data=form)
    assert response.status_code == 409 and "is not a version number" in response.json()["refused"]
    after = orders.get("/tables/explore-orders/item.json", params={"key": row["key"]}).json()["item"]
    assert after == row["item"]
