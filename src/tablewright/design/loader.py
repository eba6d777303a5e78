"""Load a design file: YAML with line numbers -> JSON Schema -> model -> semantic and convention checks.

Every stage adds to one list of problems so an invalid design reports all of them at once, each
with file, line, column and a hint; ``DesignError`` carries the list.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from functools import cache
from importlib import resources
from pathlib import Path as FilePath
from typing import Any

import yaml

from .builder import build_design
from .checks import check_design
from .conventions import check_conventions
from .errors import DesignError, Problem
from .files import read_text
from .foreign import foreign_problem, format_of_mapping, format_of_text
from .issues import Issues, suggest
from .model import Design
from .yamlsource import Source, load_source


@cache
def schema() -> dict[str, Any]:
    """The design file JSON Schema (draft 2020-12) shipped with the package."""
    return json.loads(resources.files(__package__).joinpath("schema.json").read_text(encoding="utf-8"))


def load(path: str | FilePath) -> Design:
    """Load a design file; raises ``DesignError`` listing every problem."""
    file = FilePath(path)
    try:
        text = read_text(file)
    except UnicodeDecodeError as exc:  # a binary or otherwise non-UTF-8 file is not a design
        raise DesignError(
            [
                Problem(
                    str(file),
                    1,
                    1,
                    f"not UTF-8 text (byte {exc.start}): not a design file",
                    "give a YAML file",
                )
            ]
        ) from None
    return loads(text, str(file))


def loads(text: str, file: str = "<design>") -> Design:
    """Load a design from YAML text; ``file`` names it in problem reports."""
    try:
        source = load_source(text, file, exact_numbers_at=holds_item_values)
    except yaml.MarkedYAMLError as exc:
        _refuse_foreign(format_of_text(text, file), file)
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise DesignError(
            [Problem(file, line, column, f"YAML syntax: {exc.problem or exc}", "fix the YAML syntax")]
        ) from None
    issues = Issues()
    for path, _line, _column in source.duplicates:
        issues.add(path, f"duplicate key {path[-1]!r}", "YAML keeps only the last one; remove or rename one")
    if not isinstance(source.data, dict):
        _refuse_foreign(format_of_text(text, file), file)
        raise DesignError([Problem(file, 1, 1, "a design file must be a mapping", "start with tables:")])
    if "tables" not in source.data:
        _refuse_foreign(format_of_mapping(source.data), file)
    shape_ok = _schema_issues(source.data, issues)
    design = build_design(source.data, issues)
    design.link()
    if shape_ok:
        # Semantic checks assume the shapes the schema guarantees; skip them if those are broken.
        check_design(design, issues)
        check_conventions(design, issues)
    problems = [_locate(source, issue) for issue in issues.items]
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise DesignError(problems)
    design.warnings = [str(p) for p in problems]
    return design


def holds_item_values(path: tuple[object, ...]) -> bool:
    """Whether a YAML path is inside item data: ``samples:`` (items stored as written) or a pattern's
    ``examples:`` (parameter values looked up as written). A number there must keep every digit: a
    float's 17 would store 1234567890.1234567 for 1234567890.123456789, or look up a key no item has.
    Volumes, prices and other settings are quantities, where a float is exact enough."""
    if path[:1] == ("samples",):
        return True
    return len(path) >= 3 and path[0] == "patterns" and path[2] == "examples"


def _refuse_foreign(found: tuple[str, str] | None, file: str) -> None:
    """One clear problem for another tool's file, instead of every key a design lacks."""
    problem = foreign_problem(found, file)
    if problem is not None:
        raise DesignError([problem])


def _locate(source: Source, issue: Any) -> Problem:
    duplicate = [d for d in source.duplicates if d[0] == issue.path]
    if duplicate:
        line, column = duplicate[0][1], duplicate[0][2]
    else:
        line, column = source.where(issue.path, key=issue.on_key)
    return Problem(source.file, line, column, issue.message, issue.hint, issue.severity)


def _schema_issues(data: dict[str, Any], issues: Issues) -> bool:
    """Validate against the JSON Schema; returns True when the shape is valid."""
    try:
        import jsonschema
    except ImportError:  # the semantic checks still run; only shape messages are lost
        return True
    validator = jsonschema.Draft202012Validator(schema())
    found = False
    for error in validator.iter_errors(data):
        found = True
        outer, error = error, _deepest(error)
        path = tuple(error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            # Each unknown key is reported where the key itself is written, not at its parent.
            allowed = error.schema.get("properties", {})
            where = "/".join(str(p) for p in path) or "the top level"
            for key in (k for k in error.instance if k not in allowed):
                issues.add(
                    (*path, key), f"unknown key {key!r} in {where}", suggest(key, allowed), on_key=True
                )
            continue
        if error is not outer and error.validator == "type":
            message, hint = _explain_form(error, outer)
        else:
            message, hint = _explain(error)
        issues.add(path, message, hint)
    return not found


def _deepest(error: Any) -> Any:
    """For oneOf/anyOf failures, the error of the branch the author meant.

    A branch that failed on ``type`` is the wrong form; among the others the deepest error wins
    (``strng`` is a bad enum value in the mapping form, not a bad shorthand).
    """
    while error.context:
        meant = [e for e in error.context if not _wrong_form(e, error)]
        if not meant:
            break
        error = max(meant, key=lambda e: len(e.absolute_path))
    return error


def _wrong_form(error: Any, choice: Any) -> bool:
    """A branch error that only says the value has another form (a mapping where a word was allowed).

    Only an error about the value ``choice`` chose a form for says so: a wrong type further in (a
    string ``read: "5"`` inside the mapping form of ``billing``) means the author chose that form.
    """
    if len(error.absolute_path) > len(choice.absolute_path):
        return False
    if error.validator == "type":
        return True
    return error.validator in ("enum", "const") and isinstance(error.instance, dict | list)


# JSON Schema types and Python values, as a design's author calls them.
_EXPECTED = {
    "integer": "a whole number",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "object": "a mapping",
    "array": "a list",
    "null": "null",
}


# What YAML gave, by Python type; bool before int, as True is an int too.
_KINDS_GIVEN: tuple[tuple[type, str], ...] = (
    (bool, "true/false"),
    (int, "a whole number"),
    (float, "a number with a fraction"),
    (str, "a string"),
    (dict, "a mapping"),
    (list, "a list"),
    (type(None), "null"),
)


def _kind(value: object) -> str:
    return next((said for kind, said in _KINDS_GIVEN if isinstance(value, kind)), type(value).__name__)


_THOUSANDS = re.compile(r"(\d+(?:\.\d+)?)\s*([kKmM])")
_MULTIPLIERS = {"k": 1000, "m": 1_000_000}


def _number_hint(value: object, expected: list[str]) -> str:
    """How to write a number that YAML read as a string (quoted, or an exponent YAML 1.1 takes as text)."""
    if not isinstance(value, str) or not {"integer", "number"} & set(expected):
        return ""
    multiplied = _THOUSANDS.fullmatch(value.strip())
    if multiplied:  # "10k": the rates' K and M, written where a plain number is expected
        number = Decimal(multiplied.group(1)) * _MULTIPLIERS[multiplied.group(2).lower()]
        return f"write {number.normalize():f} (K and M count thousands and millions only in rates: 10k/day)"
    try:
        number = float(value.strip())
    except ValueError:
        return ""
    if not math.isfinite(number):  # "inf" and "nan" are words in YAML; .inf is the number
        return ""
    plain = str(int(number)) if number.is_integer() and abs(number) < 1e16 else repr(number)
    if "e" in value.lower():
        return (
            f"YAML reads {value.strip()} as text, not a number (its exponent needs a dot and a sign, "
            f"as in 1.0e+3): write {plain} or {number:.1e}, without quotes"
        )
    return f"write the number without quotes: {plain}"


def _explain_form(error: Any, outer: Any) -> tuple[str, str]:
    """A wrong type inside the form the author chose: name the field, what it is and what it should be."""
    where = "/".join(str(p) for p in error.absolute_path)
    expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
    wanted = " or ".join(_EXPECTED.get(name, name) for name in expected)
    return (
        f"{where}: {error.instance!r} is {_kind(error.instance)}; expected {wanted}, "
        f"so {outer.instance!r} does not have a valid form",
        _number_hint(error.instance, expected) or "see docs/design-file.md for the forms this key takes",
    )


def _explain(error: Any) -> tuple[str, str]:
    """A message and hint for a schema error, keyed by the failing JSON Schema keyword."""
    where = "/".join(str(p) for p in error.absolute_path) or "the top level"
    keyword = error.validator
    if keyword == "required":
        return f"{where}: {error.message}", "add the missing key"
    if keyword in ("enum", "const"):
        options = error.validator_value if keyword == "enum" else [error.validator_value]
        return f"{error.instance!r} is not allowed at {where}", suggest(
            error.instance, [o for o in options if o is not None]
        )
    if keyword in ("oneOf", "anyOf"):
        return (
            f"{error.instance!r} does not have a valid form at {where}",
            "see docs/design-file.md for the forms this key takes",
        )
    if keyword == "type":
        expected = (
            error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        )
        return f"{where}: {error.message}", _number_hint(error.instance, expected)
    return f"{where}: {error.message}", ""
