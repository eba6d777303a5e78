"""Another process holding a database file's write lock (and so its write gate) until told to stop."""

from __future__ import annotations

# Run with ``python -c HOLD_WRITE_LOCK <db>``: prints "locked" once it holds the lock inside a write
# transaction, and keeps it until its stdin closes.
HOLD_WRITE_LOCK = """
import sys
from tablewright.engine import Engine
engine = Engine(sys.argv[1])
with engine.store.write():
    print("locked", flush=True)
    sys.stdin.read()
engine.close()
"""
