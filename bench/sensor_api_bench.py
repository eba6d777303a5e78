"""Sensor API ingest benchmark: readings/s and request p50/p99 at 1, 8 and 32 concurrent clients.

Not a test (timings depend on the machine and its load). ``python bench/sensor_api_bench.py``
starts ``examples/sensor-api/serve.py`` as a process twice: on the embedded engine (``--db``) and
over ``tablewright serve`` (``--endpoint``), with the per-key throttle off. Each client is one
device with its own keep-alive connection sending ``POST /v1/batches`` of ``--batch`` readings
(new batch ids, so every request is a real ingestion: marker + readings in one transaction, then
the device's last_seen_at) for ``--seconds``. Prints a Markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
SERVE = ROOT / "examples" / "sensor-api" / "serve.py"
ADMIN = "bench-admin-token-0123456789"
BOOT = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


def _start(command: list[str], pattern: str, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    for _ in range(20):
        line = process.stdout.readline()  # type: ignore[union-attr]
        found = re.search(pattern, line)
        if found:
            return process, found.group(1)
    process.kill()
    raise RuntimeError(f"{command[1]} did not start: {process.stderr.read()}")  # type: ignore[union-attr]


def _client(
    url: str, key: str, mac: str, batch: int, until: float, latencies: list[float], errors: list[int]
) -> None:
    with httpx.Client(base_url=url, headers={"X-API-Key": key}, timeout=30) as client:
        body = {
            "hardware_id": mac,
            "boot_id": BOOT,
            "firmware_version": "1.0.16",
            "capabilities": {"sensors": ["bme280"]},
        }
        client.post("/v1/devices", json=body)
        base = int(time.time() * 1000) - 3_600_000
        sent = 0
        while time.monotonic() < until:
            readings = [
                {
                    "timestamp_ms": base + sent * batch + i,
                    "sensors": {"bme280_temp_c": 21.5},
                    "sensor_status": {"bme280": "ok"},
                }
                for i in range(batch)
            ]
            payload = {
                "hardware_id": mac,
                "batch_id": f"{mac}_{sent}",
                "boot_id": BOOT,
                "firmware_version": "1.0.16",
                "readings": readings,
            }
            started = time.perf_counter()
            status = client.post("/v1/batches", json=payload).status_code
            latencies.append(time.perf_counter() - started)
            if status != 201:
                errors.append(status)
            sent += 1


def run_clients(url: str, clients: int, batch: int, seconds: float) -> dict[str, float]:
    """``clients`` threads ingesting for ``seconds``; readings/s and latency percentiles in ms."""
    key = httpx.post(f"{url}/admin/api-keys", json={}, headers={"Authorization": f"Bearer {ADMIN}"}).json()[
        "api_key"
    ]
    latencies: list[float] = []
    errors: list[int] = []
    until = time.monotonic() + seconds
    threads = [
        threading.Thread(
            target=_client,
            args=(url, key, f"B0:00:00:00:{n // 256:02X}:{n % 256:02X}", batch, until, latencies, errors),
        )
        for n in range(clients)
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    ordered = sorted(latencies)
    return {
        "readings_per_s": len(latencies) * batch / elapsed,
        "requests_per_s": len(latencies) / elapsed,
        "p50_ms": statistics.median(ordered) * 1000 if ordered else 0.0,
        "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000 if ordered else 0.0,
        "errors": float(len(errors)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--batch", type=int, default=10, help="readings per request")
    parser.add_argument("--clients", default="1,8,32")
    args = parser.parse_args()
    env = {**os.environ, "API_KEY_PEPPER": "bench-pepper", "SENSOR_API_ADMIN_TOKEN": ADMIN}
    api_command = [sys.executable, str(SERVE), "--port", "0", "--rate", "0"]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for backend in ("embedded", "tablewright serve"):
            for clients in [int(c) for c in args.clients.split(",")]:
                db = str(Path(folder) / f"{backend[:3]}-{clients}.db")
                extra: list[subprocess.Popen] = []
                if backend == "embedded":
                    api, url = _start([*api_command, "--db", db], r"listening on (\S+)", env)
                else:
                    serve_cmd = [
                        sys.executable,
                        "-c",
                        "from tablewright.cli import main; main()",
                        "serve",
                        "--db",
                        db,
                        "--port",
                        "0",
                    ]
                    server, endpoint = _start(serve_cmd, r"DynamoDB API at (\S+)", env)
                    extra.append(server)
                    api, url = _start([*api_command, "--endpoint", endpoint], r"listening on (\S+)", env)
                try:
                    result = run_clients(url, clients, args.batch, args.seconds)
                finally:
                    for process in (api, *extra):
                        process.terminate()
                        process.wait(timeout=10)
                rows.append((backend, clients, result))
                print(
                    f"{backend:18} {clients:3} clients: {result['readings_per_s']:8.0f} readings/s  "
                    f"p50 {result['p50_ms']:6.1f} ms  p99 {result['p99_ms']:6.1f} ms  errors {result['errors']:.0f}",
                    flush=True,
                )
    print(f"\nload average at the end: {os.getloadavg()}")
    print(
        "\n| tables | clients | readings/s | requests/s | p50 ms | p99 ms | non-201 |\n|---|---|---|---|---|---|---|"
    )
    for backend, clients, r in rows:
        print(
            f"| {backend} | {clients} | {r['readings_per_s']:,.0f} | {r['requests_per_s']:,.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['errors']:.0f} |"
        )


if __name__ == "__main__":
    main()
