"""examples/evse (seed 000, ADR-006) on the real embedded engine: SC-IDs, Mountain Time sort keys and
the fall-back hour, atomic uplink ingestion (event + state), collisions and redeliveries, daily
statistics, the event-type GSI, per-device filtering and the O(1)-per-device fleet overview."""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewright.cli.check import check
from tablewright.runtime import ValidationError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "evse"
sys.path.insert(0, str(EXAMPLE))
import evse  # noqa: E402
import generate as sample  # noqa: E402
from evse.ids import from_mt, to_mt  # noqa: E402

UUID = "b319d001-6b08-4d88-b2a4-1b4a2e4e1c01"
OTHER = "0f1e2d3c-4b5a-4697-8877-665544332211"
# Two real UUIDs whose SHA-256 share the first 4 bytes (found by a seeded birthday search).
COLLIDING = ("5587535f-04d7-465f-bdd1-31e4fbf70485", "bea35188-63ab-4dfc-b4b6-93c319aa94f3")
# 2025-11-02: at 02:00 MDT the clocks go back to 01:00 MST, so 01:00-01:59 happens twice.
FIRST_0130 = from_mt("2025-11-02 01:30:00.000", fold=0)  # 07:30 UTC, MDT
SECOND_0130 = from_mt("2025-11-02 01:30:00.000", fold=1)  # 08:30 UTC, MST


@pytest.fixture
def fleet() -> evse.EvseFleet:
    fleet = evse.EvseFleet.open()
    fleet.register({"wireless_device_id": UUID, "name": "Garage"})
    return fleet


def telemetry(ms: int, state: str = "B", uuid: str = UUID, **extra: object) -> dict:
    return {
        "wireless_device_id": uuid,
        "timestamp": ms,
        "event_type": "telemetry",
        "j1772_state": state,
        **extra,
    }


def stored_events(fleet: evse.EvseFleet, device_id: str | None = None) -> list:
    return fleet.timeline(device_id or evse.sc_id(UUID), "2000-01-01 00:00:00.000", "2099-12-31 23:59:59.999")


# ------------------------------------------------------------------------------------ SC-ID (Decision 2)
def test_sc_id_is_sha256_first_4_bytes_hex_upper():
    expected = "SC-" + hashlib.sha256(UUID.encode()).hexdigest()[:8].upper()
    assert evse.sc_id(UUID) == expected == "SC-50C571C1"


def test_design_template_and_python_derive_the_same_sc_id(fleet):
    record = fleet.rt.get("Device", device_id=evse.sc_id(UUID))
    assert record is not None and record["device_id"] == evse.sc_id(UUID)
    assert fleet.state_of_uuid(UUID) is None  # no lookup table: derived, and no uplink yet


def test_sc_id_hashes_the_uuid_text_so_case_matters():
    # IoT Wireless returns lower-case UUIDs; an upper-cased copy is another string, another SC-ID.
    assert evse.sc_id(UUID.upper()) != evse.sc_id(UUID)


def test_sc_id_collision_odds_at_the_adr_scales():
    assert evse.sc_id_collision_probability(1000) == pytest.approx(1.16e-4, rel=0.01)
    assert evse.sc_id_collision_probability(10_000) == pytest.approx(0.0116, rel=0.01)


def test_registration_refuses_a_colliding_uuid_and_is_idempotent(fleet):
    first, second = COLLIDING
    assert evse.sc_id(first) == evse.sc_id(second) == "SC-2BA1CFF5"
    fleet.register({"wireless_device_id": first})
    again = fleet.register({"wireless_device_id": first})
    assert again["wireless_device_id"] == first and again["version"] == 1
    with pytest.raises(
        evse.ScIdCollisionError, match="SC-2BA1CFF5 .* already registered to wireless device 5587535f"
    ):
        fleet.register({"wireless_device_id": second})


def test_uplink_of_a_colliding_uuid_is_refused_before_any_write(fleet):
    first, second = COLLIDING
    fleet.register({"wireless_device_id": first})
    with pytest.raises(evse.ScIdCollisionError, match="belongs to wireless device 5587535f"):
        fleet.ingest(telemetry(FIRST_0130, uuid=second))
    assert stored_events(fleet, "SC-2BA1CFF5") == [] and fleet.state("SC-2BA1CFF5") is None


def test_uplink_of_an_unregistered_device_writes_nothing(fleet):
    with pytest.raises(evse.UnknownDeviceError, match=f"{evse.sc_id(OTHER)} .* not registered"):
        fleet.ingest(telemetry(FIRST_0130, uuid=OTHER))
    assert stored_events(fleet, evse.sc_id(OTHER)) == [] and fleet.state(evse.sc_id(OTHER)) is None


# ------------------------------------------------------------------------------------ Mountain Time SK (Decision 3)
@pytest.mark.parametrize(
    "ms, text",
    [
        (1771709400000, "2026-02-21 14:30:00.000"),  # the ADR's own example, MST (UTC-7)
        (1751380200123, "2025-07-01 08:30:00.123"),  # MDT (UTC-6)
        (FIRST_0130, "2025-11-02 01:30:00.000"),
        (SECOND_0130, "2025-11-02 01:30:00.000"),  # an hour later, same text
        (from_mt("2026-03-08 03:00:00.000"), "2026-03-08 03:00:00.000"),  # right after 02:00 -> 03:00
    ],
)
def test_timestamp_mt_format_from_design_and_python(fleet, ms, text):
    item = fleet.rt.entity("Event").to_item(telemetry(ms))
    assert item["timestamp_mt"] == to_mt(ms) == text


def test_fall_back_hour_sorts_by_wall_clock_not_chronologically(fleet):
    """The ADR's accepted trade-off: in the repeated hour, key order is wall-clock order."""
    wall = [
        ("2025-11-02 00:50:00.000", 0),
        ("2025-11-02 01:10:00.000", 0),  # MDT
        ("2025-11-02 01:40:00.000", 0),  # MDT
        ("2025-11-02 01:05:00.000", 1),  # MST: 55 minutes after the 01:10 MDT event
        ("2025-11-02 01:35:00.000", 1),  # MST
        ("2025-11-02 02:10:00.000", 0),
    ]
    for text, fold in wall:
        fleet.ingest(telemetry(from_mt(text, fold=fold)))
    timeline = fleet.day_timeline(evse.sc_id(UUID), "2025-11-02")
    keys = [e["timestamp_mt"] for e in timeline]
    instants = [e["timestamp"] for e in timeline]
    assert keys == sorted(keys)
    assert keys == [
        "2025-11-02 00:50:00.000",
        "2025-11-02 01:05:00.000",  # happened 4th, sorts 2nd
        "2025-11-02 01:10:00.000",
        "2025-11-02 01:35:00.000",  # happened 5th, sorts 4th
        "2025-11-02 01:40:00.000",
        "2025-11-02 02:10:00.000",
    ]
    assert instants != sorted(instants)  # not chronological...
    outside = [e["timestamp"] for e in timeline if not e["timestamp_mt"].startswith("2025-11-02 01:")]
    assert outside == sorted(outside)  # ...but only inside the repeated hour
    # The Unix-ms attribute keeps the true order for whoever needs it (the ADR's "revisit: UTC").
    assert [e["timestamp_mt"] for e in sorted(timeline, key=lambda e: e["timestamp"])][1:5] == [
        "2025-11-02 01:10:00.000",
        "2025-11-02 01:40:00.000",
        "2025-11-02 01:05:00.000",
        "2025-11-02 01:35:00.000",
    ]


def test_fall_back_affects_every_uplink_of_the_repeated_hour_not_2_a_year():
    # At 15-minute uplinks a charger sends 8 events whose wall clock reads 01:xx on the fall-back
    # night (4 MDT + 4 MST): all interleave. The ADR's "~2 events per year" is per... nothing we
    # can reproduce; README records the real number (8 per device, 8,000 at 1,000 devices).
    events = sample.device_events(1, 5, UUID)
    repeated = [e for e in events if to_mt(e["timestamp"]).startswith("2025-11-02 01:")]
    assert len([e for e in repeated if e["event_type"] != "scheduler"]) == 8


def test_same_wall_clock_millisecond_in_the_repeated_hour_is_kept_not_overwritten(fleet):
    first = fleet.ingest(telemetry(FIRST_0130, "C", current_a=32))
    second = fleet.ingest(telemetry(SECOND_0130, "B", current_a=0))
    assert (first.status, first.collision_offset_ms) == ("appended", 0)
    assert (second.status, second.collision_offset_ms) == ("appended", 1)
    assert second.event["timestamp_mt"] == "2025-11-02 01:30:00.001"
    assert second.event["timestamp"] - second.event["collision_offset_ms"] == SECOND_0130  # true instant
    events = stored_events(fleet)
    assert [(e["j1772_state"], e["timestamp_mt"]) for e in events] == [
        ("C", "2025-11-02 01:30:00.000"),
        ("B", "2025-11-02 01:30:00.001"),
    ]


def test_without_the_condition_dynamodb_would_silently_overwrite(fleet):
    # What a plain PutItem does with the second 01:30:00.000: one item left, the first event gone.
    entity = fleet.rt.entity("Event")
    for ms, state in ((FIRST_0130, "C"), (SECOND_0130, "B")):
        item = entity.to_item(telemetry(ms, state))
        fleet.rt.client.put_item(
            TableName="evse-events",
            Item={k: ({"S": v} if isinstance(v, str) else {"N": str(v)}) for k, v in item.items()},
        )
    assert [e["j1772_state"] for e in stored_events(fleet)] == ["B"]


# ------------------------------------------------------------------------------------ ingestion (Decision 5)
def test_uplink_appends_event_and_overwrites_state_in_one_transaction(fleet):
    result = fleet.ingest(telemetry(FIRST_0130, "C", current_a=Decimal("31.5")))
    assert result.status == "appended" and result.state_updated
    state = fleet.state(evse.sc_id(UUID))
    assert state["last_event_mt"] == "2025-11-02 01:30:00.000" and state["j1772_state"] == "C"
    assert state["version"] == 1
    fleet.ingest(telemetry(FIRST_0130 + 900_000, "B"))
    state = fleet.state(evse.sc_id(UUID))
    assert (state["version"], state["j1772_state"], state["last_event_ms"]) == (2, "B", FIRST_0130 + 900_000)
    assert len(fleet.fleet_overview().items) == 1  # overwritten, never a second item


def test_redelivered_uplink_is_a_duplicate_not_a_second_event(fleet):
    fleet.ingest(telemetry(FIRST_0130, "C"))
    again = fleet.ingest(telemetry(FIRST_0130, "C"))
    assert again.status == "duplicate" and not again.state_updated
    assert len(stored_events(fleet)) == 1 and fleet.state(evse.sc_id(UUID))["version"] == 1


def test_redelivery_of_a_moved_event_finds_its_moved_copy(fleet):
    fleet.ingest(telemetry(FIRST_0130, "C"))
    fleet.ingest(telemetry(SECOND_0130, "B"))
    again = fleet.ingest(telemetry(SECOND_0130, "B"))
    assert (again.status, again.collision_offset_ms) == ("duplicate", 1)
    assert len(stored_events(fleet)) == 2


def test_an_attribute_the_design_does_not_name_is_refused_not_stored_as_another_event(fleet):
    fleet.ingest(telemetry(FIRST_0130, "C"))
    with pytest.raises(ValidationError) as caught:
        fleet.ingest(telemetry(FIRST_0130, "C", firmware_build="r7"))  # a redelivery with one field more
    assert "firmware_build" in str(caught.value)
    assert len(stored_events(fleet)) == 1


def test_late_uplink_is_appended_but_does_not_roll_the_state_back(fleet):
    fleet.ingest(telemetry(SECOND_0130, "B"))
    late = fleet.ingest(telemetry(SECOND_0130 - 900_000, "C"))
    assert late.status == "appended" and not late.state_updated
    state = fleet.state(evse.sc_id(UUID))
    assert (state["last_event_ms"], state["j1772_state"], state["version"]) == (SECOND_0130, "B", 1)
    assert len(stored_events(fleet)) == 2


def test_invalid_event_is_refused_before_any_write(fleet):
    with pytest.raises(ValidationError) as caught:
        fleet.ingest(
            {"wireless_device_id": UUID, "timestamp": FIRST_0130, "event_type": "reboot", "current_a": 99}
        )
    text = str(caught.value)
    assert "event_type" in text and "current_a" in text
    with pytest.raises(ValidationError, match="float"):
        fleet.ingest(telemetry(FIRST_0130, rssi_extra=1.5))
    assert stored_events(fleet) == [] and fleet.state(evse.sc_id(UUID)) is None


def test_concurrent_uplinks_of_one_device_lose_no_event_and_no_state_change(fleet):
    results: list[evse.IngestResult] = []
    lock = threading.Lock()

    def send(offset: int) -> None:
        for i in range(15):
            result = fleet.ingest(telemetry(FIRST_0130 + (2 * i + offset) * 1000, "C"))
            with lock:
                results.append(result)

    threads = [threading.Thread(target=send, args=(n,)) for n in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(stored_events(fleet)) == 30 and all(r.status == "appended" for r in results)
    state = fleet.state(evse.sc_id(UUID))
    # Every state write was a versioned overwrite: the version counts them, none lost.
    assert state["version"] == sum(r.state_updated for r in results)
    assert state["last_event_ms"] == FIRST_0130 + 29_000


def test_state_groups_replace_the_four_sentinels(fleet):
    base = from_mt("2025-11-01 16:00:00.000")
    uplinks = [
        {"event_type": "scheduler", "scheduler_command": "pause", "timestamp": base},
        {"event_type": "telemetry", "j1772_state": "C", "timestamp": base + 900_000},  # charges while paused
        {"event_type": "telemetry", "j1772_state": "C", "timestamp": base + 1_800_000},
        {
            "event_type": "ota_start",
            "ota_from_version": "1.4.2",
            "ota_to_version": "1.5.0",
            "timestamp": base + 2_700_000,
        },
        {"event_type": "ota_complete", "ota_result": "success", "timestamp": base + 3_600_000},
        {
            "event_type": "diagnostics",
            "device_time_ms": base + 4_500_000 + 750,
            "timestamp": base + 4_500_000,
        },
    ]
    for uplink in uplinks:
        fleet.ingest({"wireless_device_id": UUID, **uplink})
    state = fleet.state(evse.sc_id(UUID))
    assert state["scheduler_state"] == "paused"  # was timestamp=0
    assert (state["ota_status"], state["firmware_version"]) == ("success", "1.5.0")  # was -1
    assert state["time_sync_drift_ms"] == 750  # was -2
    assert (state["divergence_count"], state["divergence_since_mt"]) == (
        2,
        "2025-11-01 16:15:00.000",
    )  # was -3
    fleet.ingest(
        {
            "wireless_device_id": UUID,
            "event_type": "scheduler",
            "scheduler_command": "resume",
            "timestamp": base + 5_400_000,
        }
    )
    assert fleet.state(evse.sc_id(UUID))["divergence_active"] is False
    # The events table stays a pure log: no sentinel keys (0, -1, ...) among its sort keys.
    assert all(e["timestamp_mt"].startswith("2025-11-01 ") for e in stored_events(fleet))


# ------------------------------------------------------------------------------------ daily stats
def test_daily_stats_cover_the_25_and_23_hour_days(fleet):
    device = evse.sc_id(UUID)
    for day, hours in (("2025-11-02", 25), ("2026-03-08", 23)):
        start = from_mt(f"{day} 00:00:00.000")
        end = from_mt(f"{day} 23:59:59.999", fold=1)
        for ms in range(start, end, 15 * 60_000):
            fleet.ingest(telemetry(ms, "C", current_a=32, energy_wh=1920))
        stats = fleet.refresh_daily_stats(device, day)
        assert (stats["wall_clock_hours"], stats["event_count"]) == (hours, hours * 4)
        assert stats["energy_wh"] == 1920 * hours * 4 and stats["max_current_a"] == 32
    assert [s["date"] for s in fleet.daily_stats(device, "2025-11-01", "2026-12-31")] == [
        "2025-11-02",
        "2026-03-08",
    ]


def test_daily_stats_use_the_mountain_time_date_not_utc(fleet):
    late_evening = from_mt("2025-11-01 23:30:00.000")  # 2025-11-02 05:30 UTC
    fleet.ingest(telemetry(late_evening))
    assert evse.mt_date(late_evening) == "2025-11-01"
    assert fleet.refresh_daily_stats(evse.sc_id(UUID), "2025-11-01")["event_count"] == 1
    assert fleet.refresh_daily_stats(evse.sc_id(UUID), "2025-11-02")["event_count"] == 0


def test_daily_stats_refresh_is_idempotent(fleet):
    fleet.ingest(telemetry(FIRST_0130, "C", energy_wh=100))
    first = fleet.refresh_daily_stats(evse.sc_id(UUID), "2025-11-02")
    again = fleet.refresh_daily_stats(evse.sc_id(UUID), "2025-11-02")
    assert first == again
    (stored,) = fleet.daily_stats(evse.sc_id(UUID), "2025-11-02", "2025-11-02")
    assert stored["energy_wh"] == 100 and stored["type_counts"] == {"telemetry": 1}


# ------------------------------------------------------------------------------------ reads (Decisions 4, 5)
@pytest.fixture(scope="module")
def loaded() -> tuple[evse.EvseFleet, dict]:
    """Scale-1 sample data sent through the real ingestion path (not the generator's shortcut)."""
    fleet = evse.EvseFleet.open()
    data = sample.generate(7, 1)
    for device in data["Device"]:
        fleet.register(device)
    for event in data["Event"]:
        body = {k: v for k, v in event.items() if k not in ("collision_offset_ms",)}
        body["timestamp"] = event["timestamp"] - event.get("collision_offset_ms", 0)
        fleet.ingest(body)
    return fleet, data


def test_ingestion_reproduces_the_generated_state_and_stats(loaded):
    fleet, data = loaded
    by_device = {s["wireless_device_id"]: s for s in data["DeviceState"]}
    for record in fleet.fleet_overview():
        expected = {**by_device[record["wireless_device_id"]], "device_id": record["device_id"]}
        assert {k: v for k, v in record.items() if k != "version"} == expected
    for stats in data["DailyStats"]:
        assert fleet.refresh_daily_stats(stats["device_id"], stats["date"]) == stats


def test_precise_device_collides_four_times_in_the_repeated_hour(loaded):
    fleet, data = loaded
    precise = evse.sc_id(data["Device"][sample.PRECISE]["wireless_device_id"])
    hour = fleet.timeline(precise, "2025-11-02 01:00:00.000", "2025-11-02 01:59:59.999")
    assert len(hour) == 8 and sum(1 for e in hour if e.get("collision_offset_ms") == 1) == 4


def test_fleet_overview_reads_one_item_per_device(loaded):
    fleet, data = loaded
    page = fleet.fleet_overview()
    assert len(page.items) == len(data["Device"]) == page.stats.items_read
    assert len(data["Event"]) > 100 * len(data["Device"])  # however many events there are


def test_fleet_wide_type_query_uses_the_gsi_newest_first(loaded):
    fleet, data = loaded
    starts = fleet.fleet_events("ota_start", "2025-11-01 00:00:00.000")
    assert [e["device_id"] for e in starts] == [
        evse.sc_id(data["Device"][sample.UPDATING]["wireless_device_id"])
    ]
    scheduler = fleet.fleet_events("scheduler", "2025-11-01 00:00:00.000")
    keys = [e["timestamp_mt"] for e in scheduler]
    assert keys == sorted(keys, reverse=True) and len(keys) == 4 * len(data["Device"])
    assert fleet.fleet_events("diagnostics", "2025-11-03 00:00:00.000") == []


def test_per_device_type_filter_reads_the_whole_range(loaded):
    fleet, data = loaded
    device = evse.sc_id(data["Device"][sample.DIVERGING]["wireless_device_id"])
    page = fleet.device_events(device, "interlock", "2025-11-01 00:00:00.000", "2025-11-02 23:59:59.999")
    assert len(page.items) >= 1 and all(e["event_type"] == "interlock" for e in page.items)
    # FilterExpression: every event of the two days is read (and paid for) to return the trips.
    assert page.stats.items_read == len(
        fleet.timeline(device, "2025-11-01 00:00:00.000", "2025-11-02 23:59:59.999")
    )


def test_latest_events_newest_first(loaded):
    fleet, data = loaded
    device = evse.sc_id(data["Device"][0]["wireless_device_id"])
    latest = fleet.latest(device, limit=5)
    assert len(latest) == 5 and [e["timestamp_mt"] for e in latest] == sorted(
        (e["timestamp_mt"] for e in latest), reverse=True
    )
    assert latest[0]["timestamp_mt"].startswith("2025-11-02 23:")


def test_reversed_ranges_name_both_bounds(fleet):
    with pytest.raises(
        ValueError, match="'2025-11-02 00:00:00.000' is after its end '2025-11-01 00:00:00.000'"
    ):
        fleet.timeline(evse.sc_id(UUID), "2025-11-02 00:00:00.000", "2025-11-01 00:00:00.000")


# ------------------------------------------------------------------------------------ sample data and check
def test_sample_data_is_deterministic_and_scales_to_the_adr_fleet():
    assert sample.generate(3, 1) == sample.generate(3, 1)
    assert sample.device_count(334) == 1000 and sample.device_count(10_000) == 1000
    per_day = len(sample.device_events(3, 4, UUID)) / 49 * 24  # 49 real hours
    assert 95 <= per_day <= 100  # ~96 uplinks a day + the scheduler's 2 commands


def test_tablewright_check_passes_on_the_example():
    result = CliRunner().invoke(check, [str(EXAMPLE), "--format", "json"])
    assert result.exit_code == 0, result.output
    reports = json.loads(result.output)["designs"]
    assert all(r["status"] == "pass" for r in reports)
    passed = {p["pattern"] for r in reports for p in r["patterns"] if p["status"] == "pass"}
    assert passed == set(evse.EvseFleet.open().rt.design.patterns)
