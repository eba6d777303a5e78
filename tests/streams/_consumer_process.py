"""A consumer process for the crash test: logs every record it handles, checkpoints to a file.

Usage: python _consumer_process.py DB CHECKPOINT LOG RUN_TAG (forever|drain)
Each batch is appended to LOG as JSON lines in one write, then the consumer checkpoints; the test
SIGKILLs the process at an arbitrary point of that cycle.
"""

from __future__ import annotations

import json
import os
import sys
import time

import tablewright
from tablewright.engine import Engine
from tablewright.streams import FileCheckpoint, StreamConsumer


def main(db: str, checkpoint: str, log: str, tag: str, mode: str) -> None:
    engine = Engine(db)
    ddb = tablewright.connect(engine=engine)
    streams = tablewright.connect(service="dynamodbstreams", engine=engine)
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)

    def handler(event: dict) -> None:
        lines = [
            json.dumps(
                {"run": tag, "seq": r["dynamodb"]["SequenceNumber"], "key": r["dynamodb"]["Keys"]["pk"]["S"]}
            )
            for r in event["Records"]
        ]
        os.write(fd, ("\n".join(lines) + "\n").encode())
        time.sleep(0.02)  # slow enough that the test can kill it mid-stream

    consumer = StreamConsumer(
        ddb,
        streams,
        "orders",
        handler,
        checkpoint=FileCheckpoint(checkpoint),
        batch_size=5,
        poll_interval=0.01,
    )
    if mode == "drain":
        consumer.drain()
    else:
        consumer.run()


if __name__ == "__main__":
    main(*sys.argv[1:])
