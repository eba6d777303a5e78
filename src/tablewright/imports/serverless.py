"""Import a Serverless Framework file (``serverless.yml``): the tables under ``resources: Resources:``.

Variables are resolved from the same file: ``${self:path}``, ``${sls:stage}`` (``provider.stage``,
else ``dev``), ``${file(path):address}`` (a YAML/JSON file next to it), and the fallbacks after a
comma (``${opt:stage, 'dev'}``, ``${env:TABLE, self:custom.table}``). ``opt:`` and ``env:`` have no
value at import (the design must not depend on the shell that imported it), so only their
fallbacks count. A variable nothing decides is kept as a ``Serverless::Variable`` marker: it names
itself when a table property needs it (see ``intrinsics``). ``SOURCES`` is the dispatch table.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import cloudformation
from .writer import Imported

_VARIABLE = re.compile(r"\$\{([^${}]*)\}")  # innermost first
_SOURCE = re.compile(r"^\s*([A-Za-z][\w]*)(?::(?!:)|\()")  # self:..., file(...); not AWS::Region
_MAX_DEPTH = 20
_LITERALS = {"true": True, "false": False, "null": None}


class _Unresolved(Exception):
    """A variable with no value in the file."""


def is_serverless(body: dict[str, Any]) -> bool:
    """True for a Serverless Framework file (a ``service`` with a provider, functions or resources)."""
    return "service" in body and any(k in body for k in ("provider", "functions", "resources"))


class _Resolver:
    def __init__(self, document: dict[str, Any], folder: Path) -> None:
        self.document = document
        self.folder = folder
        self.depth = 0

    def _path(self, value: Any, address: str, variable: str) -> Any:
        for part in filter(None, re.split(r"[.:]", address)):
            if isinstance(value, dict) and part in value:
                value = value[part]
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            else:
                raise _Unresolved(f"{variable}: the file has no {address}")
        return self.value(value)

    def _self(self, address: str, variable: str) -> Any:
        return self._path(self.document, address, variable)

    def _sls(self, address: str, variable: str) -> Any:
        if address.strip() == "stage":
            return self.value((self.document.get("provider") or {}).get("stage", "dev"))
        raise _Unresolved(f"{variable}: only sls:stage is known at import")

    def _no_value(self, address: str, variable: str) -> Any:
        raise _Unresolved(f"{variable}: no value at import and no fallback")

    def _file(self, address: str, variable: str) -> Any:
        match = re.match(r"\(\s*([^)]+?)\s*\)\s*:?(.*)$", address)
        if not match:
            raise _Unresolved(f"{variable}: cannot read the file reference")
        target = self.folder / match.group(1).strip("'\"")
        if not target.is_file():
            raise _Unresolved(f"{variable}: {target} does not exist")
        value: Any = cloudformation.read_document(target)
        for part in filter(None, match.group(2).strip().split(".")):
            if not isinstance(value, dict) or part not in value:
                raise _Unresolved(f"{variable}: {target.name} has no {match.group(2).strip()}")
            value = value[part]
        # The file's own variables: resolved like the main file's (kept as markers when undecided).
        return _Resolver(self.document, target.parent).value(value)

    def lookup(self, expression: str, variable: str) -> Any:
        """One reference (``self:custom.x``, a quoted literal, a number) or ``_Unresolved``."""
        text = expression.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            return text[1:-1]
        if re.fullmatch(r"-?\d+", text):
            return int(text)
        if text in _LITERALS:
            return _LITERALS[text]
        match = _SOURCE.match(text)
        if not match:
            raise _Unresolved(f"{variable}: {text!r} is not a variable source")
        source = SOURCES.get(match.group(1))
        if source is None:
            raise _Unresolved(f"{variable}: the {match.group(1)} source is read at deploy time")
        rest = text[match.end() - (1 if text[match.end() - 1] == "(" else 0) :]
        return source(self, rest, variable)

    def variable(self, content: str) -> Any:
        """The value of ``${content}``: the first of its comma-separated candidates that resolves."""
        variable = "${" + content + "}"
        reasons = []
        for candidate in _split_fallbacks(content):
            try:
                return self.lookup(candidate, variable)
            except _Unresolved as error:
                reasons.append(str(error))
        raise _Unresolved(reasons[0] if len(reasons) == 1 else f"{variable}: " + "; ".join(reasons))

    def string(self, text: str) -> Any:
        self.depth += 1
        try:
            if self.depth > _MAX_DEPTH:
                raise _Unresolved(f"{text}: variables refer to each other in a cycle")
            while True:
                match = next((m for m in _VARIABLE.finditer(text) if _SOURCE.match(m.group(1))), None)
                if match is None:
                    return text
                value = self.variable(match.group(1))
                if match.span() == (0, len(text)):
                    return value  # a whole-value variable keeps its type (a number, a mapping)
                text = text[: match.start()] + str(value) + text[match.end() :]
        finally:
            self.depth -= 1

    def value(self, value: Any) -> Any:
        """``value`` with its variables resolved; an unresolvable string becomes a marker."""
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, str) and "${" in value:
            if self.depth:
                return self.string(value)  # inside a lookup: let the caller decide
            try:
                return self.string(value)
            except _Unresolved as error:
                return {"Serverless::Variable": [value, str(error)]}
        return value


def _split_fallbacks(content: str) -> list[str]:
    """``opt:stage, 'dev'`` -> [``opt:stage``, ``'dev'``] (commas inside quotes or brackets kept)."""
    parts, depth, quote, current = [], 0, "", ""
    for char in content:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += char
    return [*parts, current]


SOURCES: dict[str, Callable[[_Resolver, str, str], Any]] = {
    "self": _Resolver._self,
    "sls": _Resolver._sls,
    "file": _Resolver._file,
    "opt": _Resolver._no_value,
    "env": _Resolver._no_value,
}

_TABLE_WHERE = "a Serverless Framework file declares its tables under resources: Resources:"


def _cloudformation_part(resources: Any) -> dict[str, Any]:
    """``resources:`` as one template body (it may be a list of fragments)."""
    fragments = resources if isinstance(resources, list) else [resources]
    body: dict[str, Any] = {}
    for fragment in fragments:
        if isinstance(fragment, dict) and "Serverless::Variable" in fragment:
            variable, reason = fragment["Serverless::Variable"]
            raise ValueError(f"resources: cannot read {variable}: {reason}")
        for section, content in (fragment or {}).items() if isinstance(fragment, dict) else ():
            if isinstance(content, dict):
                body.setdefault(section, {}).update(content)
    return body


def _misplaced(resources: Any) -> list[str]:
    """Tables written one level too high: straight under ``resources:`` instead of ``Resources:``."""
    fragments = resources if isinstance(resources, list) else [resources]
    return [
        name
        for fragment in fragments
        if isinstance(fragment, dict)
        for name, value in fragment.items()
        if isinstance(value, dict) and value.get("Type") in cloudformation.TABLE_TYPES
    ]


def _found(document: dict[str, Any], body: dict[str, Any]) -> str:
    misplaced = _misplaced(document.get("resources"))
    if misplaced:
        return f"found {', '.join(misplaced)} straight under resources:, one level too high"
    functions = list(document.get("functions") or {})
    found = f"found {len(functions)} function(s)" + (f" ({', '.join(functions[:5])})" if functions else "")
    resources = body.get("Resources") or {}
    kinds = sorted({str(r.get("Type")) for r in resources.values() if isinstance(r, dict)})
    return found + (f" and resources of type {', '.join(kinds)}" if kinds else " and no resources")


def import_document(document: dict[str, Any], path: Path) -> Imported:
    """Every DynamoDB table under a Serverless file's ``resources``."""
    resolved = _Resolver(document, path.parent).value(document)
    try:
        body = _cloudformation_part(resolved.get("resources"))
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    resources = body.get("Resources") or {}
    if not any(
        isinstance(r, dict) and r.get("Type") in cloudformation.TABLE_TYPES for r in resources.values()
    ):
        raise ValueError(f"{path}: no DynamoDB table: {_found(document, body)}; {_TABLE_WHERE}")
    imported = cloudformation.import_template(body, path, f"the Serverless Framework file {path.name}")
    if isinstance(document.get("service"), str) and "${" not in document["service"]:
        imported.name = document["service"]
    return imported


def import_file(path: Path, **_: Any) -> Imported:
    """A Serverless Framework file's tables (``--from serverless``)."""
    return import_document(cloudformation.read_document(path), path)
