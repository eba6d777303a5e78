"""examples/sensor-api with several workers under racing requests: each racer on a connection of its
own, released together by a barrier, so that the workers take them at once. The same batch sent by
every racer is stored once; one batch_id with other readings is stored by one racer only; one device
registered by every racer is created once; a revoked key is refused by every worker at once;
``last_seen_at`` never moves backwards, not even by a registration; a worker killed mid-write leaves
no half-written batch, and the retries after the restart finish what it left."""

from __future__ import annotations

import collections
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_sensor_api_service import ADMIN, BOOT, CAPS, EXAMPLE, PEPPER, batch, start, stop  # noqa: E402
from test_sensor_api_workers import workers_of  # noqa: E402

from tablewright import engine_of  # noqa: E402
from tablewright.runtime import Runtime  # noqa: E402
from tablewright.runtime.wire import item_from_wire  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked")
ENV = {"SENSOR_API_ADMIN_TOKEN": ADMIN, "API_KEY_PEPPER": PEPPER}
ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN}"}
RACERS = 6
MAC = "AA:BB:CC:DD:EE:01"


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sensor-races")
    db = folder / "s.db"
    process, url = start(folder, "--db", str(db), "--workers", "3", "--rate", "0", env=ENV)
    try:
        assert len(workers_of(process, 3)) == 3
        key = new_key(url)
        assert register(url, key, MAC).status_code == 201
        yield url, db, key
    finally:
        stop(process)
    assert process.returncode == 0, process.stderr.read()


def new_key(url: str) -> str:
    answer = httpx.post(f"{url}/admin/api-keys", json={}, headers=ADMIN_HEADERS, timeout=30)
    assert answer.status_code == 201, answer.text
    return answer.json()["api_key"]


def register(url: str, key: str, mac: str, client: httpx.Client | None = None) -> httpx.Response:
    body = {"hardware_id": mac, "boot_id": BOOT, "firmware_version": "1.0.16", "capabilities": CAPS}
    post = client.post if client is not None else httpx.post
    return post(f"{url}/v1/devices", json=body, headers={"X-API-Key": key}, timeout=30)


def race(url: str, send: Callable[[httpx.Client, int], httpx.Response], racers: int = RACERS) -> list:
    """``send(client, i)`` from ``racers`` threads at once, each on a connection of its own (opened
    before the barrier, so the workers already hold them): the answers in racer order."""
    barrier = threading.Barrier(racers)

    def run(i: int) -> httpx.Response:
        with httpx.Client(base_url=url, timeout=60) as client:
            assert client.get("/health").status_code == 200
            barrier.wait(timeout=30)
            return send(client, i)

    with ThreadPoolExecutor(racers) as pool:
        return list(pool.map(run, range(racers)))


def codes(answers: list[httpx.Response]) -> dict[int, int]:
    return dict(collections.Counter(answer.status_code for answer in answers))


def tables(db: Path) -> tuple[dict[str, dict], dict[str, list[dict]]]:
    """What is stored, read by another process as the runtime sees it: the markers by batch_id, the
    readings by batch_id."""
    rt = Runtime.open(EXAMPLE / "design.yaml", db=str(db))
    try:
        markers = {m["batch_id"]: dict(m) for m in scan(rt, "processed_batches")}
        readings: dict[str, list[dict]] = collections.defaultdict(list)
        for reading in scan(rt, "device_readings"):
            readings[reading["batch_id"]].append(dict(reading))
        return markers, readings
    finally:
        engine_of(rt.client).close()


def scan(rt: Runtime, table: str) -> list[dict]:
    items, more = [], {}
    while True:
        page = rt.client.scan(TableName=table, ConsistentRead=True, **more)
        items += [item_from_wire(item) for item in page["Items"]]
        if "LastEvaluatedKey" not in page:
            return items
        more = {"ExclusiveStartKey": page["LastEvaluatedKey"]}


def times(size: int, first: int) -> list[int]:
    return [first - n for n in range(size)]


# --------------------------------------------------------------------------------------- batches
@pytest.mark.parametrize("size", [10, 100])  # one transaction with the marker; the marker first (D3)
def test_the_same_batch_from_every_racer_is_stored_once(service, size):
    url, db, key = service
    body = batch(f"same-{size}", *times(size, int(time.time() * 1000) - size * 1000), hardware_id=MAC)
    answers = race(url, lambda client, _i: client.post("/v1/batches", json=body, headers={"X-API-Key": key}))
    assert codes(answers) == {201: 1, 200: RACERS - 1}, [a.text for a in answers]
    assert {a.json()["status"] for a in answers} == {"accepted", "duplicate"}
    markers, readings = tables(db)
    assert "state" not in markers[f"same-{size}"]  # done, not pending
    assert sorted(r["timestamp_ms"] for r in readings[f"same-{size}"]) == sorted(
        times(size, body["readings"][0]["timestamp_ms"])
    )


@pytest.mark.parametrize("size", [10, 100])
def test_one_batch_id_with_other_readings_is_stored_by_one_racer_only(service, size):
    url, db, key = service
    first = int(time.time() * 1000) - 3_600_000 - size * 1000

    def send(client: httpx.Client, i: int) -> httpx.Response:
        # The same times (the same reading keys), another temperature per racer.
        body = batch(f"other-{size}", *times(size, first), hardware_id=MAC, temp=10 + i)
        return client.post("/v1/batches", json=body, headers={"X-API-Key": key})

    answers = race(url, send)
    assert codes(answers) == {201: 1, 409: RACERS - 1}, [a.text for a in answers]
    winner = next(i for i, a in enumerate(answers) if a.status_code == 201)
    _markers, readings = tables(db)
    stored = readings[f"other-{size}"]
    assert len(stored) == size  # nothing mixed: every reading is the winner's
    assert {r["sensors"]["bme280_temp_c"] for r in stored} == {10 + winner}


def test_a_cursor_one_worker_signed_pages_on_the_others(service):
    url, _db, key = service
    body = batch("paged", *times(30, int(time.time() * 1000) - 7_200_000), hardware_id=MAC)
    assert httpx.post(f"{url}/v1/batches", json=body, headers={"X-API-Key": key}).status_code == 201
    span = {"from_ms": body["readings"][-1]["timestamp_ms"], "to_ms": body["readings"][0]["timestamp_ms"]}
    seen, cursor = [], None
    while True:  # every page on a new connection, so any worker may read a cursor another signed
        params = {**span, "limit": 7, **({"cursor": cursor} if cursor else {})}
        answer = httpx.get(f"{url}/v1/devices/{MAC}/readings", params=params, headers={"X-API-Key": key})
        assert answer.status_code == 200, answer.text
        seen += [r["timestamp_ms"] for r in answer.json()["items"]]
        cursor = answer.json().get("cursor")
        if not cursor:
            break
    assert sorted(seen) == sorted(times(30, span["to_ms"]))


# --------------------------------------------------------------------------------------- devices
def test_one_device_registered_by_every_racer_is_created_once(service):
    url, _db, key = service
    mac = "AA:BB:CC:DD:EE:02"
    answers = race(url, lambda client, _i: register(url, key, mac, client))
    assert codes(answers) == {201: 1, 200: RACERS - 1}, [a.text for a in answers]
    assert len({a.json()["confirmation_id"] for a in answers}) == 1
    assert len({a.json()["first_registered_at"] for a in answers}) == 1


def test_a_registration_never_moves_last_seen_at_backwards(service):
    """A registration takes its moment when it starts; a batch handled meanwhile by another worker may
    have stamped a later second. Stamped here by another process, an hour ahead (so that no clock
    reaches it during the test): neither a registration nor a batch may take it back."""
    url, db, key = service
    mac = "AA:BB:CC:DD:EE:03"
    assert register(url, key, mac).status_code == 201
    later = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    rt = Runtime.open(EXAMPLE / "design.yaml", db=str(db))
    try:
        rt.update("Device", {"hardware_id": mac}, {"last_seen_at": later})
        again = register(url, key, mac)
        assert again.status_code == 200, again.text
        assert again.json()["last_seen_at"] == later  # was the registration's own, earlier, second
        now_ms = int(time.time() * 1000)
        answer = httpx.post(
            f"{url}/v1/batches", json=batch("seen-1", now_ms, hardware_id=mac), headers={"X-API-Key": key}
        )
        assert answer.status_code == 201, answer.text
        stored = rt.client.get_item(TableName="devices", Key={"hardware_id": {"S": mac}})["Item"]
        assert stored["last_seen_at"] == stored["gsi1sk"] == {"S": later}
    finally:
        engine_of(rt.client).close()


def test_racing_registrations_and_batches_of_one_device_never_move_last_seen_at_back(service):
    url, _db, key = service
    mac = "AA:BB:CC:DD:EE:04"
    assert register(url, key, mac).status_code == 201
    start_ms = int(time.time() * 1000)

    def send(client: httpx.Client, i: int) -> httpx.Response:
        seen = ""
        for n in range(6):  # each racer reads its own answers: a later one is never earlier
            if i % 2:
                answer = register(url, key, mac, client)
            else:
                body = batch(f"mix-{i}-{n}", start_ms - 100 * i - n, hardware_id=mac)
                answer = client.post("/v1/batches", json=body, headers={"X-API-Key": key})
            assert answer.status_code in (200, 201), answer.text
            device = client.get(f"/v1/devices/{mac}", headers={"X-API-Key": key}).json()
            assert device["last_seen_at"] >= seen, (seen, device)
            seen = device["last_seen_at"]
        return answer

    race(url, send)
    final = httpx.get(f"{url}/v1/devices/{mac}", headers={"X-API-Key": key}).json()["last_seen_at"]
    assert final >= time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start_ms // 1000))


# -------------------------------------------------------------------------------------- API keys
def test_a_revoked_key_is_refused_by_every_worker_at_once(service):
    url, _db, _key = service
    created = httpx.post(f"{url}/admin/api-keys", json={}, headers=ADMIN_HEADERS).json()
    headers = {"X-API-Key": created["api_key"]}
    # Every worker has accepted the key (and would hold it, had it a cache)...
    assert codes(race(url, lambda client, _i: client.get("/v1/devices", headers=headers))) == {200: RACERS}
    revoked = httpx.post(f"{url}/admin/api-keys/{created['key_id']}/revoke", headers=ADMIN_HEADERS)
    assert revoked.status_code == 200
    # ... and refuses it from the moment the revocation answered.
    answers = race(url, lambda client, _i: client.get("/v1/devices", headers=headers))
    assert codes(answers) == {403: RACERS}, [a.text for a in answers]


def test_keys_created_at_once_are_distinct_and_each_works(service):
    url, _db, _key = service
    answers = race(url, lambda client, _i: client.post("/admin/api-keys", json={}, headers=ADMIN_HEADERS))
    assert codes(answers) == {201: RACERS}
    assert len({a.json()["key_id"] for a in answers}) == len({a.json()["api_key"] for a in answers}) == RACERS
    used = race(
        url, lambda client, i: client.get("/v1/devices", headers={"X-API-Key": answers[i].json()["api_key"]})
    )
    assert codes(used) == {200: RACERS}


# ------------------------------------------------------------------------------- a killed worker
def test_a_worker_killed_mid_write_leaves_no_half_batch_and_the_retries_finish_it(tmp_path):
    db = tmp_path / "s.db"
    process, url = start(tmp_path, "--db", str(db), "--workers", "2", "--rate", "0", env=ENV)
    victim = workers_of(process, 2)[0]
    key = new_key(url)
    assert register(url, key, MAC).status_code == 201
    first = int(time.time() * 1000) - 86_400_000
    sent: dict[str, dict] = {}
    answered: set[str] = set()
    going = threading.Event()
    going.set()
    busy = threading.Semaphore(0)  # one release per answer: the kill waits for the load to run

    def load(i: int) -> None:
        with httpx.Client(base_url=url, timeout=30, headers={"X-API-Key": key}) as client:
            n = 0
            while going.is_set():
                size = 100 if n % 2 else 10  # both plans
                body = batch(f"k-{i}-{n}", *times(size, first - 1_000_000 * i - 1000 * n), hardware_id=MAC)
                sent[body["batch_id"]] = body
                try:
                    answer = client.post("/v1/batches", json=body)
                except httpx.TransportError:
                    return  # the service is ending
                assert answer.status_code == 201, answer.text
                answered.add(body["batch_id"])
                busy.release()
                n += 1

    with ThreadPoolExecutor(4) as pool:
        running = [pool.submit(load, i) for i in range(4)]
        for _ in range(6):
            assert busy.acquire(timeout=30)
        os.kill(victim, signal.SIGKILL)
        assert process.wait(timeout=30) == 128 + signal.SIGKILL
        going.clear()
        for future in running:
            future.result()
    assert f"worker {victim} ended (killed by SIGKILL)" in process.stderr.read()

    markers, readings = tables(db)
    for batch_id, body in sent.items():  # each batch whole, or none of it, or pending (D3)
        count, size = len(readings.get(batch_id, ())), len(body["readings"])
        marker = markers.get(batch_id)
        if marker is None or marker.get("state") == "pending":
            assert count in (0, size) and (marker is not None or count == 0), (batch_id, count, marker)
        else:
            assert count == size, (batch_id, count, marker)
    assert answered <= {b for b, m in markers.items() if "state" not in m}

    # Restarted, the devices send again what got no answer: each is stored, whole, once.
    process, url = start(tmp_path, "--db", str(db), "--workers", "2", "--rate", "0", env=ENV)
    try:
        with httpx.Client(base_url=url, timeout=30, headers={"X-API-Key": key}) as client:
            for batch_id in sorted(set(sent) - answered):
                answer = client.post("/v1/batches", json=sent[batch_id])
                assert answer.status_code in (200, 201), answer.text
    finally:
        stop(process)
    markers, readings = tables(db)
    for batch_id, body in sent.items():
        assert "state" not in markers[batch_id]
        assert len(readings[batch_id]) == len(body["readings"])


# ------------------------------------------------------------------------------------- throttle
def test_the_throttle_is_per_worker_so_a_key_gets_at_most_workers_times_its_burst(tmp_path):
    """README: each worker its own ``--rate``. With a rate that refills nothing during the test, a
    key racing on many connections gets its burst from each worker it reaches, never more."""
    workers, burst = 2, 3
    args = (
        "--db",
        str(tmp_path / "s.db"),
        "--workers",
        str(workers),
        "--rate",
        "0.001",
        "--burst",
        str(burst),
    )
    process, url = start(tmp_path, *args, env=ENV)
    try:
        workers_of(process, workers)
        headers = {"X-API-Key": new_key(url)}
        answers = race(url, lambda client, _i: client.get("/v1/devices", headers=headers), racers=16)
        admitted = codes(answers).get(200, 0)
        assert burst <= admitted <= workers * burst, codes(answers)
        assert codes(answers)[429] == 16 - admitted
        assert all(a.headers["Retry-After"] for a in answers if a.status_code == 429)
    finally:
        stop(process)
