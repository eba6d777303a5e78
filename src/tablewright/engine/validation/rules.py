"""A shape's constraints (length or value bounds, pattern, enum) and DynamoDB's wording for each.

DynamoDB's front end is a Java service: lengths count UTF-16 code units, patterns are Java regular
expressions matched against the whole value, and each constraint has a fixed sentence. This module
turns a model shape's ``min``/``max``/``pattern``/``enum`` into one :class:`Rules` object that says
which of those sentences a value fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# Wording of each constraint, in the order DynamoDB lists them ("Map keys must satisfy constraint:
# [Member must have length less than or equal to 255, Member must have length greater than or equal
# to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]").
_TEXT = {
    ("length", "max"): "Member must have length less than or equal to {}",
    ("length", "min"): "Member must have length greater than or equal to {}",
    ("value", "max"): "Member must have value less than or equal to {}",
    ("value", "min"): "Member must have value greater than or equal to {}",
    "pattern": "Member must satisfy regular expression pattern: {}",
    "enum": "Member must satisfy enum value set: [{}]",
}

# Which quantity min/max bound, per shape type; types absent here carry no bounds.
_MEASURE = {"string": "length", "blob": "length", "list": "length", "map": "length"}
_MEASURE.update(dict.fromkeys(("integer", "long", "double"), "value"))

# Java regex syntax in the model that Python's re spells differently. Java writes a supplementary
# range as a surrogate pair range; \p{Print} is POSIX printable ASCII in Java.
_JAVA_REGEX = (
    (r"\uD800\uDC00-\uDBFF\uDFFF", r"\U00010000-\U0010FFFF"),
    (r"\p{Print}", r"[\x20-\x7E]"),
)


def java_pattern(pattern: str) -> re.Pattern[str]:
    """Compile a Java regular expression from the model; re.ASCII because Java's \\w is ASCII-only."""
    for java, python in _JAVA_REGEX:
        pattern = pattern.replace(java, python)
    return re.compile(pattern, re.ASCII)


def utf16_length(text: str) -> int:
    """Length as Java counts it: characters outside the BMP count twice."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _blob_length(text: str) -> int:
    # Decoded size without decoding: 3 bytes per 4 characters, less the padding.
    return len(text) * 3 // 4 - text[-2:].count("=")


_PASSED_LIMIT = 4096  # bounds memory when clients send ever-new values (tokens, ARNs)

_SIZE = {"string": utf16_length, "blob": _blob_length, "list": len, "map": len}


@dataclass(frozen=True, slots=True)
class Rules:
    """The constraints of one shape; ``names`` applies instead to values that are not ARNs."""

    low: int | None
    high: int | None
    size: Any  # value -> comparable quantity (a length, or the number itself)
    pattern: re.Pattern[str] | None
    enum: frozenset[str] | None
    texts: tuple[str, ...]
    high_text: str
    low_text: str
    pattern_text: str
    enum_text: str
    names: Rules | None = None
    # Strings already found valid (table names, index names, enum values recur on every request):
    # a set lookup is several times cheaper than length counting plus a regex match.
    passed: set[str] = field(default_factory=set)

    def failures(self, value: Any) -> tuple[str, ...] | list[str]:
        """The constraint sentences ``value`` fails, in DynamoDB's order; empty when it passes."""
        is_str = value.__class__ is str
        if is_str and value in self.passed:
            return ()
        if self.names is not None and not value.startswith("arn:"):
            return self.names.failures(value)
        failed: list[str] | tuple[str, ...] = ()
        if self.low is not None or self.high is not None:
            n = self.size(value)
            if self.high is not None and n > self.high:
                failed = [self.high_text]
            if self.low is not None and n < self.low:
                failed = [*failed, self.low_text]
        if self.pattern is not None and self.pattern.fullmatch(value) is None:
            failed = [*failed, self.pattern_text]
        if self.enum is not None and value not in self.enum:
            failed = [*failed, self.enum_text]
        if is_str and not failed and len(self.passed) < _PASSED_LIMIT:
            self.passed.add(value)
        return failed

    def texts_for(self, value: Any) -> tuple[str, ...]:
        """Every constraint that applies to ``value``: DynamoDB lists them all for map keys and members."""
        if self.names is not None and isinstance(value, str) and not value.startswith("arn:"):
            return self.names.texts
        return self.texts


def rules_for(shape: dict[str, Any], names: Rules | None = None) -> Rules | None:
    """The :class:`Rules` of a model shape, or None when it has no constraints (the common case)."""
    kind = shape["type"]
    measure = _MEASURE.get(kind)
    low = shape.get("min") if measure else None
    high = shape.get("max") if measure else None
    pattern = shape.get("pattern")
    enum = shape.get("enum")
    if low is None and high is None and pattern is None and enum is None and names is None:
        return None
    texts: list[str] = []
    high_text = _TEXT[(measure, "max")].format(high) if high is not None else ""
    low_text = _TEXT[(measure, "min")].format(low) if low is not None else ""
    pattern_text = _TEXT["pattern"].format(pattern) if pattern is not None else ""
    enum_text = _TEXT["enum"].format(", ".join(enum)) if enum is not None else ""
    texts = [t for t in (high_text, low_text, pattern_text, enum_text) if t]
    size = _SIZE.get(kind, _identity)
    return Rules(
        low=low,
        high=high,
        size=size,
        pattern=java_pattern(pattern) if pattern is not None else None,
        enum=frozenset(enum) if enum is not None else None,
        texts=tuple(texts),
        high_text=high_text,
        low_text=low_text,
        pattern_text=pattern_text,
        enum_text=enum_text,
        names=names,
    )


def _identity(value: Any) -> Any:
    return value
