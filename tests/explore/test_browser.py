"""End to end in a real browser: Playwright driving Debian's Chromium (``executable_path``, no browser
download) against ``tablewright explore`` started as a process on each example's sample data.

One browser for the module and one page reused by every test; one explorer process per example.
``TABLEWRIGHT_EXPLORE_SCREENSHOTS=DIR`` also writes a screenshot of each declared view to DIR.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import sync_playwright

from .expected import expected_count, probes
from .support import CHROMIUM, DESIGNS, EXAMPLE_NAMES, EXAMPLES, running

# A real browser against five explorer processes: out of the fast subset (tests/conftest.py).
pytestmark = pytest.mark.slow

OPERATORS = ["=", "<", "<=", ">", ">=", "between", "begins_with"]
# Per example: a table and an index to query, and an edit the design refuses (table, entity,
# attribute, value, words the explanation must contain).
QUERIES = {
    "evse": [("evse-events", None), ("evse-events", "event-type-index")],
    "van-telemetry": [("van-telemetry", None), ("van-telemetry", "MessageTypeIndex")],
    "woms": [("alerts", None), ("wms", "wms-vendor-index")],
    "nexus": [("ProductivityData", None), ("ProductivityData", "GSI1")],
    "sensor-api": [("device_readings", None), ("devices", "gsi1")],
}
REFUSALS = {
    "evse": ("evse-events", "Event", "event_type", "bogus", ["event_type", "not one of"]),
    "van-telemetry": ("van-telemetry", "Message", "hvac_mode", "bogus", ["hvac_mode", "not one of"]),
    "woms": ("plants", "Plant", "network_status", "bogus", ["network_status", "not one of"]),
    "nexus": ("ProductivityData", "Task", "status", "bogus", ["status", "not one of"]),
    "sensor-api": ("devices", "Device", "confirmation_id", "not-a-uuid", ["confirmation_id", "uuid"]),
}
SCREENSHOTS = os.environ.get("TABLEWRIGHT_EXPLORE_SCREENSHOTS")


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install chromium (as .ci/run does)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()


@pytest.fixture(scope="module", params=EXAMPLE_NAMES)
def site(request):
    """``tablewright explore examples/<name> --write`` on the example's sample data."""
    with running(str(EXAMPLES / request.param), "--write") as explore:
        explore.example = request.param
        yield explore


def test_navigate_from_the_start_to_an_item_and_copy_it(site, page):
    page.goto(site.url)
    assert page.locator("#mode").inner_text() == "writable"
    page.click(f"header >> text={site.example}")
    page.wait_for_url(f"**/designs/{site.example}")
    page.locator("main ul li a").first.click()
    page.wait_for_selector("#description")
    first = page.locator("#items .item").first
    first.locator(".copy[data-copy=ddb]").click()
    first.locator(".copy[data-copy=plain]").click()
    copied_wire = json.loads(first.locator(".copy[data-copy=ddb]").get_attribute("data-copied"))
    copied_plain = json.loads(first.locator(".copy[data-copy=plain]").get_attribute("data-copied"))
    assert copied_wire == json.loads(page.locator("#items-data").text_content())[0]
    page.locator("#items a.open").first.click()
    page.wait_for_selector("#ddb-json")
    wire = json.loads(page.locator("#ddb-json").inner_text())
    plain = json.loads(page.locator("#plain-json").inner_text())
    assert wire == copied_wire and plain == copied_plain
    assert set(wire) == set(plain) and all(len(v) == 1 for v in wire.values())
    page.click("button.copy-pre[data-target=plain-json]")
    assert (
        json.loads(page.locator("button.copy-pre[data-target=plain-json]").get_attribute("data-copied"))
        == plain
    )


def _partition_to_query(site, table, index):
    description = site.json(f"/tables/{table}")["table"]
    keys = description if index is None else next(i for i in description["indexes"] if i["name"] == index)
    rows = site.json(f"/tables/{table}", limit=1000)["rows"]
    values = Counter(json.dumps(r["item"][keys["partition"]]) for r in rows if keys["partition"] in r["item"])
    # The smallest partition with enough items to tell the operators apart keeps the pages short.
    enough = [v for v, n in values.most_common() if n >= 8] or [values.most_common(1)[0][0]]
    partition = next(iter(json.loads(enough[-1]).values()))
    items = site.json(f"/tables/{table}", index=index or "", pk=partition, limit=1000)
    return keys, partition, [r["item"] for r in items["rows"]]


# Every operator through the form where the sort keys differ in kind (EVSE: strings, the van: numbers);
# the other examples take the form through one comparison and the two-value one. What each operator
# selects on every example is tested over HTTP (test_http.py), without a browser's cost.
EVERY_OPERATOR = {"evse", "van-telemetry"}


def test_query_with_each_operator_on_a_table_and_an_index(site, page):
    operators = OPERATORS if site.example in EVERY_OPERATOR else ["<=", "between"]
    for table, index in QUERIES[site.example]:
        keys, partition, items = _partition_to_query(site, table, index)
        low, high, prefix = probes(items, keys["sort"])
        page.goto(f"{site.url}tables/{table}")
        for op in operators:
            if op == "begins_with" and "N" in low:
                continue  # begins_with is for string keys
            value = prefix if op == "begins_with" else low
            page.select_option("#q-index", index or "")
            page.fill("#q-pk", str(partition))
            page.select_option("#q-op", op)
            page.fill("#q-sk", str(next(iter(value.values()))))
            if op == "between":
                page.fill("#q-sk2", str(next(iter(high.values()))))
            page.fill("#q-limit", "1000")
            page.click("#q-run")
            page.wait_for_selector("#request")
            want = expected_count(items, keys["sort"], op, value, high if op == "between" else None)
            counts = page.locator("#counts").inner_text()
            assert counts.startswith(f"{want} returned"), (table, index, op, counts)
            assert page.locator("#items .item").count() == want


def test_run_every_pattern_and_read_the_verification(site, page):
    page.goto(f"{site.url}designs/{site.example}")
    names = page.locator("#patterns tbody tr td:first-child a").all_inner_texts()
    assert names
    for name in names:
        page.goto(f"{site.url}designs/{site.example}/patterns/{name}")
        page.click("#run")
        page.wait_for_selector("#verdict")
        assert page.locator("#verdict-status").inner_text() == "pass", page.locator(
            "#verdict-detail"
        ).inner_text()
        stats = page.locator("#stats").inner_text()
        read, returned = map(int, re.match(r"(\d+) items read, (\d+) returned", stats).groups())
        assert read >= returned == page.locator("#served tbody tr").count()
        assert page.locator("#means tbody tr").count() == returned


def test_open_each_declared_view(site, page):
    page.goto(f"{site.url}designs/{site.example}")
    views = page.locator("#views li a")
    hrefs = [views.nth(n).get_attribute("href") for n in range(views.count())]
    if site.example == "sensor-api":
        assert hrefs == []  # its document names no view
        return
    assert hrefs
    drawn = {
        "table": "#view tbody tr",
        "timeline": "ol.timeline li",
        "board": ".board .card",
        "calendar": ".calendar .day .card",
        "count": "table.count tr",
    }
    for href in hrefs:
        page.goto(site.url.rstrip("/") + href)
        page.wait_for_selector("#view")
        kind = page.locator("#view").get_attribute("class").split("view-")[1]
        assert page.locator(drawn[kind]).count() > 0, href
        if kind == "calendar":
            assert page.locator(".calendar .day").count() == 7
        if SCREENSHOTS:
            Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
            shot = Path(SCREENSHOTS) / f"{site.example}-{href.rsplit('/', 1)[1]}.png"
            page.screenshot(path=str(shot), clip={"x": 0, "y": 0, "width": 1280, "height": 560})


def test_edit_an_item_and_see_the_refused_write_explained(site, page):
    table, entity, attribute, value, words = REFUSALS[site.example]
    rows = site.json(f"/tables/{table}", limit=200)["rows"]
    row = next(r for r in rows if r["entity"] and r["entity"]["entity"] == entity)
    page.goto(f"{site.url}tables/{table}/item?key={quote(row['key'])}")
    before = page.locator("#plain-json").inner_text()
    page.fill(f'#edit-form input[name="attr:{attribute}"]', value)
    page.click("#save")
    page.wait_for_selector("#refused")
    explanation = page.locator("#refusal").inner_text()
    assert all(word in explanation for word in words), explanation
    assert page.locator("#plain-json").inner_text() == before  # nothing was written
    if site.example == "nexus":  # and an accepted edit, through the same form
        # The refused form keeps what was typed; put the status right and change the title.
        assert page.locator(f'#edit-form input[name="attr:{attribute}"]').input_value() == value
        page.fill(f'#edit-form input[name="attr:{attribute}"]', "TODO")
        page.fill('#edit-form input[name="attr:title"]', "Renamed in the browser")
        with page.expect_navigation():
            page.click("#save")
        assert page.locator("#refused").count() == 0
        assert json.loads(page.locator("#plain-json").inner_text())["title"] == "Renamed in the browser"


def test_live_changes_appear_as_they_happen(browser):
    with running(str(DESIGNS / "orders.yaml"), "--write") as explore:
        page = browser.new_page()
        try:
            page.goto(f"{explore.url}tables/explore-orders")
            page.wait_for_function(
                "document.getElementById('live-state').textContent === 'watching the stream'"
            )
            response = explore.client.post(
                "/tables/explore-orders/new",
                params={"_format": "json"},
                headers={"x-explore-token": explore.token()},
                data={"entity": "Order", "attr:customer": "C5", "attr:order_id": "77", "attr:status": "open"},
            )
            assert response.status_code == 200, response.text[:300]
            page.wait_for_selector("#live-changes li.insert")
            assert "CUSTOMER#C5" in page.locator("#live-changes li").first.inner_text()
        finally:
            page.close()
