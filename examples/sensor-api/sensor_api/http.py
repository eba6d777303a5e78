"""HTTP plumbing of the service: JSON in and out, errors that name the field, credentials, throttling.

Everything here is about the wire, nothing about tables: ``service`` holds the routes and calls the
domain modules (``devices``, ``ingestion``, ``readings``, ``api_keys``).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import threading
import time
from collections.abc import Iterable, Mapping
from decimal import Decimal
from json.encoder import encode_basestring_ascii

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

MAX_BODY_BYTES = 1_048_576  # 100 readings are ~50 KB; anything near 1 MB is not a batch
BODY_SECONDS = 30.0  # a device on a slow link sends 50 KB in well under that (README, D17)


class ApiError(Exception):
    """An answer other than success: status, a machine-readable code, a sentence, the fields at fault."""

    def __init__(
        self, status: int, code: str, message: str, fields: Iterable[Mapping[str, str]] = (), **headers: str
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.fields = list(fields)
        self.headers = headers


def field_error(field: str, rule: str, message: str) -> ApiError:
    """422 for one field."""
    return ApiError(
        422, "validation_failed", f"{field}: {message}", [{"field": field, "rule": rule, "message": message}]
    )


def number_text(value: Decimal) -> str:
    """A DynamoDB number (up to 38 digits) as the JSON number it is, digit for digit: a float would
    round 0.12345678901234567890123 to 0.12345678901234568. Whole numbers without an exponent
    (1E+38 is written 100000000000000000000000000000000000000); others as Decimal spells them
    (``1.5E-7`` is JSON)."""
    if not value.is_finite():
        raise ValueError(f"{value} is not a number JSON allows")
    if value == value.to_integral_value():
        return str(int(value))
    return str(value)


def json_text(content: object) -> str:
    """``content`` as compact JSON, Decimals exactly (``number_text``).

    The standard encoder can only turn a Decimal into another value (a float: rounded); orjson can
    write one exactly (``Fragment``) but refuses text json accepts (a lone surrogate, in a field
    name a client sent) and integers past 64 bits. So the containers are walked here, and text is
    escaped by json's own encoder.
    """
    parts: list[str] = []
    _write(content, parts)
    return "".join(parts)


_LITERALS = {True: "true", False: "false"}


def _write(value: object, parts: list[str]) -> None:
    if isinstance(value, str):
        parts.append(encode_basestring_ascii(value))
    elif value is None:
        parts.append("null")
    elif isinstance(value, bool):
        parts.append(_LITERALS[value])
    elif isinstance(value, Decimal):
        parts.append(number_text(value))
    elif isinstance(value, int | float):
        parts.append(json.dumps(value, allow_nan=False))  # NaN and Infinity are no JSON
    elif isinstance(value, Mapping):
        parts.append("{")
        for position, (key, item) in enumerate(value.items()):
            if not isinstance(key, str):
                raise TypeError(f"a JSON object's keys are strings, not {type(key).__name__}")
            parts.append("," if position else "")
            parts.append(encode_basestring_ascii(key) + ":")
            _write(item, parts)
        parts.append("}")
    elif isinstance(value, list | tuple | set | frozenset):
        items = sorted(value) if isinstance(value, set | frozenset) else value  # a stored set: in order
        parts.append("[")
        for position, item in enumerate(items):
            parts.append("," if position else "")
            _write(item, parts)
        parts.append("]")
    else:
        raise TypeError(f"{type(value).__name__} is not JSON")


class JsonResponse(Response):
    """JSON with DynamoDB numbers (Decimal) written as JSON numbers, exactly."""

    media_type = "application/json"

    def render(self, content: object) -> bytes:
        return json_text(content).encode()


def error_response(error: ApiError) -> JsonResponse:
    body: dict[str, object] = {"error": error.code, "message": error.message}
    if error.fields:
        body["fields"] = error.fields
    return JsonResponse(body, status_code=error.status, headers=error.headers or None)


async def _bounded_body(request: Request, seconds: float) -> bytes:
    # A chunked body declares no length: count as it arrives, so 20 MB is refused at the first MB
    # rather than buffered whole before the check. A body that stops short of its Content-Length
    # (or a chunked one that never ends) would hold the connection and its task for ever: it has
    # ``seconds`` to arrive whole.
    received = bytearray()
    try:
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                received += chunk
                if len(received) > MAX_BODY_BYTES:
                    raise ApiError(413, "body_too_large", f"the body is larger than {MAX_BODY_BYTES} bytes")
    except TimeoutError:
        raise ApiError(
            408, "body_timeout", f"the body did not arrive whole within {seconds:g} s", Connection="close"
        ) from None
    except ClientDisconnect:  # nobody is left to read an answer, but the log gets no traceback either
        raise ApiError(
            400, "incomplete_body", "the client closed the connection before the body ended"
        ) from None
    return bytes(received)


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    # {"hardware_id": "X", "hardware_id": "Y"} would otherwise mean whichever came last.
    body: dict[str, object] = {}
    for key, value in pairs:
        if key in body:
            raise ValueError(f"the key {key!r} appears twice in one object")
        body[key] = value
    return body


def _no_constants(name: str) -> object:
    raise ValueError(f"{name} is not a number JSON allows")


async def json_body(request: Request, seconds: float = BODY_SECONDS) -> dict[str, object]:
    """The request's JSON object; numbers as Decimal (exact, what DynamoDB stores); 400/408/413/415/422
    otherwise (408: the body took longer than ``seconds`` to arrive)."""
    media_type = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if media_type != "application/json" and not media_type.endswith("+json"):
        raise ApiError(
            415, "unsupported_media_type", f"send JSON (Content-Type: application/json), not {media_type}"
        )
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise ApiError(413, "body_too_large", f"the body is larger than {MAX_BODY_BYTES} bytes")
    raw = await _bounded_body(request, seconds)
    try:
        # UTF-8 only (RFC 8259 section 8.1): json.loads would also guess UTF-16 and 32 from bytes.
        text = raw.decode("utf-8")
        body = json.loads(text, parse_float=Decimal, parse_constant=_no_constants, object_pairs_hook=_unique)
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiError(400, "malformed_json", f"the body is not JSON: {error}") from None
    except RecursionError:  # the parser recurses: thousands of nested brackets are no request of ours
        raise ApiError(400, "malformed_json", "the body nests too deeply to be a request") from None
    if not isinstance(body, dict):
        raise field_error("body", "type", f"expected a JSON object, got {type(body).__name__}")
    return body


def check_fields(
    body: Mapping[str, object],
    required: Mapping[str, type | tuple[type, ...]],
    optional: Mapping[str, object],
) -> None:
    """Every missing, mistyped or unknown top-level field, all at once (422 naming each)."""
    problems = []
    for name, kind in required.items():
        if name not in body or body[name] is None:
            problems.append({"field": name, "rule": "required", "message": "is required"})
        elif not isinstance(body[name], kind) or isinstance(body[name], bool) and kind is not bool:
            problems.append({"field": name, "rule": "type", "message": f"must be {_kind_name(kind)}"})
    for name in body:
        if name not in required and name not in optional:
            problems.append(
                {"field": name, "rule": "unknown_field", "message": "is not a field of this request"}
            )
    if problems:
        raise ApiError(
            422, "validation_failed", "; ".join(f"{p['field']}: {p['message']}" for p in problems), problems
        )


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", dict: "an object", list: "an array", bool: "a boolean"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


_WHOLE = re.compile(r"-?[0-9]+")


def int_param(request: Request, name: str, *, required: bool, low: int, high: int) -> int | None:
    """A whole-number query parameter within [low, high]; 422 naming it otherwise."""
    text = request.query_params.get(name)
    if text is None or text.strip() == "":
        if required:
            raise field_error(name, "required", "is required")
        return None
    # ASCII digits only: int() would also take "1_000", "+5" and other scripts' digits ("٥").
    text = text.strip()
    if not _WHOLE.fullmatch(text):
        raise field_error(name, "type", f"must be a whole number, got {_shown(text)}")
    # More digits than the bounds have is out of range, said without int(), which refuses over
    # 4,300 digits with a ValueError (leading zeros count) and takes quadratic time on the way.
    sign, digits = ("-" if text.startswith("-") else ""), text.lstrip("-").lstrip("0") or "0"
    if len(digits) > max(len(str(abs(low))), len(str(abs(high)))):
        raise field_error(name, "range", f"must be between {low} and {high}, got {_shown(text)}")
    value = int(sign + digits)
    if not low <= value <= high:
        raise field_error(name, "range", f"must be between {low} and {high}, got {value}")
    return value


def _shown(text: str, limit: int = 40) -> str:
    # A 5,000-digit parameter is named, not echoed whole into the answer.
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} characters)"


class Throttle:
    """A token bucket per API key: ``rate`` requests a second, bursts up to ``burst``.

    In-process, so it limits one service process; a fleet of them behind a load balancer would
    share the limit through API Gateway usage plans instead (README).
    """

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def admit(self, key_id: str) -> None:
        """Take one token for ``key_id`` or raise 429 with the seconds until the next one."""
        if self.rate <= 0:
            return
        now = time.monotonic()
        with self._lock:
            tokens, stamp = self._buckets.get(key_id, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - stamp) * self.rate)
            if tokens < 1:
                self._buckets[key_id] = (tokens, now)
                wait = math.ceil((1 - tokens) / self.rate)
                raise ApiError(
                    429,
                    "throttled",
                    f"more than {self.rate:g} requests/s for this API key",
                    **{"Retry-After": str(wait)},
                )
            self._buckets[key_id] = (tokens - 1, now)
