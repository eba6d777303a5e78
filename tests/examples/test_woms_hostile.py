"""examples/woms's vendor sync against hostile vendor answers: station ids with stray whitespace, the
same station twice in one answer, objects naming a key twice, and the stand-in vendor API serving
data that describes a vendor wrongly. The sync, the stand-in API and a raw-answer vendor run as
real processes or servers; WOMS is a real engine file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from tablewright.runtime import Runtime

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "woms"
sys.path.insert(0, str(EXAMPLE))
from woms import DESIGN, Woms  # noqa: E402

VENDOR = 3
KNOWN = {"vendor_plant_id": "S1", "name": "Known", "network_status": "NORMAL", "capacity_kw": 100}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A WOMS file with organisation 1, its vendor 3 and that vendor's station S1 (plant 1)."""
    path = tmp_path / "woms.db"
    woms = Woms.open(db=path)
    woms.create_organization(1, "Org 1")
    woms.add_vendor({"vendor_id": VENDOR, "org_id": 1, "name": "Vendor 3"})
    woms.add_plant({"plant_id": 1, "org_id": 1, "vendor_id": VENDOR, **KNOWN})
    return path


def opened(db: Path) -> Woms:
    return Woms(Runtime.open(DESIGN, db=str(db)))


@contextmanager
def stand_in_api(tmp_path: Path, data: object) -> Iterator[str]:
    """``vendor_api.py`` serving ``data`` (written as the data file), as a process; its base URL."""
    (tmp_path / "vendor.json").write_text(json.dumps(data))
    command = [sys.executable, str(EXAMPLE / "vendor_api.py"), "--data", "vendor.json", "--port", "0"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        found = re.search(r"listening on (\S+)", process.stdout.readline())
        assert found, process.stderr.read()
        yield found.group(1)
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextmanager
def raw_vendor(answers: dict[str, bytes]) -> Iterator[str]:
    """A vendor answering each path with exactly these bytes (JSON the stand-in cannot write: a key
    twice in one object), 404 otherwise; its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = answers.get(self.path)
            self.send_response(404 if body is None else 200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def sync(db: Path, url: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(EXAMPLE / "sync.py"), "--db", str(db), "--vendor-id", str(VENDOR)]
    return subprocess.run([*command, "--vendor-url", url], capture_output=True, text=True, timeout=120)


def station(station_id: object, **values: object) -> dict:
    """A station as the vendor lists it: what a new plant needs, ``values`` replacing any of it."""
    return {
        "vendor_plant_id": station_id,
        "name": f"Plant {station_id}",
        "network_status": "NORMAL",
        "capacity_kw": 50,
        **values,
    }


# ------------------------------------------------------------------------------ station ids
def test_a_station_id_with_stray_whitespace_is_named_and_skipped_not_stored(db, tmp_path):
    stations = [station(" NEW-3 "), station("\tS1", network_status="FAULT"), station("NEW-4")]
    with stand_in_api(tmp_path, {str(VENDOR): {"plants": stations}}) as url:
        done = sync(db, url)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines() == [
        "woms sync: station [0]: vendor_plant_id ' NEW-3 ' has leading or trailing whitespace; skipped",
        "woms sync: station [1]: vendor_plant_id '\\tS1' has leading or trailing whitespace; skipped",
    ]
    woms = opened(db)
    assert woms.plant_for(VENDOR, " NEW-3 ") is None and woms.plant_for(VENDOR, "NEW-3") is None
    assert woms.plant_for(VENDOR, "S1")["network_status"] == "NORMAL"  # not taken for S1 either
    assert woms.plant_for(VENDOR, "NEW-4") is not None
    assert "plants +1 ~0" in done.stdout


def test_a_station_listed_twice_in_one_answer_is_named_once_and_skipped(db, tmp_path):
    stations = [
        station("S1", network_status="FAULT", capacity_kw=10),
        station("NEW-7"),
        station("S1", network_status="OFFLINE", capacity_kw=20),
        station("NEW-8"),
        station("NEW-8"),
    ]
    with stand_in_api(tmp_path, {str(VENDOR): {"plants": stations}}) as url:
        done = sync(db, url)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines() == [
        "woms sync: station S1: listed 2 times in one answer ([0], [2]); skipped",
        "woms sync: station NEW-8: listed 2 times in one answer ([3], [4]); skipped",
    ]
    woms = opened(db)
    known = woms.plant_for(VENDOR, "S1")
    assert (known["network_status"], known["capacity_kw"]) == ("NORMAL", 100)  # neither description applied
    assert woms.plant_for(VENDOR, "NEW-8") is None and woms.plant_for(VENDOR, "NEW-7") is not None


# ------------------------------------------------------------------------------ keys named twice
def test_a_plants_answer_naming_a_key_twice_stops_the_sync_before_writing(db):
    plants = (
        b'[{"vendor_plant_id": "S1", "vendor_plant_id": "NEW-9", "name": "x", "network_status": "NORMAL"}]'
    )
    with raw_vendor({f"/vendors/{VENDOR}/plants": plants}) as url:
        done = sync(db, url)
    assert done.returncode == 3, done.stderr
    assert done.stderr.splitlines() == [
        f"woms sync: error: /vendors/{VENDOR}/plants: the answer names 'vendor_plant_id' twice in one object"
    ]
    assert opened(db).plant_for(VENDOR, "NEW-9") is None


def test_an_alerts_answer_naming_a_key_twice_skips_that_station(db):
    alerts = (
        b'[{"vendor_alert_id": "A1", "vendor_alert_id": "A2", '
        b'"alert_time": "2025-01-16T00:00:00Z", "severity": "CRITICAL"}]'
    )
    answers = {
        f"/vendors/{VENDOR}/plants": json.dumps([KNOWN]).encode(),
        f"/vendors/{VENDOR}/plants/S1/alerts": alerts,
    }
    with raw_vendor(answers) as url:
        done = sync(db, url)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"woms sync: station S1: /vendors/{VENDOR}/plants/S1/alerts: the answer names 'vendor_alert_id' "
        "twice in one object; skipped"
    ]
    woms = opened(db)
    assert woms.rt.run("alerts_by_plant", plant_id=1).items == []


# ------------------------------------------------------------------------------ the stand-in API
def test_the_stand_in_api_serves_stations_without_ids_and_numeric_ids(db, tmp_path):
    stations = [{"name": "no id"}, "not a station", station(17, capacity_kw=5), KNOWN]
    data = {str(VENDOR): {"plants": stations}, "4": ["not", "a", "vendor"]}
    with stand_in_api(tmp_path, data) as url:
        with httpx.Client(base_url=url, timeout=10) as api:
            assert api.get(f"/vendors/{VENDOR}/plants/S1/alerts").json() == []
            assert api.get(f"/vendors/{VENDOR}/plants/17/alerts").json() == []
            assert api.get(f"/vendors/{VENDOR}/plants/NOPE/alerts").status_code == 404
            assert api.get("/vendors/4/plants").status_code == 404
        done = sync(db, url)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines() == [
        "woms sync: station [0]: no vendor_plant_id; skipped",
        "woms sync: station [1]: no vendor_plant_id; skipped",
    ]
    assert opened(db).plant_for(VENDOR, "17")["capacity_kw"] == 5


def test_the_stand_in_api_refuses_a_data_file_that_is_no_object_of_vendors(tmp_path):
    (tmp_path / "vendor.json").write_text("[1, 2]")
    command = [sys.executable, str(EXAMPLE / "vendor_api.py"), "--data", str(tmp_path / "vendor.json")]
    done = subprocess.run([*command, "--port", "0"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"vendor-api: error: {tmp_path / 'vendor.json'}: not an object of vendors by id"
    ]
