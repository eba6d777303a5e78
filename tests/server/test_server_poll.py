"""The poll before the event loop sleeps (server/poll.py): what it watches, how it backs off, and
that a polling server answers exactly as one that sleeps."""

from __future__ import annotations

import functools
import socket
import subprocess
import sys
import threading

import boto3
import pytest

from tablewright.server import ServerThread
from tablewright.server.poll import DEFAULT_WINDOW, MAX_SKIPPED, IdlePoller

from ._support import DUMMY, NO_RETRY, SERVE, Served, create_table
from .conftest import engine_class

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the poll uses epoll (Linux)")


def counts(poller: IdlePoller) -> tuple[int, int, int]:
    return poller.found, poller.timed_out, poller.skipped


def test_a_poll_finds_input_already_there():
    poller = IdlePoller(DEFAULT_WINDOW)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        poller.watch(ours.fileno(), "connection")
        theirs.send(b"next request")
        poller.poll()
        assert counts(poller) == (1, 0, 0)
    poller.close()


def _turns(poller: IdlePoller, number: int) -> str:
    """``number`` polls with nothing arriving: T for one that timed out, S for one skipped."""
    outcomes = []
    for _ in range(number):
        timed_out = poller.timed_out
        poller.poll()
        outcomes.append("T" if poller.timed_out > timed_out else "S")
    return "".join(outcomes)


def test_polls_that_time_out_back_off_doubling_and_a_find_starts_over():
    poller = IdlePoller(20e-6)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        poller.watch(ours.fileno(), "connection")
        # nothing comes: the turns skipped after each time-out double, 1, 2, 4, 8, 16, 32 ...
        assert _turns(poller, 40) == "TS" + "TSS" + "TSSSS" + "T" + "S" * 8 + "T" + "S" * 16 + "T" + "S" * 3
        assert MAX_SKIPPED == 64
        while poller.timed_out < 9 and poller.skipped < 300:  # through two capped back-offs
            poller.poll()
        # 1+2+4+8+16+32 turns, then MAX_SKIPPED twice (not 64 and then 128)
        assert (poller.timed_out, poller.skipped) == (9, 63 + 64 + 64)
        theirs.send(b"x")
        while poller.found == 0:
            poller.poll()
        ours.recv(1)
        # after a find the back-off starts over: a time-out skips one turn, not many
        assert _turns(poller, 5) == "TSTSS"
    poller.close()


def test_input_arriving_within_the_window_is_found():
    poller = IdlePoller(5.0)  # long: the sender's delay must fall inside it on any machine
    ours, theirs = socket.socketpair()
    with ours, theirs:
        poller.watch(ours.fileno(), "connection")
        sender = threading.Timer(0.01, theirs.send, args=(b"late",))
        sender.start()
        poller.poll()
        sender.join()
        assert counts(poller) == (1, 0, 0)
    poller.close()


def test_watching_a_socket_twice_keeps_it_watched_for_the_later_owner():
    poller = IdlePoller(DEFAULT_WINDOW)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        poller.watch(ours.fileno(), "first")
        poller.watch(ours.fileno(), "second")  # still registered: modified, not refused
        poller.forget(ours.fileno(), "first")
        theirs.send(b"x")
        poller.poll()
        ours.recv(1)
        theirs.send(b"y")
        poller.poll()
        assert poller.found == 2
    poller.close()


def test_a_forgotten_socket_no_longer_ends_a_poll():
    poller = IdlePoller(20e-6)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        poller.watch(ours.fileno(), "connection")
        poller.forget(ours.fileno(), "connection")
        theirs.send(b"ignored")
        poller.poll()
        assert counts(poller) == (0, 1, 0)
    closed, peer = socket.socketpair()
    poller.watch(closed.fileno(), "gone")
    number = closed.fileno()
    closed.close()
    peer.close()
    poller.forget(number, "gone")  # its socket closed first: nothing to raise about
    poller.close()


def test_a_socket_number_reused_stays_watched_for_its_new_owner():
    poller = IdlePoller(DEFAULT_WINDOW)
    first, peer = socket.socketpair()
    number = first.fileno()
    poller.watch(number, "first")
    first.close()
    peer.close()
    second, theirs = socket.socketpair()
    with second, theirs:
        if second.fileno() != number:
            pytest.skip("the system gave the new socket another number")
        poller.watch(number, "second")
        poller.forget(number, "first")  # the first owner's late goodbye must not drop the second
        theirs.send(b"x")
        poller.poll()
        assert poller.found == 1
        poller.forget(number, "second")
    poller.close()


def test_window_zero_polls_nothing():
    poller = IdlePoller(0)
    assert not poller.enabled
    poller.watch(0, "ignored")
    poller.forget(0, "ignored")
    poller.close()


def _session(url: str) -> list:
    """Writes and reads on one connection at a time, replaced every ten requests (a new socket,
    likely on the closed one's number), then three connections side by side: the answers."""

    def connect():
        return boto3.client("dynamodb", endpoint_url=url, config=NO_RETRY, **DUMMY)

    client = connect()
    create_table(client, "polled")
    seen = []
    for number in range(30):
        client.put_item(TableName="polled", Item={"pk": {"S": f"k{number}"}, "n": {"N": str(number)}})
        seen.append(client.get_item(TableName="polled", Key={"pk": {"S": f"k{number // 2}"}})["Item"])
        if number % 10 == 9:
            client.close()
            client = connect()
    others = [client, connect(), connect()]
    for number in range(9):
        seen.append(others[number % 3].get_item(TableName="polled", Key={"pk": {"S": f"k{number}"}})["Item"])
    seen.append(others[1].scan(TableName="polled")["Count"])
    return seen


def test_polling_server_answers_as_a_sleeping_one():
    """The same answers with and without the poll, and the poll did look for requests."""
    answers = {}
    for window in (0.0, DEFAULT_WINDOW):
        engine = engine_class()()
        with ServerThread(
            functools.partial(engine.handle, encoded=True),
            try_now=functools.partial(engine.try_handle, encoded=True),
            poll=window,
        ) as server:
            answers[window] = _session(server.url)
            poller = server.server.poller
            if window:
                assert poller.found + poller.timed_out + poller.skipped > 0
            else:
                assert not poller.enabled
        engine.close()
    assert answers[0.0] == answers[DEFAULT_WINDOW]


def test_serve_poll_flag(tmp_path):
    served = Served("--poll-us", "0")
    try:
        client = boto3.client("dynamodb", endpoint_url=served.url, config=NO_RETRY, **DUMMY)
        assert client.list_tables()["TableNames"] == []
    finally:
        assert served.stop()[0] == 0
    result = subprocess.run([*SERVE, "--poll-us", "-5"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "--poll-us" in result.stderr and "-5" in result.stderr


def test_serve_default_window_is_the_poll_modules():
    from tablewright.cli.serve import serve

    default = next(option.default for option in serve.params if option.name == "poll_us")
    assert default == round(DEFAULT_WINDOW * 1e6)
