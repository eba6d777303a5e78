"""The runtime's errors: each says what is wrong and where (entity, attribute, key, rule)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..design.validators import Violation


class RuntimeFailure(Exception):
    """Base class of every error the runtime raises on purpose."""


class ValidationError(RuntimeFailure, ValueError):
    """Values break the design's rules; raised before anything is written.

    ``violations`` lists every broken rule, so a caller can fix them all at once.
    """

    def __init__(self, entity: str, violations: Sequence[Violation]) -> None:
        self.entity = entity
        self.violations = list(violations)
        count = len(self.violations)
        lines = [f"{entity}: {count} validation error{'s' if count != 1 else ''}"]
        lines += [f"  {v}" for v in self.violations]
        super().__init__("\n".join(lines))


class ConflictError(RuntimeFailure):
    """Optimistic locking failed: the stored version is not the one the caller expected."""

    def __init__(self, entity: str, key: Mapping[str, object], expected: object, actual: object) -> None:
        self.entity, self.key, self.expected, self.actual = entity, dict(key), expected, actual
        expected_text, actual_text = _version_text(expected), _version_text(actual)
        super().__init__(
            f"{entity} {_key_text(key)}: conflict: expected {expected_text} but found {actual_text}"
        )


class UniquenessError(RuntimeFailure):
    """A unique constraint already holds the value for another item."""

    def __init__(self, entity: str, constraint: Sequence[str], value: Sequence[object]) -> None:
        self.entity, self.constraint, self.value = entity, tuple(constraint), tuple(value)
        shown = value[0] if len(value) == 1 else tuple(value)
        super().__init__(
            f"{entity}({', '.join(constraint)}): the value {shown!r} is already used by another {entity}"
        )


class NotFoundError(RuntimeFailure, KeyError):
    """The item to update does not exist."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ConventionError(RuntimeFailure):
    """A design convention forbids the call (for example an update without a version check)."""


class CursorError(RuntimeFailure, ValueError):
    """A cursor was modified, signed by another runtime, or belongs to other parameters."""


class PatternError(RuntimeFailure, ValueError):
    """An access pattern is unknown or was called with missing or wrong parameters."""


class TransactionTooLargeError(RuntimeFailure):
    """An atomic write needs more actions than DynamoDB's TransactWriteItems limit of 100."""


def _key_text(key: Mapping[str, object]) -> str:
    return "(" + ", ".join(f"{k}={v!r}" for k, v in key.items()) + ")"


def _version_text(version: object) -> str:
    # Unversioned entities describe the state they expected in words.
    if version is None:
        return "no item"
    return version if isinstance(version, str) else f"version {version}"
