"""examples/sensor-api (seed 002) on the real embedded engine: every validation rule of the document,
device registration, API keys, exactly-once batch ingestion (up to 100 readings) and time ranges."""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from botocore.exceptions import ClientError
from click.testing import CliRunner

from tablewright.cli.check import check
from tablewright.design import load
from tablewright.runtime import NotFoundError, ValidationError
from tablewright.runtime.wire import item_to_wire

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sensor-api"
sys.path.insert(0, str(EXAMPLE))
from sensor_api import api_keys, devices, ingestion, open_runtime, readings  # noqa: E402

MAC = "AA:BB:CC:DD:EE:FF"
BOOT = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
NOW = datetime(2024, 1, 15, 14, 22, tzinfo=UTC)
T0 = 1_704_067_200_000  # 2024-01-01T00:00:00Z
CAPS = {"sensors": ["bme280", "ds18b20"], "features": {"tft_display": True, "offline_buffering": True}}


@pytest.fixture
def rt():
    return open_runtime()


@pytest.fixture
def device(rt):
    return devices.register_device(
        rt, MAC, boot_id=BOOT, firmware_version="1.0.16", capabilities=CAPS, now=NOW
    )


@pytest.fixture
def pepper(monkeypatch):
    monkeypatch.setenv("API_KEY_PEPPER", "test-pepper")
    return "test-pepper"


def raw_item(rt, table: str, key: dict) -> dict:
    return rt.client.get_item(TableName=table, Key=item_to_wire(key), ConsistentRead=True).get("Item")


def reading(ts: int, **extra) -> dict:
    values = {
        "timestamp_ms": ts,
        "sensors": {"bme280_temp_c": Decimal("22.5"), "humidity_pct": Decimal("45.2")},
        "sensor_status": {"bme280": "ok", "ds18b20": "error"},
    }
    return {**values, **extra}


def batch_id(first: int, last: int, mac: str = MAC) -> str:
    return f"{mac}_{BOOT}_{first}_{last}"


def ingest(rt, ts_list: list[int], bid: str | None = None, mac: str = MAC, now: datetime = NOW):
    bid = bid or batch_id(ts_list[0], ts_list[-1], mac)
    return ingestion.ingest_batch(
        rt,
        hardware_id=mac,
        batch_id=bid,
        boot_id=BOOT,
        firmware_version="1.0.16",
        readings=[reading(ts) for ts in ts_list],
        now=now,
    )


def stored_readings(rt, mac: str = MAC) -> list:
    return readings.readings_between(rt, mac, 946_684_800_000, 4_102_444_800_000).items


# ------------------------------------------------------------------------------------ validation rules
DESIGN = load(EXAMPLE / "design.yaml")  # the rules are the design's; no engine needed to check them


def rule_broken(entity: str, attribute: str, value: object) -> set[str]:
    """The rules ``value`` breaks for ``attribute`` (only that attribute's violations)."""
    violations = DESIGN.entities[entity].validate({attribute: value})
    return {v.rule for v in violations if v.attribute.startswith(attribute)}


@pytest.mark.parametrize(
    ("value", "ok"),
    [("AA:BB:CC:DD:EE:FF", True), ("00:1A:2B:3C:4D:5E", True), ("aa:bb:cc:dd:ee:ff", False),
     ("AA-BB-CC-DD-EE-FF", False), ("AA:BB:CC:DD:EE", False), ("AA:BB:CC:DD:EE:FF:00", False)],
)  # fmt: skip
def test_mac_regex(value, ok):
    for entity in ("Device", "Reading", "ProcessedBatch"):
        assert (rule_broken(entity, "hardware_id", value) == set()) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("550e8400-e29b-41d4-a716-446655440000", True),  # the document's confirmation_id example
        ("7c9e6679-7425-40de-944b-e07fc1f90ae7", True),
        ("7c9e6679-7425-10de-944b-e07fc1f90ae7", False),  # version 1
        ("550e8400-e29b-41d4-c716-446655440000", False),  # variant bits 110 (Microsoft), not 10
        ("a1b2c3d4-e5f6-7890-abcd-ef1234567890", False),  # the document's own key_id example: version 7
        ("550e8400e29b41d4a716446655440000", False),
    ],
)
def test_uuid_v4_version_and_variant_bits(value, ok):
    cases = [
        ("Device", "confirmation_id"),
        ("Device", "last_boot_id"),
        ("Reading", "boot_id"),
        ("ApiKey", "key_id"),
    ]
    for entity, attribute in cases:
        assert (rule_broken(entity, attribute, value) == set()) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [(946_684_800_000, True), (946_684_799_999, False), (4_102_444_800_000, True), (4_102_444_800_001, False),
     (1_704_067_800, False), (-1, False), (Decimal("1704067800000.5"), False), (1_704_067_800_000, True)],
)  # fmt: skip
def test_timestamp_ms_bounds_2000_to_2100(value, ok):
    assert (rule_broken("Reading", "timestamp_ms", value) == set()) is ok


def test_seconds_instead_of_milliseconds_is_named():
    (violation,) = [
        v for v in DESIGN.entities["Reading"].validate({"timestamp_ms": 1_704_067_800}) if v.rule == "format"
    ]
    assert "looks like seconds" in violation.message


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (
            "AA:BB:CC:DD:EE:FF_7c9e6679-7425-40de-944b-e07fc1f90ae7_1704067200000_1704067800000",
            True,
        ),  # the doc's
        ("x" * 256, True),
        ("x" * 257, False),
        ("", False),
        ("batch#1", False),  # '#' is the ts_batch separator
        ("batch 1", False),
        ("batch/1", False),
        ("bätch", False),
    ],
)
def test_batch_id_length_and_charset(value, ok):
    for entity in ("Reading", "ProcessedBatch"):
        assert (rule_broken(entity, "batch_id", value) == set()) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [("2024-01-15T10:30:00Z", True), ("2024-01-15T10:30:00+00:00", False), ("2024-01-15T10:30:00.123Z", False),
     ("2024-01-15 10:30:00Z", False), ("2024-02-30T10:30:00Z", False), ("2024-01-15T10:30:00z", False)],
)  # fmt: skip
def test_rfc3339_utc_to_the_second(value, ok):
    for entity, attribute in [
        ("Device", "last_seen_at"),
        ("ApiKey", "last_used_at"),
        ("ProcessedBatch", "received_at"),
    ]:
        assert (rule_broken(entity, attribute, value) == set()) is ok


@pytest.mark.parametrize(("value", "ok"), [("ok", True), ("error", True), ("OK", False), ("failed", False)])
def test_sensor_status_enum(value, ok):
    assert (rule_broken("Reading", "sensor_status", {"bme280": value}) == set()) is ok


def test_api_key_hash_is_sha256_hex():
    assert rule_broken("ApiKey", "api_key_hash", hashlib.sha256(b"x").hexdigest()) == set()
    assert rule_broken("ApiKey", "api_key_hash", "5E88" * 16) == {"format"}


def test_locked_schema_refuses_unknown_attributes():
    broken = {(v.attribute, v.rule) for v in DESIGN.entities["Reading"].validate({"colour": "red"})}
    assert ("colour", "unknown") in broken


# ------------------------------------------------------------------------------------ devices
def test_first_registration(rt, device):
    record = device.device
    assert device.created and record["version"] == 1
    assert record["first_registered_at"] == record["last_seen_at"] == "2024-01-15T14:22:00Z"
    assert rt.entity("Device").attributes["confirmation_id"].validate(record["confirmation_id"]) == []
    stored = raw_item(rt, "devices", {"hardware_id": MAC})
    assert stored["gsi1pk"] == {"S": "devices"} and stored["gsi1sk"] == {"S": "2024-01-15T14:22:00Z"}


def test_reregistration_keeps_first_registration_and_refreshes_the_rest(rt, device):
    new_boot = "9b2f6c1e-0d3a-4e5f-8a7b-1c2d3e4f5a6b"
    later = NOW + timedelta(hours=3)
    again = devices.register_device(
        rt, MAC, boot_id=new_boot, firmware_version="1.0.17", capabilities={"sensors": ["bme280"]}, now=later
    )
    record = again.device
    assert not again.created and record["version"] == 2
    assert record["first_registered_at"] == "2024-01-15T14:22:00Z"
    assert record["confirmation_id"] == device.device["confirmation_id"]
    assert (record["last_seen_at"], record["last_boot_id"], record["firmware_version"]) == (
        "2024-01-15T17:22:00Z",
        new_boot,
        "1.0.17",
    )
    assert raw_item(rt, "devices", {"hardware_id": MAC})["gsi1sk"] == {"S": "2024-01-15T17:22:00Z"}


def test_devices_listed_most_recently_seen_first(rt):
    for minutes, mac in [(0, "AA:00:00:00:00:01"), (10, "AA:00:00:00:00:02"), (5, "AA:00:00:00:00:03")]:
        devices.register_device(
            rt, mac, boot_id=BOOT, firmware_version="1", capabilities={}, now=NOW + timedelta(minutes=minutes)
        )
    devices.register_device(
        rt,
        "AA:00:00:00:00:01",
        boot_id=BOOT,
        firmware_version="1",
        capabilities={},
        now=NOW + timedelta(minutes=20),
    )
    assert [d["hardware_id"] for d in devices.devices_by_activity(rt)] == [
        "AA:00:00:00:00:01",
        "AA:00:00:00:00:02",
        "AA:00:00:00:00:03",
    ]
    first = devices.devices_by_activity(rt, limit=2)
    rest = devices.devices_by_activity(rt, limit=2, cursor=first.cursor)
    assert [d["hardware_id"] for d in rest] == ["AA:00:00:00:00:03"]


def test_registration_validates_every_rule_before_writing(rt):
    with pytest.raises(ValidationError) as caught:
        devices.register_device(
            rt,
            "aa:bb:cc:dd:ee:ff",
            boot_id="not-a-uuid",
            firmware_version="",
            capabilities={"sensors": "bme280"},
        )
    broken = {(v.attribute, v.rule) for v in caught.value.violations}
    assert {
        ("hardware_id", "format"),
        ("last_boot_id", "format"),
        ("firmware_version", "min_length"),
    } <= broken
    assert ("capabilities.sensors", "type") in broken
    assert devices.devices_by_activity(rt).items == []


def test_concurrent_first_registrations_create_once(rt):
    results, errors = [], []

    def register(i: int) -> None:
        try:
            results.append(
                devices.register_device(
                    rt,
                    MAC,
                    boot_id=BOOT,
                    firmware_version="1.0.16",
                    capabilities=CAPS,
                    now=NOW + timedelta(seconds=i),
                )
            )
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=register, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sum(r.created for r in results) == 1
    stored = rt.get("Device", hardware_id=MAC)
    creator = next(r.device for r in results if r.created)
    assert stored["version"] == 6 and stored["first_registered_at"] == creator["first_registered_at"]
    assert stored["confirmation_id"] == creator["confirmation_id"]


def test_friendly_name_update_is_not_activity(rt, device):
    renamed = devices.set_friendly_name(rt, MAC, "greenhouse-sensor-01")
    assert renamed["friendly_name"] == "greenhouse-sensor-01"
    assert renamed["last_seen_at"] == device.device["last_seen_at"]
    assert "friendly_name" not in devices.set_friendly_name(rt, MAC, None)
    with pytest.raises(NotFoundError, match="00:00:00:00:00:01"):
        devices.set_friendly_name(rt, "00:00:00:00:00:01", "x")


# ------------------------------------------------------------------------------------ API keys
def test_create_api_key_stores_only_the_peppered_hash(rt, pepper):
    created = api_keys.create_api_key(rt, "Production devices - greenhouse cluster", now=NOW)
    assert len(created.raw_key) == 64 and int(created.raw_key, 16) >= 0
    record = created.record
    assert record["api_key_hash"] == hashlib.sha256((pepper + created.raw_key).encode()).hexdigest()
    assert record["is_active"] is True
    stored = raw_item(rt, "api_keys", {"key_id": record["key_id"]})
    assert created.raw_key not in json.dumps(stored)
    assert stored["gsi1pk"] == {"S": "api_keys"} and stored["gsi1sk"] == {"S": record["created_at"]}
    assert record["created_at"] == "2024-01-15T14:22:00Z"


def test_missing_pepper_refuses(rt, monkeypatch):
    monkeypatch.delenv("API_KEY_PEPPER", raising=False)
    with pytest.raises(api_keys.PepperMissingError, match="API_KEY_PEPPER is not set"):
        api_keys.create_api_key(rt)


def test_authenticate(rt, pepper, monkeypatch):
    created = api_keys.create_api_key(rt, now=NOW)
    found = api_keys.authenticate(rt, created.raw_key, now=NOW)
    assert found is not None and found["key_id"] == created.record["key_id"]
    assert api_keys.authenticate(rt, "0" * 64, now=NOW) is None
    assert api_keys.authenticate(rt, created.raw_key.upper(), now=NOW) is None  # not a key we issue
    assert api_keys.authenticate(rt, created.raw_key[:-1], now=NOW) is None
    monkeypatch.setenv("API_KEY_PEPPER", "another-pepper")
    assert api_keys.authenticate(rt, created.raw_key, now=NOW) is None


def test_last_used_at_written_at_most_every_five_minutes(rt, pepper):
    created = api_keys.create_api_key(rt, now=NOW)
    key_id = created.record["key_id"]
    assert "last_used_at" not in created.record

    def last_used() -> str:
        return rt.get("ApiKey", key_id=key_id)["last_used_at"]

    api_keys.authenticate(rt, created.raw_key, now=NOW)
    assert last_used() == "2024-01-15T14:22:00Z"
    assert api_keys.touch_last_used(rt, key_id, now=NOW + timedelta(minutes=4, seconds=59)) is False
    assert last_used() == "2024-01-15T14:22:00Z"
    assert api_keys.touch_last_used(rt, key_id, now=NOW + timedelta(minutes=5)) is True
    assert last_used() == "2024-01-15T14:27:00Z"


def test_concurrent_requests_write_last_used_once(rt, pepper):
    created = api_keys.create_api_key(rt, now=NOW)
    later = NOW + timedelta(hours=1)
    wrote = []
    threads = [
        threading.Thread(
            target=lambda: wrote.append(api_keys.touch_last_used(rt, created.record["key_id"], now=later))
        )
        for _ in range(12)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(wrote) == [False] * 11 + [True]


def test_revoked_key_no_longer_authenticates(rt, pepper):
    created = api_keys.create_api_key(rt, now=NOW)
    key_id = created.record["key_id"]
    assert api_keys.revoke_api_key(rt, key_id)["is_active"] is False
    assert api_keys.authenticate(rt, created.raw_key, now=NOW + timedelta(hours=1)) is None
    assert api_keys.touch_last_used(rt, key_id, now=NOW + timedelta(hours=1)) is False
    assert "last_used_at" not in rt.get("ApiKey", key_id=key_id)
    with pytest.raises(NotFoundError):
        api_keys.revoke_api_key(rt, "550e8400-e29b-41d4-a716-446655440000")


def test_api_keys_listed_newest_first(rt, pepper):
    made = [
        api_keys.create_api_key(rt, f"k{i}", now=NOW + timedelta(days=i)).record["key_id"] for i in range(3)
    ]
    assert [k["key_id"] for k in api_keys.api_keys_by_creation(rt)] == made[::-1]


# ------------------------------------------------------------------------------------ ingestion
def test_batch_is_one_transaction_with_the_marker(rt, device):
    devices.set_friendly_name(rt, MAC, "greenhouse-sensor-01")
    ts = [T0 + i * 300_000 for i in range(10)]
    result = ingest(rt, ts)
    assert (result.status, result.readings, result.plan) == ("accepted", 10, "1 transaction of 11 actions")
    bid = batch_id(ts[0], ts[-1])
    stored = raw_item(rt, "device_readings", {"hardware_id": MAC, "ts_batch": f"{ts[3]:013}#{bid}"})
    assert stored["expiration_time"] == {"N": str(ts[3] // 1000 + 90 * 86_400)}  # epoch SECONDS
    assert stored["friendly_name"] == {"S": "greenhouse-sensor-01"}  # snapshot at ingestion
    marker = rt.get("ProcessedBatch", batch_id=bid)
    assert marker["received_at"] == "2024-01-15T14:22:00Z"
    assert marker["expiration_time"] == int(NOW.timestamp()) + 30 * 86_400


def test_retried_batch_is_a_duplicate_and_writes_nothing(rt, device):
    ts = [T0 + i * 300_000 for i in range(5)]
    ingest(rt, ts)
    again = ingest(rt, ts, now=NOW + timedelta(minutes=1))
    assert again.status == "duplicate"
    assert len(stored_readings(rt)) == 5
    assert rt.get("ProcessedBatch", batch_id=batch_id(ts[0], ts[-1]))["received_at"] == "2024-01-15T14:22:00Z"


def test_101_actions_are_more_than_dynamodb_allows(rt, device):
    puts = [
        {
            "Put": {
                "TableName": "device_readings",
                "Item": item_to_wire({"hardware_id": MAC, "ts_batch": str(i)}),
            }
        }
        for i in range(101)
    ]
    with pytest.raises(ClientError) as caught:
        rt.client.transact_write_items(TransactItems=puts)
    assert caught.value.response["Error"]["Code"] == "ValidationException"
    assert "100" in caught.value.response["Error"]["Message"]


def test_largest_batch_of_100_readings_is_written_once(rt, device):
    ts = [T0 + i * 300_000 for i in range(100)]
    result = ingest(rt, ts)
    assert (result.status, result.plan) == ("accepted", "marker, 1 transaction of readings, marker done")
    assert [r["timestamp_ms"] for r in stored_readings(rt)] == ts
    assert ingest(rt, ts).status == "duplicate"
    assert len(stored_readings(rt)) == 100


def test_crash_before_the_marker_is_repaired_by_the_retry(rt, device):
    ts = [T0 + i * 300_000 for i in range(100)]
    ingest(rt, ts)
    # The state a crash between the readings transaction and the marker leaves: readings, no marker.
    rt.client.delete_item(
        TableName="processed_batches", Key=item_to_wire({"batch_id": batch_id(ts[0], ts[-1])})
    )
    assert ingest(rt, ts).status == "accepted"
    assert len(stored_readings(rt)) == 100


def test_a_crash_after_the_pending_marker_is_finished_by_the_retry(rt, device):
    ts = [T0 + i * 300_000 for i in range(100)]
    ingest(rt, ts)
    # What a crash between the readings transaction and "marker done" leaves: a pending marker.
    key = item_to_wire({"batch_id": batch_id(ts[0], ts[-1])})
    rt.client.update_item(
        TableName="processed_batches",
        Key=key,
        UpdateExpression="SET #s = :p",
        ExpressionAttributeNames={"#s": "state"},
        ExpressionAttributeValues={":p": {"S": "pending"}},
    )
    assert ingest(rt, ts).status == "duplicate"  # finished by this call, stored once
    assert len(stored_readings(rt)) == 100
    assert "state" not in rt.client.get_item(TableName="processed_batches", Key=key)["Item"]


@pytest.mark.parametrize(
    ("size", "replay"),
    [(5, "other-values"), (5, "subset"), (5, "superset"), (100, "other-values"), (100, "subset")],
)
def test_a_replay_with_other_readings_is_a_conflict_and_changes_nothing(rt, device, size, replay):
    ts = [T0 + i * 300_000 for i in range(size)]
    bid = batch_id(ts[0], ts[-1])
    ingest(rt, ts, bid)
    before = [dict(r) for r in stored_readings(rt)]
    sent = {
        "other-values": [{**reading(t), "sensors": {"bme280_temp_c": Decimal("99.5")}} for t in ts],
        "subset": [reading(t) for t in ts[:-1]],
        "superset": [reading(t) for t in [*ts, ts[-1] + 1000]],
    }[replay]
    with pytest.raises(ingestion.BatchConflictError, match="processed with other readings"):
        ingestion.ingest_batch(
            rt, hardware_id=MAC, batch_id=bid, boot_id=BOOT, firmware_version="1.0.16", readings=sent, now=NOW
        )
    assert [dict(r) for r in stored_readings(rt)] == before


def test_concurrent_batches_sharing_a_batch_id_never_mix(rt, device):
    ts = [T0 + i * 300_000 for i in range(100)]
    bid = batch_id(ts[0], ts[-1])
    variants = {
        "a": [reading(t) for t in ts],
        "b": [{**reading(t + 1000), "sensors": {"bme280_temp_c": Decimal("42")}} for t in ts],
    }
    outcomes = []

    def send(name: str) -> None:
        try:
            result = ingestion.ingest_batch(
                rt,
                hardware_id=MAC,
                batch_id=bid,
                boot_id=BOOT,
                firmware_version="1.0.16",
                readings=variants[name],
                now=NOW,
            )
            outcomes.append((name, result.status))
        except ingestion.BatchConflictError:
            outcomes.append((name, "conflict"))

    threads = [threading.Thread(target=send, args=(name,)) for name in "abababab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (winner,) = [name for name, status in outcomes if status == "accepted"]
    assert sorted(s for n, s in outcomes if n == winner) == ["accepted"] + ["duplicate"] * 3
    assert [s for n, s in outcomes if n != winner] == ["conflict"] * 4
    stored = stored_readings(rt)
    assert [r["timestamp_ms"] for r in stored] == [r["timestamp_ms"] for r in variants[winner]]


@pytest.mark.parametrize("size", [1, 99, 100])
def test_concurrent_retries_store_exactly_one_copy(rt, device, size):
    ts = [T0 + i * 300_000 for i in range(size)]
    results, errors = [], []

    def send() -> None:
        try:
            results.append(ingest(rt, ts).status)
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=send) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(results) == ["accepted"] + ["duplicate"] * 5
    assert [r["timestamp_ms"] for r in stored_readings(rt)] == ts


@pytest.mark.parametrize("count", [0, 101])
def test_batch_size_is_1_to_100(rt, device, count):
    values = [reading(T0 + i) for i in range(count)]
    with pytest.raises(ValidationError, match=f"1-100 readings, got {count}"):
        ingestion.ingest_batch(
            rt, hardware_id=MAC, batch_id="b", boot_id=BOOT, firmware_version="1", readings=values
        )
    assert rt.get("ProcessedBatch", batch_id="b") is None


def test_invalid_readings_are_all_reported_and_nothing_is_written(rt, device):
    bad = [reading(T0), reading(T0 + 1, sensor_status={"bme280": "OK"}), reading(T0 + 1), reading(999)]
    with pytest.raises(ValidationError) as caught:
        ingestion.ingest_batch(
            rt,
            hardware_id=MAC,
            batch_id="b#1",
            boot_id=BOOT,
            firmware_version="1.0.16",
            readings=bad,
            now=NOW,
        )
    broken = {(v.attribute, v.rule) for v in caught.value.violations}
    assert {
        ("[1].sensor_status.bme280", "enum"),
        ("[2].timestamp_ms", "unique_in_batch"),
        ("[3].timestamp_ms", "format"),
        ("[0].batch_id", "charset"),
    } <= broken
    assert stored_readings(rt) == [] and rt.get("ProcessedBatch", batch_id="b#1") is None


def test_unregistered_device_is_refused(rt):
    with pytest.raises(ingestion.UnknownDeviceError, match=MAC):
        ingest(rt, [T0])


def test_batch_id_reused_by_another_device_is_a_conflict(rt, device):
    other = "11:22:33:44:55:66"
    devices.register_device(rt, other, boot_id=BOOT, firmware_version="1", capabilities={}, now=NOW)
    ingest(rt, [T0], bid="shared-batch")
    with pytest.raises(
        ingestion.BatchConflictError, match="processed for device AA:BB:CC:DD:EE:FF, not 11:22"
    ):
        ingest(rt, [T0], bid="shared-batch", mac=other)
    assert stored_readings(rt, other) == []


# ------------------------------------------------------------------------------------ reading queries
def test_ts_batch_is_zero_padded_to_13_digits(rt, device):
    year_2000 = 946_684_800_000  # 12 digits
    # Received on the day it was measured: a year-2000 reading arriving today is refused (its TTL).
    ingest(rt, [year_2000], bid="early", now=datetime(2000, 1, 1, 12, tzinfo=UTC))
    assert (
        raw_item(rt, "device_readings", {"hardware_id": MAC, "ts_batch": "0946684800000#early"}) is not None
    )
    ingest(rt, [T0], bid="later")
    assert [r["timestamp_ms"] for r in stored_readings(rt)] == [year_2000, T0]  # string order = time order


def test_time_range_includes_both_ends_for_any_batch_id(rt, device):
    edges = {"a": [T0 - 1, T0], "zz": [T0 + 500], "Z": [T0 + 1_000, T0 + 1_001], "__": [T0 + 1_000 - 1]}
    for bid, ts in edges.items():
        ingest(rt, ts, bid=bid)
    found = readings.readings_between(rt, MAC, T0, T0 + 1_000).items
    assert [(r["timestamp_ms"], r["batch_id"]) for r in found] == [
        (T0, "a"),
        (T0 + 500, "zz"),
        (T0 + 999, "__"),
        (T0 + 1_000, "Z"),
    ]
    assert readings.readings_between(rt, MAC, T0 + 1, T0 + 499).items == []
    with pytest.raises(ValueError, match=f"from_ms {T0 + 1} is after to_ms {T0}"):
        readings.readings_between(rt, MAC, T0 + 1, T0)


def test_latest_reading(rt, device):
    assert readings.latest_reading(rt, MAC) is None
    ingest(rt, [T0, T0 + 300_000], bid="b1")
    ingest(rt, [T0 - 300_000], bid="b0")  # a late, older batch does not become the latest
    assert readings.latest_reading(rt, MAC)["timestamp_ms"] == T0 + 300_000


# ------------------------------------------------------------------------------------ the example contract
def test_tablewright_check_passes_on_the_example():
    result = CliRunner().invoke(check, [str(EXAMPLE), "--format", "json"])
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.output)["designs"]
    assert report["status"] == "pass" and report["items_loaded"] > 100
    assert {p["pattern"] for p in report["patterns"] if p["status"] == "pass"} == set(
        ["get_device", "devices_by_activity", "latest_reading", "readings_time_range"]
        + ["processed_batch", "api_key_by_hash", "api_keys_by_creation"]
    )
