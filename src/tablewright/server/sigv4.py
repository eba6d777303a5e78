"""Verifying AWS Signature Version 4 on incoming requests.

botocore can sign but not verify, so this module rebuilds the signature the way the SigV4
specification defines it: canonical request -> string to sign -> signing key (an HMAC chain over
date, region, service) -> HMAC-SHA256 of the string to sign; then compares it in constant time.
Errors use the codes and wording DynamoDB's front end uses.

Verification has two steps so that a request is refused before its body is read: :meth:`Verifier.check_headers`
decides everything the headers can (a known key, the credential scope, the date) and
:meth:`Verifier.check_body` compares the signature, whose payload hash is always computed from the
bytes received. An ``X-Amz-Content-Sha256`` header never stands in for that hash (not even
``UNSIGNED-PAYLOAD``), so a captured signature cannot carry another body.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import quote, unquote

from tablewright.server.errors import (
    IncompleteSignatureException,
    InvalidSignatureException,
    MissingAuthenticationTokenException,
    UnrecognizedClientException,
)

ALGORITHM = "AWS4-HMAC-SHA256"
SERVICE = "dynamodb"  # DynamoDB Streams signs with "dynamodb" too (botocore's signingName)
MAX_SKEW = timedelta(minutes=5)
_AMZ_DATE = "%Y%m%dT%H%M%SZ"
_SPACES = re.compile(r"\s+")
_BAD_SIGNATURE = (
    "The request signature we calculated does not match the signature you provided. "
    "Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
)


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()


def signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    """The SigV4 signing key: HMAC chain of date, region, service and "aws4_request"."""
    key = _hmac(("AWS4" + secret).encode("utf-8"), date)
    for part in (region, service, "aws4_request"):
        key = _hmac(key, part)
    return key


def _parse_authorization(header: str) -> dict[str, str]:
    """Split ``AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...`` into its fields."""
    algorithm, _, rest = header.strip().partition(" ")
    fields = {"Algorithm": algorithm}
    for part in rest.split(","):
        name, sep, value = part.strip().partition("=")
        if sep:
            fields[name] = value
    missing = [
        f"Authorization header requires '{name}' parameter."
        for name in ("Credential", "Signature", "SignedHeaders")
        if not fields.get(name)
    ]
    if algorithm != ALGORITHM:
        missing.insert(0, f"Unsupported signing algorithm '{algorithm}': only {ALGORITHM} is accepted.")
    if missing:
        raise IncompleteSignatureException(" ".join(missing) + f" Authorization={header}")
    return fields


def canonical_uri(path: str) -> str:
    """The path as SigV4 canonicalises it for non-S3 services (each segment URI-encoded)."""
    return quote(unquote(path) or "/", safe="/~")


def canonical_query(query: str) -> str:
    """Query parameters sorted by name then value, each part URI-encoded."""
    if not query:
        return ""
    pairs = []
    for part in query.split("&"):
        name, _, value = part.partition("=")
        pairs.append((quote(unquote(name), safe="-_.~"), quote(unquote(value), safe="-_.~")))
    return "&".join(f"{name}={value}" for name, value in sorted(pairs))


def canonical_request(
    method: str, path: str, query: str, headers: Mapping[str, str], signed: list[str], body: bytes
) -> str:
    """The SigV4 canonical request for what was received, over the headers the client signed.

    The payload hash is the SHA-256 of ``body``, whatever the request's headers claim.
    """
    lines = [method, canonical_uri(path), canonical_query(query)]
    lines += [f"{name}:{_SPACES.sub(' ', headers.get(name, '').strip())}" for name in signed]
    lines.append("")
    lines.append(";".join(signed))
    lines.append(hashlib.sha256(body).hexdigest())
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class SignedHeaders:
    """A request whose headers passed :meth:`Verifier.check_headers`; its signature is still to check."""

    access_key: str
    amz_date: str
    scope: str  # date/region/service/aws4_request
    signed: list[str]
    signature: str
    key: bytes


class Verifier:
    """Checks SigV4 signatures against a fixed set of access key id -> secret access key."""

    def __init__(
        self, credentials: Mapping[str, str], clock=None, regions: Collection[str] | None = None
    ) -> None:
        """``regions``: the regions a credential scope may name; None accepts any (as DynamoDB Local)."""
        self.credentials = dict(credentials)
        self.regions = frozenset(regions) if regions else None
        # The clock is injectable so tests can produce stale requests without sleeping.
        self.clock = clock or (lambda: datetime.now(UTC))
        self._keys: dict[tuple[str, str, str, str], bytes] = {}

    def _key(self, secret: str, date: str, region: str, service: str) -> bytes:
        # Deriving the key costs four HMACs; it changes only once a day per key and region.
        cache_key = (secret, date, region, service)
        key = self._keys.get(cache_key)
        if key is None:
            if len(self._keys) > 1024:
                self._keys.clear()
            key = self._keys[cache_key] = signing_key(secret, date, region, service)
        return key

    def _check_date(self, amz_date: str) -> None:
        try:
            when = datetime.strptime(amz_date, _AMZ_DATE).replace(tzinfo=UTC)
        except ValueError:
            raise IncompleteSignatureException(
                f"X-Amz-Date '{amz_date}' is not in ISO-8601 basic format (YYYYMMDD'T'HHMMSS'Z')."
            ) from None
        now = self.clock()
        if when < now - MAX_SKEW:
            raise InvalidSignatureException(
                f"Signature expired: {amz_date} is now earlier than "
                f"{(now - MAX_SKEW).strftime(_AMZ_DATE)} ({now.strftime(_AMZ_DATE)} - 5 min.)"
            )
        if when > now + MAX_SKEW:
            raise InvalidSignatureException(
                f"Signature not yet current: {amz_date} is still later than "
                f"{(now + MAX_SKEW).strftime(_AMZ_DATE)} ({now.strftime(_AMZ_DATE)} + 5 min.)"
            )

    def verify(self, method: str, path: str, query: str, headers: Mapping[str, str], body: bytes) -> str:
        """Check the request's signature; return the access key id or raise DynamoDB's error.

        ``headers`` maps lower-case names to values (repeated headers joined with ",").
        """
        return self.check_body(self.check_headers(headers), method, path, query, headers, body)

    def check_headers(self, headers: Mapping[str, str]) -> SignedHeaders:
        """Everything the headers decide: a known key, a credential scope for this service and an
        accepted region, a current date. Raise DynamoDB's error, before any body is read."""
        authorization = headers.get("authorization")
        if not authorization:
            raise MissingAuthenticationTokenException("Request is missing Authentication Token")
        fields = _parse_authorization(authorization)
        scope = fields["Credential"].split("/")
        if len(scope) != 5 or scope[4] != "aws4_request":
            raise IncompleteSignatureException(
                "Credential should be scoped to a valid region, not a malformed scope: "
                f"Credential={fields['Credential']}"
            )
        access_key, date, region, service, _ = scope
        secret = self.credentials.get(access_key)
        if secret is None:
            raise UnrecognizedClientException("The security token included in the request is invalid.")
        if service != SERVICE:
            raise InvalidSignatureException(f"Credential should be scoped to correct service: '{SERVICE}'. ")
        if self.regions is not None and region not in self.regions:
            accepted = ", ".join(sorted(self.regions))
            raise InvalidSignatureException(
                f"Credential should be scoped to a valid region, not '{region}'. "
                f"This endpoint accepts: {accepted}."
            )
        amz_date = headers.get("x-amz-date")
        if not amz_date:
            raise IncompleteSignatureException(
                "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
                f"Authorization={authorization}"
            )
        if amz_date[:8] != date:
            raise InvalidSignatureException(
                f"Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from "
                f"HTTP: '{date}' != '{amz_date[:8]}', from '{amz_date}'."
            )
        signed = fields["SignedHeaders"].split(";")
        if "host" not in signed:
            raise InvalidSignatureException("'Host' must be a 'SignedHeader' in the AWS Authorization.")
        self._check_date(amz_date)
        return SignedHeaders(
            access_key,
            amz_date,
            "/".join(scope[1:]),
            signed,
            fields["Signature"],
            self._key(secret, date, region, service),
        )

    def check_body(
        self,
        checked: SignedHeaders,
        method: str,
        path: str,
        query: str,
        headers: Mapping[str, str],
        body: bytes,
    ) -> str:
        """Compare the signature over the request as received; return the access key id."""
        claimed = headers.get("x-amz-content-sha256")
        if claimed is not None and claimed != hashlib.sha256(body).hexdigest():
            # Said plainly rather than as a bare signature mismatch: the header can never replace the hash.
            raise InvalidSignatureException(
                f"The X-Amz-Content-Sha256 header ('{claimed[:80]}') is not the SHA-256 of the body received; "
                "this endpoint signs the payload itself and accepts no UNSIGNED-PAYLOAD or other stand-in."
            )
        request = canonical_request(method, path, query, headers, checked.signed, body)
        to_sign = "\n".join(
            (ALGORITHM, checked.amz_date, checked.scope, hashlib.sha256(request.encode("utf-8")).hexdigest())
        )
        expected = hmac.new(checked.key, to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, checked.signature):
            raise InvalidSignatureException(_BAD_SIGNATURE)
        return checked.access_key
