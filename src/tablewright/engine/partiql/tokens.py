"""NextToken for ExecuteStatement: opaque, tamper-evident, and bound to the statement that issued it.

The token is base64url of a JSON payload (plan step, ExclusiveStartKey, a digest of the statement and
its parameters) followed by a keyed BLAKE2b tag. The key is fixed, not secret: the tag detects edited or
truncated tokens and the digest detects a token replayed with another statement, which is what a caller
of a local engine needs; forging one gives nothing a Query could not. A fixed key keeps tokens valid
across processes sharing one database file and across restarts.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import orjson

from .errors import invalid

_KEY = b"tablewright/partiql/next-token/1"
_TAG_BYTES = 16


def request_digest(statement: str, params: list[dict] | None) -> str:
    """What a token is bound to: the statement text and its parameters."""
    body = orjson.dumps([statement, params or []], option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(body, digest_size=12).hexdigest()


def issue(digest: str, step: int, start: dict[str, Any] | None) -> str:
    payload = orjson.dumps({"d": digest, "s": step, "k": start})
    tag = hashlib.blake2b(payload, key=_KEY, digest_size=_TAG_BYTES).digest()
    return base64.urlsafe_b64encode(payload + tag).decode("ascii")


def redeem(token: str, digest: str) -> tuple[int, dict[str, Any] | None]:
    """The (step, ExclusiveStartKey) a token carries; ValidationException when forged or foreign."""
    try:
        raw = base64.urlsafe_b64decode(token.encode("ascii"))
        payload, tag = raw[:-_TAG_BYTES], raw[-_TAG_BYTES:]
        expected = hashlib.blake2b(payload, key=_KEY, digest_size=_TAG_BYTES).digest()
        if not hmac.compare_digest(tag, expected):
            raise ValueError("tag")
        data = orjson.loads(payload)
        step, start, bound = data["s"], data["k"], data["d"]
    except (ValueError, KeyError, TypeError, UnicodeEncodeError):
        raise invalid("Invalid NextToken") from None
    if bound != digest:
        raise invalid("NextToken does not match request")
    return step, start
