"""IoT Wireless uplink events -> Event values: the decoding the ingestion Lambda does first.

An AWS IoT Wireless (Sidewalk) destination hands the Lambda ``{"WirelessDeviceId": uuid,
"PayloadData": base64, "WirelessMetadata": {"Sidewalk": {"Timestamp": RFC 3339, "Seq": n, ...}}}``.
The ADR does not fix the payload's encoding; decision (README): the charger firmware sends one JSON
object (``event_type`` and that type's fields) and the network's receive ``Timestamp`` is the
event's instant (``timestamp``, Unix ms), so a late delivery keeps the time it happened.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal

from tablewright.design.timeutil import parse_rfc3339

# Derived by the design, never taken from a payload (same rule as the migration's).
DERIVED = ("device_id", "timestamp_mt", "timestamp", "wireless_device_id", "collision_offset_ms")
# DynamoDB stores maps and lists nested 32 levels deep, counting a top-level attribute as level 1:
# a map or list may sit at level 31 at most. Deeper cannot be stored, so no retry can fix it.
DYNAMODB_NESTING_LEVELS = 32


class UplinkError(ValueError):
    """The uplink cannot be decoded into an event: says which part and why."""


def encode_uplink(
    wireless_device_id: str, timestamp_ms: int, body: Mapping[str, object], seq: int = 0
) -> dict:
    """The IoT Wireless event for one payload (what the simulator sends; the inverse of ``decode``)."""
    payload = json.dumps(dict(body), default=_number, separators=(",", ":")).encode()
    moment = datetime.fromtimestamp(timestamp_ms / 1000, UTC)
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{timestamp_ms % 1000:03d}Z"
    return {
        "WirelessDeviceId": wireless_device_id,
        "PayloadData": base64.b64encode(payload).decode(),
        "WirelessMetadata": {"Sidewalk": {"Timestamp": stamp, "Seq": seq}},
    }


def _number(value: object) -> object:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def decode_uplink(message: Mapping[str, object]) -> dict[str, object]:
    """The Event values of one uplink; ``UplinkError`` naming the field at fault."""
    if not isinstance(message, Mapping):
        raise UplinkError(f"the event is a {type(message).__name__}, not an object")
    wireless = message.get("WirelessDeviceId")
    if not isinstance(wireless, str) or not wireless:
        raise UplinkError("WirelessDeviceId is missing or not a string")
    payload = message.get("PayloadData")
    if not isinstance(payload, str):
        raise UplinkError(f"PayloadData is missing or not a base64 string ({type(payload).__name__})")
    try:
        raw = base64.b64decode(payload, validate=True)
        body = json.loads(raw, parse_float=Decimal, object_pairs_hook=_object_without_repeats)
    except UplinkError:
        raise
    except (binascii.Error, ValueError) as error:
        raise UplinkError(f"PayloadData is not base64 JSON: {error}") from None
    except RecursionError:  # the parser recurses: no uplink nests thousands deep
        raise UplinkError("PayloadData nests too deeply to be an uplink") from None
    if not isinstance(body, dict):
        raise UplinkError(f"PayloadData holds a {type(body).__name__}, not an object")
    _refuse_deep_nesting(body)
    named = sorted(set(body) & set(DERIVED))
    if named:
        raise UplinkError(f"PayloadData names derived attributes {', '.join(named)}")
    return {**body, "wireless_device_id": wireless, "timestamp": _received_ms(message)}


def _object_without_repeats(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object, refused when it names a key twice: ``json`` would keep the last silently, so
    ``{"event_type": "telemetry", "event_type": "interlock"}`` would be stored as an interlock."""
    body: dict[str, object] = {}
    for key, value in pairs:
        if key in body:
            raise UplinkError(f"PayloadData names {key!r} twice")
        body[key] = value
    return body


def _refuse_deep_nesting(body: Mapping[str, object]) -> None:
    """Refuse maps and lists nested deeper than DynamoDB stores, walked without recursion (the
    validation further on recurses: a payload nested hundreds deep would end it in RecursionError)."""
    pending: list[tuple[object, int]] = [(value, 1) for value in body.values()]
    while pending:
        value, level = pending.pop()
        if not isinstance(value, dict | list):
            continue
        if level >= DYNAMODB_NESTING_LEVELS:
            raise UplinkError(
                f"PayloadData nests maps and lists deeper than DynamoDB's {DYNAMODB_NESTING_LEVELS} levels"
            )
        members = value.values() if isinstance(value, dict) else value
        pending.extend((member, level + 1) for member in members)


def _received_ms(message: Mapping[str, object]) -> int:
    metadata = message.get("WirelessMetadata")
    sidewalk = metadata.get("Sidewalk") if isinstance(metadata, Mapping) else None
    stamp = sidewalk.get("Timestamp") if isinstance(sidewalk, Mapping) else None
    if stamp is None:
        raise UplinkError("WirelessMetadata.Sidewalk.Timestamp is missing")
    if not isinstance(stamp, str):
        raise UplinkError(f"WirelessMetadata.Sidewalk.Timestamp {stamp!r} is not an RFC 3339 string")
    try:  # RFC 3339 as written (a lower-case t or z included), not any ISO 8601 spelling
        moment = parse_rfc3339(stamp.strip())
    except ValueError:
        raise UplinkError(
            f"WirelessMetadata.Sidewalk.Timestamp {stamp!r} is not RFC 3339 (YYYY-MM-DDTHH:MM:SS[.fff]Z or +hh:mm)"
        ) from None
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
