"""The explorer's pages as JSON over plain HTTP, against ``tablewright explore`` as a real process."""

from __future__ import annotations

import threading

import httpx
import pytest

from .expected import expected_count, probes
from .support import DESIGNS, EXAMPLES, running

OPERATORS = ["=", "<", "<=", ">", ">=", "between", "begins_with"]


@pytest.fixture(scope="module")
def examples():
    """Every example's sample data in one read-only explorer."""
    with running(str(EXAMPLES)) as explore:
        yield explore


@pytest.fixture(scope="module")
def orders():
    """The orders test design (a stream, a versioned entity), writable."""
    with running(str(DESIGNS / "orders.yaml"), "--write") as explore:
        yield explore


def test_index_lists_every_table_and_design_and_says_read_only(examples):
    index = examples.json("/")
    assert index["writable"] is False
    assert {d["name"] for d in index["designs"]} == {"evse", "van-telemetry", "woms", "nexus", "sensor-api"}
    tables = {t["name"]: t["design"] for t in index["tables"]}
    assert tables["evse-events"] == "evse" and tables["ProductivityData"] == "nexus"
    assert examples.client.get("/index.json").json() == index
    page = examples.client.get("/").text
    assert 'id="mode" class="mode readonly"' in page


def test_table_description_has_keys_indexes_projections_ttl_and_counts(examples):
    data = examples.json("/tables/van-telemetry")["table"]
    assert (data["partition"], data["partition_type"], data["sort"], data["sort_type"]) == (
        "thing_name",
        "S",
        "timestamp",
        "N",
    )
    assert data["ttl"] == "ttl" and data["stream"] is None
    assert [i["name"] for i in data["indexes"]] == ["MessageTypeIndex"]
    assert data["item_count"] > 0 and data["size_bytes"] > 0
    woms = examples.json("/tables/alerts")["table"]
    assert {i["name"]: i["projection"] for i in woms["indexes"]}["alert-id-index"] == "KEYS_ONLY"


def _partition(explore, table, index, pk):
    data = explore.json(f"/tables/{table}", index=index or "", pk=pk, limit=1000)
    assert data["result"]["next"] is None
    return [row["item"] for row in data["rows"]]


TARGETS = [
    ("evse-events", None, "SC-A4DA0FC1", "timestamp_mt"),
    ("evse-events", "event-type-index", "telemetry", "timestamp_mt"),
    ("van-telemetry", None, "storyteller-van-01", "timestamp"),  # a number sort key: no begins_with
    ("ProductivityData", "GSI3", "USER#user_001", "GSI3SK"),
]


@pytest.mark.parametrize(
    ("op", "table", "index", "pk", "sort"),
    [(op, *t) for t in TARGETS for op in OPERATORS if not (op == "begins_with" and t[0] == "van-telemetry")],
)
def test_query_by_each_sort_key_operator_returns_what_dynamodb_selects(examples, op, table, index, pk, sort):
    items = _partition(examples, table, index, pk)
    low, high, prefix = probes(items, sort)
    value = prefix if op == "begins_with" else low
    params = {"index": index or "", "pk": pk, "op": op, "sk": next(iter(value.values())), "limit": 1000}
    if op == "between":
        params["sk2"] = next(iter(high.values()))
    data = examples.json(f"/tables/{table}", **params)
    want = expected_count(items, sort, op, value, high if op == "between" else None)
    assert data["result"]["count"] == want, data["result"]["request"]
    assert 0 < want < len(items) or op in ("=", "begins_with")


def test_filters_and_scan_limit(examples):
    data = examples.json(
        "/tables/evse-events",
        pk="SC-A4DA0FC1",
        f_attr="event_type",
        f_op="=",
        f_value="telemetry",
        limit=1000,
    )
    kinds = {row["plain"]["event_type"] for row in data["rows"]}
    assert kinds == {"telemetry"} and data["result"]["scanned"] > data["result"]["count"]
    numeric = examples.json(
        "/tables/evse-events", f_attr="current_a", f_op=">", f_value="20", f_type="N", limit=1000
    )
    assert numeric["rows"] and all(row["plain"]["current_a"] > 20 for row in numeric["rows"])
    scan = examples.json("/tables/evse-events", limit=7)
    assert len(scan["rows"]) == 7 and scan["result"]["operation"] == "Scan"


def test_pages_follow_cursors_to_every_item_once(examples):
    total = examples.json("/tables/evse-devices")["table"]["item_count"]
    seen, after = [], ""
    while True:
        data = examples.json("/tables/evse-devices", limit=3, after=after)
        seen += [row["key"] for row in data["rows"]]
        after = data["result"]["next"]
        if not after:
            break
    assert len(seen) == len(set(seen)) == total


def test_items_carry_types_both_json_spellings_and_their_entity(examples):
    data = examples.json("/tables/ProductivityData", pk="USER#user_001", limit=1000)
    row = next(r for r in data["rows"] if r["entity"]["entity"] == "Task")
    assert row["item"]["PK"] == {"S": "USER#user_001"} and row["plain"]["PK"] == "USER#user_001"
    assert {p["attribute"]: p["fields"] for p in row["entity"]["key_parts"] if p["index"] == "table"}[
        "PK"
    ] == {"userId": "user_001"}
    entities = {r["entity"]["entity"] for r in data["rows"]}
    collection = next(g for g in data["groups"] if g["partition"] == '{"S":"USER#user_001"}')
    assert len(entities) > 2 and set(collection["entities"]) == entities
    item = examples.json("/tables/ProductivityData/item", key=row["key"])
    assert item["item"] == row["item"] and item["entity"]["entity"] == "Task"
    evse = examples.json("/tables/evse-events", limit=1)["rows"][0]["entity"]
    assert evse["computed"]["timestamp_mt"].startswith("{timestamp|tz:America/Denver")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"pk": "x", "op": "like", "sk": "1"}, "op 'like'"),
        ({"limit": "ten"}, "limit 'ten' is not a whole number"),
        ({"limit": "5000"}, "limit 5000: give 1 to 1000"),
        ({"after": "not-a-cursor"}, "is not a page cursor"),
        ({"pk": "v", "op": ">", "sk": "soon"}, "sk: 'soon' is not a number"),
        ({"pk": "v", "op": "between", "sk": "1"}, "BETWEEN needs a second"),
        ({"index": "NoSuchIndex"}, "no such index"),
        ({"f_attr": "x", "f_op": "~", "f_value": "1"}, "operator '~'"),
        ({"f_attr": "x", "f_op": "=", "f_value": "1e999999", "f_type": "N"}, "Number overflow"),
    ],
)
def test_bad_queries_say_what_is_wrong(examples, query, message):
    response = examples.client.get("/tables/van-telemetry", params={**query, "_format": "json"})
    assert response.status_code == 400 and message in response.json()["error"], response.text[:300]


def test_unknown_things_are_404_with_what_was_asked(examples):
    missing_key = '{"device_id":{"S":"SC-00000000"},"timestamp_mt":{"S":"x"}}'
    for path, params, message in [
        ("/tables/nope", {}, "no table 'nope'"),
        ("/designs/nope", {}, "no design 'nope'"),
        ("/designs/evse/views/nope", {}, "no view 'nope'"),
        ("/designs/evse/patterns/nope", {}, "no pattern 'nope'"),
        ("/tables/evse-events/item", {"key": "{"}, "key {"),
        ("/tables/evse-events/item", {"key": "[1]"}, "key [1]"),
        ("/tables/evse-events/item", {"key": missing_key}, "no item"),
        ("/tables/evse-events/item", {}, "give the item's key"),
    ]:
        response = examples.client.get(path, params={**params, "_format": "json"})
        assert response.status_code == 404 and message in response.json()["error"], (path, params)


def test_no_such_route_and_a_method_not_taken_answer_like_every_other_refusal(examples):
    response = examples.client.get("/no/such/page", params={"_format": "json"})
    assert response.status_code == 404 and response.json()["error"] == "no such page: /no/such/page"
    html = examples.client.get("/no/such/page")
    assert html.status_code == 404 and "text/html" in html.headers["content-type"]
    assert "no such page" in html.text and "tablewright" in html.text.lower()
    wrong = examples.client.delete("/tables/evse-events.json")
    assert wrong.status_code == 405 and "DELETE is not taken here" in wrong.json()["error"]
    assert "GET" in wrong.headers["allow"]


def test_hostile_requests_are_refused(examples):
    assert examples.client.get("/", headers={"Host": "attacker.example"}).status_code == 400
    key = examples.json("/tables/evse-devices", limit=1)["rows"][0]["key"]
    response = examples.client.post(
        "/tables/evse-devices/item", params={"_format": "json"}, data={"key": key, "action": "delete"}
    )
    assert response.status_code == 403 and "read-only" in response.json()["error"]
    assert examples.json("/tables/evse-devices/item", key=key)["item"]


@pytest.mark.parametrize("example", ["evse", "van-telemetry", "woms", "nexus", "sensor-api"])
def test_every_pattern_runs_and_verifies_like_check(examples, example):
    design = examples.json(f"/designs/{example}")
    for pattern in design["patterns"]:
        data = examples.json(f"/designs/{example}/patterns/{pattern['name']}", _run=1)
        verdict = data["verification"]
        assert verdict["status"] == "pass", (pattern["name"], verdict["detail"])
        assert verdict["returned"] == len(verdict["served"]) and verdict["expected"] == len(verdict["means"])
        assert verdict["items_read"] >= verdict["items_returned"] and verdict["requests"] >= 1


def test_a_pattern_with_wrong_parameters_shows_the_reason(examples):
    data = examples.client.get(
        "/designs/woms/patterns/get_plant", params={"_run": 1, "plant_id": "twelve", "_format": "json"}
    )
    assert data.status_code == 400 and "plant_id (number): 'twelve'" in data.json()["error"]
    other = examples.json("/designs/van-telemetry/patterns/device_status", _run=1, thing_name="no-such-van")
    assert other["verification"]["status"] == "pass" and other["verification"]["returned"] == 0


@pytest.mark.parametrize("example", ["evse", "van-telemetry", "woms", "nexus"])
def test_every_declared_view_draws(examples, example):
    views = examples.json(f"/designs/{example}")["views"]
    assert views
    for view in views:
        layout = examples.json(f"/designs/{example}/views/{view['name']}")["layout"]
        assert layout["kind"] == view["kind"] and layout["count"] > 0, view["name"]
    board = examples.json("/designs/nexus/views/kanban")["layout"]
    assert [c["value"] for c in board["columns"]][:4] == ["BACKLOG", "TODO", "IN_PROGRESS", "DONE"]
    week = examples.json("/designs/nexus/views/week_agenda")["layout"]
    assert [d["date"] for d in week["days"]][0] == "2025-12-29" and len(week["days"]) == 7


def test_review_page_has_lint_findings_and_cost_per_pattern(examples):
    data = examples.json("/designs/evse/review")
    assert {p["name"] for p in data["cost"]["patterns"]} == {
        p["name"] for p in examples.json("/designs/evse")["patterns"]
    }
    assert isinstance(data["findings"], list)
    assert "/designs/evse/review" in examples.client.get("/tables/evse-events").text


def _post(explore, path, token, **data):
    return explore.client.post(
        path, params={"_format": "json"}, data=data, headers={"x-explore-token": token}
    )


def test_writes_go_through_the_runtime_and_refusals_say_why(orders):
    token = orders.token()
    created = _post(
        orders,
        "/tables/explore-orders/new",
        token,
        entity="Order",
        **{"attr:customer": "C7", "attr:order_id": "1", "attr:status": "open", "attr:total": "5"},
    )
    assert created.status_code == 200, created.text[:300]
    key = created.json()["created"]
    assert key == {"pk": {"S": "CUSTOMER#C7"}, "sk": {"S": "ORDER#1"}}
    import json

    key_text = json.dumps(key)
    again = _post(
        orders,
        "/tables/explore-orders/new",
        token,
        entity="Order",
        **{"attr:customer": "C7", "attr:order_id": "1", "attr:status": "open"},
    )
    assert again.status_code == 409 and "already exists" in again.json()["refused"]
    bad = _post(
        orders, "/tables/explore-orders/item", token, key=key_text, action="update", **{"attr:status": "lost"}
    )
    assert bad.status_code == 409 and "status" in bad.json()["refused"] and "lost" in bad.json()["refused"]
    bad_customer = _post(
        orders,
        "/tables/explore-orders/new",
        token,
        entity="Order",
        **{"attr:customer": "X", "attr:order_id": "2", "attr:status": "open"},
    )
    assert bad_customer.status_code == 409 and "customer" in bad_customer.json()["refused"]
    ok = _post(
        orders,
        "/tables/explore-orders/item",
        token,
        key=key_text,
        action="update",
        _version="1",
        **{"attr:status": "paid"},
    )
    assert ok.status_code == 200, ok.text[:300]
    stale = _post(
        orders,
        "/tables/explore-orders/item",
        token,
        key=key_text,
        action="update",
        _version="1",
        **{"attr:status": "shipped"},
    )
    assert stale.status_code == 409 and "Conflict" in stale.json()["refused"]
    stored = orders.json("/tables/explore-orders/item", key=key_text)
    assert stored["plain"]["status"] == "paid" and stored["plain"]["version"] == 2
    as_json = _post(
        orders,
        "/tables/explore-orders/item",
        token,
        key=key_text,
        action="update",
        json='{"status": "shipped", "total": 7.25, "customer": "C7", "order_id": "1"}',
    )
    assert as_json.status_code == 200, as_json.text[:300]
    assert orders.json("/tables/explore-orders/item", key=key_text)["plain"]["total"] == 7.25
    gone = _post(orders, "/tables/explore-orders/item", token, key=key_text, action="delete")
    assert gone.status_code == 200
    assert orders.client.get("/tables/explore-orders/item", params={"key": key_text}).status_code == 404
    assert _post(orders, "/tables/explore-orders/new", "forged", entity="Order").status_code == 403


def test_live_changes_arrive_as_server_sent_events(orders):
    token = orders.token()
    lines: list[str] = []
    ready = threading.Event()

    def listen():
        with (
            httpx.Client(base_url=orders.url, timeout=20) as client,
            client.stream("GET", "/tables/explore-orders/live") as response,
        ):
            for line in response.iter_lines():
                lines.append(line)
                if line == "event: ready":
                    ready.set()
                if "CUSTOMER#C8" in line:
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert ready.wait(20)
    created = _post(
        orders,
        "/tables/explore-orders/new",
        token,
        entity="Order",
        **{"attr:customer": "C8", "attr:order_id": "9", "attr:status": "open"},
    )
    assert created.status_code == 200
    listener.join(20)
    change = next(line for line in lines if "CUSTOMER#C8" in line)
    assert '"event":"INSERT"' in change and '"status":{"S":"open"}' in change
    assert orders.client.get("/tables/nothing/live").status_code == 404


def test_hostile_values_are_shown_not_run(orders):
    hostile = "</script><script>alert(1)</script><!--"
    created = _post(
        orders,
        "/tables/explore-orders/new",
        orders.token(),
        entity="Order",
        **{"attr:customer": "C66", "attr:order_id": hostile, "attr:status": "open"},
    )
    assert created.status_code == 200, created.text[:300]
    page = orders.client.get("/tables/explore-orders", params={"pk": "CUSTOMER#C66"}).text
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    data = page.split('<script type="application/json" id="items-data">')[1].split("</script>")[0]
    import json

    assert json.loads(data)[0]["order_id"] == {"S": hostile}
    item = orders.client.get(
        "/tables/explore-orders/item", params={"key": json.dumps(created.json()["created"])}
    )
    assert item.status_code == 200 and "<script>alert(1)" not in item.text
