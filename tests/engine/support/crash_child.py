"""Child process of test_crash: writes to a bank file until it is killed.

Usage: ``python crash_child.py PATH SEED RUN``. Every write is announced on stdout before the call
(``> P 12``) and acknowledged after it returned (``P 12``; a declined transfer prints ``x T 5``), each
line flushed at once, so the parent knows exactly which writes were acknowledged and which one may
have been in flight when it sent SIGKILL.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import ACCOUNTS, put_batch, put_counter, transfer  # noqa: E402

from tablewright.engine import Engine  # noqa: E402

BATCH_SIZE = 5


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(path: str, seed: int, run: int) -> None:
    rng = random.Random(seed)
    engine = Engine(path)
    say("READY")
    counters = transfers = batches = 0
    while True:
        roll = rng.random()
        if roll < 0.45:
            say(f"> P {counters}")
            put_counter(engine, run, counters, "x" * rng.randrange(10, 2000))
            say(f"P {counters}")
            counters += 1
        elif roll < 0.9:
            source, target = rng.sample(range(ACCOUNTS), 2)
            tag = f"{run}:{transfers}"
            say(f"> T {tag}")
            done = transfer(engine, tag, source, target, rng.randrange(1, 400))
            say(f"T {tag}" if done else f"x T {tag}")
            transfers += 1
        else:
            say(f"> B {batches}")
            put_batch(engine, run, batches, BATCH_SIZE)
            say(f"B {batches}")
            batches += 1


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
