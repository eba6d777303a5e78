"""The write gate (engine/write_gate.py): writers of one file queue before BEGIN IMMEDIATE, across
threads and processes, and every outcome of waiting stays what it was with SQLite's lock alone.

Real processes on real files: a child holds the gate by holding a write transaction; the parent's
writes then wait, time out with ThrottlingException (a transaction: TransactionConflict), or, on a
thread that never waits, get WouldBlock. The sidecar ``<db>-twlock`` is checked where it cannot be
created or written, also as another user where the test runs as root.
"""

from __future__ import annotations

import fcntl
import functools
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablewright.engine import Engine, futex
from tablewright.engine.errors import WouldBlock
from tablewright.engine.write_gate import gate_for

from .support.holders import HOLD_WRITE_LOCK
from .support.tables import file_with_table, keyed_table
from .support.waiting import eventually
from .support.workload import COUNTER_KEY, COUNTER_TABLE, create_counter

CHILD = Path(__file__).parent / "support" / "concurrency_child.py"
SIDECAR = "-twlock"


# One PutItem from its own process; prints the outcome.
PUT_ONE = """
import sys
from tablewright.engine import Engine
with Engine(sys.argv[1], lock_timeout=float(sys.argv[3])) as engine:
    try:
        engine.handle("PutItem", {"TableName": "items", "Item": {"pk": {"S": sys.argv[2]}}})
        print("applied")
    except Exception as error:
        print(type(error).__name__, getattr(error, "code", ""))
"""

TABLE = keyed_table("items", "pk", "S")


def put_from_another_process(database: Path, pk: str, lock_timeout: float = 10) -> str:
    """What a PutItem of ``pk`` from a new process answers: "applied" or the error's name and code."""
    done = subprocess.run(
        [sys.executable, "-c", PUT_ONE, str(database), pk, str(lock_timeout)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert not done.stderr, done.stderr
    return done.stdout.strip()


def put(pk: str) -> dict:
    return {"TableName": "items", "Item": {"pk": {"S": pk}}}


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return file_with_table(tmp_path / "gate.db", TABLE)


@pytest.fixture
def gate_holder() -> Iterator[Callable[[Path], subprocess.Popen]]:
    holders: list[subprocess.Popen] = []

    def hold(db: Path) -> subprocess.Popen:
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD_WRITE_LOCK, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        holders.append(holder)
        return holder

    yield hold
    for holder in holders:
        release(holder)


def release(holder: subprocess.Popen) -> None:
    if holder.poll() is None:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


def on_thread(call: Callable[[], object]) -> object:
    """``call()``'s result or exception, from a new thread (a never_wait thread stays one)."""
    outcome: list[object] = []

    def body() -> None:
        try:
            outcome.append(call())
        except Exception as error:  # noqa: BLE001 - the test inspects it
            outcome.append(error)

    thread = threading.Thread(target=body)
    thread.start()
    thread.join(timeout=60)
    assert outcome, "the call did not return"
    return outcome[0]


def scan_keys(engine: Engine) -> set[str]:
    return {item["pk"]["S"] for item in engine.handle("Scan", {"TableName": "items"})["Items"]}


# ------------------------------------------------------------------------------- many processes


def test_eight_processes_of_conditional_increments_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "counter.db"
    with Engine(str(path)) as engine:
        create_counter(engine)
    processes, per_process = 8, 25
    children = [
        subprocess.Popen(
            [sys.executable, str(CHILD), str(path), "increment", str(per_process), str(seed)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in range(processes)
    ]
    for child in children:
        assert child.stdout is not None and child.stdout.readline() == "READY\n", child.communicate()[1]
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    replaced = []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        replaced += [int(line) for line in out.split()]
    assert sorted(replaced) == list(range(processes * per_process)), "an increment was lost or doubled"
    with Engine(str(path)) as engine:
        final = engine.handle("GetItem", {"TableName": COUNTER_TABLE, "Key": COUNTER_KEY})["Item"]
    assert final["n"] == {"N": str(processes * per_process)}
    assert Path(f"{path}{SIDECAR}").is_file(), "the writers did not queue at the sidecar's lock"


# A program writing the file without the gate (as another SQLite client would): it changes item "c" to
# n=10 inside a transaction holding SQLite's write lock, says "changed", and commits when told.
CHANGE_WITHOUT_GATE = """
import sqlite3, sys, orjson
from tablewright.engine import Engine
with Engine(sys.argv[1]) as engine:
    meta = engine.store.table("items")
    key = meta.encode_item_key({"pk": {"S": "c"}}, for_item=False)
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
item = orjson.dumps({"pk": {"S": "c"}, "n": {"N": "10"}})
conn.execute(meta.upsert_item_sql, (*key, len(item), item))
print("changed", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
"""


def test_a_crowded_write_whose_item_changed_after_it_read_ahead_is_evaluated_again(database) -> None:
    """Crowded writers evaluate a conditional write on the item read before the lock (Action.run);
    if another writer changed the item in between, the write must use the new item, not lose it."""
    increment = {
        "TableName": "items",
        "Key": {"pk": {"S": "c"}},
        "UpdateExpression": "SET n = n + :one",
        "ConditionExpression": "n >= :five",
        "ExpressionAttributeValues": {":one": {"N": "1"}, ":five": {"N": "5"}},
        "ReturnValues": "ALL_OLD",
    }
    with Engine(str(database), lock_timeout=60) as engine:
        engine.handle("PutItem", {"TableName": "items", "Item": {"pk": {"S": "c"}, "n": {"N": "5"}}})
        changer = subprocess.Popen(
            [sys.executable, "-c", CHANGE_WITHOUT_GATE, str(database)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert changer.stdout is not None and changer.stdout.readline().strip() == "changed"
            gate_for(str(database)).crowd()
            outcome: list[object] = []
            writer = threading.Thread(target=lambda: outcome.append(engine.handle("UpdateItem", increment)))
            writer.start()
            # The writer holds the gate only after it read the item (n=5): it now waits for SQLite's lock.
            with open(f"{database}{SIDECAR}", "rb") as sidecar:
                while True:
                    try:
                        fcntl.flock(sidecar, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        break
                    fcntl.flock(sidecar, fcntl.LOCK_UN)
                    assert writer.is_alive(), outcome
            assert changer.stdin is not None
            changer.stdin.write("commit\n")
            changer.stdin.flush()
            writer.join(timeout=60)
        finally:
            release(changer)
        assert outcome == [{"Attributes": {"pk": {"S": "c"}, "n": {"N": "10"}}}]
        stored = engine.handle("GetItem", {"TableName": "items", "Key": {"pk": {"S": "c"}}})["Item"]
        assert stored["n"] == {"N": "11"}, "the increment was computed on the item read before the lock"


def test_a_crowded_write_whose_condition_fails_on_the_item_read_ahead_writes_nothing(database) -> None:
    with Engine(str(database)) as engine:
        engine.handle("PutItem", {"TableName": "items", "Item": {"pk": {"S": "c"}, "n": {"N": "1"}}})
        gate_for(str(database)).crowd()
        refused = on_thread(
            lambda: engine.handle(
                "UpdateItem",
                {
                    "TableName": "items",
                    "Key": {"pk": {"S": "c"}},
                    "UpdateExpression": "SET n = :two",
                    "ConditionExpression": "n > :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}, ":two": {"N": "2"}},
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                },
            )
        )
        assert getattr(refused, "code", None) == "ConditionalCheckFailedException"
        assert refused.item == {"pk": {"S": "c"}, "n": {"N": "1"}}  # type: ignore[attr-defined]
        gate_for(str(database)).crowd()
        engine.handle("DeleteItem", {"TableName": "items", "Key": {"pk": {"S": "c"}}})
        assert scan_keys(engine) == set()


# ----------------------------------------------------------------------- another process holds it


def test_a_write_waits_for_the_gate_of_another_process_and_then_applies(database, gate_holder) -> None:
    holder = gate_holder(database)
    with Engine(str(database), lock_timeout=60) as engine:
        result: list[object] = []
        writer = threading.Thread(target=lambda: result.append(engine.handle("PutItem", put("waited"))))
        writer.start()
        writer.join(timeout=0.5)
        assert writer.is_alive() and not result, "the write did not wait for the other process's gate"
        release(holder)
        writer.join(timeout=60)
        assert result == [{}]
        assert scan_keys(engine) == {"waited"}


def test_lock_timeout_at_the_gate_is_reported_as_before(database, gate_holder) -> None:
    holder = gate_holder(database)
    with Engine(str(database), lock_timeout=0.3) as engine:
        refused = on_thread(lambda: engine.handle("PutItem", put("late")))
        assert getattr(refused, "code", None) == "ThrottlingException"
        update = {
            "TableName": "items",
            "Key": {"pk": {"S": "late"}},
            "UpdateExpression": "SET n = :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}},
        }
        assert getattr(on_thread(lambda: engine.handle("UpdateItem", update)), "code", None) == (
            "ThrottlingException"
        )
        transaction = {"TransactItems": [{"Put": put("in-transaction")}]}
        cancelled = on_thread(lambda: engine.handle("TransactWriteItems", transaction))
        assert getattr(cancelled, "code", None) == "TransactionCanceledException"
        assert cancelled.reasons == [  # type: ignore[attr-defined]
            {"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"}
        ]
        release(holder)
        # The waiter thread that gave up got the lock after all and must have let it go: another
        # process can write, and so can this one.
        assert put_from_another_process(database, "other") == "applied"
        engine.handle("PutItem", put("after"))
        assert scan_keys(engine) == {"other", "after"}


def test_a_gate_dropped_while_its_waiter_waits_ends_the_thread_and_unlocks_nothing_else(
    database, gate_holder, tmp_path
) -> None:
    holder = gate_holder(database)
    before = set(threading.enumerate())
    engine = Engine(str(database), lock_timeout=0.3)
    refused = on_thread(functools.partial(engine.handle, "PutItem", put("late")))
    assert getattr(refused, "code", None) == "ThrottlingException"
    # The thread making the blocking flock call for the write that gave up is still in it.
    (waiter,) = [
        thread for thread in set(threading.enumerate()) - before if thread.name == "tablewright-write-queue"
    ]
    del refused
    engine.close()
    del engine
    gc.collect()  # the gate goes, and closes its sidecar
    # New open files take the lowest free numbers, so one of them has the sidecar's old number; each
    # is locked the way the gate locks its sidecar.
    decoys = []
    for number in range(16):
        fd = os.open(tmp_path / f"decoy-{number}", os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        decoys.append(fd)
    try:
        release(holder)  # the thread now gets the old sidecar's lock, lets it go, and ends
        waiter.join(timeout=10)
        assert not waiter.is_alive()
        for number in range(16):  # every decoy is still locked
            probe = os.open(tmp_path / f"decoy-{number}", os.O_RDWR)
            try:
                with pytest.raises(BlockingIOError):
                    fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
            finally:
                os.close(probe)
    finally:
        for fd in decoys:
            os.close(fd)
    assert put_from_another_process(database, "other") == "applied"


def test_never_wait_threads_get_would_block_at_once_from_another_process(database, gate_holder) -> None:
    holder = gate_holder(database)
    with Engine(str(database), lock_timeout=60) as engine:
        for request in (put("blind"), {"TransactItems": [{"Put": put("tx")}]}):
            operation = "PutItem" if "Item" in request else "TransactWriteItems"
            # lock_timeout is 60 s: a result here means the thread did not wait for the gate.
            attempt = functools.partial(engine.try_handle, operation, request)
            assert isinstance(on_thread(attempt), WouldBlock)
        release(holder)
        assert on_thread(lambda: engine.try_handle("PutItem", put("free"))) == {}
        assert scan_keys(engine) == {"free"}


# ------------------------------------------------------------------------ another thread holds it


def test_threads_of_one_process_queue_at_the_gate(database) -> None:
    with Engine(str(database), lock_timeout=0.3) as engine, Engine(str(database), lock_timeout=60) as patient:
        holding, done = threading.Event(), threading.Event()

        def hold() -> None:
            with engine.store.write():
                holding.set()
                done.wait(timeout=60)

        holder = threading.Thread(target=hold)
        holder.start()
        assert holding.wait(timeout=30)
        try:
            assert isinstance(on_thread(lambda: engine.try_handle("PutItem", put("x"))), WouldBlock)
            refused = on_thread(lambda: engine.handle("PutItem", put("x")))
            assert getattr(refused, "code", None) == "ThrottlingException"
            # Another engine of this process on the same file shares the gate, and waits its turn.
            result: list[object] = []
            writer = threading.Thread(target=lambda: result.append(patient.handle("PutItem", put("queued"))))
            writer.start()
            writer.join(timeout=0.3)
            assert writer.is_alive() and not result
        finally:
            done.set()
            holder.join(timeout=30)
        writer.join(timeout=60)
        assert result == [{}]
        assert scan_keys(engine) == {"queued"}


def test_a_foreign_sqlite_lock_is_still_waited_for_behind_the_gate(database) -> None:
    """A program writing without the gate (raw sqlite3): SQLite's busy timeout still applies."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('BEGIN IMMEDIATE')\nprint('locked', flush=True)\nsys.stdin.read()\nc.execute('ROLLBACK')",
            str(database),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with Engine(str(database), lock_timeout=0.3) as engine:
            assert getattr(on_thread(lambda: engine.handle("PutItem", put("a"))), "code", None) == (
                "ThrottlingException"
            )
            assert isinstance(on_thread(lambda: engine.try_handle("PutItem", put("a"))), WouldBlock)
            release(holder)
            engine.handle("PutItem", put("a"))  # the gate was left open by both refusals
            assert scan_keys(engine) == {"a"}
    finally:
        release(holder)


# ------------------------------------------------------------------------- turns (the queue)

# A process on one core (so the queue admits one process at a time, strictly in order) that takes
# turns in the write queue of a database when told: "admit" (print "admitted" once it has its turn),
# "leave", "write" (a turn taken and left at once: the process keeps its place, idle), "put <timeout>"
# (a PutItem as a writer that saw contention, so it queues) and "try" (the same never waiting).
QUEUE_CHILD = """
import os, sys
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
from tablewright.engine import Engine, futex
from tablewright.engine.write_gate import gate_for
db, name, waiting = sys.argv[1:4]
futex.AVAILABLE = waiting == "futex"  # "thread": the path of platforms without futexes
gate = gate_for(db)
turn = None
print("ready", flush=True)
for line in sys.stdin:
    command, *arguments = line.split()
    if command == "admit":
        turn = gate.admit(120)
        print("admitted", flush=True)
    elif command == "leave":
        gate.leave(turn)
        print("left", flush=True)
    elif command == "write":
        gate.leave(gate.admit(120))
        print("written", flush=True)
    else:
        with Engine(db, lock_timeout=float(arguments[0]) if arguments else 60) as engine:
            gate.crowded = True
            request = {"TableName": "items", "Item": {"pk": {"S": name}}}
            try:
                (engine.handle if command == "put" else engine.try_handle)("PutItem", request)
                print("applied", flush=True)
            except Exception as error:
                print(getattr(error, "code", type(error).__name__), flush=True)
"""


class QueueChild:
    """One process of QUEUE_CHILD, told what to do line by line."""

    def __init__(self, database: Path, name: str, waiting: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", QUEUE_CHILD, str(database), name, waiting],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.answer() == "ready"

    def tell(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def answer(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def ask(self, command: str) -> str:
        self.tell(command)
        return self.answer()

    def queue(self, database: Path) -> None:
        """Ask for a turn and come back once this process has its ticket (it waits in the queue)."""
        before = tickets(database)
        self.tell("admit")
        eventually(lambda: tickets(database) > before)

    def answered(self) -> bool:
        """Whether an answer is waiting (without reading it)."""
        import select

        return bool(select.select([self.process.stdout], [], [], 0)[0])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)


def tickets(database: Path) -> int:
    """Tickets the database's write queue has given (the counter in the sidecar's first bytes)."""
    head = Path(f"{database}{SIDECAR}").read_bytes()[:8]
    return int.from_bytes(head, sys.byteorder) if len(head) == 8 else 0


@pytest.fixture(params=["futex", "thread"] if futex.AVAILABLE else ["thread"])
def queue_children(database: Path, request) -> Iterator[Callable[[str], QueueChild]]:
    """Children that wait for their turns on futexes (Linux) or through a waiter thread (elsewhere)."""
    children: list[QueueChild] = []

    def start(name: str) -> QueueChild:
        children.append(QueueChild(database, name, request.param))
        return children[-1]

    yield start
    for child in children:
        child.stop()


def test_writers_take_turns_in_order_of_arrival(database, queue_children) -> None:
    first, second, third, fourth = (queue_children(name) for name in "ABCD")
    assert first.ask("admit") == "admitted"
    for child in (second, third, fourth):
        child.queue(database)
    assert first.ask("leave") == "left"
    assert second.answer() == "admitted"
    assert not third.answered() and not fourth.answered(), "a later arrival passed one still writing"
    assert second.ask("leave") == "left"
    assert third.answer() == "admitted"
    assert not fourth.answered()
    assert third.ask("leave") == "left"
    assert fourth.answer() == "admitted"


def test_a_killed_writer_does_not_hold_up_the_queue(database, queue_children) -> None:
    holder, waiter, doomed, last = (queue_children(name) for name in "ABCD")
    assert holder.ask("admit") == "admitted"
    waiter.queue(database)
    holder.process.kill()  # killed during its turn: the kernel drops its place
    assert waiter.answer() == "admitted"
    doomed.queue(database)
    last.queue(database)
    doomed.process.kill()  # killed while waiting: the one behind it waits for the turn ahead instead
    assert last.answer() == "admitted"


def test_a_process_that_stopped_writing_does_not_keep_its_turn(database, queue_children) -> None:
    idle, other = queue_children("A"), queue_children("B")
    assert idle.ask("write") == "written"  # alive, and it may still hold its place
    assert other.ask("admit") == "admitted"
    assert idle.process.poll() is None


def test_a_write_waiting_for_its_turn_times_out_as_at_the_gate(database, queue_children) -> None:
    holder, writer = queue_children("A"), queue_children("late")
    assert holder.ask("admit") == "admitted"
    assert writer.ask("put 0.3") == "ThrottlingException"
    # A thread that never waits does not queue: the gate itself is free.
    assert writer.ask("try") == "applied"
    assert holder.ask("leave") == "left"
    assert writer.ask("put 60") == "applied"


def test_a_queue_left_by_an_older_version_grows_and_keeps_its_order(database, queue_children) -> None:
    # Before futex words, the queue was the ticket counter and one byte per place: 4,104 bytes.
    Path(f"{database}{SIDECAR}").write_bytes((7).to_bytes(8, sys.byteorder) + bytes(4096))
    first, second, third = (queue_children(name) for name in "ABC")
    assert first.ask("admit") == "admitted"
    second.queue(database)
    third.queue(database)
    assert tickets(database) == 10  # counted on from where the old queue was
    assert first.ask("leave") == "left"
    assert second.answer() == "admitted"
    assert not third.answered()
    assert second.ask("leave") == "left"
    assert third.answer() == "admitted"


# ---------------------------------------------------------------------------------- the sidecar


def test_no_sidecar_before_a_write_nor_for_a_read_only_engine(database) -> None:
    sidecar = Path(f"{database}{SIDECAR}")
    sidecar.unlink()  # the fixture's CreateTable made it
    with Engine(str(database), read_only=True) as engine:
        assert engine.handle("Scan", {"TableName": "items"})["Count"] == 0
    with Engine(str(database)) as engine:
        engine.handle("GetItem", {"TableName": "items", "Key": {"pk": {"S": "a"}}})
        assert not sidecar.exists()
        engine.handle("PutItem", put("a"))
    assert sidecar.is_file() and sidecar.stat().st_size == 0


def test_writes_go_on_where_the_sidecar_cannot_be_created(database) -> None:
    # A dangling link into a missing folder: neither created nor opened, whoever runs the test.
    Path(f"{database}{SIDECAR}").unlink()  # the fixture's CreateTable made it
    Path(f"{database}{SIDECAR}").symlink_to(database.parent / "missing" / "lock")
    with Engine(str(database), lock_timeout=5) as engine:
        engine.handle("PutItem", put("a"))
        transaction = {"TransactItems": [{"Put": put("b")}]}
        assert on_thread(lambda: engine.handle("TransactWriteItems", transaction)) == {}
        assert scan_keys(engine) == {"a", "b"}


def _as_other_user() -> list[str]:
    """A command prefix running a program as a user without this one's rights (``nobody`` under root)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot test permissions as another user")
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    reach = subprocess.run(
        [*prefix, sys.executable, "-c", "import tablewright.engine"], capture_output=True, text=True, cwd="/"
    )
    if reach.returncode != 0:  # a virtual environment in a private folder (.ci/run makes its own readable)
        pytest.skip(
            f"user nobody cannot import this environment's tablewright: {reach.stderr.strip()[-200:]}"
        )
    return prefix


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder outside pytest's private tmp, so that another user can reach it."""
    folder = Path(tempfile.mkdtemp(prefix="tw-gate-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


READ_AND_WRITE = """
import sys
from tablewright.engine import Engine
with Engine(sys.argv[1], read_only=sys.argv[2] == "ro") as engine:
    print(engine.handle("Scan", {"TableName": "items"})["Count"])
    if sys.argv[2] == "rw":
        engine.handle("PutItem", {"TableName": "items", "Item": {"pk": {"S": "from-other-user"}}})
        print(engine.handle("Scan", {"TableName": "items"})["Count"])
"""


def _run_as_other_user(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*_as_other_user(), sys.executable, "-c", READ_AND_WRITE, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )


def test_a_read_only_folder_is_read_without_a_sidecar(shared_folder: Path) -> None:
    db = shared_folder / "ro.db"
    with Engine(str(db)) as engine:
        engine.handle("CreateTable", TABLE)
        engine.handle("PutItem", put("a"))
    Path(f"{db}{SIDECAR}").unlink()
    if os.geteuid() != 0:
        shared_folder.chmod(0o555)
    done = _run_as_other_user(str(db), "ro")
    shared_folder.chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1"]
    assert not Path(f"{db}{SIDECAR}").exists()


def test_a_sidecar_the_writer_may_not_write_is_locked_read_only(shared_folder: Path) -> None:
    """Another user created the sidecar (mode 0644): flock needs no write access, so it still queues."""
    db = shared_folder / "shared.db"
    with Engine(str(db)) as engine:
        engine.handle("CreateTable", TABLE)
        engine.handle("PutItem", put("a"))  # creates the sidecar, owned by this user
    sidecar = Path(f"{db}{SIDECAR}")
    sidecar.chmod(0o444)
    shared_folder.chmod(0o777)  # the other user may create -wal and -shm, and write the database
    db.chmod(0o666)
    done = _run_as_other_user(str(db), "rw")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "2"]
