"""Answers are written once per event-loop turn, all connections' together (``_Connection._send``).

Over real HTTP against a server run as ``tablewright serve`` runs one: many clients at once each get
their own answers, requests sent together on many connections are each answered on their own, and on
one connection answers, ``100 Continue`` and a final error keep the order of the requests.
(GetItem's pass-through: tests/engine/test_get_item_pass_through.py.)
"""

from __future__ import annotations

import functools
import socket
import threading
import time
from typing import Any

import boto3
import pytest

from tablewright.engine import Engine
from tablewright.server import ServerThread

from ._support import DUMMY, NO_RETRY, create_table


def served(engine: Engine, **options: Any) -> ServerThread:
    """A server as ``tablewright serve`` runs one: pass-through answers, requests tried on the loop."""
    return ServerThread(
        functools.partial(engine.handle, encoded=True),
        try_now=functools.partial(engine.try_handle, encoded=True),
        **options,
    )


def test_many_clients_at_once_each_get_their_own_answers() -> None:
    engine = Engine()
    errors: list[BaseException] = []
    try:
        with served(engine) as server:
            create_table(boto3.client("dynamodb", endpoint_url=server.url, config=NO_RETRY, **DUMMY))

            def client_work(number: int) -> None:
                try:
                    client = boto3.client("dynamodb", endpoint_url=server.url, config=NO_RETRY, **DUMMY)
                    for round_ in range(20):
                        key = {"pk": {"S": f"c{number}-{round_ % 5}"}}
                        item = {**key, "round": {"N": str(round_)}, "by": {"S": f"client {number}"}}
                        client.put_item(TableName="items", Item=item)
                        assert client.get_item(TableName="items", Key=key)["Item"] == item
                except BaseException as error:  # noqa: BLE001 - reported by the test below
                    errors.append(error)

            threads = [threading.Thread(target=client_work, args=(n,)) for n in range(16)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=120)
    finally:
        engine.close()
    assert not errors, errors[:3]


def _request(target: str, body: bytes, extra: bytes = b"") -> bytes:
    return (
        b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.%s\r\n"
        b"Content-Type: application/x-amz-json-1.0\r\n%sContent-Length: %d\r\n\r\n%s"
        % (target.encode(), extra, len(body), body)
    )


def _read_until_closed(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def test_requests_sent_together_on_many_connections_are_each_answered_on_their_own() -> None:
    engine = Engine()
    try:
        with served(engine) as server:
            client = boto3.client("dynamodb", endpoint_url=server.url, config=NO_RETRY, **DUMMY)
            create_table(client)
            for n in range(12):
                client.put_item(TableName="items", Item={"pk": {"S": f"k{n}"}, "n": {"N": str(n)}})
            sockets = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(12)]
            try:
                for n, sock in enumerate(sockets):  # all sent before any answer is read
                    sock.sendall(_request("GetItem", b'{"TableName":"items","Key":{"pk":{"S":"k%d"}}}' % n))
                    sock.shutdown(socket.SHUT_WR)
                answers = [_read_until_closed(sock) for sock in sockets]
            finally:
                for sock in sockets:
                    sock.close()
    finally:
        engine.close()
    for n, answer in enumerate(answers):
        assert answer.count(b"HTTP/1.1 200 OK") == 1, answer
        assert answer.endswith(b'{"Item":{"pk":{"S":"k%d"},"n":{"N":"%d"}}}' % (n, n)), answer


@pytest.mark.parametrize("neighbours", [0, 2], ids=["alone: written at once", "gathered per loop turn"])
def test_one_connection_keeps_the_order_of_answers_continue_and_a_final_error(neighbours: int) -> None:
    engine = Engine()
    try:
        with served(engine) as server:
            client = boto3.client("dynamodb", endpoint_url=server.url, config=NO_RETRY, **DUMMY)
            create_table(client)
            for n in range(3):
                client.put_item(TableName="items", Item={"pk": {"S": f"k{n}"}, "n": {"N": str(n)}})
            client.close()
            # Other open connections make the server gather answers until the end of the loop turn.
            others = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(neighbours)]
            time.sleep(0.2)  # the client's closed connection is gone, the others are accepted
            assert len(server.server.connections) == neighbours
            get = b'{"TableName":"items","Key":{"pk":{"S":"k%d"}}}'
            pipelined = b"".join(
                [
                    _request("GetItem", get % 0),
                    _request("GetItem", get % 1, b"Expect: 100-continue\r\n"),
                    _request("GetItem", get % 2),
                    b"NOT HTTP AT ALL\r\n\r\n",
                ]
            )
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
                sock.sendall(pipelined)
                answer = _read_until_closed(sock)
            for other in others:
                other.close()
    finally:
        engine.close()
    first, second, third = (answer.index(b'"n":{"N":"%d"}' % n) for n in range(3))
    assert first < answer.index(b"HTTP/1.1 100 Continue") < second < third
    assert answer.count(b"HTTP/1.1 200 OK") == 3
    assert answer.index(b"HTTP/1.1 400 Bad Request") > third
