"""Opaque, tamper-evident cursors: the position of a pattern run, signed with the runtime's secret.

A cursor is ``base64url(json).base64url(hmac_sha256)``. It carries the pattern name, a digest of
the parameters (a cursor cannot be replayed with other parameters to read other data), the bucket
or key offset, and DynamoDB's ``LastEvaluatedKey``. Any change to any byte is refused.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping
from decimal import Decimal

import orjson

from ..design.templates.filters import canonical_integer, canonical_number
from .errors import CursorError


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# The ints orjson writes itself; it refuses any other int rather than pass it to ``default``.
_ORJSON_INTS = range(-(2**63), 2**64)


def params_digest(params: Mapping[str, object]) -> str:
    """A short stable digest of a parameter set: one per set of values, however they are spelled."""
    data = orjson.dumps(_digestible(params), default=repr, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(data).hexdigest()[:16]


def _digestible(value: object) -> object:
    """``value`` as the digest writes it. An integral ``Decimal`` is its int and any other finite one
    is spelled as keys spell it (``Decimal("5")``, how boto3 reads numbers back, was another
    parameter set than ``5``: the next page of a run was refused). An int orjson cannot write
    (``10**21``) is a JSON number fragment of its digits. Everything else is left as it is, so the
    digest of a parameter set without such numbers, and the cursors made with it, stay valid.
    Binary values digest as ``bytes`` whether given as bytes, ``bytearray`` or ``memoryview``."""
    if isinstance(value, Decimal) and value.is_finite():
        whole = canonical_integer(value)
        value = whole if whole is not None else Decimal(canonical_number(value))
    if isinstance(value, bytearray | memoryview):
        return bytes(value)  # one B value however the caller holds it; bytes keep their digest
    if isinstance(value, int) and value not in _ORJSON_INTS:
        return orjson.Fragment(str(value).encode())
    if isinstance(value, dict):
        return {name: _digestible(item) for name, item in value.items()}
    if isinstance(value, list | tuple):
        return [_digestible(item) for item in value]
    return value


def _key_to_json(key: Mapping[str, Mapping[str, object]] | None) -> dict | None:
    # Wire keys hold S, N or B; B arrives as bytes from botocore and JSON needs text.
    # Sorted by name: DynamoDB (and the engine) give LastEvaluatedKey's attributes in no fixed
    # order, and one position should have one cursor text (clients cache pages by cursor).
    if key is None:
        return None
    return {
        name: ["B", _b64(bytes(value["B"]))]
        if "B" in value
        else [next(iter(value)), next(iter(value.values()))]
        for name, value in sorted(key.items())
    }


def _key_from_json(data: Mapping[str, list] | None) -> dict | None:
    if data is None:
        return None
    return {name: {kind: _unb64(text) if kind == "B" else text} for name, (kind, text) in data.items()}


class CursorCodec:
    """Signs and checks cursors with one secret."""

    def __init__(self, secret: bytes) -> None:
        self.secret = secret

    def _sign(self, body: bytes) -> bytes:
        return hmac.new(self.secret, body, hashlib.sha256).digest()

    def encode(self, pattern: str, params: Mapping[str, object], position: int, key: Mapping | None) -> str:
        """A cursor for ``pattern`` at bucket/offset ``position`` and wire ``key``."""
        body = orjson.dumps({"p": pattern, "h": params_digest(params), "b": position, "k": _key_to_json(key)})
        return f"{_b64(body)}.{_b64(self._sign(body))}"

    def decode(self, token: str, pattern: str, params: Mapping[str, object]) -> tuple[int, dict | None]:
        """``(position, ExclusiveStartKey)`` of a cursor; ``CursorError`` if it was not made here for
        this pattern and these parameters, or was changed in any way."""
        if not isinstance(token, str):
            # bytes from a request body included: the cursor is the text a page gave.
            raise CursorError(
                f"cursor for pattern {pattern!r} is {type(token).__name__}, not the str page.cursor was"
            )
        try:
            body_text, signature_text = token.split(".")
            body, signature = _unb64(body_text), _unb64(signature_text)
        except (ValueError, AttributeError) as exc:
            raise CursorError(f"cursor for pattern {pattern!r} is malformed ({exc})") from None
        if not hmac.compare_digest(signature, self._sign(body)):
            raise CursorError(
                f"cursor for pattern {pattern!r} was modified or was not issued by this runtime (bad signature)"
            )
        data = orjson.loads(body)
        if data["p"] != pattern:
            raise CursorError(f"cursor belongs to pattern {data['p']!r}, not {pattern!r}")
        if data["h"] != params_digest(params):
            raise CursorError(f"cursor for pattern {pattern!r} was issued for different parameters")
        return int(data["b"]), _key_from_json(data["k"])
