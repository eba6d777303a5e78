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

    def __init__(
        self,
        entity: str,
        key: Mapping[str, object],
        expected: object,
        actual: object,
        *,
        found: str | None = None,
    ) -> None:
        self.entity, self.key, self.expected, self.actual = entity, dict(key), expected, actual
        # ``found`` says what is stored when ``actual`` alone would mislead (no version, text).
        expected_text, actual_text = _version_text(expected), found or _version_text(actual)
        super().__init__(
            f"{entity} {_key_text(key)}: conflict: expected {expected_text} but found {actual_text}"
        )


class IdempotencyKeyReusedError(ConflictError):
    """An idempotency key already used for another request: not a retry, so nothing is written.

    A ``ConflictError`` (expected the request the key was first used for, found another).
    """

    def __init__(self, entity: str, key: object) -> None:
        RuntimeFailure.__init__(
            self,
            f"{entity}: idempotency key {key!r} was already used for a different request; nothing was "
            "written (a retry sends the same request; a new request needs a new key)",
        )
        self.entity, self.key = entity, {}
        self.expected, self.actual = "the request the key was first used for", "another request"


class AlreadyExistsError(ConflictError):
    """A create (``rt.put``/``rt.tx_put``) found an item under its key: creates never replace.

    A ``ConflictError`` (expected no item, found one), so code catching conflicts keeps working.
    """

    def __init__(self, entity: str, key: Mapping[str, object], actual: object = "an existing item") -> None:
        RuntimeFailure.__init__(
            self,
            f"{entity} {_key_text(key)}: already exists; rt.put creates and never replaces "
            "(use rt.replace to overwrite it)",
        )
        self.entity, self.key, self.expected, self.actual = entity, dict(key), None, actual


class UniquenessError(RuntimeFailure):
    """A unique constraint already holds the value for another item."""

    def __init__(self, entity: str, constraint: Sequence[str], value: Sequence[object]) -> None:
        self.entity, self.constraint, self.value = entity, tuple(constraint), tuple(value)
        shown = value[0] if len(value) == 1 else tuple(value)
        super().__init__(
            f"{entity}({', '.join(constraint)}): the value {shown!r} is already used by another {entity}"
        )


class ConditionFailedError(RuntimeFailure):
    """A caller's condition (the design's predicate language over natural attributes) was false.

    ``operation`` is the index of the transaction operation it belongs to (None outside
    ``transact``); ``reason`` says what the stored item held instead.
    """

    def __init__(
        self,
        entity: str,
        key: Mapping[str, object],
        condition: str,
        reason: str,
        *,
        operation: int | None = None,
        verb: str = "write",
    ) -> None:
        self.entity, self.key, self.condition, self.reason = entity, dict(key), condition, reason
        self.operation, self.verb = operation, verb
        super().__init__(str(self))

    def __str__(self) -> str:
        # From the fields, so that an error tagged with its operation afterwards says so too.
        where = f"{self.verb} {self.entity}"
        if self.operation is not None:
            where = f"operation {self.operation} ({where})"
        return f"{where} {_key_text(self.key)}: condition {self.condition!r} failed: {self.reason}"


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


class AmbiguousItemError(RuntimeFailure):
    """An item read without its ``entity_type`` (an index that does not project it) whose key fits
    more than one entity: the runtime says so rather than guess which one it is."""


class TransactionTooLargeError(RuntimeFailure):
    """An atomic write needs more than TransactWriteItems allows (100 actions, 4 MB)."""


def in_operation(error: RuntimeFailure, operation: int, verb: str, entity: str) -> RuntimeFailure:
    """Tag an error raised for one operation of a transaction with its index, in attribute and text."""
    error.operation = operation  # type: ignore[attr-defined]
    if not isinstance(error, ConditionFailedError):
        error.args = (f"operation {operation} ({verb} {entity}): {error}", *error.args[1:])
    return error


def in_batch_item(error: RuntimeFailure, index: int, entity: str) -> RuntimeFailure:
    """Tag an error of item ``index`` of a ``put_many`` written item by item with its index and
    what the batch left stored (``error.written`` items before it): the batch is not undone, and
    without the count a retry fails on the first item with no hint why."""
    error.item, error.written = index, index  # type: ignore[attr-defined]
    stored = f"items 0 to {index - 1} of the batch were written" if index else "nothing was written"
    error.args = (
        f"{entity} put_many item {index}: {error}; {stored} (without an idempotency key each item is "
        "its own write: give idempotency_key= for a batch written all or nothing)",
        *error.args[1:],
    )
    return error


def _key_text(key: Mapping[str, object]) -> str:
    return "(" + ", ".join(f"{k}={v!r}" for k, v in key.items()) + ")"


def _version_text(version: object) -> str:
    # Unversioned entities describe the state they expected in words.
    if version is None:
        return "no item"
    return version if isinstance(version, str) else f"version {version}"
