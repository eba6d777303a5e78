"""Van telemetry (seed 001): the IoT rule's message -> item mapping and the four query patterns.

The document's IoT rule ``SELECT topic(2) as thing_name, timestamp() as timestamp, 'telemetry' as
message_type, *, timestamp() + 2592000000 as ttl FROM 'van/+/telemetry'`` is reproduced by
``rule_output`` with one fix: DynamoDB's TTL reads epoch **seconds**, and ``timestamp()`` is
milliseconds, so the document's ``ttl`` lies ~54,000 years ahead and no item ever expires.
``document_rule_output`` keeps the document's arithmetic so tests can show the difference on the
engine. Everything else goes through the runtime, so keys and the TTL come from ``design.yaml``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path

from tablewright.runtime import Record, Runtime

DESIGN = Path(__file__).with_name("design.yaml")
RETENTION_SECONDS = 30 * 24 * 3600  # "Expire after 30 days"
DOCUMENT_TTL_OFFSET = 2_592_000_000  # the document's "+ 2592000000": 30 days in MILLIseconds

DOCUMENT_RULE_SQL = """SELECT topic(2) as thing_name, timestamp() as timestamp, 'telemetry' as message_type, *,
  timestamp() + 2592000000 as ttl FROM 'van/+/telemetry'"""
# floor() keeps the attribute an integer; TTL ignores fractions but other readers may not.
FIXED_RULE_SQL = """SELECT *, topic(2) as thing_name, timestamp() as timestamp, 'telemetry' as message_type,
  floor(timestamp() / 1000) + 2592000 as ttl FROM 'van/+/telemetry'"""

# Topic level 3 -> message_type. The document has one rule ('telemetry' hard-coded), which alone
# can never produce the status and alert messages its patterns 2 and 3 look for: sibling rules on
# van/+/status and van/+/alert with the same shape are assumed (README, decisions).
TOPIC_MESSAGE_TYPES: dict[str, str] = {"telemetry": "telemetry", "status": "status", "alert": "alert"}


class TopicError(ValueError):
    """An MQTT topic that the van rules do not subscribe to."""


def parse_topic(topic: str) -> tuple[str, str]:
    """``van/<thing>/<kind>`` -> (thing_name, message_type); ``TopicError`` for any other topic."""
    parts = topic.split("/")
    if len(parts) != 3 or parts[0] != "van" or not parts[1] or parts[2] not in TOPIC_MESSAGE_TYPES:
        kinds = "|".join(TOPIC_MESSAGE_TYPES)
        raise TopicError(f"topic {topic!r} does not match van/+/{{{kinds}}}")
    return parts[1], TOPIC_MESSAGE_TYPES[parts[2]]


def _payload_fields(payload: bytes | str | Mapping[str, object]) -> dict[str, object]:
    # Decimal, not float: DynamoDB numbers are exact and the runtime refuses floats.
    if isinstance(payload, Mapping):
        return dict(payload)
    fields = json.loads(payload, parse_float=Decimal)
    if not isinstance(fields, dict):
        raise ValueError(f"payload must be a JSON object, got {type(fields).__name__}")
    return fields


def rule_output(
    topic: str, payload: bytes | str | Mapping[str, object], iot_timestamp_ms: int
) -> dict[str, object]:
    """The item the corrected rule writes: payload fields, then the rule's own fields.

    The rule's fields are applied last so a payload cannot pick another van's partition, another
    message type or its own expiry (the document does not say which wins; see README).
    """
    thing_name, message_type = parse_topic(topic)
    item = _payload_fields(payload)
    item.update(
        thing_name=thing_name,
        timestamp=iot_timestamp_ms,
        message_type=message_type,
        ttl=iot_timestamp_ms // 1000 + RETENTION_SECONDS,
    )
    return item


def document_rule_output(
    topic: str, payload: bytes | str | Mapping[str, object], iot_timestamp_ms: int
) -> dict:
    """The item the document's rule writes, ``ttl`` in milliseconds (kept only to show the bug)."""
    item = rule_output(topic, payload, iot_timestamp_ms)
    item["ttl"] = iot_timestamp_ms + DOCUMENT_TTL_OFFSET
    return item


class VanTelemetry:
    """The document's write path (IoT rule) and its four query patterns, over a Runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    @classmethod
    def open(cls, db: str | None = None) -> VanTelemetry:
        """A VanTelemetry on a fresh in-memory engine (or the SQLite file ``db``), tables created."""
        rt = Runtime.open(DESIGN, db=db)
        rt.create_tables()
        return cls(rt)

    def receive(
        self, topic: str, payload: bytes | str | Mapping[str, object], iot_timestamp_ms: int
    ) -> Record:
        """Store one MQTT message as the (corrected) IoT rule would; validated by the design first."""
        # The IoT rule's PutItem overwrites a redelivered message (MQTT QoS 1): an explicit replace.
        result = self.rt.replace("Message", rule_output(topic, payload, iot_timestamp_ms))
        assert result.record is not None
        return result.record

    def latest_messages(self, thing_name: str, since_ms: int, limit: int = 10) -> list[Record]:
        """Pattern 1: the newest ``limit`` messages of a van after ``since_ms``, newest first."""
        return self.rt.run("latest_messages", thing_name=thing_name, since=since_ms, limit=limit).items

    def recent_alerts(self, since_ms: int) -> list[Record]:
        """Pattern 2: every alert of every van after ``since_ms``, oldest first (MessageTypeIndex)."""
        return self.rt.run("recent_alerts", since=since_ms).items

    def device_status(self, thing_name: str) -> Record | None:
        """Pattern 3: the newest status message of a van, however many other messages came after it."""
        page = self.rt.run("device_status", thing_name=thing_name)
        return page.items[0] if page.items else None

    def time_range(self, thing_name: str, start_ms: int, end_ms: int) -> list[Record]:
        """Pattern 4: every message of a van with start <= timestamp <= end, oldest first."""
        if start_ms > end_ms:
            # DynamoDB would reject the BETWEEN with a ValidationException; say which bound is wrong.
            raise ValueError(f"time_range: start {start_ms} is after end {end_ms}")
        return self.rt.run("time_range", thing_name=thing_name, start=start_ms, end=end_ms).items
