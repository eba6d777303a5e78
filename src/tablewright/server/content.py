"""Content codings: compressed request bodies in, compressed response bodies out, as DynamoDB does.

Requests: a body sent with ``Content-Encoding: gzip`` or ``deflate`` (the AWS SDKs' request
compression; the signature covers the compressed bytes) is decompressed before it is parsed, and
the request size limit applies to what it decompresses to, so a small body cannot expand into an
unbounded one. A coding the service does not know, or a body that is not what its label says, is
answered with 500 ``InternalFailure`` as DynamoDB answers it; nothing is executed.

Responses: :func:`negotiate` reads the ``Accept-Encoding`` header by DynamoDB's rules and
:func:`compress` applies the choice to bodies over :data:`COMPRESS_OVER` bytes.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable
from functools import lru_cache

from tablewright.server.errors import InternalFailure, RequestEntityTooLarge

# DynamoDB compresses a response only when its body is larger than this.
COMPRESS_OVER = 4096
# zlib's window-bits argument selects the container: 16+ is gzip, plain 15 is the zlib format that
# HTTP calls "deflate" (RFC 9110 section 8.4.1.2).
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_ZLIB_WBITS = zlib.MAX_WBITS


class _Expanded(Exception):
    """The body decompresses to more than the limit."""


def _inflate(data: bytes, wbits: int, limit: int, members: bool) -> bytes:
    """Decompress ``data`` without ever holding more than ``limit`` + 1 bytes of output.

    ``members``: several complete streams may follow one another (gzip's members), read as one.
    Raises zlib.error for data that is not a complete stream of this format, _Expanded past ``limit``.
    """
    parts: list[bytes] = []
    size = 0
    while True:
        inflater = zlib.decompressobj(wbits)
        pending = data
        while pending and not inflater.eof:
            chunk = inflater.decompress(pending, limit - size + 1)
            size += len(chunk)
            if size > limit:
                raise _Expanded
            parts.append(chunk)
            pending = inflater.unconsumed_tail
        if not inflater.eof:
            raise zlib.error("the compressed data ends before its stream does (truncated or empty)")
        data = inflater.unused_data
        if not data:
            return b"".join(parts)
        if not members:
            raise zlib.error(f"{len(data)} bytes follow the end of the compressed stream")


# Request codings: name -> decompress(body, limit). Data, not code: a coding is one entry.
_DECODERS: dict[str, Callable[[bytes, int], bytes]] = {
    "gzip": lambda body, limit: _inflate(body, _GZIP_WBITS, limit, members=True),
    "deflate": lambda body, limit: _inflate(body, _ZLIB_WBITS, limit, members=False),
    "identity": lambda body, limit: body,
}


def decode_body(content_encoding: str | None, body: bytes, limit: int) -> bytes:
    """``body`` with its ``Content-Encoding`` undone (codings are listed in the order applied).

    Raises InternalFailure (500) for an unknown coding or data that is not in the coding named,
    RequestEntityTooLarge (413) when the result would exceed ``limit`` bytes.
    """
    if not content_encoding or not content_encoding.strip():
        return body
    codings = [coding.strip().lower() for coding in content_encoding.split(",")]
    for coding in reversed(codings):
        decoder = _DECODERS.get(coding)
        if decoder is None:
            known = ", ".join(name for name in _DECODERS if name != "identity")
            raise InternalFailure(
                f"Content-Encoding '{content_encoding}' names coding '{coding}', which the service "
                f"does not decode; request bodies may be compressed with {known}"
            )
        try:
            body = decoder(body, limit)
        except _Expanded:
            raise RequestEntityTooLarge(
                f"Request body decompresses ({coding}) to more than the limit of {limit} bytes"
            ) from None
        except zlib.error as exc:
            raise InternalFailure(
                f"Request body is labelled Content-Encoding '{coding}' but is not valid {coding} data: {exc}"
            ) from None
    return body


# Level 1: compressing runs on the event loop; a 1.5 MB Scan page takes 6 ms at level 1 and 60 ms
# at zlib's default 6 for 20% smaller output, which a local endpoint does not need.
_LEVEL = 1
# Response codings DynamoDB produces, in the order it prefers them when q-values tie at '*'.
_ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": lambda body: zlib.compress(body, _LEVEL, wbits=_GZIP_WBITS),
    "deflate": lambda body: zlib.compress(body, _LEVEL, wbits=_ZLIB_WBITS),
}
# One Accept-Encoding entry: a token (RFC 9110 tchar) and optional ";name=value" parameters.
_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_ENTRY = re.compile(rf"({_TOKEN})((?:\s*;\s*{_TOKEN}\s*=\s*[^;,\s]*)*)")
_PARAM = re.compile(rf";\s*({_TOKEN})\s*=\s*([^;,\s]*)")
_QVALUE = re.compile(r"\d+(?:\.\d*)?")


def _weight(parameters: str) -> float | None:
    """The entry's q-value (first q wins, above 1 counts as 1); None if one is malformed."""
    for name, value in _PARAM.findall(parameters):
        if name.lower() != "q":
            continue
        if not _QVALUE.fullmatch(value):
            return None
        return min(float(value), 1.0)
    return 1.0


@lru_cache(maxsize=256)  # the same header on every request of a client
def negotiate(accept_encoding: str | None) -> str | None:
    """The coding DynamoDB picks for ``Accept-Encoding`` (its first header line), or None.

    gzip and deflate are the codings produced; names are case-insensitive; the highest q wins and,
    among equal q, the one listed first; ``q=0`` refuses a coding; ``*`` stands for every coding not
    named (gzip before deflate); anything else (identity, br, x-gzip, ...) is skipped; q over 1
    counts as 1; a malformed entry means no compression at all.
    """
    if not accept_encoding:
        return None
    named: dict[str, tuple[float, int]] = {}  # coding -> (q, position)
    star: tuple[float, int] | None = None
    for position, entry in enumerate(accept_encoding.split(",")):
        entry = entry.strip()
        if not entry:
            continue
        match = _ENTRY.fullmatch(entry)
        if match is None:
            return None
        weight = _weight(match.group(2))
        if weight is None:
            return None
        coding = match.group(1).lower()
        if coding == "*":
            star = star or (weight, position)
        elif coding in _ENCODERS:
            named.setdefault(coding, (weight, position))
    offers = []
    for rank, coding in enumerate(_ENCODERS):
        weight, position = named.get(coding) or star or (0.0, 0)
        if weight > 0:
            offers.append((-weight, position, rank, coding))
    return min(offers)[3] if offers else None


def compress(coding: str | None, body: bytes) -> bytes | None:
    """``body`` compressed with ``coding`` if DynamoDB would compress it (over 4096 bytes), else None."""
    if coding is None or len(body) <= COMPRESS_OVER:
        return None
    return _ENCODERS[coding](body)
