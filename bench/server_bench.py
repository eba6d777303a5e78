"""`tablewright serve` against dynalite (and, on request, moto's server), measured with wrk.

Run: ``python bench/server_bench.py [--quick] [--servers ...]``; ``bench/run.py`` runs it as a section
of docs/benchmarks.md. Needs ``wrk`` (Debian package); dynalite is installed from
bench/server_node/package.json with npm on first use. Each server starts on a free loopback port
with an in-memory store and gets a one-key table "bench" with 1,000 items and a two-key table
"benchq" whose partition "q" holds 10 items. wrk (one thread, keep-alive, bench/server_wrk.lua)
drives GetItem of one key, PutItem over 1,000 keys, or a Query of the 10-item partition, with 1, 4
and 16 connections.

The servers run one after the other in short slices of wrk, alternating, repeated; each cell's figure
is the median of the per-slice ratios, with their spread. With two or more cores, every server is
pinned to core 0 and wrk to core 1 (``taskset``), both systems alike, so the load generator never
competes with the server for a core; wrk's own CPU use is reported. Non-2xx answers are counted and
reported: a fast wrong answer is not a result.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import boto3
from measure import Section, Spread, Target, interleave, ratios
from rich.console import Console

HERE = Path(__file__).parent
NODE = HERE / "server_node"
CONCURRENCY = (1, 4, 16)
OPERATIONS = {"GetItem": "GetItem", "PutItem": "PutItem", "Query": "Query of 10"}
DUMMY = {"region_name": "us-east-1", "aws_access_key_id": "AKIDBENCH", "aws_secret_access_key": "x"}
TARGET_RATIO = 1.5  # issue 17: ahead of dynalite by at least 1.5x in every cell
OURS = "tablewright (uvloop)"
THEIRS = "dynalite"
console = Console(stderr=True)


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
    OURS: lambda port: (["tablewright", "serve", "--port", str(port)], {}),
    "tablewright (asyncio loop)": lambda port: (
        ["tablewright", "serve", "--port", str(port)],
        {"TABLEWRIGHT_EVENT_LOOP": "asyncio"},
    ),
    "moto_server": lambda port: (["moto_server", "-H", "127.0.0.1", "-p", str(port)], {}),
    THEIRS: lambda port: ([*_dynalite(), "--host", "127.0.0.1", "--port", str(port)], {}),
}


def cores() -> tuple[list[str], list[str]]:
    """``taskset`` prefixes for the servers (core 0) and for wrk (core 1); none on a single core."""
    if (os.cpu_count() or 1) < 2 or shutil.which("taskset") is None:
        return [], []
    return ["taskset", "-c", "0"], ["taskset", "-c", "1"]


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
    """Create and fill the two tables, then check each workload's answer once."""
    client = boto3.client("dynamodb", endpoint_url=url, **DUMMY)
    for name, schema in (("bench", [("pk", "HASH")]), ("benchq", [("pk", "HASH"), ("sk", "RANGE")])):
        client.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": a, "KeyType": k} for a, k in schema],
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a, _ in schema],
            BillingMode="PAY_PER_REQUEST",
        )
        # dynalite creates tables asynchronously (CREATING, then ACTIVE) as DynamoDB does.
        client.get_waiter("table_exists").wait(
            TableName=name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 100}
        )
    for start in range(0, 1000, 25):
        puts = [
            {"PutRequest": {"Item": {"pk": {"S": f"k{n}"}, "v": {"S": "x" * 100}}}}
            for n in range(start, start + 25)
        ]
        client.batch_write_item(RequestItems={"bench": puts})
    rows = [{"pk": {"S": "q"}, "sk": {"S": f"s{n:02d}"}, "v": {"S": "x" * 100}} for n in range(10)]
    client.batch_write_item(RequestItems={"benchq": [{"PutRequest": {"Item": row}} for row in rows]})
    found = client.query(
        TableName="benchq", KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "q"}}
    )
    if found["Count"] != 10 or "Item" not in client.get_item(TableName="bench", Key={"pk": {"S": "k0"}}):
        raise RuntimeError(f"{url}: the prepared items are not all there")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, all threads) a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def running(name: str, pin: list[str]) -> Iterator[tuple[str, int]]:
    """Start a server (pinned), fill it, yield its URL and process id; stop it afterwards."""
    port = free_port()
    command, extra_env = SERVERS[name](port)
    process = subprocess.Popen(
        [*pin, *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **extra_env},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, process)
        prepare(url)
        yield url, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


class Wrk:
    """Runs wrk slices; remembers non-2xx answers and the share of its core wrk itself used."""

    def __init__(self, pin: list[str]) -> None:
        self.pin = pin
        self.bad: dict[tuple[str, str, int], int] = {}
        self.cpu: dict[tuple[str, str, int], list[float]] = {}  # server CPU seconds per request, per slice
        self.busiest = 0.0  # highest CPU seconds per wall second of any wrk run

    def run(self, url: str, pid: int, operation: str, connections: int, seconds: float) -> float:
        """Seconds per request (the inverse of wrk's requests/s) of one slice."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        server_before = cpu_seconds(pid)
        started = time.perf_counter()
        result = subprocess.run(
            [*self.pin, "wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-s", str(HERE / "server_wrk.lua")]
            + [url, "--", operation],
            capture_output=True,
            text=True,
            check=True,
            timeout=seconds + 60,
        )
        wall = time.perf_counter() - started
        server_used = cpu_seconds(pid) - server_before
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        self.busiest = max(self.busiest, used / wall)
        out = result.stdout
        rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
        bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
        key = (url, operation, connections)
        self.bad[key] = self.bad.get(key, 0) + (int(bad.group(1)) if bad else 0)
        answered = int(re.search(r"(\d+) requests in", out).group(1))
        self.cpu.setdefault(key, []).append(server_used / max(answered, 1))
        return 1 / rate

    def slice(
        self, url: str, pid: int, operation: str, connections: int, seconds: float
    ) -> Callable[[], float]:
        return lambda: self.run(url, pid, operation, connections, seconds)


def measure(
    names: list[str],
    rounds: int,
    seconds: float,
    concurrency: tuple[int, ...] = CONCURRENCY,
    warm: bool = True,
) -> tuple[dict, dict[str, int], dict, float]:
    """Seconds per request of every server in every cell, the servers of a cell interleaved.

    Returns the samples per cell, non-2xx answers per server, each server's median CPU seconds per
    request per cell (``(name, operation, connections)``) and wrk's busiest share of its core.
    """
    server_pin, load_pin = cores()
    wrk = Wrk(load_pin)
    samples: dict[tuple[str, int], dict[str, list[float]]] = {}
    with ExitStack() as stack:
        servers = {name: stack.enter_context(running(name, server_pin)) for name in names}
        for operation in OPERATIONS:
            for connections in concurrency:
                slices = {
                    name: wrk.slice(url, pid, operation, connections, seconds)
                    for name, (url, pid) in servers.items()
                }
                for url, pid in servers.values() if warm else ():  # unrecorded: connections, caches, JIT
                    wrk.run(url, pid, operation, connections, 1)
                    wrk.cpu[url, operation, connections].clear()
                samples[operation, connections] = interleave(slices, rounds, warmup=0)
                rates = "  ".join(
                    f"{n} {1 / statistics.median(v):,.0f}" for n, v in samples[operation, connections].items()
                )
                console.log(f"{operation} c={connections}: {rates} req/s")
    bad = {name: sum(n for (url, _, _), n in wrk.bad.items() if url == servers[name][0]) for name in names}
    cpu = {
        (name, operation, connections): statistics.median(per_request)
        for name, (url, _) in servers.items()
        for (where, operation, connections), per_request in wrk.cpu.items()
        if where == url
    }
    return samples, bad, cpu, wrk.busiest


def rate_cell(seconds: list[float]) -> str:
    spread = Spread.of([1 / s for s in seconds])
    return f"{spread.median:,.0f} ({spread.q1:,.0f}–{spread.q3:,.0f})"


def missing() -> str | None:
    """What this benchmark needs and this machine lacks (``bench/run.py`` asks before running any)."""
    for program, install in (("wrk", "apt-get install -y wrk"), ("npm", "apt-get install -y nodejs npm")):
        if shutil.which(program) is None:
            return f"{program} is not installed: {install}"
    return None


def section(quick: bool, names: list[str] | None = None) -> Section:
    """Run the server benchmark: 4 rounds of 2-second wrk slices per cell (``quick``: one slice of
    1 s per server, 16 connections only, no warm-up: checks that it runs)."""
    problem = missing()
    if problem:
        raise SystemExit(problem)
    names = names or [OURS, THEIRS]
    rounds, seconds = (1, 1) if quick else (4, 2)
    samples, bad, cpu, busiest = measure(
        names, rounds, seconds, concurrency=(16,) if quick else CONCURRENCY, warm=not quick
    )
    others = [n for n in names if n != THEIRS]
    lines = [
        "| operation | connections | "
        + " | ".join(f"{n} req/s" for n in names)
        + " | "
        + " | ".join(f"{n} / dynalite" for n in others)
        + " | server CPU µs per request: "
        + ", ".join(names)
        + " |",
        "|---|---|" + "---:|" * len(names) + "---|" * len(others) + "---|",
    ]
    targets = []
    for (operation, connections), by_server in samples.items():
        cells = [rate_cell(by_server[n]) for n in names]
        ratio_cells = []
        for name in others:
            spread = ratios(by_server[THEIRS], by_server[name])  # requests/s over dynalite's, per slice
            ratio_cells.append(spread.text("{:.2f}"))
            if name == OURS:
                targets.append(
                    Target(
                        f"serve ahead of dynalite by >= {TARGET_RATIO}x: {OPERATIONS[operation]}, "
                        f"{connections} connection{'s' if connections > 1 else ''}",
                        f"{spread.text('{:.2f}')}x",
                        spread.median >= TARGET_RATIO,
                    )
                )
        cpu_cell = ", ".join(f"{cpu[n, operation, connections] * 1e6:.0f}" for n in names)
        lines.append(
            f"| {OPERATIONS[operation]} | {connections} | "
            + " | ".join([*cells, *ratio_cells, cpu_cell])
            + " |"
        )
    server_pin, _ = cores()
    pinning = (
        "Every server ran pinned to core 0 and wrk to core 1 (`taskset`)."
        if server_pin
        else "One core: servers and wrk shared it (no pinning)."
    )
    body = "\n".join(
        [
            "Each server in memory on 127.0.0.1; wrk (1 thread, keep-alive, `bench/server_wrk.lua`):",
            "GetItem of one key of a 1,000-item table, PutItem over 1,000 keys (~40-byte items), a Query",
            f"returning a 10-item partition. {pinning} The servers of a row alternate in slices of",
            f"{seconds} s of wrk, {rounds} slice{'s' if rounds > 1 else ''} each"
            + (
                " (quick: no warm-up, 16 connections only); a rate"
                if quick
                else " after a 1-s warm-up; a rate"
            ),
            "cell is the median of the slices (interquartile range); a ratio is the median of the",
            "per-slice ratios with their spread, and a target is met when that median is. wrk used at",
            f"most {busiest:.0%} of its core in any run (100% would make it the bottleneck). Non-2xx",
            "answers: " + ", ".join(f"{n} {bad[n]}" for n in names) + ". The last column is each server's",
            "CPU time (user + system, all its threads, from /proc) per request answered, median of the",
            "slices: on a machine busy with other work the rates measure the scheduler as much as the",
            "servers (a server pinned to a core shared with other processes waits for its turn after",
            "every request it answers), and the CPU time per request less so. Each server runs with its",
            "defaults: `tablewright serve` polls up to 100 µs for a client's next request before it",
            "sleeps (docs/server.md), so its CPU column includes that polling.",
            "",
            *lines,
        ]
    )
    return Section("Server", "python bench/server_bench.py", body, targets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one 1-s slice per server, 16 connections only")
    parser.add_argument(
        "--servers",
        nargs="*",
        default=[OURS, THEIRS],
        choices=list(SERVERS),
        help="dynalite is always included",
    )
    args = parser.parse_args()
    names = list(dict.fromkeys([*args.servers, THEIRS]))
    print(section(args.quick, names).markdown())


if __name__ == "__main__":
    sys.exit(main())
