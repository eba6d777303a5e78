"""Access pattern parameters: checked against their declarations and converted to stored form.

DynamoDB has no date type, so a ``datetime`` parameter becomes what the design stores: an RFC 3339
string or an epoch number, by the parameter's declared ``format``. The same converted parameters
feed both ``served`` (DynamoDB) and ``means`` (in-memory evaluation), so both sides see one value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from ..design.model import AccessPattern
from ..design.timeutil import PrecisionError, epoch_ms, epoch_s, format_exact, normalise_rfc3339
from .errors import PatternError

_FROM_DATETIME: dict[str, Callable[[datetime], object]] = {
    # Every digit the datetime has; the attribute's precision then keeps or refuses them.
    "rfc3339": format_exact,
    "epoch_ms": epoch_ms,
    "epoch_s": epoch_s,
}


def convert(fmt: str | None, value: object, precision: tuple[str, bool] | None = None) -> object:
    """A parameter value in its stored representation: a timestamp in ``(precision, truncate)`` when
    given (``PrecisionError`` for finer digits it may not drop), as its attribute stores it."""
    if isinstance(value, datetime) and fmt in _FROM_DATETIME:
        value = _FROM_DATETIME[fmt](value)
    if precision is not None and isinstance(value, str):
        level, truncate = precision
        value = normalise_rfc3339(value, level, truncate=truncate)
    return value


def prepare(pattern: AccessPattern, given: Mapping[str, object]) -> dict[str, object]:
    """Check and convert parameters; ``PatternError`` names unknown, missing and invalid ones."""
    problems: list[str] = []
    unknown = sorted(set(given) - set(pattern.params))
    if unknown:
        problems.append(
            f"unknown parameter(s) {', '.join(unknown)} (takes: {', '.join(pattern.params) or 'none'})"
        )
    result: dict[str, object] = {}
    for name, attr in pattern.params.items():
        if name not in given:
            if attr.default is not None:
                result[name] = attr.default
            else:
                problems.append(f"parameter {name} is missing")
            continue
        try:
            value = convert(attr.format, given[name], pattern.param_precision(name))
        except PrecisionError as exc:
            problems.append(f"parameter {name}: {exc} [precision]")
            continue
        if attr.type == "list":
            # batch_get keys: elements are checked by the key composition instead
            result[name] = value
            continue
        for path, rule, message in attr.validate(value):
            problems.append(f"parameter {path}: {message} [{rule}]")
        result[name] = value
    if problems:
        raise PatternError(f"pattern {pattern.name!r}: " + "; ".join(problems))
    return result
