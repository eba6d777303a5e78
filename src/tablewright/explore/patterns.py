"""Access patterns one at a time: parameters from the page, a run verified as ``tablewright check`` does.

The verification is the runtime's (``runtime.verify.verify_pattern``): ``served`` through the
client against ``means`` evaluated over every stored entity the pattern can return.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from ..design.model import AccessPattern, Attribute
from ..runtime.verify import Verdict, stored_records, verify_pattern
from ..runtime.wire import Record
from .items import to_json
from .workspace import Workspace


class ParamError(ValueError):
    """A parameter the page cannot turn into the pattern's declared type."""


def _boolean(text: str) -> bool:
    word = text.strip().lower()
    if word not in ("true", "false"):
        raise ValueError("not true or false")
    return word == "true"


# DynamoDB stores magnitudes up to 9.99...E+125: larger ones are refused before ``int()``, which
# would spend minutes and gigabytes writing out 1E+999999999 (a GET of a pattern or view could ask).
MAX_EXPONENT = 125


def _number(text: str) -> int | Decimal:
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError("not a number") from None
    if not number.is_finite():
        raise ValueError("not a finite number")
    if number and number.adjusted() > MAX_EXPONENT:
        raise ValueError(f"magnitude {number:E}: DynamoDB stores 1E-130 to 9.99...E+125")
    return int(number) if number == number.to_integral_value() else number


def _no_constant(word: str) -> object:
    raise ValueError(f"{word} is not a number DynamoDB can store")


def exact_json(text: str) -> object:
    """JSON with exact numbers (DynamoDB keeps numbers exact; floats would not be); ``NaN`` and
    ``Infinity`` refused, and nesting too deep to read is a ``ValueError`` like any bad JSON."""
    try:
        return json.loads(text, parse_float=Decimal, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _json_set(convert: Callable[[object], object]) -> Callable[[str], set]:
    def parse(text: str) -> set:
        values = exact_json(text)
        if not isinstance(values, list) or not values:
            raise ValueError('write a non-empty JSON list, e.g. ["a", "b"]')
        return {convert(v) for v in values}

    return parse


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a string")
    return value


def _null(text: str) -> None:
    if text.strip().lower() != "null":
        raise ValueError("a null attribute holds only null")


# How the text of a form field becomes a value of the declared type (strings stay as typed).
PARAM_PARSERS: dict[str, Callable[[str], object]] = {
    "number": _number,
    "boolean": _boolean,
    "list": exact_json,
    "map": exact_json,
    "binary": lambda text: base64.b64decode(text, validate=True),
    "string_set": _json_set(_text),
    "number_set": _json_set(lambda v: _number(str(v))),
    "binary_set": _json_set(lambda v: base64.b64decode(_text(v), validate=True)),
    "null": _null,
}


def parse_param(name: str, spec: Attribute, text: str) -> object:
    """A form field's text as the parameter's declared type (``ParamError`` saying what is wrong)."""
    parser = PARAM_PARSERS.get(spec.type)
    if parser is None:
        return text
    try:
        return parser(text)
    except (ValueError, InvalidOperation, binascii.Error) as exc:
        raise ParamError(f"parameter {name} ({spec.type}): {text!r}: {exc}") from None


def as_text(value: object) -> str:
    """A parameter value as the text a form field shows."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict | tuple | set):
        return to_json(list(value) if isinstance(value, tuple | set) else value, indent=False)
    return "" if value is None else str(value)


def form_values(
    workspace: Workspace,
    pattern: AccessPattern,
    given: Mapping[str, str],
    defaults: Mapping[str, object] | None = None,
) -> dict[str, str]:
    """The text of each parameter field: given by the page, else the view's value, else the first sample set."""
    samples = workspace.param_sets.get(pattern.name) or [{}]
    chosen = dict(samples[0])
    chosen.update(defaults or {})
    return {name: given[name] if name in given else as_text(chosen.get(name)) for name in pattern.params}


def parse_params(pattern: AccessPattern, texts: Mapping[str, str]) -> dict[str, object]:
    """Typed parameters from the fields' texts; empty fields are left out (the runtime says if needed)."""
    return {
        name: parse_param(name, spec, texts[name]) for name, spec in pattern.params.items() if texts.get(name)
    }


def run_verified(workspace: Workspace, name: str, params: Mapping[str, object]) -> Verdict:
    """Run pattern ``name`` with ``params`` and verify it against ``means`` over the stored entities."""
    rt = workspace.runtime
    pattern = rt.pattern(name)
    records = stored_records(rt, pattern.returns)
    return verify_pattern(rt, name, params, records)


def record_json(record: Record) -> dict[str, Any]:
    """A record as JSON-ready data: entity, table key and values."""
    return {"entity": record.entity, "key": dict(record.key), "values": dict(record)}


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    """The verification as the page and its JSON show it."""
    missing = {repr(sorted(k.items())) for k in verdict.missing}
    extra = {repr(sorted(k.items())) for k in verdict.extra}

    def mark(record: Record, keys: set[str]) -> dict[str, Any]:
        data = record_json(record)
        data["differs"] = repr(sorted(dict(record.key, entity=record.entity).items())) in keys
        return data

    return {
        "pattern": verdict.pattern,
        "params": verdict.params,
        "status": "pass" if verdict.ok else "fail",
        "detail": verdict.summary(),
        "expected": verdict.expected,
        "returned": verdict.returned,
        "out_of_order": verdict.out_of_order,
        "error": verdict.error,
        "served": [mark(r, extra) for r in verdict.served_records],
        "means": [mark(r, missing) for r in verdict.expected_records],
        **verdict.stats.as_dict(),
    }
