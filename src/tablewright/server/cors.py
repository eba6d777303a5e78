"""CORS, so that a page on another origin (the explorer, a team's own tool) can call the endpoint.

As DynamoDB does it: a request carrying ``Origin`` is answered with ``Access-Control-Allow-Origin: *``
and the response headers a script may read; a pre-flight ``OPTIONS`` also gets how long to cache
the answer and, echoed back, the method and headers it asked to use. Without ``Origin`` nothing
is added. Credentials are never part of CORS here: requests are signed, not cookie-authenticated.
"""

from __future__ import annotations

from collections.abc import Mapping

# What a script may read. DynamoDB does not expose x-amz-crc32 (the JS SDK skips that check in
# browsers for this reason); the exact list is not documented, this is the set SDKs read.
EXPOSE_HEADERS = "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date"
# Seconds a browser may cache a pre-flight answer (two days; DynamoDB sends the header, its value
# is not documented).
MAX_AGE = "172800"
# Pre-flight request header -> the response header that grants it.
_ECHOED = {
    "access-control-request-method": "Access-Control-Allow-Methods",
    "access-control-request-headers": "Access-Control-Allow-Headers",
}


def cors_headers(method: str, headers: Mapping[str, str]) -> list[tuple[str, str]]:
    """The CORS response headers for a request (lower-case ``headers``); empty without ``Origin``."""
    if "origin" not in headers:
        return []
    answer = [("Access-Control-Allow-Origin", "*"), ("Access-Control-Expose-Headers", EXPOSE_HEADERS)]
    if method == "OPTIONS":
        answer.append(("Access-Control-Max-Age", MAX_AGE))
        answer += [(granted, headers[asked]) for asked, granted in _ECHOED.items() if asked in headers]
    return answer
