"""Throughput of `tablewright serve` against moto's server and dynalite, measured with wrk.

Run: ``python bench/server_bench.py [--seconds 5] [--markdown]``. Needs ``wrk`` (Debian package) and
``moto_server``; dynalite is installed from bench/server_node/package.json with npm on first use.
Each server starts on a free loopback port with an in-memory store, gets a one-key table "bench" with
1,000 items, then wrk (one thread, keep-alive) drives GetItem and PutItem with 1, 4 and 16 connections.
Non-2xx answers are counted and reported: a fast wrong answer is not a result.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import boto3

HERE = Path(__file__).parent
NODE = HERE / "server_node"
CONCURRENCY = (1, 4, 16)
OPERATIONS = ("GetItem", "PutItem")
DUMMY = {"region_name": "us-east-1", "aws_access_key_id": "AKIDBENCH", "aws_secret_access_key": "x"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _dynalite() -> list[str]:
    binary = NODE / "node_modules" / ".bin" / "dynalite"
    if not binary.exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE, check=True, timeout=600)
    return [str(binary)]


# name -> (command for a port, extra environment)
SERVERS: dict[str, Callable[[int], tuple[list[str], dict[str, str]]]] = {
    "tablewright (uvloop)": lambda port: (["tablewright", "serve", "--port", str(port)], {}),
    "tablewright (asyncio loop)": lambda port: (
        ["tablewright", "serve", "--port", str(port)],
        {"TABLEWRIGHT_EVENT_LOOP": "asyncio"},
    ),
    "moto_server": lambda port: (["moto_server", "-H", "127.0.0.1", "-p", str(port)], {}),
    "dynalite": lambda port: ([*_dynalite(), "--host", "127.0.0.1", "--port", str(port)], {}),
}


def wait_ready(url: str, process: subprocess.Popen, timeout: float = 60) -> None:
    client = boto3.client("dynamodb", endpoint_url=url, **DUMMY)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            client.list_tables()
            return
        except Exception:
            time.sleep(0.2)
    raise RuntimeError(f"server at {url} not ready in {timeout}s")


def prepare(url: str) -> None:
    client = boto3.client("dynamodb", endpoint_url=url, **DUMMY)
    client.create_table(
        TableName="bench",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    # dynalite creates tables asynchronously (CREATING, then ACTIVE) as DynamoDB does.
    client.get_waiter("table_exists").wait(TableName="bench", WaiterConfig={"Delay": 0.2, "MaxAttempts": 100})
    for start in range(0, 1000, 25):
        client.batch_write_item(
            RequestItems={
                "bench": [
                    {"PutRequest": {"Item": {"pk": {"S": f"k{n}"}, "v": {"S": "x" * 100}}}}
                    for n in range(start, start + 25)
                ]
            }
        )


def wrk(url: str, operation: str, connections: int, seconds: int) -> tuple[float, float, int]:
    """Run wrk; return (requests/s, mean latency ms, non-2xx count)."""
    result = subprocess.run(
        [
            "wrk",
            "-t1",
            f"-c{connections}",
            f"-d{seconds}s",
            "--latency",
            "-s",
            str(HERE / "server_wrk.lua"),
            url,
            "--",
            operation,
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=seconds + 60,
    )
    out = result.stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    latency = re.search(r"Latency\s+([\d.]+)(us|ms|s)", out)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[latency.group(2)]
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return rate, float(latency.group(1)) * scale, int(bad.group(1)) if bad else 0


def bench_server(name: str, seconds: int) -> dict[tuple[str, int], tuple[float, float, int]]:
    port = free_port()
    command, extra_env = SERVERS[name](port)
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **extra_env}
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, process)
        prepare(url)
        results = {}
        for operation in OPERATIONS:
            for connections in CONCURRENCY:
                results[operation, connections] = wrk(url, operation, connections, seconds)
                print(
                    f"{name:28} {operation:8} c={connections:<3} {results[operation, connections][0]:>9.0f} req/s",
                    file=sys.stderr,
                )
        return results
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5, help="duration of each wrk run")
    parser.add_argument("--servers", nargs="*", default=list(SERVERS), choices=list(SERVERS))
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed: apt-get install -y wrk")
    all_results = {name: bench_server(name, args.seconds) for name in args.servers}
    header = (
        "| server | operation | "
        + " | ".join(f"{c} conn req/s (mean ms)" for c in CONCURRENCY)
        + " | non-2xx |"
    )
    print(header)
    print("|" + "---|" * (3 + len(CONCURRENCY)))
    for name, results in all_results.items():
        for operation in OPERATIONS:
            cells = [f"{results[operation, c][0]:,.0f} ({results[operation, c][1]:.2f})" for c in CONCURRENCY]
            bad = sum(results[operation, c][2] for c in CONCURRENCY)
            print(f"| {name} | {operation} | " + " | ".join(cells) + f" | {bad} |")


if __name__ == "__main__":
    main()
