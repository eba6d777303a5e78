"""The EVSE ingestion Lambda: ``handler.handler`` is its entry point (README, "Run it").

Called by the IoT Wireless destination's rule with one uplink event. Decodes the payload, resolves
the SC-ID (derived by the design from the UUID, checked against the registry in the write's own
transaction), appends the event and updates the device state in one TransactWriteItems
(``evse.ingest_uplink``). Daily statistics are the nightly job's (``jobs.py``): recomputed from
the day's events, they are exact whatever order uplinks arrive in, which an increment per uplink
is not under IoT's at-least-once delivery.

What the platform sees: an undecodable or invalid uplink, or one of an unregistered device, is
answered ``{"status": "rejected", "reason": ...}`` and logged, not raised: a retry would fail the
same way. A table error *is* raised, so Lambda retries it (the write is idempotent: a redelivery
is recognised as ``duplicate``).

Tables: ``EVSE_DB`` (a SQLite file of the embedded engine) or ``EVSE_ENDPOINT`` (a DynamoDB
endpoint URL); on AWS neither is set and the default endpoint of the Lambda's region is used.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import boto3  # noqa: E402
from evse import DESIGN, FutureEventError, ScIdCollisionError, UnknownDeviceError, ingest_uplink  # noqa: E402
from evse.uplink import UplinkError, decode_uplink  # noqa: E402

from tablewright.design import load  # noqa: E402
from tablewright.runtime import Runtime, ValidationError  # noqa: E402

LOG = logging.getLogger("evse.ingest")
_RUNTIME: Runtime | None = None  # one per Lambda container, reused across invocations


def runtime() -> Runtime:
    """The container's runtime, opened on first use from ``EVSE_DB`` / ``EVSE_ENDPOINT``."""
    global _RUNTIME
    if _RUNTIME is None:
        endpoint = os.environ.get("EVSE_ENDPOINT") or None
        db = os.environ.get("EVSE_DB") or None
        if endpoint is None and db is None and os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
            _RUNTIME = Runtime(load(DESIGN), boto3.client("dynamodb"))  # the region's DynamoDB
        else:
            _RUNTIME = Runtime.open(DESIGN, endpoint_url=endpoint, db=db)
    return _RUNTIME


def handler(event: Mapping[str, Any], context: object = None, *, rt: Runtime | None = None) -> dict[str, Any]:
    """Ingest one IoT Wireless uplink event; the answer says what became of it."""
    rt = rt or runtime()
    try:
        values = decode_uplink(event)
        result = ingest_uplink(rt, values)
    except (UplinkError, ValidationError, UnknownDeviceError, ScIdCollisionError, FutureEventError) as error:
        reason = f"{type(error).__name__}: {error}"
        LOG.warning("rejected uplink %s: %s", _logged(event), reason)
        return {"status": "rejected", "reason": reason}
    return {
        "status": result.status,
        "device_id": result.event["device_id"],
        "timestamp_mt": result.event["timestamp_mt"],
        "state_updated": result.state_updated,
        "collision_offset_ms": result.collision_offset_ms,
    }


def _logged(event: object) -> str:
    """The start of the event as JSON for the rejection log; an event nested too deeply for ``json``
    (a forged one) must still be answered ``rejected``, so the log names it instead."""
    try:
        return json.dumps(event, default=str)[:500]
    except (RecursionError, ValueError):
        return f"(a {type(event).__name__} nested too deeply to log)"
