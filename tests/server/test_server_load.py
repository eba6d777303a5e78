"""16 concurrent clients incrementing one counter with optimistic locking: no update may be lost."""

from __future__ import annotations

import threading
import time

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from ._support import DUMMY, create_table

CLIENTS = 16
UPDATES_PER_CLIENT = 10
MAX_ATTEMPTS_PER_CLIENT = 2_000  # bounds the loop in count; the deadline bounds it in time
DEADLINE_SECONDS = 120


def test_concurrent_conditional_increments_lose_nothing(server, client):
    create_table(client)
    client.put_item(TableName="items", Item={"pk": {"S": "counter"}, "n": {"N": "0"}, "version": {"N": "0"}})
    client.put_item(TableName="items", Item={"pk": {"S": "static"}, "v": {"S": "unchanged"}})
    successes = [0] * CLIENTS
    condition_failures = [0] * CLIENTS
    unexpected: list[str] = []
    deadline = time.monotonic() + DEADLINE_SECONDS
    start = threading.Barrier(CLIENTS)

    def worker(index: int) -> None:
        own = boto3.client(
            "dynamodb", endpoint_url=server.url, config=Config(retries={"max_attempts": 1}), **DUMMY
        )
        key = {"pk": {"S": "counter"}}
        start.wait()
        for _ in range(MAX_ATTEMPTS_PER_CLIENT):
            if successes[index] == UPDATES_PER_CLIENT or time.monotonic() > deadline:
                return
            try:
                static = own.get_item(TableName="items", Key={"pk": {"S": "static"}})["Item"]
                if static["v"] != {"S": "unchanged"}:
                    unexpected.append(f"static item changed: {static}")
                version = own.get_item(TableName="items", Key=key, ConsistentRead=True)["Item"]["version"][
                    "N"
                ]
                own.update_item(
                    TableName="items",
                    Key=key,
                    UpdateExpression="SET n = n + :one, version = version + :one",
                    ConditionExpression="version = :expected",
                    ExpressionAttributeValues={":one": {"N": "1"}, ":expected": {"N": version}},
                )
                successes[index] += 1
            except ClientError as exc:
                if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                    condition_failures[index] += 1
                else:
                    unexpected.append(repr(exc))
            except Exception as exc:  # a transport failure is exactly what this test looks for
                unexpected.append(repr(exc))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=DEADLINE_SECONDS + 30)

    assert unexpected == []
    assert successes == [UPDATES_PER_CLIENT] * CLIENTS, "a client ran out of attempts or time"
    final = client.get_item(TableName="items", Key={"pk": {"S": "counter"}}, ConsistentRead=True)["Item"]
    assert int(final["n"]["N"]) == sum(successes) == int(final["version"]["N"])
    # Contention did happen, so the conditions were really exercised.
    assert sum(condition_failures) > 0
