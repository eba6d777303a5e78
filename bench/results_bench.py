"""Large results and the boto3 path: what a read costs beyond fetching its rows and boto3's own work.

``python bench/results_bench.py [--quick]`` prints the section; ``python bench/run.py --only
results_bench`` writes it into docs/benchmarks.md. Three comparisons, each interleaved in short slices
(see ``measure.py``) and judged on the median of the per-slice ratios:

- a direct 3K-item Scan (``Engine.handle``) against raw sqlite3 fetching the same rows from the same
  file and decoding each with ``orjson.loads`` (issue 17: within 1.5x);
- ``tablewright serve``'s CPU per 10-item Query against per GetItem (at most 1.5x), read from the server
  process's own CPU time (``/proc/<pid>/task/*/schedstat``, nanoseconds; ``/proc/<pid>/stat`` ticks
  where that is missing) across a fixed number of requests sent one at a time on a keep-alive
  connection by this process (the load generator's CPU is not counted);
- boto3 served in-process by the engine against the same boto3 client answering instantly (a
  ``before-send`` hook returning the engine's answer, captured once, as HTTP bytes: botocore's full
  send and parse path) for GetItem, PutItem and a 10-item Query (the engine adds less than 15%).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
from botocore import xform_name
from botocore.awsrequest import AWSResponse
from measure import Section, Spread, Target, interleave, machine, per_op, ratios
from workload import DEFINITION, TABLE, item

import tablewright
from tablewright.client import RESPONDER_ID
from tablewright.engine import Engine

SCAN_ITEMS = 3_000
QUERY_PARTITION = 1_000  # items in the partition a Query reads 10 of
GET_ITEMS = 1_000


def load(engine: Engine, items: Iterator[dict[str, Any]]) -> None:
    batch: list[dict] = []
    for one in items:
        batch.append({"PutRequest": {"Item": one}})
        if len(batch) == 25:
            engine.handle("BatchWriteItem", {"RequestItems": {TABLE: batch}})
            batch = []
    if batch:
        engine.handle("BatchWriteItem", {"RequestItems": {TABLE: batch}})


def query_request(start: int) -> dict[str, Any]:
    return {
        "TableName": TABLE,
        "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b",
        "ExpressionAttributeValues": {":p": {"S": "q"}, ":a": {"N": str(start)}, ":b": {"N": str(start + 9)}},
    }


SAMPLES = {
    "GetItem": ("GetItem", {"TableName": TABLE, "Key": {"pk": {"S": "get"}, "sk": {"N": "7"}}}),
    "PutItem": ("PutItem", {"TableName": TABLE, "Item": item("put", 1)}),
    "Query 10": ("Query", query_request(100)),
}


def fill(engine: Engine, scan_items: int) -> None:
    engine.handle("CreateTable", DEFINITION)
    load(engine, (item("get", n) for n in range(GET_ITEMS)))
    load(engine, (item("q", n) for n in range(QUERY_PARTITION)))
    load(engine, (item(f"s{n % 100}", n) for n in range(scan_items - GET_ITEMS - QUERY_PARTITION)))


# ------------------------------------------------------------------------------------- direct Scan


def scan_vs_raw(directory: Path, rounds: int, per_slice: int) -> tuple[dict[str, list[float]], int]:
    """Seconds per 3K-item Scan: the engine's direct API against raw sqlite3 + orjson on the same file."""
    import sqlite3

    path = directory / "scan.db"
    engine = Engine(str(path))
    fill(engine, SCAN_ITEMS)
    scan = {"TableName": TABLE}
    count = engine.handle("Scan", scan)["Count"]
    raw = sqlite3.connect(path)
    sql = f"SELECT item FROM {engine.store.table(TABLE).sql_name} ORDER BY h, pk, sk"
    assert len(raw.execute(sql).fetchall()) == count

    def raw_rows() -> list[dict]:
        return [orjson.loads(row[0]) for row in raw.execute(sql)]

    systems = {
        "engine Scan": lambda: per_op(lambda: engine.handle("Scan", scan), per_slice),
        "sqlite3 + orjson": lambda: per_op(raw_rows, per_slice),
    }
    samples = interleave(systems, rounds)
    raw.close()
    engine.close()
    return samples, count


# --------------------------------------------------------------------------------------- server CPU


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """CPU time a process has used so far, all its threads: nanosecond schedstat, else clock ticks."""
    try:
        total = 0
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as stat:
                total += int(stat.read().split()[0])
        return total / 1e9
    except (OSError, ValueError, IndexError):
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Connection:
    """A keep-alive HTTP/1.1 connection sending prepared requests one at a time: a load generator that
    does nothing but write bytes and read one answer (Content-Length framed)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def exchange(self, request: bytes) -> bytes:
        self.sock.sendall(request)
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(65536)
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        length = int(
            next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))[15:]
        )
        while len(rest) < length:
            rest += self.sock.recv(65536)
        self.buffer = rest[length:]
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"server answered {head.splitlines()[0]!r}: {rest[:length][:200]!r}")
        return rest[:length]

    def close(self) -> None:
        self.sock.close()


def http_request(operation: str, request: dict) -> bytes:
    body = orjson.dumps(request)
    return (
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n"
        b"X-Amz-Target: DynamoDB_20120810.%s\r\nContent-Length: %d\r\n\r\n%s"
        % (operation.encode(), len(body), body)
    )


@contextmanager
def served(path: Path) -> Iterator[tuple[int, int]]:
    """``tablewright serve --db path`` on a free port: (pid, port); stopped (SIGTERM) afterwards."""
    port = free_port()
    command = [sys.executable, "-c", "from tablewright.cli import main; main()"]
    # --poll-us 0: what this measures is the server's work per request, and CPU spent polling for
    # the client's next request (docs/server.md) is waiting, the same for any request.
    command += ["serve", "--db", str(path), "--port", str(port), "--no-ttl", "--poll-us", "0"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"server did not start: {process.stderr.read().decode()[-500:]}"
                    ) from None
                time.sleep(0.1)
        yield process.pid, port
    finally:
        process.terminate()
        process.wait(timeout=30)


def server_cpu(directory: Path, rounds: int, per_slice: int) -> dict[str, list[float]]:
    """Server CPU seconds per request: a 10-item Query against a GetItem, in interleaved slices."""
    path = directory / "served.db"
    engine = Engine(str(path))
    fill(engine, GET_ITEMS + QUERY_PARTITION)
    engine.close()
    with served(path) as (pid, port):
        connection = Connection(port)
        gets = [http_request("GetItem", {**SAMPLES["GetItem"][1], "Key": {"pk": {"S": "get"}, "sk": {"N": str(n)}}})
                for n in range(0, GET_ITEMS, 7)]  # fmt: skip
        queries = [http_request("Query", query_request(n)) for n in range(0, QUERY_PARTITION - 10, 7)]
        assert orjson.loads(connection.exchange(queries[0]))["Count"] == 10

        def cpu_per_request(requests: list[bytes]) -> Callable[[], float]:
            def run() -> float:
                before = cpu_seconds(pid)
                for number in range(per_slice):
                    connection.exchange(requests[number % len(requests)])
                return (cpu_seconds(pid) - before) / per_slice

            return run

        samples = interleave({"Query 10": cpu_per_request(queries), "GetItem": cpu_per_request(gets)}, rounds)
        connection.close()
    return samples


# -------------------------------------------------------------------------------------- boto3 path


class _Body:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self.data


class _Canned:
    """Answers each operation with one captured answer, as instantly as anything can (duck-types
    ``Engine.handle`` for ``tablewright.connect(engine=...)``)."""

    def __init__(self, answers: dict[str, dict]) -> None:
        self.answers = answers

    def handle(self, operation: str, request: dict | None = None, *, encoded: bool = False) -> dict:
        return dict(self.answers[operation])


def boto3_path(rounds: int, per_slice: int) -> dict[str, list[float]]:
    """Seconds per call: boto3 answering instantly (``no-op``) and boto3 served by the engine.

    The no-op client is an in-process client (same Config and handlers, so boto3's configuration is
    not what is measured) whose engine responder is swapped for a ``before-send`` hook returning the
    engine's answer to the same request, captured once, as HTTP bytes: botocore then runs its whole
    send path (signing is off in-process, as for the engine's client) and parses the same bytes.
    """
    engine = Engine()
    fill(engine, GET_ITEMS + QUERY_PARTITION)
    client = tablewright.connect(engine=engine)
    canned = {
        operation: orjson.dumps(engine.handle(operation, request)) for operation, request in SAMPLES.values()
    }
    noop = tablewright.connect(engine=engine)
    noop.meta.events.unregister("before-call.dynamodb", unique_id=RESPONDER_ID)

    def respond(request: Any, **_: Any) -> AWSResponse:
        operation = request.headers["X-Amz-Target"].decode().split(".")[1]
        headers = {"Content-Type": "application/x-amz-json-1.0", "x-amzn-RequestId": "noop"}
        return AWSResponse(request.url, 200, headers, _Body(canned[operation]))

    noop.meta.events.register("before-send.dynamodb", respond)
    # The in-process path with the engine's work taken out: the same responder and parsing, handed
    # the engine's answer captured once (items still as the stored JSON).
    captured = {
        operation: engine.handle(operation, request, encoded=True) for operation, request in SAMPLES.values()
    }
    at_hook = tablewright.connect(engine=_Canned(captured))
    systems = {}
    for name, (operation, request) in SAMPLES.items():
        for kind, which in (("no-op", noop), ("canned at hook", at_hook), ("engine", client)):
            method = getattr(which, xform_name(operation))
            assert method(**request)["ResponseMetadata"]["HTTPStatusCode"] == 200
            systems[f"{name} {kind}"] = lambda method=method, request=request: per_op(
                lambda: method(**request), per_slice
            )
    samples = interleave(systems, rounds)
    engine.close()
    return samples


# ----------------------------------------------------------------------------------------- section


def _ms(seconds: list[float]) -> str:
    return f"{sorted(seconds)[len(seconds) // 2] * 1e3:.2f} ms"


def _us(seconds: list[float]) -> str:
    return f"{sorted(seconds)[len(seconds) // 2] * 1e6:.0f} µs"


def section(quick: bool) -> Section:
    rounds = 3 if quick else 15
    with tempfile.TemporaryDirectory(prefix="results-bench-") as folder:
        directory = Path(folder)
        scan, count = scan_vs_raw(directory, rounds, per_slice=2 if quick else 5)
        cpu = server_cpu(directory, rounds, per_slice=200 if quick else 1500)
    boto = boto3_path(rounds, per_slice=50 if quick else 300)

    scan_ratio = ratios(scan["engine Scan"], scan["sqlite3 + orjson"])
    cpu_ratio = ratios(cpu["Query 10"], cpu["GetItem"])
    targets = [
        Target(f"direct {count:,}-item Scan within 1.5x of raw sqlite3 + orjson", scan_ratio.text() + "x",
               scan_ratio.median <= 1.5),
        Target("server CPU per 10-item Query <= 1.5x per GetItem", cpu_ratio.text() + "x", cpu_ratio.median <= 1.5),
    ]  # fmt: skip
    rows = [
        "| comparison | median per call | median per call | ratio (median, spread) |",
        "|---|---|---|---|",
        f"| {count:,}-item Scan: engine vs sqlite3 + orjson | {_ms(scan['engine Scan'])} | "
        f"{_ms(scan['sqlite3 + orjson'])} | {scan_ratio.text()} |",
        f"| server CPU: Query 10 vs GetItem | {_us(cpu['Query 10'])} | {_us(cpu['GetItem'])} | "
        f"{cpu_ratio.text()} |",
    ]
    for name in SAMPLES:
        added = added_share(boto[f"{name} engine"], boto[f"{name} no-op"])
        rows.append(
            f"| boto3 {name}: in-process engine vs no-op boto3 | {_us(boto[f'{name} engine'])} | "
            f"{_us(boto[f'{name} no-op'])} | {added.text('{:+.0%}')} added |"
        )
        targets.append(
            Target(f"boto3 {name}: the engine adds < 15% to boto3's per-call cost", added.text("{:+.0%}"),
                   added.median < 0.15)
        )  # fmt: skip
        share = added_share(boto[f"{name} engine"], boto[f"{name} canned at hook"])
        rows.append(
            f"| boto3 {name} in-process: engine vs canned answer at the hook | {_us(boto[f'{name} engine'])} | "
            f"{_us(boto[f'{name} canned at hook'])} | {share.text('{:+.0%}')} added |"
        )
    body = "\n".join(
        [
            "Large results and the boto3 path (issue 17, requirements 2 and 4). The Scan reads one page of",
            f"{count:,} items of ~200 bytes from a SQLite file; the raw side runs `SELECT item ... ORDER BY h, pk, sk`",
            "on the same file and `orjson.loads` each row. Server CPU is `tablewright serve`'s own (all",
            "threads, from /proc), per request sent one at a time on one keep-alive connection, served",
            "with `--poll-us 0` (CPU spent polling for the next request is waiting, not work). boto3",
            "`no-op` answers at `before-send` with the engine's answer captured once as HTTP bytes (the",
            "target's reference: boto3's own cost for a call answered instantly); `canned answer at the",
            "hook` is the in-process client with the engine's work replaced by a captured answer, so its",
            "row is the engine's share of an in-process call (for information, not a target). Each",
            "slice gives one ratio; the table gives the median of the slices and their spread (IQR, then",
            "lowest and highest slice): a wide range means the machine was busy during some slices, not",
            "that the code varies.",
            "",
            *rows,
        ]
    )
    return Section(
        "Large results and the boto3 path", "python bench/run.py --only results_bench", body, targets
    )


def added_share(engine: list[float], noop: list[float]) -> Spread:
    """Per-slice share the engine adds to boto3's own cost: ``engine / no-op - 1``."""
    return Spread.of([with_engine / alone - 1 for with_engine, alone in zip(engine, noop, strict=True)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few short slices: checks the script runs")
    args = parser.parse_args()
    print(machine())
    print(section(args.quick).markdown())


if __name__ == "__main__":
    main()
