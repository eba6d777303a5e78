"""Child process of test_concurrency: contends for shared items in one SQLite file.

Usage: ``python concurrency_child.py PATH MODE COUNT SEED``. The child prints ``READY`` and waits for a
line on stdin before it starts, so that all children contend at once.

* ``increment``: performs COUNT conditional increments of the counter item and prints, one per line,
  the value each successful update replaced;
* ``transfer``: attempts COUNT transfers between the bank's accounts, printing ``T <tag>`` for each
  one that committed and ``x <tag>`` for each one cancelled for lack of funds.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import COUNTER_KEY, COUNTER_TABLE, increment, transfer  # noqa: E402

from tablewright.engine import Engine  # noqa: E402


def main(path: str, mode: str, count: int, seed: int) -> None:
    rng = random.Random(seed)
    engine = Engine(path)
    # Start together with the other children: the parent says go once every child is ready.
    sys.stdout.write("READY\n")
    sys.stdout.flush()
    sys.stdin.readline()
    lines = []
    for number in range(count):
        if mode == "increment":
            lines.append(str(increment(engine, COUNTER_TABLE, COUNTER_KEY)))
        else:
            source, target = rng.sample(range(4), 2)
            tag = f"{seed}:{number}"
            lines.append(
                ("T " if transfer(engine, tag, source, target, rng.randrange(1, 80)) else "x ") + tag
            )
    sys.stdout.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
