"""examples/sensor-api at its edges: readings that name another device or batch, last_seen_at and the
activity index after ingestion, timestamps whose TTL DynamoDB would never act on, and volumes that
price what one ingestion really sends."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from tablewright.design import load
from tablewright.runtime import Runtime, ValidationError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sensor-api"
sys.path.insert(0, str(EXAMPLE))
from sensor_api import DESIGN, devices, ingestion, open_runtime, readings  # noqa: E402

MAC = "AA:BB:CC:DD:EE:FF"
OTHER = "11:22:33:44:55:66"
BOOT = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
NOW = datetime(2024, 1, 15, 14, 22, tzinfo=UTC)
T0 = 1_704_067_200_000  # 2024-01-01T00:00:00Z
CAPS = {"sensors": ["bme280"], "features": {"tft_display": True}}


@pytest.fixture
def rt() -> Runtime:
    rt = open_runtime()
    for mac in (MAC, OTHER):
        devices.register_device(rt, mac, boot_id=BOOT, firmware_version="1.0.16", capabilities=CAPS, now=NOW)
    return rt


def reading(ts: int, **extra: object) -> dict:
    return {
        "timestamp_ms": ts,
        "sensors": {"bme280_temp_c": Decimal("21.5")},
        "sensor_status": {"bme280": "ok"},
        **extra,
    }


def ingest(rt: Runtime, rows: list[dict], *, mac: str = MAC, bid: str = "b1", now: datetime = NOW):
    return ingestion.ingest_batch(
        rt, hardware_id=mac, batch_id=bid, boot_id=BOOT, firmware_version="1.0.16", readings=rows, now=now
    )


def everything(rt: Runtime, mac: str = MAC) -> list:
    return readings.readings_between(rt, mac, 946_684_800_000, 4_102_444_800_000).items


# ------------------------------------------------------------------------------------ batch identity
@pytest.mark.parametrize("field, value", [("hardware_id", OTHER), ("batch_id", "another-batch")])
def test_a_reading_cannot_name_another_device_or_batch(rt, field, value):
    with pytest.raises(ValidationError, match=rf"\[1\]\.{field}"):
        ingest(rt, [reading(T0), reading(T0 + 1000, **{field: value})])
    assert everything(rt) == [] and everything(rt, OTHER) == []
    assert rt.get("ProcessedBatch", batch_id="b1") is None


def test_a_reading_repeating_its_batch_values_is_fine(rt):
    assert ingest(rt, [reading(T0, hardware_id=MAC, batch_id="b1")]).status == "accepted"
    assert [r["hardware_id"] for r in everything(rt)] == [MAC]


# ------------------------------------------------------------------------------------ last activity
def test_ingestion_is_activity_last_seen_at_and_the_index_follow_it(rt):
    listed = [d["hardware_id"] for d in devices.devices_by_activity(rt)]
    assert listed[0] == OTHER or listed == [MAC, OTHER]  # both registered at NOW
    later = NOW + timedelta(hours=2, seconds=5, microseconds=700_000)
    ingest(rt, [reading(T0)], now=later)
    device = rt.get("Device", hardware_id=MAC)
    assert device["last_seen_at"] == "2024-01-15T16:22:05Z"
    assert [d["hardware_id"] for d in devices.devices_by_activity(rt)] == [MAC, OTHER]
    # A delayed request (an older clock) never moves last_seen_at back.
    ingest(rt, [reading(T0 + 1000)], bid="b2", now=NOW + timedelta(hours=1))
    assert rt.get("Device", hardware_id=MAC)["last_seen_at"] == "2024-01-15T16:22:05Z"


# ------------------------------------------------------------------------------------ TTL
@pytest.mark.parametrize(
    "when",
    [
        datetime(2000, 1, 1, tzinfo=UTC),  # a device clock reset to the epoch floor
        NOW - timedelta(days=5 * 366 + 90),  # TTL more than five years in the past
        NOW + timedelta(days=2),  # a clock running ahead: kept past the retention
        datetime(2099, 12, 31, tzinfo=UTC),
    ],
)
def test_readings_whose_ttl_dynamodb_would_not_honour_are_refused(rt, when):
    ts = int(when.timestamp() * 1000)
    with pytest.raises(ValidationError, match=r"\[0\]\.timestamp_ms"):
        ingest(rt, [reading(ts)])
    assert everything(rt) == []


def test_readings_within_the_window_keep_their_ttl_from_the_timestamp(rt):
    old = int((NOW - timedelta(days=400)).timestamp() * 1000)
    ahead = int((NOW + timedelta(hours=1)).timestamp() * 1000)
    ingest(rt, [reading(old), reading(ahead)])
    assert sorted(r["expiration_time"] for r in everything(rt)) == [
        old // 1000 + 90 * 86_400,
        ahead // 1000 + 90 * 86_400,
    ]


# ------------------------------------------------------------------------------------ volumes
def test_volumes_price_every_write_one_ingestion_sends():
    rt = Runtime.open(DESIGN, direct=False)  # through botocore, so its hooks see every request
    rt.create_tables()
    devices.register_device(rt, MAC, boot_id=BOOT, firmware_version="1.0.16", capabilities=CAPS, now=NOW)
    sent: list[tuple[str, dict]] = []
    rt.client.meta.events.register(
        "before-parameter-build.dynamodb", lambda params, model, **_: sent.append((model.name, params))
    )
    ingest(rt, [reading(T0)], now=NOW + timedelta(minutes=5))
    tables = {t.table_name: name for name, t in load(DESIGN).tables.items()}
    by_entity = {e.table: e.name for e in load(DESIGN).entities.values()}
    written: dict[str, bool] = {}  # entity -> written inside a transaction
    for operation, params in sent:
        if operation == "TransactWriteItems":
            for action in params["TransactItems"]:
                body = next(iter(action.values()))
                if "ConditionCheck" not in action:
                    written[by_entity[tables[body["TableName"]]]] = True
        elif operation in ("PutItem", "UpdateItem", "DeleteItem"):
            written.setdefault(by_entity[tables[params["TableName"]]], False)
    volumes = load(DESIGN).volumes.entities
    ingests_per_minute = 2000  # the design's Reading rate: one reading per batch (its worst case)
    for entity, transactional in written.items():
        volume = volumes[entity]
        assert volume.transactional == transactional, entity
        assert volume.writes_per_second * 60 >= ingests_per_minute * 0.999, (entity, volume.writes_per_second)
