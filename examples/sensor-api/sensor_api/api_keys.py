"""API keys (table ``api_keys``): created once, stored as a peppered SHA-256, found by hash.

``hash = SHA256(API_KEY_PEPPER + raw_api_key)``; the raw key (64 hex digits, 32 random bytes from
``secrets``) is returned once by ``create_api_key`` and never stored. ``authenticate`` finds the key
through ``api_key_hash_index`` and records ``last_used_at`` at most once per 5 minutes with one
conditional UpdateItem, so any number of concurrent requests write it once.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from botocore.exceptions import ClientError

from tablewright.runtime import Page, Record, Runtime
from tablewright.runtime.wire import item_to_wire

from .clock import rfc3339, utc_now

PEPPER_VARIABLE = "API_KEY_PEPPER"
PEPPER_FILE_VARIABLE = "API_KEY_PEPPER_FILE"
RAW_KEY_BYTES = 32  # "64-character hex string (32 bytes random)"
LAST_USED_INTERVAL = timedelta(minutes=5)
_RAW_KEY = re.compile(r"^[0-9a-f]{64}$")


class PepperMissingError(RuntimeError):
    """The pepper environment variable is unset or empty: hashes would be unpeppered."""


@dataclass
class CreatedKey:
    """A new key: ``raw_key`` is shown to the admin once; ``record`` is what is stored."""

    raw_key: str
    record: Record


def pepper() -> str:
    """The pepper from ``API_KEY_PEPPER``; refuses to run without one."""
    value = os.environ.get(PEPPER_VARIABLE, "")
    if not value:
        raise PepperMissingError(
            f"environment variable {PEPPER_VARIABLE} is not set: API keys cannot be hashed"
        )
    return value


def hash_key(raw_key: str, pepper_value: str | None = None) -> str:
    """``SHA256(pepper + raw_key)`` as 64 lower-case hex digits."""
    return hashlib.sha256(((pepper_value or pepper()) + raw_key).encode()).hexdigest()


def create_api_key(
    rt: Runtime,
    description: str | None = None,
    *,
    now: datetime | None = None,
    pepper_value: str | None = None,
) -> CreatedKey:
    """Create an active key; the only place the raw key ever exists is the returned value."""
    raw_key = secrets.token_hex(RAW_KEY_BYTES)
    values: dict[str, object] = {
        "key_id": str(uuid.uuid4()),
        "api_key_hash": hash_key(raw_key, pepper_value),
        "is_active": True,
    }
    if description is not None:
        values["description"] = description
    result = rt.put("ApiKey", values, now=utc_now(now))
    return CreatedKey(raw_key, result.record)  # type: ignore[arg-type]


def authenticate(
    rt: Runtime, raw_key: str, *, now: datetime | None = None, pepper_value: str | None = None
) -> Record | None:
    """The active key record for a presented raw key, or None; marks it used (throttled)."""
    status, record = key_status(rt, raw_key, now=now, pepper_value=pepper_value)
    return record if status == "active" else None


def key_status(
    rt: Runtime, raw_key: str, *, now: datetime | None = None, pepper_value: str | None = None
) -> tuple[str, Record | None]:
    """``("active", record)`` (marked used), ``("revoked", record)`` or ``("unknown", None)``."""
    if not isinstance(raw_key, str) or not _RAW_KEY.fullmatch(raw_key):  # `$` matches before a final \n
        return "unknown", None  # not a key we could have issued: no lookup, no timing signal
    found = list(rt.run("api_key_by_hash", api_key_hash=hash_key(raw_key, pepper_value)))
    active = [r for r in found if r["is_active"]]
    if active:
        cutoff = rfc3339(utc_now(now) - LAST_USED_INTERVAL)
        if active[0].get("last_used_at") is None or active[0]["last_used_at"] <= cutoff:
            # Only a key not marked in the last 5 minutes pays the UpdateItem (its condition still
            # decides between concurrent requests); every other request reads only.
            touch_last_used(rt, active[0]["key_id"], now=now)
        return "active", active[0]
    return ("revoked", found[0]) if found else ("unknown", None)


def load_pepper(path: str | os.PathLike | None = None) -> str:
    """The pepper from the secret file ``path`` (or ``API_KEY_PEPPER_FILE``), else ``API_KEY_PEPPER``.

    A secret file is what container platforms mount (Docker/Kubernetes secrets); its trailing
    newline is not part of the pepper. Refuses an empty pepper either way.
    """
    path = path or os.environ.get(PEPPER_FILE_VARIABLE) or None
    if path is None:
        return pepper()
    try:
        value = Path(path).read_text(encoding="utf-8").rstrip("\r\n")
    except OSError as error:
        raise PepperMissingError(f"pepper file {path}: {error.strerror or error}") from None
    if not value:
        raise PepperMissingError(f"pepper file {path} is empty: API keys cannot be hashed")
    return value


def touch_last_used(rt: Runtime, key_id: str, *, now: datetime | None = None) -> bool:
    """Set ``last_used_at`` unless it was set less than 5 minutes ago; True when this call wrote it.

    One conditional UpdateItem (the document's "UpdateItem ... throttled to 5-minute intervals"):
    DynamoDB serialises writes to an item, so of N concurrent calls exactly one passes the
    condition. The runtime's update writes the whole item and cannot state this condition, and a
    whole-item write here could also undo a concurrent revoke; this touches one attribute only.
    """
    moment = utc_now(now)
    stamp = rfc3339(moment)
    table = rt.design.table_of("ApiKey")
    try:
        rt.client.update_item(
            TableName=table.table_name,
            Key=item_to_wire({"key_id": key_id}),
            UpdateExpression="SET #used = :now",
            ConditionExpression="attribute_exists(#id) AND #active = :true AND "
            "(attribute_not_exists(#used) OR #used <= :cutoff)",
            ExpressionAttributeNames={"#used": "last_used_at", "#id": "key_id", "#active": "is_active"},
            ExpressionAttributeValues=item_to_wire(
                {":now": stamp, ":true": True, ":cutoff": rfc3339(moment - LAST_USED_INTERVAL)}
            ),
        )
    except ClientError as error:
        if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
            return False
        raise
    return True


def revoke_api_key(rt: Runtime, key_id: str) -> Record:
    """Deactivate a key (``is_active = false``); ``NotFoundError`` for an unknown key_id."""
    return rt.update("ApiKey", {"key_id": key_id}, {"is_active": False}).record  # type: ignore[return-value]


def api_keys_by_creation(rt: Runtime, *, limit: int | None = None, cursor: str | None = None) -> Page:
    """API keys, newest first (gsi1)."""
    return rt.run("api_keys_by_creation", limit=limit, cursor=cursor)
