"""examples/sensor-api as a running service: `serve.py` started as a real process on a SQLite file,
driven over HTTP with httpx — every endpoint and status code, API keys (unknown, revoked, admin
credential), validation answers naming the field with nothing written, replay storms from
concurrent clients applied exactly once, throttling, and the start-up errors a user can cause."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tablewright.runtime import Runtime

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sensor-api"
SERVE = EXAMPLE / "serve.py"
PEPPER = "pepper-from-a-secret-file"
ADMIN = "admin-token-0123456789"
MAC, OTHER = "AA:BB:CC:DD:EE:FF", "11:22:33:44:55:66"
BOOT = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
CAPS = {"sensors": ["bme280"], "features": {"tft_display": True}}
NOW_MS = int(time.time() * 1000) // 1000 * 1000
LISTENING = re.compile(r"listening on (http://\S+)")


def start(tmp_path: Path, *args: str, env: dict | None = None) -> tuple[subprocess.Popen, str]:
    """serve.py as a process; returns it and its base URL once it listens (bounded wait)."""
    process = subprocess.Popen(
        [sys.executable, str(SERVE), "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=tmp_path,
        start_new_session=True,  # its workers with it in one process group, for kill_group
    )
    line = process.stdout.readline()  # the first line says where it listens (or it died)
    found = LISTENING.search(line)
    if not found:
        process.kill()
        raise AssertionError(f"serve.py did not start: {line!r} {process.stderr.read()}")
    return process, found.group(1)


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)
    kill_group(process)


def kill_group(process: subprocess.Popen) -> None:
    """Kill whatever is left of a service ``start`` started: the process and any worker of it (they
    share its process group), even one whose parent is gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sensor-service")
    (folder / "pepper").write_text(PEPPER + "\n")
    env = {"SENSOR_API_ADMIN_TOKEN": ADMIN, "API_KEY_PEPPER": ""}
    process, url = start(folder, "--db", str(folder / "sensor.db"), "--pepper-file", "pepper", env=env)
    yield url, folder / "sensor.db"
    stop(process)


@pytest.fixture(scope="module")
def admin(service):
    with httpx.Client(
        base_url=service[0], headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30
    ) as client:
        yield client


@pytest.fixture(scope="module")
def key(admin) -> str:
    return admin.post("/admin/api-keys", json={"description": "tests"}).json()["api_key"]


@pytest.fixture(scope="module")
def api(service, key):
    with httpx.Client(base_url=service[0], headers={"X-API-Key": key}, timeout=30) as client:
        for mac in (MAC, OTHER):
            register = {
                "hardware_id": mac,
                "boot_id": BOOT,
                "firmware_version": "1.0.16",
                "capabilities": CAPS,
            }
            assert client.post("/v1/devices", json=register).status_code in (200, 201)
        yield client


def batch(batch_id: str, *timestamps: int, hardware_id: str = MAC, temp: float = 21.5) -> dict:
    return {
        "hardware_id": hardware_id,
        "batch_id": batch_id,
        "boot_id": BOOT,
        "firmware_version": "1.0.16",
        "readings": [
            {"timestamp_ms": ts, "sensors": {"bme280_temp_c": temp}, "sensor_status": {"bme280": "ok"}}
            for ts in timestamps
        ],
    }


def fields(response: httpx.Response) -> set[str]:
    return {f["field"] for f in response.json().get("fields", [])}


# ------------------------------------------------------------------------------------------ devices
def test_registration_then_re_registration_keeps_identity(api):
    body = {
        "hardware_id": "0A:0B:0C:0D:0E:0F",
        "boot_id": BOOT,
        "firmware_version": "1.0",
        "capabilities": CAPS,
    }
    first = api.post("/v1/devices", json=body)
    assert first.status_code == 201
    again = api.post("/v1/devices", json={**body, "firmware_version": "1.1"})
    assert again.status_code == 200
    assert again.json()["confirmation_id"] == first.json()["confirmation_id"]
    assert again.json()["first_registered_at"] == first.json()["first_registered_at"]
    assert api.get("/v1/devices/0A:0B:0C:0D:0E:0F").json()["firmware_version"] == "1.1"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"hardware_id": "aa:bb:cc:dd:ee:ff"}, "hardware_id"),
        ({"hardware_id": " AA:BB:CC:DD:EE:01"}, "hardware_id"),
        ({"boot_id": "7c9e6679-7425-10de-944b-e07fc1f90ae7"}, "boot_id"),  # a version-1 UUID
        ({"firmware_version": ""}, "firmware_version"),
        ({"capabilities": None}, "capabilities"),
        ({"capabilities": {"sensors": "bme280"}}, "capabilities.sensors"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_registration_refusals_name_the_field_and_write_nothing(api, change, field):
    mac = "0A:00:00:00:00:01"
    body = {"hardware_id": mac, "boot_id": BOOT, "firmware_version": "1.0", "capabilities": CAPS, **change}
    if change.get("capabilities", "") is None:
        del body["capabilities"]
    answer = api.post("/v1/devices", json=body)
    assert answer.status_code == 422, answer.text
    assert field in fields(answer)
    assert api.get(f"/v1/devices/{mac}").status_code == 404


def test_not_json_and_not_an_object(api):
    assert api.post("/v1/devices", content=b"{not json").status_code == 400
    assert api.post("/v1/batches", content=b'{"readings": NaN}').status_code == 400
    listed = api.post("/v1/devices", json=[1, 2])
    assert listed.status_code == 422 and fields(listed) == {"body"}


def test_devices_listed_by_activity_with_pagination(api):
    api.post("/v1/batches", json=batch(f"{OTHER}_activity", NOW_MS - 7000, hardware_id=OTHER))
    first = api.get("/v1/devices", params={"limit": 1})
    assert first.status_code == 200 and len(first.json()["items"]) == 1
    seen = [first.json()["items"][0]["hardware_id"]]
    cursor = first.json()["cursor"]
    for _ in range(20):  # bounded: the module registers a handful of devices
        if cursor is None:
            break
        page = api.get("/v1/devices", params={"limit": 1, "cursor": cursor}).json()
        seen += [d["hardware_id"] for d in page["items"]]
        cursor = page["cursor"]
    assert {MAC, OTHER} <= set(seen) and len(seen) == len(set(seen))
    stamps = [api.get(f"/v1/devices/{mac}").json()["last_seen_at"] for mac in seen]
    assert stamps == sorted(stamps, reverse=True)
    assert api.get("/v1/devices", params={"limit": "0"}).status_code == 422
    assert fields(api.get("/v1/devices", params={"cursor": "forged"})) == {"cursor"}


def test_friendly_name_set_refused_and_removed(api):
    renamed = api.patch(f"/v1/devices/{MAC}", json={"friendly_name": "greenhouse-01"})
    assert renamed.status_code == 200 and renamed.json()["friendly_name"] == "greenhouse-01"
    too_long = api.patch(f"/v1/devices/{MAC}", json={"friendly_name": "x" * 129})
    assert too_long.status_code == 422 and fields(too_long) == {"friendly_name"}
    assert api.get(f"/v1/devices/{MAC}").json()["friendly_name"] == "greenhouse-01"
    assert api.patch("/v1/devices/0A:00:00:00:00:09", json={"friendly_name": "n"}).status_code == 404
    assert fields(api.patch("/v1/devices/not-a-mac", json={"friendly_name": "n"})) == {"hardware_id"}
    removed = api.patch(f"/v1/devices/{MAC}", json={"friendly_name": None})
    assert removed.status_code == 200 and "friendly_name" not in removed.json()


# ------------------------------------------------------------------------------------------ ingestion
def test_bodies_parsers_disagree_on_are_refused(api):
    # Duplicate keys (whichever came last would win) and nesting deep enough to exhaust the parser.
    twice = b'{"hardware_id": "X", "hardware_id": "' + MAC.encode() + b'", "readings": []}'
    assert api.post("/v1/batches", content=twice).json()["error"] == "malformed_json"
    deep = b"[" * 100_000 + b"]" * 100_000
    answer = api.post("/v1/batches", content=deep)
    assert answer.status_code == 400 and "nests too deeply" in answer.json()["message"]


@pytest.mark.parametrize(
    ("number", "stored"),
    [("1e38", 10**38), ("9.99e125", 999 * 10**123), ("-1E-130", None)],
)
def test_a_number_dynamodb_stores_is_accepted_and_read_back(api, number, stored):
    at = NOW_MS - 7000 - len(number) * 1000  # one instant per case: the service lives for the module
    sent = json.dumps(batch(f"{MAC}_big_{len(number)}", at)).replace("21.5", number).encode()
    assert api.post("/v1/batches", content=sent).status_code == 201
    assert api.get(f"/v1/devices/{MAC}/readings/latest").status_code == 200
    if stored is not None:
        items = api.get(f"/v1/devices/{MAC}/readings", params={"from_ms": at, "to_ms": at}).json()["items"]
        assert [item["sensors"]["bme280_temp_c"] for item in items] == [stored]


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1e-400", "1e126", "1" * 41, "1." + "1" * 50])
def test_a_number_dynamodb_cannot_store_is_422_naming_the_sensor(api, number):
    sent = json.dumps(batch(f"{MAC}_huge", NOW_MS - 9000)).replace("21.5", number).encode()
    answer = api.post("/v1/batches", content=sent)
    assert answer.status_code == 422, answer.text
    assert "readings[0].sensors.bme280_temp_c" in fields(answer)


def test_an_id_with_a_trailing_newline_is_no_id(api, admin):
    for path in (f"/v1/devices/{MAC}%0A", f"/v1/devices/{MAC}%0A/readings/latest"):
        answer = api.get(path)
        assert answer.status_code == 422 and "hardware_id" in fields(answer), (path, answer.text)
    revoke = admin.post("/admin/api-keys/7c9e6679-7425-40de-944b-e07fc1f90ae7%0A/revoke")
    assert revoke.status_code == 422, revoke.text


def test_framing_other_clients_get_wrong_is_refused_in_the_json_shape(api):
    sent = json.dumps(batch(f"{MAC}_framing", NOW_MS - 97_000)).encode()
    plain = api.post("/v1/batches", content=sent, headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415 and plain.json()["error"] == "unsupported_media_type"
    utf16 = api.post("/v1/batches", content=sent.decode().encode("utf-16"))
    assert utf16.status_code == 400 and utf16.json()["error"] == "malformed_json"
    bom = api.post("/v1/batches", content=b"\xef\xbb\xbf" + sent)
    assert bom.status_code == 400
    for method, path, status in [("GET", "/nope", 404), ("DELETE", "/v1/devices", 405)]:
        answer = api.request(method, path)
        assert answer.status_code == status and answer.json()["error"] in ("not_found", "method_not_allowed")
    window = {"from_ms": NOW_MS - 97_000, "to_ms": NOW_MS - 97_000}
    assert api.get(f"/v1/devices/{MAC}/readings", params=window).json()["items"] == []


def test_a_chunked_body_is_refused_at_the_limit_not_after_it_is_buffered(service, key):
    # 2 MB of a chunked body that never ends: the answer must come from the first MB, not from
    # the end of a body buffered whole (which would never come).
    host, port = service[0].removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=15) as connection:
        head = (
            f"POST /v1/batches HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {key}\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        connection.sendall(head.encode())
        chunk = b" " * 65_536
        for _ in range(32):
            connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        answer = connection.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


@pytest.mark.parametrize("spelling", ["1_795_000_000_000", "+1795000000000", "\u0661\u0667", "1e12", "5.0"])
def test_a_query_number_is_ascii_digits_only(api, spelling):
    answer = api.get(f"/v1/devices/{MAC}/readings", params={"from_ms": spelling, "to_ms": NOW_MS})
    assert answer.status_code == 422 and fields(answer) == {"from_ms"}, answer.text


class OwnService:
    """serve.py on its own database for one test, with an API key; ``log`` is its stderr once stopped."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        (tmp_path / "pepper").write_text(PEPPER + "\n")
        env = {"SENSOR_API_ADMIN_TOKEN": ADMIN, "API_KEY_PEPPER": ""}
        self.process, self.url = start(
            tmp_path, "--db", str(tmp_path / "s.db"), "--pepper-file", "pepper", *args, env=env
        )
        self.log = ""
        with httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {ADMIN}"}) as admin:
            self.key = admin.post("/admin/api-keys", json={"description": "t"}).json()["api_key"]

    def connect(self, timeout: float) -> socket.socket:
        host, port = self.url.removeprefix("http://").split(":")
        return socket.create_connection((host, int(port)), timeout=timeout)

    def head(self, path: str, framing: str) -> bytes:
        host = self.url.removeprefix("http://").split(":")[0]
        return (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {self.key}\r\n"
            f"Content-Type: application/json\r\n{framing}\r\n\r\n"
        ).encode()

    def stop(self) -> None:
        stop(self.process)
        self.log = self.process.stderr.read()


@pytest.fixture
def own_service(tmp_path):
    started: list[OwnService] = []

    def begin(*args: str) -> OwnService:
        started.append(OwnService(tmp_path, *args))
        return started[-1]

    yield begin
    for service in started:
        if not service.log:
            service.stop()


def test_a_client_that_leaves_mid_body_leaves_no_traceback(own_service):
    service = own_service()
    with service.connect(timeout=10) as connection:
        connection.sendall(service.head("/v1/batches", "Transfer-Encoding: chunked") + b'5\r\n{"a":\r\n')
        time.sleep(0.3)  # the request is being read when the client goes
    time.sleep(0.5)
    service.stop()
    assert "Traceback" not in service.log and "ClientDisconnect" not in service.log, service.log


def test_a_body_short_of_its_length_is_408_after_the_body_timeout_and_the_server_goes_on(own_service):
    service = own_service("--body-timeout", " 0.5 ")
    with service.connect(timeout=20) as connection:
        # 400 bytes announced, 17 sent, the socket kept open.
        connection.sendall(service.head("/v1/devices", "Content-Length: 400") + b'{"hardware_id": ')
        started = time.monotonic()
        answer = b""
        while chunk := connection.recv(4096):  # to the end: the server closes the connection
            answer += chunk
        waited = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408") and b"body_timeout" in answer, answer[:300]
    assert waited < 10, "the answer came from the body timeout, not from the client's socket timeout"
    with httpx.Client(base_url=service.url, headers={"X-API-Key": service.key}) as device:
        assert device.get("/v1/devices").status_code == 200  # the server still answers
    service.stop()
    assert "Traceback" not in service.log


@pytest.mark.parametrize("seconds", ["0", "-1", "nan", "inf", "soon"])
def test_a_body_timeout_that_is_no_time_is_refused_at_start(tmp_path, seconds):
    done = subprocess.run(
        [sys.executable, str(SERVE), "--port", "0", "--body-timeout", seconds],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "API_KEY_PEPPER": PEPPER, "SENSOR_API_ADMIN_TOKEN": ADMIN},
    )
    assert done.returncode == 2 and "--body-timeout" in done.stderr and "Traceback" not in done.stderr


def test_a_name_is_text_in_any_script_without_control_characters(api):
    assert api.patch(f"/v1/devices/{OTHER}", json={"friendly_name": "Küche 2"}).status_code == 200
    refused = api.patch(f"/v1/devices/{OTHER}", json={"friendly_name": "K\x00che"})
    assert refused.status_code == 422 and "friendly_name" in fields(refused)
    assert api.get(f"/v1/devices/{OTHER}").json()["friendly_name"] == "Küche 2"


def test_text_that_is_not_utf8_is_422_naming_the_field(api):
    renamed = api.patch(f"/v1/devices/{MAC}", content=b'{"friendly_name": "\\ud800"}')
    assert renamed.status_code == 422 and "friendly_name" in fields(renamed), renamed.text


def test_accepted_duplicate_and_conflicting_replays(api):
    sent = batch(f"{MAC}_replay", NOW_MS - 60_000, NOW_MS - 30_000)
    assert api.post("/v1/batches", json=sent).status_code == 201
    again = api.post("/v1/batches", json=sent)
    assert again.status_code == 200 and again.json()["status"] == "duplicate"
    changed = api.post("/v1/batches", json=batch(f"{MAC}_replay", NOW_MS - 60_000, NOW_MS - 30_000, temp=30))
    assert changed.status_code == 409 and fields(changed) == {"batch_id"}
    other_device = api.post("/v1/batches", json=batch(f"{MAC}_replay", NOW_MS - 60_000, hardware_id=OTHER))
    assert other_device.status_code == 409
    stored = api.get(
        f"/v1/devices/{MAC}/readings", params={"from_ms": NOW_MS - 60_000, "to_ms": NOW_MS - 30_000}
    )
    assert [r["sensors"]["bme280_temp_c"] for r in stored.json()["items"]] == [21.5, 21.5]


def test_unknown_device_is_404_naming_hardware_id(api):
    answer = api.post("/v1/batches", json=batch("unregistered_1", NOW_MS, hardware_id="0A:00:00:00:00:07"))
    assert answer.status_code == 404 and fields(answer) == {"hardware_id"}


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda b: b.update(readings=[]), "readings"),
        (lambda b: b.update(readings=b["readings"] * 101), "readings"),
        (lambda b: b.update(batch_id="has space"), "batch_id"),
        (lambda b: b.update(batch_id="x" * 257), "batch_id"),
        (lambda b: b.update(boot_id="not-a-uuid"), "boot_id"),
        (lambda b: b.pop("firmware_version"), "firmware_version"),
        (lambda b: b["readings"][1].update(timestamp_ms="1704067800000"), "readings[1].timestamp_ms"),
        (lambda b: b["readings"][1].update(timestamp_ms=1.5e12), "readings[1].timestamp_ms"),
        (
            lambda b: b["readings"][1]["sensors"].update(humidity_pct=100.5),
            "readings[1].sensors.humidity_pct",
        ),
        (lambda b: b["readings"][1]["sensor_status"].update(bme280="OK"), "readings[1].sensor_status.bme280"),
        (lambda b: b["readings"][1].update(hardware_id=OTHER), "readings[1].hardware_id"),
        (
            lambda b: b["readings"][1].update(timestamp_ms=NOW_MS - 1000),
            "readings[1].timestamp_ms",
        ),  # same ms
        (lambda b: b["readings"].append("reading"), "readings[2]"),
        (lambda b: b["readings"][1].update(friendly_name="forged"), "readings[1].friendly_name"),
        (lambda b: b.update(firmware_version="   "), "firmware_version"),
        (lambda b: b.update(firmware_version="1.0\x00"), "firmware_version"),
        (lambda b: b["readings"][1].update(boot_id=BOOT), "readings[1].boot_id"),
        (lambda b: b["readings"][1].update(timestamp_ms={"a": 1}), "readings[1].timestamp_ms"),
        (lambda b: b["readings"][1].update(timestamp_ms=[1]), "readings[1].timestamp_ms"),
    ],
)
def test_every_refusal_names_the_field_and_writes_nothing(api, mutate, field):
    sent = batch(f"{MAC}_invalid", NOW_MS - 1000, NOW_MS - 2000)
    mutate(sent)
    answer = api.post("/v1/batches", json=sent)
    assert answer.status_code == 422, answer.text
    assert field in fields(answer)
    window = {"from_ms": NOW_MS - 2000, "to_ms": NOW_MS - 1000}
    assert api.get(f"/v1/devices/{MAC}/readings", params=window).json()["items"] == []


def test_latest_and_time_range_with_inclusive_bounds_and_cursor(api):
    base = NOW_MS - 3_600_000
    for i in range(5):
        assert (
            api.post(
                "/v1/batches", json=batch(f"{OTHER}_range{i}", base + i * 1000, hardware_id=OTHER)
            ).status_code
            == 201
        )
    window = {"from_ms": base + 1000, "to_ms": base + 3000, "limit": 2}
    first = api.get(f"/v1/devices/{OTHER}/readings", params=window).json()
    assert [r["timestamp_ms"] for r in first["items"]] == [base + 1000, base + 2000]
    rest = api.get(f"/v1/devices/{OTHER}/readings", params={**window, "cursor": first["cursor"]}).json()
    assert [r["timestamp_ms"] for r in rest["items"]] == [base + 3000]
    latest = api.get(f"/v1/devices/{OTHER}/readings/latest").json()
    assert latest["timestamp_ms"] >= base + 4000
    assert api.get("/v1/devices/0A:00:00:00:00:08/readings/latest").status_code == 404
    backwards = api.get(f"/v1/devices/{OTHER}/readings", params={"from_ms": base + 10, "to_ms": base})
    assert backwards.status_code == 422 and fields(backwards) == {"from_ms"}
    seconds = api.get(f"/v1/devices/{OTHER}/readings", params={"from_ms": 1_704_067_200, "to_ms": base})
    assert fields(seconds) == {"from_ms"}
    assert fields(api.get(f"/v1/devices/{OTHER}/readings", params={"to_ms": base})) == {"from_ms"}


def test_a_replay_storm_from_concurrent_clients_is_applied_exactly_once(service, key, api):
    batches = [
        batch(f"{MAC}_storm{n}", *(NOW_MS - 7_200_000 + n * 100 + i for i in range(20))) for n in range(4)
    ]

    def send(attempt: int) -> int:
        with httpx.Client(base_url=service[0], headers={"X-API-Key": key}, timeout=60) as client:
            return client.post("/v1/batches", json=batches[attempt % 4]).status_code

    with ThreadPoolExecutor(max_workers=16) as pool:
        statuses = list(pool.map(send, range(48)))
    assert statuses.count(201) == 4 and statuses.count(200) == 44
    window = {"from_ms": NOW_MS - 7_200_000, "to_ms": NOW_MS - 7_200_000 + 400, "limit": 100}
    stored = api.get(f"/v1/devices/{MAC}/readings", params=window).json()
    assert len(stored["items"]) == 80 and stored["cursor"] is None


# ------------------------------------------------------------------------------------------ keys
def test_device_calls_need_a_key_this_service_issued(service, api):
    with httpx.Client(base_url=service[0], timeout=30) as anonymous:
        assert anonymous.get("/v1/devices").json()["error"] == "missing_api_key"
        assert anonymous.get("/v1/devices").status_code == 401
        for wrong in ("0" * 64, "not-hex", ADMIN):
            assert anonymous.get("/v1/devices", headers={"X-API-Key": wrong}).status_code == 401
        # the key is checked before the body is read: an anonymous client learns nothing of the rules
        assert anonymous.post("/v1/batches", content=b"{not json").status_code == 401


def test_a_revoked_key_is_refused_and_other_keys_keep_working(service, admin, api):
    created = admin.post("/admin/api-keys", json={})
    assert created.status_code == 201
    raw, key_id = created.json()["api_key"], created.json()["key_id"]
    assert re.fullmatch(r"[0-9a-f]{64}", raw)
    with httpx.Client(base_url=service[0], headers={"X-API-Key": raw}, timeout=30) as device:
        assert device.get("/v1/devices").status_code == 200
        revoked = admin.post(f"/admin/api-keys/{key_id}/revoke")
        assert revoked.status_code == 200 and revoked.json()["is_active"] is False
        refused = device.post("/v1/batches", json=batch(f"{MAC}_revoked", NOW_MS - 5000))
        assert refused.status_code == 403 and refused.json()["error"] == "revoked_api_key"
    assert api.get(f"/v1/devices/{MAC}").status_code == 200
    listed = admin.get("/admin/api-keys").json()["items"]
    assert {k["key_id"]: k["is_active"] for k in listed}[key_id] is False
    assert all("api_key_hash" not in k and "api_key" not in k for k in listed)


def test_admin_endpoints_have_their_own_credential(service, key, admin):
    with httpx.Client(base_url=service[0], timeout=30) as other:
        assert other.get("/admin/api-keys").status_code == 401
        assert other.get("/admin/api-keys", headers={"Authorization": f"Bearer {key}"}).status_code == 403
        assert other.get("/admin/api-keys", headers={"X-API-Key": key}).status_code == 401
        assert (
            other.post("/admin/api-keys", json={}, headers={"Authorization": f"Bearer {ADMIN}x"}).status_code
            == 403
        )
    assert admin.post("/admin/api-keys/5f0c8d6e-1b2a-4c3d-8e9f-0a1b2c3d4e5f/revoke").status_code == 404
    assert fields(admin.post("/admin/api-keys/KEY-1/revoke")) == {"key_id"}
    assert fields(admin.post("/admin/api-keys", json={"description": 5})) == {"description"}
    assert fields(admin.post("/admin/api-keys", json={"description": "d" * 1025})) == {"description"}


def test_stored_hash_is_sha256_of_pepper_then_key(service, admin):
    raw = admin.post("/admin/api-keys", json={"description": "hash check"}).json()
    rt = Runtime.open(EXAMPLE / "design.yaml", db=service[1])
    stored = rt.get("ApiKey", key_id=raw["key_id"])
    assert stored["api_key_hash"] == hashlib.sha256((PEPPER + raw["api_key"]).encode()).hexdigest()


def test_openapi_describes_every_route_and_status(service):
    document = httpx.get(f"{service[0]}/openapi.json").json()
    assert document["openapi"].startswith("3.")
    ingest = document["paths"]["/v1/batches"]["post"]["responses"]
    assert {"201", "200", "409", "422", "401", "403", "429", "404"} <= set(ingest)
    assert set(document["paths"]) >= {"/v1/devices", "/v1/devices/{hardware_id}/readings", "/admin/api-keys"}


# ------------------------------------------------------------------------------------------ process
def test_a_key_over_its_rate_is_throttled_with_retry_after(tmp_path):
    env = {"SENSOR_API_ADMIN_TOKEN": ADMIN, "API_KEY_PEPPER": PEPPER}
    process, url = start(tmp_path, "--rate", "0.5", "--burst", "3", env=env)
    try:
        raw = httpx.post(
            f"{url}/admin/api-keys", json={}, headers={"Authorization": f"Bearer {ADMIN}"}
        ).json()
        statuses = [httpx.get(f"{url}/v1/devices", headers={"X-API-Key": raw["api_key"]}) for _ in range(5)]
        assert [s.status_code for s in statuses] == [200, 200, 200, 429, 429]
        assert int(statuses[-1].headers["retry-after"]) >= 1
    finally:
        stop(process)


def test_start_up_errors_are_one_line_with_the_project_exit_codes(tmp_path):
    def run(*args: str, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(SERVE), *args],
            capture_output=True,
            text=True,
            env={**os.environ, "API_KEY_PEPPER": "", "SENSOR_API_ADMIN_TOKEN": "", **env},
            timeout=60,
        )

    no_pepper = run("--port", "0", SENSOR_API_ADMIN_TOKEN=ADMIN)
    assert no_pepper.returncode == 2 and "API_KEY_PEPPER" in no_pepper.stderr
    assert "Traceback" not in no_pepper.stderr
    missing_file = run("--pepper-file", str(tmp_path / "nope"), SENSOR_API_ADMIN_TOKEN=ADMIN)
    assert missing_file.returncode == 2 and "nope" in missing_file.stderr
    no_admin = run("--port", "0", API_KEY_PEPPER=PEPPER)
    assert no_admin.returncode == 2 and "SENSOR_API_ADMIN_TOKEN" in no_admin.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = run("--port", str(taken.getsockname()[1]), API_KEY_PEPPER=PEPPER, SENSOR_API_ADMIN_TOKEN=ADMIN)
    assert busy.returncode == 3 and "cannot listen" in busy.stderr
    not_url = run("--endpoint", "localhost:8000", API_KEY_PEPPER=PEPPER, SENSOR_API_ADMIN_TOKEN=ADMIN)
    assert not_url.returncode == 2 and "--endpoint" in not_url.stderr


def test_the_same_service_on_a_dynamodb_endpoint(tmp_path):
    serve = subprocess.Popen(
        [sys.executable, "-c", "from tablewright.cli import main; main()", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        endpoint = re.search(r"DynamoDB API at (\S+)", serve.stdout.readline()).group(1)
        env = {"SENSOR_API_ADMIN_TOKEN": ADMIN, "API_KEY_PEPPER": PEPPER}
        process, url = start(tmp_path, "--endpoint", endpoint, env=env)
        try:
            admin = {"Authorization": f"Bearer {ADMIN}"}
            key = httpx.post(f"{url}/admin/api-keys", json={}, headers=admin).json()["api_key"]
            with httpx.Client(base_url=url, headers={"X-API-Key": key}, timeout=30) as api:
                body = {
                    "hardware_id": MAC,
                    "boot_id": BOOT,
                    "firmware_version": "1.0.16",
                    "capabilities": CAPS,
                }
                assert api.post("/v1/devices", json=body).status_code == 201
                sent = batch(f"{MAC}_endpoint", NOW_MS - 1000)
                assert api.post("/v1/batches", json=sent).status_code == 201
                assert api.post("/v1/batches", json=sent).status_code == 200
            tables = Runtime.open(EXAMPLE / "design.yaml", endpoint_url=endpoint)
            assert tables.get("ProcessedBatch", batch_id=f"{MAC}_endpoint")["hardware_id"] == MAC
        finally:
            stop(process)
    finally:
        stop(serve)
