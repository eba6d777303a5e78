"""examples/evse at its edges: late events and the state groups newer uplinks did not touch, state by
UUID when two UUIDs share an SC-ID, and exactly which "since" and newest-first results the
November fall-back hour misorders (the README's statement, proven here)."""

from __future__ import annotations

import random
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "evse"
sys.path.insert(0, str(EXAMPLE))
import evse  # noqa: E402
from evse.ids import MOUNTAIN, from_mt, to_mt  # noqa: E402

UUID = "b319d001-6b08-4d88-b2a4-1b4a2e4e1c01"
COLLIDING = ("5587535f-04d7-465f-bdd1-31e4fbf70485", "bea35188-63ab-4dfc-b4b6-93c319aa94f3")
T0 = from_mt("2025-10-20 09:00:00.000")
MINUTE = 60_000


@pytest.fixture
def fleet() -> evse.EvseFleet:
    fleet = evse.EvseFleet.open()
    fleet.register({"wireless_device_id": UUID, "name": "Garage"})
    return fleet


def event(ms: int, kind: str, **values: object) -> dict:
    return {"wireless_device_id": UUID, "timestamp": ms, "event_type": kind, **values}


def state(fleet: evse.EvseFleet) -> dict:
    found = fleet.state(evse.sc_id(UUID))
    assert found is not None
    return dict(found)


# ------------------------------------------------------------------------------------ late events
def test_late_ota_complete_finishes_the_session_a_newer_telemetry_did_not_touch(fleet):
    fleet.ingest(event(T0, "ota_start", ota_from_version="1.4.2", ota_to_version="1.5.0"))
    fleet.ingest(event(T0 + 20 * MINUTE, "telemetry", j1772_state="B"))
    late = fleet.ingest(event(T0 + 10 * MINUTE, "ota_complete", ota_result="success"))

    assert late.status == "appended" and late.state_updated
    now = state(fleet)
    assert now["ota_status"] == "success" and now["firmware_version"] == "1.5.0"
    assert now["ota_completed_mt"] == to_mt(T0 + 10 * MINUTE)
    # What the newer uplink set stays: the device's last event is still the telemetry.
    assert (now["last_event_ms"], now["last_event_type"], now["j1772_state"]) == (
        T0 + 20 * MINUTE,
        "telemetry",
        "B",
    )


def test_an_uplink_from_the_future_is_refused_and_cannot_freeze_the_state(fleet):
    clock = datetime.fromtimestamp(T0 / 1000, UTC)
    fleet.ingest(event(T0, "telemetry", j1772_state="A"), now=clock)
    ahead = T0 + evse.ingest.MAX_AHEAD_MS + 1
    with pytest.raises(evse.FutureEventError, match=r"5\.0 minutes ahead of the ingest clock"):
        fleet.ingest(event(ahead, "telemetry", j1772_state="C"), now=clock)
    with pytest.raises(evse.FutureEventError, match="ahead of the ingest clock"):
        fleet.ingest(
            event(from_mt("2099-01-01 00:00:00.000"), "scheduler", scheduler_command="pause"), now=clock
        )
    stored = fleet.timeline(evse.sc_id(UUID), to_mt(T0), "2100-01-01 00:00:00.000")
    assert [record["timestamp"] for record in stored] == [T0]  # neither was stored
    # The next real uplink still changes the state; exactly MAX_AHEAD_MS ahead (clock skew) is taken.
    assert fleet.ingest(event(T0 + MINUTE, "telemetry", j1772_state="B"), now=clock).state_updated
    edge = fleet.ingest(event(T0 + evse.ingest.MAX_AHEAD_MS, "telemetry", j1772_state="C"), now=clock)
    assert edge.status == "appended" and state(fleet)["j1772_state"] == "C"


def test_late_event_never_overrides_a_newer_change_of_its_own_group(fleet):
    fleet.ingest(event(T0, "ota_start", ota_from_version="1.4.2", ota_to_version="1.5.0"))
    fleet.ingest(event(T0 + 30 * MINUTE, "ota_complete", ota_result="success"))
    fleet.ingest(event(T0 + 40 * MINUTE, "scheduler", scheduler_command="resume"))
    # A redelivered, older start of the session and an older pause arrive late.
    assert not fleet.ingest(
        event(T0 + 1, "ota_start", ota_from_version="1.4.2", ota_to_version="1.5.0")
    ).state_updated
    assert not fleet.ingest(event(T0 + 35 * MINUTE, "scheduler", scheduler_command="pause")).state_updated
    now = state(fleet)
    assert now["ota_status"] == "success" and now["scheduler_state"] == "active"
    assert len(fleet.timeline(evse.sc_id(UUID), to_mt(T0), to_mt(T0 + 60 * MINUTE))) == 5  # all logged


def test_late_time_sync_is_kept_when_no_newer_sync_exists(fleet):
    fleet.ingest(event(T0 + 20 * MINUTE, "telemetry", j1772_state="A"))
    late = fleet.ingest(event(T0, "diagnostics", device_time_ms=T0 + 250, rssi_dbm=-80))
    assert late.state_updated
    now = state(fleet)
    assert (now["time_sync_mt"], now["time_sync_drift_ms"]) == (to_mt(T0), 250)
    assert now["last_event_ms"] == T0 + 20 * MINUTE and now["j1772_state"] == "A"


def test_late_telemetry_older_than_the_last_telemetry_changes_nothing(fleet):
    fleet.ingest(event(T0 + 20 * MINUTE, "telemetry", j1772_state="B"))
    before = state(fleet)
    late = fleet.ingest(event(T0, "telemetry", j1772_state="C"))
    assert not late.state_updated and state(fleet) == before


SESSION = [
    event(T0, "ota_start", ota_from_version="1.4.2", ota_to_version="1.5.0"),
    event(T0 + 5 * MINUTE, "scheduler", scheduler_command="pause"),
    event(T0 + 10 * MINUTE, "telemetry", j1772_state="B"),
    event(T0 + 15 * MINUTE, "ota_complete", ota_result="success"),
    event(T0 + 20 * MINUTE, "diagnostics", device_time_ms=T0 + 20 * MINUTE - 40),
    event(T0 + 25 * MINUTE, "scheduler", scheduler_command="resume"),
    event(T0 + 30 * MINUTE, "telemetry", j1772_state="A"),
]
# Divergence depends on the scheduler state when a telemetry uplink is folded, which a late
# scheduler command cannot revise: left out of the comparison (README, decision 6).
ORDER_FREE = ("version", "divergence_active", "divergence_since_mt", "divergence_count")


def folded(order: list[int]) -> dict:
    fleet = evse.EvseFleet.open()
    fleet.register({"wireless_device_id": UUID})
    for index in order:
        fleet.ingest(SESSION[index])
    return {k: v for k, v in state(fleet).items() if k not in ORDER_FREE}


IN_ORDER = folded(list(range(len(SESSION))))


@settings(max_examples=25, deadline=None)
@given(st.permutations(range(len(SESSION))))
def test_state_folded_in_any_arrival_order_is_the_same(order):
    assert folded(order) == IN_ORDER


# ------------------------------------------------------------------------------------ state by UUID
def test_state_by_uuid_checks_the_uuid_not_only_the_sc_id(fleet):
    first, second = COLLIDING
    fleet.register({"wireless_device_id": first})
    fleet.ingest(
        {"wireless_device_id": first, "timestamp": T0, "event_type": "telemetry", "j1772_state": "B"}
    )
    assert fleet.state_of_uuid(first)["wireless_device_id"] == first
    assert fleet.state_of_uuid(second) is None  # same SC-ID, another charger: not its state


# ------------------------------------------------------------------------------------ the fall-back hour
def second_pass(ms: int) -> bool:
    """The instant is in the repeated hour's second (MST) pass."""
    return datetime.fromtimestamp(ms / 1000, MOUNTAIN).fold == 1


def first_pass(ms: int) -> bool:
    """The instant is in the repeated hour's first (MDT) pass (its wall clock repeats later)."""
    local = datetime.fromtimestamp(ms / 1000, MOUNTAIN)
    return local.fold == 0 and local.replace(fold=1).utcoffset() != local.utcoffset()


@pytest.fixture(scope="module")
def night() -> tuple[evse.EvseFleet, list[dict]]:
    """Three chargers, uplinks every 5 minutes with jitter from 23:00 to 03:00 on fall-back night."""
    fleet = evse.EvseFleet.open()
    rng = random.Random(11)
    uuids = [UUID, "0f1e2d3c-4b5a-4697-8877-665544332211", "7a0c9a3e-2d1b-4c55-9e61-0b6a3f4d2e10"]
    for uuid in uuids:
        fleet.register({"wireless_device_id": uuid})
    start, end = from_mt("2025-11-01 23:00:00.000"), from_mt("2025-11-02 03:00:00.000")
    for uuid in uuids:
        for at in range(start, end, 5 * MINUTE):
            fleet.ingest(
                {
                    "wireless_device_id": uuid,
                    "timestamp": at + rng.randint(0, 4 * MINUTE),
                    "event_type": "telemetry",
                    "j1772_state": "B",
                }
            )
    return fleet, fleet.fleet_events("telemetry", "2025-11-01 00:00:00.000", limit=10_000)


def misordered_pairs(newest_first: list[dict]) -> set[tuple[int, int]]:
    """(earlier in the result, later in the result) pairs whose instants run forwards."""
    stamps = [e["timestamp"] for e in newest_first]
    return {(a, b) for i, a in enumerate(stamps) for b in stamps[i + 1 :] if a < b}


def test_newest_first_misorders_exactly_the_pairs_the_readme_names(night):
    fleet, events = night
    assert len(events) == 3 * 60  # 23:00-03:00 on the wall clock is five real hours
    # README: only a first-pass (MDT) event and a second-pass (MST) event whose wall clock reads
    # earlier swap places; every other pair is in true order.
    stamps = [e["timestamp"] for e in events]
    predicted = {
        (mdt, mst)
        for mdt in stamps
        if first_pass(mdt)
        for mst in stamps
        if second_pass(mst) and to_mt(mst) < to_mt(mdt)
    }
    assert predicted and misordered_pairs(events) == predicted
    latest = fleet.latest(evse.sc_id(UUID), limit=1000)
    own = {e["timestamp"] for e in latest}
    assert misordered_pairs(latest) == {(a, b) for a, b in predicted if a in own and b in own}


@pytest.mark.parametrize(
    "since",
    [
        "2025-11-02 00:30:00.000",  # before the repeated hour: exact
        "2025-11-02 01:00:00.000",
        "2025-11-02 01:27:00.000",
        "2025-11-02 01:59:59.999",
        "2025-11-02 02:00:00.000",  # after it: exact
    ],
)
def test_since_inside_the_repeated_hour_gains_and_loses_exactly_the_readme_events(night, since):
    fleet, _ = night
    found = {e["timestamp"] for e in fleet.fleet_events("telemetry", since, limit=10_000)}
    every = {e["timestamp"] for e in fleet.fleet_events("telemetry", "2025-11-01 00:00:00.000", limit=10_000)}
    first, second = from_mt(since, fold=0), from_mt(since, fold=1)
    # README: read as the first (MDT) instant, the result misses the second-pass events whose wall
    # clock is before `since`; read as the second (MST) instant, it holds the first-pass events whose
    # wall clock is at or after `since`. Outside the repeated hour both readings are one instant.
    missed = {ms for ms in every if second_pass(ms) and to_mt(ms) < since}
    extra = {ms for ms in every if first_pass(ms) and to_mt(ms) >= since}
    assert found == {ms for ms in every if ms >= first} - missed
    assert found == {ms for ms in every if ms >= second} | extra
    if first == second:  # outside the repeated hour: exactly the events at or after the instant
        assert found == {ms for ms in every if ms >= first}
