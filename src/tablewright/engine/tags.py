"""DynamoDB's rules for resource tags: how many, how long, and which characters.

DynamoDB documents tag keys of 1-128 and values of 0-256 Unicode characters made of letters, digits,
whitespace and ``+ - = . _ : /``, at most 50 tags per resource, and at least one tag per TagResource.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import ValidationException
from .validation.messages import validation_error

MAX_TAGS = 50
_PATTERN = r"[\p{L}\p{Z}\p{N}_.:/=+\-]*"
# Python's re has no \p{..}: \w is letters, digits and "_" (Unicode-aware); \s is whitespace.
_ALLOWED = re.compile(r"[\w\s.:/=+\-]*")
_LIMITS = {"key": (1, 128), "value": (0, 256)}


def check_tags(tags: list[dict[str, Any]], path: str = "tags") -> dict[str, str]:
    """The tags of a request as a dict, or DynamoDB's ValidationException for the first bad one."""
    violations = []
    for number, tag in enumerate(tags, 1):
        for field_name in ("key", "value"):
            text = tag.get(field_name.capitalize())
            low, high = _LIMITS[field_name]
            where = f"{path}.{number}.member.{field_name}"
            if not isinstance(text, str):
                continue  # the request model's checks report a missing key or value
            if not low <= len(text) <= high:
                bound = (
                    f"greater than or equal to {low}" if len(text) < low else f"less than or equal to {high}"
                )
                violations.append((text, where, f"Member must have length {bound}"))
            elif not _ALLOWED.fullmatch(text):
                violations.append(
                    (text, where, f"Member must satisfy regular expression pattern: {_PATTERN}")
                )
    if violations:
        raise validation_error(violations)
    if len(tags) > MAX_TAGS:
        raise ValidationException("One or more parameter values were invalid: Too many tags (at most 50)")
    return {t["Key"]: t["Value"] for t in tags}
