"""The local ingester: MQTT messages in, the IoT rules of ``iot_rules.yaml`` applied, items out.

    python examples/van-telemetry/ingest.py --sample 3 > messages.jsonl     # traffic: 3 vans, 200 messages each
    python examples/van-telemetry/ingest.py --db van.db messages.jsonl      # or - for stdin

One message per line: ``{"topic": "van/<thing>/telemetry", "payload": {...} or "<text>",
"timestamp": <ms, the broker's receive time; now if absent>}``. Every rule whose topic filter
matches writes its item with its DynamoDB action (PutItem into the rule's table, through the
design, so keys and attribute rules are the design's); no rule matching is counted as
``unrouted``; a message a rule cannot apply, the design refuses, or whose ``timestamp`` is no whole
number of milliseconds (a string, a fraction, true, null; ``1.764e12`` is whole) is counted as
``failed`` with its line and the reason on stderr (IoT would hand it to the rule's error action),
nothing of it is written, and the next line is read.
Exit: 0 all stored, 1 some failed, 2 unusable input (rules file, a database path or endpoint that
cannot be used, lines that are not JSON messages), 3 tables unreachable (docs/cli.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from iot_rules import RULES_FILE, Message, Rule, RuleError, load_rules  # noqa: E402
from van_telemetry import DESIGN  # noqa: E402

from tablewright.cli.errors import reported  # noqa: E402
from tablewright.runtime import Runtime, RuntimeFailure  # noqa: E402

PROGRAM = "van ingest"
# More digits than any millisecond time: refused before int() would spell out 1e999999999.
MAX_TIMESTAMP_DIGITS = 18


@dataclass(frozen=True)
class BadMessage:
    """A message line that is JSON with a topic but cannot be applied: counted ``failed``, like a
    payload a rule cannot apply, and the lines after it are still read."""

    topic: str
    reason: str


class Ingester:
    """The rules and the tables they write: ``receive`` is one message through every matching rule."""

    def __init__(self, rt: Runtime, rules: list[Rule]) -> None:
        self.rt = rt
        self.rules = rules
        self.entity_of = {
            t.table_name: e.name for e in rt.design.entities.values() for t in [rt.design.tables[e.table]]
        }

    def receive(self, message: Message) -> list[dict[str, object]]:
        """The items written for ``message`` (none when no rule matches); ``RuleError`` or the
        runtime's ``ValidationError`` when a rule's item cannot be written (nothing written then)."""
        matching = [rule for rule in self.rules if rule.matches(message.topic)]
        items = []
        for rule in matching:
            entity = self.entity_of.get(rule.table)
            if entity is None:
                raise RuleError(f"rule {rule.name} writes table {rule.table}, which the design does not have")
            items.append((entity, rule.apply(message)))
        for entity, item in items:
            # overwrite: IoT's DynamoDBv2 action is a PutItem, and a second message of one van on
            # the same millisecond replaces the first (README, D6).
            self.rt.replace(entity, item)
        return [item for _, item in items]


def read_messages(lines: Iterable[str], now_ms: int) -> Iterator[tuple[int, Message | BadMessage]]:
    """``(line number, Message or BadMessage)`` for each non-blank line; ``ValueError`` naming the
    line for one that is not a JSON message at all (the input is then unusable)."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            topic, payload = record["topic"], record.get("payload", {})
        except (ValueError, KeyError, TypeError):
            raise ValueError(f"line {number}: not a JSON object with a topic") from None
        raw = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        stamp = record.get("timestamp", now_ms)
        if isinstance(stamp, float):  # read again exactly: a float cannot tell 1.5 from 1.4999999999999999
            stamp = json.loads(line, parse_float=Decimal)["timestamp"]
        try:
            yield number, Message(str(topic), raw, broker_ms(stamp))
        except ValueError as error:
            yield number, BadMessage(str(topic), str(error))


def broker_ms(stamp: object) -> int:
    """The broker's receive time: a whole number of milliseconds however it is spelled (``1764000000023``,
    ``1.764000000023e12``, ``1764000000023.0``); ``ValueError`` for anything else."""
    if isinstance(stamp, int) and not isinstance(stamp, bool):
        return stamp
    whole = (
        isinstance(stamp, Decimal)
        and stamp.is_finite()
        and stamp == stamp.to_integral_value()
        and stamp.adjusted() < MAX_TIMESTAMP_DIGITS
    )
    if not whole:
        raise ValueError(f"timestamp {_as_written(stamp)} is not whole milliseconds")
    return int(stamp)  # type: ignore[arg-type]


def _as_written(value: object) -> str:
    """A timestamp as the line spells it in JSON (``"1764000000006"``, ``true``, ``null``), cut short."""
    text = str(value) if isinstance(value, Decimal | float) else json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def sample_lines(vans: int) -> Iterable[str]:
    """Traffic from ``generate.py``'s vans, as MQTT messages on the three topics."""
    # Loaded by path: every example has a generate.py, and another one may be imported already.
    spec = importlib.util.spec_from_file_location(
        "van_telemetry_generate", Path(__file__).with_name("generate.py")
    )
    generate = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(generate)  # type: ignore[union-attr]
    for item in generate.generate(seed=7, scale=max(1, vans) / 3)["Message"]:
        payload = {
            k: v for k, v in item.items() if k not in ("thing_name", "timestamp", "message_type", "ttl")
        }
        topic = f"van/{item['thing_name']}/{item['message_type']}"
        yield json.dumps(
            {"topic": topic, "payload": payload, "timestamp": int(item["timestamp"])}, default=_number
        )


def _number(value: object) -> object:
    return int(value) if value == int(value) else float(value)  # type: ignore[call-overload, arg-type]


@reported(PROGRAM)
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROGRAM, description="Apply the van IoT rules to MQTT messages")
    parser.add_argument("messages", nargs="?", help="JSON-lines file of messages, - for stdin")
    parser.add_argument("--db", help="SQLite file of the embedded engine")
    parser.add_argument("--endpoint", help="DynamoDB endpoint URL")
    parser.add_argument("--rules", default=str(RULES_FILE), help="rules file (default: iot_rules.yaml)")
    parser.add_argument(
        "--sample", type=int, metavar="VANS", help="print sample traffic for VANS vans and exit"
    )
    args = parser.parse_args(argv)
    if args.sample is not None:
        for line in sample_lines(args.sample):
            print(line)
        return 0
    if args.messages is None:
        parser.error("give a messages file (or - for stdin), or --sample VANS")
    try:
        rules = load_rules(args.rules)
    except RuleError as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 2
    rt = Runtime.open(DESIGN, endpoint_url=args.endpoint, db=args.db)
    rt.create_tables()
    ingester = Ingester(rt, rules)
    counts: Counter = Counter()
    try:
        source = sys.stdin if args.messages == "-" else open(args.messages, encoding="utf-8")  # noqa: SIM115
    except OSError as error:
        print(f"{PROGRAM}: error: {args.messages}: {error.strerror}", file=sys.stderr)
        return 2
    try:
        with source:
            for number, message in read_messages(source, int(time.time() * 1000)):
                if isinstance(message, BadMessage):
                    counts["failed"] += 1
                    said = f"{PROGRAM}: line {number}: {message.topic}: {message.reason}"
                    print(said.replace("\n", " "), file=sys.stderr)
                    continue
                try:
                    written = ingester.receive(message)
                except (RuleError, RuntimeFailure) as error:
                    counts["failed"] += 1
                    print(
                        f"{PROGRAM}: line {number}: {message.topic}: {error}".replace("\n", " "),
                        file=sys.stderr,
                    )
                    continue
                counts["stored" if written else "unrouted"] += 1
    except ValueError as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 2
    print(f"stored {counts['stored']}, unrouted {counts['unrouted']}, failed {counts['failed']}")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
