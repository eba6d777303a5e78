"""Stream records in the shape AWS Lambda delivers them, and Lambda-style event filtering.

boto3 parses a GetRecords response: timestamps become ``datetime`` and binary attribute values
``bytes``. Lambda hands a function the JSON form instead (epoch seconds, base64 strings) and adds
``eventSourceARN``; :func:`lambda_record` turns one into the other, so a handler sees the same event
whether it runs under Lambda or under :class:`~tablewright.streams.StreamConsumer`.
"""

from __future__ import annotations

import base64
import datetime
from collections.abc import Callable, Mapping
from typing import Any

Record = dict[str, Any]
Filter = Mapping[str, Any] | list[Mapping[str, Any]] | Callable[[Record], bool]


def _json_value(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    if isinstance(value, datetime.datetime):
        seconds = value.timestamp()
        return int(seconds) if seconds.is_integer() else seconds
    if isinstance(value, Mapping):
        return {k: _json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_json_value(v) for v in value]
    return value


def lambda_record(record: Mapping[str, Any], stream_arn: str) -> Record:
    """One GetRecords record as a DynamoDB-stream Lambda event record (JSON types, eventSourceARN)."""
    out = _json_value(record)
    identity = out.pop("userIdentity", None)
    if identity:  # the Streams API capitalises these members, Lambda events do not
        out["userIdentity"] = {"type": identity.get("Type"), "principalId": identity.get("PrincipalId")}
    out["eventSourceARN"] = stream_arn
    return out


# ------------------------------------------------------------------------------------------ filtering
# A pattern is Lambda's filter-criteria syntax: nested dicts follow the record's fields, a list at a
# leaf lists acceptable values, and a value may be an operator such as {"prefix": "ord-"}.

_MISSING = object()


def _exists(value: Any, wanted: bool) -> bool:
    return (value is not _MISSING) == wanted


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "exists": _exists,
    "prefix": lambda value, prefix: isinstance(value, str) and value.startswith(prefix),
    "anything-but": lambda value, excluded: (
        value is not _MISSING and value not in (excluded if isinstance(excluded, list) else [excluded])
    ),
    "equals-ignore-case": lambda value, text: isinstance(value, str) and value.lower() == text.lower(),
}


def _accepts(condition: Any, value: Any) -> bool:
    if isinstance(condition, Mapping):
        ((name, argument),) = condition.items()
        operator = _OPERATORS.get(name)
        if operator is None:
            raise ValueError(f"unsupported filter operator {name!r}; supported: {', '.join(_OPERATORS)}")
        return operator(value, argument)
    return value is not _MISSING and value == condition


def _matches(pattern: Mapping[str, Any], data: Any) -> bool:
    for name, expected in pattern.items():
        value = data.get(name, _MISSING) if isinstance(data, Mapping) else _MISSING
        if isinstance(expected, Mapping):
            if not _matches(expected, value):
                return False
        elif isinstance(expected, list):
            if not any(_accepts(condition, value) for condition in expected):
                return False
        else:
            raise ValueError(f"filter pattern field {name!r} must be a list of values or a nested pattern")
    return True


def compile_filter(spec: Filter | None) -> Callable[[Record], bool]:
    """A predicate from a Lambda filter pattern, a list of patterns (any may match) or a callable."""
    if spec is None:
        return lambda record: True
    if callable(spec):
        return spec
    patterns = [spec] if isinstance(spec, Mapping) else list(spec)
    return lambda record: any(_matches(pattern, record) for pattern in patterns)
