"""DynamoDB's error types, raised by the engine and rendered in the service's wire form.

Every error the engine raises is a :class:`DynamoDBError`: it carries DynamoDB's error code,
the HTTP status the service would answer with, and the message. Through boto3 it surfaces as a
``botocore.exceptions.ClientError`` whose ``Error.Code`` is that same code.
"""

from __future__ import annotations

from typing import Any

_PREFIX = "com.amazonaws.dynamodb.v20120810#"


class DynamoDBError(Exception):
    """An error DynamoDB would return: ``code`` is its ``__type`` suffix, ``status`` its HTTP status."""

    code = "InternalServerError"
    status = 500
    namespace = _PREFIX  # the ``__type`` prefix: the table service's, unless a front end says otherwise

    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra

    def to_wire(self) -> dict[str, Any]:
        """The JSON body DynamoDB sends for this error."""
        body: dict[str, Any] = {"__type": self.namespace + self.code, "message": self.message}
        body.update(self.extra)
        return body

    def __repr__(self) -> str:
        return f"{self.code}({self.message!r})"


def _error(code: str, status: int = 400) -> type[DynamoDBError]:
    return type(code, (DynamoDBError,), {"code": code, "status": status, "__module__": __name__})


ValidationException = _error("ValidationException")
ResourceNotFoundException = _error("ResourceNotFoundException")
ResourceInUseException = _error("ResourceInUseException")
ItemCollectionSizeLimitExceededException = _error("ItemCollectionSizeLimitExceededException")
IdempotentParameterMismatchException = _error("IdempotentParameterMismatchException")
TransactionInProgressException = _error("TransactionInProgressException")
LimitExceededException = _error("LimitExceededException")
SerializationException = _error("SerializationException")
# DynamoDB's deserializer (its coral front end) answers before the table service sees the request.
SerializationException.namespace = "com.amazon.coral.service#"
UnknownOperationException = _error("UnknownOperationException")
InternalServerError = _error("InternalServerError", 500)
TrimmedDataAccessException = _error("TrimmedDataAccessException")
ExpiredIteratorException = _error("ExpiredIteratorException")
DuplicateItemException = _error("DuplicateItemException")  # a PartiQL INSERT of an existing key
# Retryable (SDKs back off and retry it): the database file's write lock stayed with another writer.
ThrottlingException = _error("ThrottlingException")
TableNotFoundException = _error("TableNotFoundException")  # the backup operations' "no such table"
AccessDeniedException = _error("AccessDeniedException")  # a write to an engine opened read-only
# Backups, point-in-time recovery, exports, imports, global tables and resource policies (ops/backups.py ...).
BackupNotFoundException = _error("BackupNotFoundException")
BackupInUseException = _error("BackupInUseException")
TableAlreadyExistsException = _error("TableAlreadyExistsException")
TableInUseException = _error("TableInUseException")
PointInTimeRecoveryUnavailableException = _error("PointInTimeRecoveryUnavailableException")
InvalidRestoreTimeException = _error("InvalidRestoreTimeException")
ExportNotFoundException = _error("ExportNotFoundException")
InvalidExportTimeException = _error("InvalidExportTimeException")
ExportConflictException = _error("ExportConflictException")
ImportNotFoundException = _error("ImportNotFoundException")
ImportConflictException = _error("ImportConflictException")
GlobalTableNotFoundException = _error("GlobalTableNotFoundException")
PolicyNotFoundException = _error("PolicyNotFoundException")


class ConditionalCheckFailedException(DynamoDBError):
    """A condition was false; ``item`` is the stored item when ALL_OLD was asked on failure."""

    code = "ConditionalCheckFailedException"
    status = 400

    def __init__(self, message: str = "The conditional request failed", item: dict | None = None) -> None:
        super().__init__(message)
        self.item = item
        if item is not None:
            self.extra = {"Item": item}


class TransactionCanceledException(DynamoDBError):
    """A transaction was cancelled; ``reasons`` has one entry per action, in request order."""

    code = "TransactionCanceledException"
    status = 400

    def __init__(self, reasons: list[dict[str, Any]]) -> None:
        codes = ", ".join(r.get("Code", "None") for r in reasons)
        super().__init__(
            f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]"
        )
        self.reasons = reasons
        self.extra = {"CancellationReasons": reasons}


class StorageFailure(InternalServerError):  # type: ignore[misc, valid-type]
    """An InternalServerError the storage explains (a damaged database file, a full disk): unlike a
    bug's, its message is written for whoever runs the engine, so a server passes it on."""


class UnknownIndexException(ValidationException):  # type: ignore[misc, valid-type]
    """The table (as this process knows it) has no index of that name: a ValidationException to callers;
    the engine first re-reads the catalog in case another process added the index."""


class WouldBlock(Exception):
    """Raised instead of waiting, on a thread that asked never to wait (:meth:`Engine.try_handle`): the
    request needs a lock another connection holds. Nothing of the request was applied."""


class StaleDefinition(Exception):
    """Internal, never reaches a caller: a write found, inside its transaction, that the table definition
    it was prepared against has changed (another process altered the table); the engine runs it again."""
