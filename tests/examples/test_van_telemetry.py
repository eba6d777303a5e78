"""examples/van-telemetry (seed 001) on the real embedded engine: the IoT rule mapping, the TTL unit
bug, the four query patterns and the Limit-before-filter bug of "Get Device Status"."""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

import tablewright
from tablewright.cli.check import check
from tablewright.runtime import ValidationError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "van-telemetry"
sys.path.insert(0, str(EXAMPLE))
import van_telemetry as vt  # noqa: E402

T0 = 1_733_529_600_000  # 2024-12-07T00:00:00Z
DAY_S = 86_400
TELEMETRY = {"battery_voltage": 13.2, "glycol_temp": 72, "pdm1": {"1": True, "2": False}, "hvac_mode": "heat"}


@pytest.fixture
def van() -> vt.VanTelemetry:
    return vt.VanTelemetry.open()


def send(van: vt.VanTelemetry, thing: str, kind: str, ts: int, payload: dict | None = None) -> None:
    van.receive(f"van/{thing}/{kind}", json.dumps(payload or {}), ts)


# ------------------------------------------------------------------------------------ IoT rule mapping
def test_rule_output_maps_topic_timestamp_type_payload_and_ttl_in_seconds():
    item = vt.rule_output("van/storyteller-van-01/telemetry", json.dumps(TELEMETRY).encode(), T0)
    assert item["thing_name"] == "storyteller-van-01"  # topic(2)
    assert item["timestamp"] == T0  # timestamp(), ms
    assert item["message_type"] == "telemetry"
    assert item["battery_voltage"] == Decimal("13.2")  # exact, never a float
    assert item["pdm1"] == {"1": True, "2": False} and item["hvac_mode"] == "heat"
    assert item["ttl"] == T0 // 1000 + 30 * DAY_S == 1_736_121_600  # 2025-01-06, epoch seconds


def test_document_rule_ttl_is_milliseconds():
    item = vt.document_rule_output("van/storyteller-van-01/telemetry", "{}", T0)
    # The document's own sample: timestamp 1733529600000 -> ttl 1736208000000 (13 digits: ms).
    assert item["ttl"] == T0 + 2_592_000_000 == 1_736_121_600_000


def test_payload_cannot_override_the_rule_fields():
    spoof = {"thing_name": "someone-else", "timestamp": 1, "message_type": "alert", "ttl": 1, "hvac_temp": 70}
    item = vt.rule_output("van/storyteller-van-01/telemetry", json.dumps(spoof), T0)
    assert (item["thing_name"], item["timestamp"], item["message_type"]) == (
        "storyteller-van-01",
        T0,
        "telemetry",
    )
    assert item["ttl"] == T0 // 1000 + 30 * DAY_S and item["hvac_temp"] == 70


@pytest.mark.parametrize(
    "topic", ["van/telemetry", "truck/van-01/telemetry", "van//telemetry", "van/v/gps", "van/a/b/c"]
)
def test_topics_outside_the_rules_are_refused(topic):
    with pytest.raises(vt.TopicError, match="does not match van/"):
        vt.rule_output(topic, "{}", T0)


def test_non_object_payload_is_refused():
    with pytest.raises(ValueError, match="JSON object"):
        vt.rule_output("van/v1/telemetry", "[1, 2]", T0)


def test_receive_stores_the_item_with_the_design_ttl(van):
    record = van.receive("van/storyteller-van-01/telemetry", json.dumps(TELEMETRY), T0)
    stored = van.rt.get("Message", thing_name="storyteller-van-01", timestamp=T0)
    assert stored == record
    assert stored["ttl"] == vt.rule_output("van/storyteller-van-01/telemetry", "{}", T0)["ttl"]


def test_receive_validates_the_payload_against_the_design(van):
    bad = {"battery_voltage": 99, "hvac_mode": "auto", "pdm1": {"1": "on"}}
    with pytest.raises(ValidationError) as caught:
        van.receive("van/storyteller-van-01/telemetry", json.dumps(bad), T0)
    broken = {(v.attribute, v.rule) for v in caught.value.violations}
    assert broken == {("battery_voltage", "max"), ("hvac_mode", "enum"), ("pdm1.1", "type")}
    assert van.rt.get("Message", thing_name="storyteller-van-01", timestamp=T0) is None


# ------------------------------------------------------------------------------------ TTL on the engine
def test_millisecond_ttl_never_expires_while_seconds_ttl_does(van):
    client = van.rt.client
    # The document's rule, as the IoT DynamoDBv2 action writes it (a raw PutItem, ms TTL).
    document_item = vt.document_rule_output("van/doc-van/telemetry", json.dumps(TELEMETRY), T0)
    wire = {k: _wire(v) for k, v in document_item.items()}
    client.put_item(TableName="van-telemetry", Item=wire)
    van.receive("van/fixed-van/telemetry", json.dumps(TELEMETRY), T0)
    engine = tablewright.engine_of(client)

    assert engine.sweep_ttl(now=T0 / 1000 + 29 * DAY_S) == 0  # both still within 30 days
    assert engine.sweep_ttl(now=T0 / 1000 + 31 * DAY_S) == 1  # the fixed item expired
    assert van.rt.get("Message", thing_name="fixed-van", timestamp=T0) is None
    assert engine.sweep_ttl(now=4_102_444_800) == 0  # 2100-01-01: the ms item is still there
    survivor = client.get_item(
        TableName="van-telemetry", Key={"thing_name": {"S": "doc-van"}, "timestamp": {"N": str(T0)}}
    )
    assert survivor["Item"]["ttl"] == {"N": "1736121600000"}


def _wire(value: object) -> dict:
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int | Decimal):
        return {"N": str(value)}
    if isinstance(value, dict):
        return {"M": {k: _wire(v) for k, v in value.items()}}
    return {"S": str(value)}


# ------------------------------------------------------------------------------------ patterns
def test_latest_messages_newest_ten_after_since(van):
    for i in range(15):
        send(van, "v1", "telemetry", T0 + i * 30_000)
    send(van, "v2", "telemetry", T0 + 999)
    found = van.latest_messages("v1", since_ms=T0)
    assert [r["timestamp"] for r in found] == [T0 + i * 30_000 for i in range(14, 4, -1)]
    # "timestamp > since" is strict: since = the 13th message leaves exactly two.
    assert [r["timestamp"] for r in van.latest_messages("v1", since_ms=T0 + 12 * 30_000)] == [
        T0 + 14 * 30_000,
        T0 + 13 * 30_000,
    ]
    assert van.latest_messages("v1", since_ms=T0 + 14 * 30_000) == []


def test_recent_alerts_across_vans_oldest_first(van):
    send(van, "v1", "alert", T0 + 1_000, {"glycol_temp": 195})
    send(van, "v2", "alert", T0 + 2_000, {"battery_voltage": 10.9})
    send(van, "v1", "telemetry", T0 + 3_000)
    send(van, "v2", "alert", T0 + 4_000)
    found = van.recent_alerts(since_ms=T0 + 1_000)
    assert [(r["thing_name"], r["timestamp"]) for r in found] == [("v2", T0 + 2_000), ("v2", T0 + 4_000)]
    assert van.recent_alerts(since_ms=T0 + 4_000) == []


def _history_with_old_status(van: vt.VanTelemetry, newer: int) -> None:
    send(van, "v1", "status", T0, {"hvac_mode": "cool", "hvac_temp": 66})
    for i in range(1, newer + 1):
        send(van, "v1", "telemetry", T0 + i * 30_000)


def test_document_status_query_limit_1_with_filter_finds_nothing(van):
    _history_with_old_status(van, newer=3)
    # The document's query: Limit = 1 is applied BEFORE the filter, so DynamoDB reads only the newest
    # item (a telemetry message), filters it out and returns nothing, with more pages to go.
    response = van.rt.client.query(
        TableName="van-telemetry",
        KeyConditionExpression="thing_name = :t",
        FilterExpression="message_type = :s",
        ExpressionAttributeValues={":t": {"S": "v1"}, ":s": {"S": "status"}},
        ScanIndexForward=False,
        Limit=1,
    )
    assert response["Items"] == [] and response["ScannedCount"] == 1
    assert response["LastEvaluatedKey"] == {"thing_name": {"S": "v1"}, "timestamp": {"N": str(T0 + 90_000)}}


def test_device_status_finds_the_newest_status_pages_back(van):
    _history_with_old_status(van, newer=120)  # more than two 50-item pages of telemetry after it
    send(van, "v2", "status", T0 + 5_000)
    status = van.device_status("v1")
    assert status is not None and status["timestamp"] == T0 and status["hvac_mode"] == "cool"
    page = van.rt.run("device_status", thing_name="v1")
    assert page.stats.requests == 3 and page.stats.items_read == 121


def test_device_status_without_any_status_is_none(van):
    send(van, "v1", "telemetry", T0)
    assert van.device_status("v1") is None
    assert van.device_status("no-such-van") is None


def test_time_range_is_inclusive_and_ordered(van):
    for i in range(10):
        send(van, "v1", "telemetry", T0 + i * 30_000)
    found = van.time_range("v1", T0 + 60_000, T0 + 120_000)
    assert [r["timestamp"] for r in found] == [T0 + 60_000, T0 + 90_000, T0 + 120_000]
    assert van.time_range("v1", T0 + 1, T0 + 29_999) == []


def test_time_range_with_reversed_bounds_names_them(van):
    with pytest.raises(ValueError, match=f"start {T0 + 1} is after end {T0}"):
        van.time_range("v1", T0 + 1, T0)


# ------------------------------------------------------------------------------------ the example contract
def test_tablewright_check_passes_on_the_example():
    result = CliRunner().invoke(check, [str(EXAMPLE), "--format", "json"])
    assert result.exit_code == 0, result.output
    reports = json.loads(result.output)["designs"]
    assert all(r["status"] == "pass" for r in reports)
    patterns = {p["pattern"] for r in reports for p in r["patterns"] if p["status"] == "pass"}
    assert patterns == {"latest_messages", "recent_alerts", "device_status", "time_range"}
