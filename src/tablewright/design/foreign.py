"""Other tools' files given where a design is expected (a NoSQL Workbench model, a CloudFormation or
SAM template, a Serverless Framework file, Terraform, CreateTable requests): recognised, so the error names the tool and
the ``tablewright import`` that turns the file into a design, instead of listing every key a design
does not have. ``tablewright import`` uses the same recognition when ``--from`` is left out."""

from __future__ import annotations

import errno
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from .errors import Problem
from .files import InputFileError, read_text


def _resources(data: Mapping[str, Any]) -> bool:
    resources = data.get("Resources")
    return isinstance(resources, dict) and any(
        isinstance(r, dict) and str(r.get("Type", "")).startswith("AWS::") for r in resources.values()
    )


def is_create_table_request(data: object) -> bool:
    """A single CreateTable request (what ``aws dynamodb create-table --cli-input-json`` reads)."""
    return isinstance(data, dict) and isinstance(data.get("TableName"), str) and "KeySchema" in data


def is_create_table_export(data: object) -> bool:
    """``export --to create-table``'s whole output: table -> operation -> request, each with a CreateTable."""
    return (
        isinstance(data, dict)
        and bool(data)
        and all(
            isinstance(calls, dict) and is_create_table_request(calls.get("CreateTable"))
            for calls in data.values()
        )
    )


def _create_table_requests(data: Mapping[str, Any]) -> bool:
    return is_create_table_request(data) or is_create_table_export(data)


# (``--from`` format, what it is, test on the file's top-level mapping), first match wins.
FORMATS: tuple[tuple[str, str, Callable[[Mapping[str, Any]], bool]], ...] = (
    ("nosql-workbench", "a NoSQL Workbench data model", lambda d: isinstance(d.get("DataModel"), list)),
    (
        "sam",
        "an AWS SAM template",
        lambda d: _resources(d) and "AWS::Serverless" in str(d.get("Transform", "")),
    ),
    (
        "cloudformation",
        "a CloudFormation template",
        lambda d: _resources(d) or "AWSTemplateFormatVersion" in d,
    ),
    (
        "serverless",
        "a Serverless Framework file",
        lambda d: "service" in d and ("provider" in d or "functions" in d),
    ),
    ("create-table", "a file of CreateTable requests", _create_table_requests),
)
TERRAFORM = ("terraform", "Terraform configuration")
# A top-level HCL block: `resource "aws_dynamodb_table" "x" {`, `terraform {`; never a YAML line.
_HCL_BLOCK = re.compile(
    r'^(?:(?:resource|data|module|provider|variable|output)\s+"[^"\n]*"|terraform|locals)\s*[{"]', re.M
)


class _AnyTag(yaml.SafeLoader):
    """YAML that accepts CloudFormation's short tags (``!Ref``, ``!Sub``...) as plain values."""


_AnyTag.add_multi_constructor("!", lambda loader, suffix, node: None)


def format_of_mapping(data: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(format, what it is)`` when a parsed top-level mapping is another tool's file."""
    return next(((fmt, label) for fmt, label, test in FORMATS if test(data)), None)


def format_of_text(text: str, file: str = "") -> tuple[str, str] | None:
    """``(format, what it is)`` when ``text`` (named ``file``) is another tool's file, else None."""
    if file.endswith((".tf", ".tf.json")) or _HCL_BLOCK.search(text):
        return TERRAFORM
    text = text.removeprefix("\ufeff")  # a BOM is not part of the text
    data: Any = None
    if text.lstrip().startswith(("{", "[")):
        # JSON (a Workbench model, a synthesized template) read as JSON: PyYAML, pure Python, takes
        # about a hundred times as long on a model of a few megabytes.
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):  # JSON-like YAML (flow style, comments): YAML below
            data = None
    if data is None:
        try:
            data = yaml.load(text, Loader=_AnyTag)  # noqa: S506 - a SafeLoader that maps unknown tags to None
        except (yaml.YAMLError, RecursionError):  # nested thousands deep: no other tool's file either
            return None
    return format_of_mapping(data) if isinstance(data, dict) else None


def format_of_path(path: str | Path) -> tuple[str, str] | None:
    """``(format, what it is)`` for a file or a folder (a folder of ``.tf`` files is Terraform);
    ``InputFileError`` (an ``OSError``) for a file that cannot be read as text, saying why."""
    path = Path(path)
    if path.is_dir():
        return TERRAFORM if any(path.glob("*.tf")) or any(path.glob("*.tf.json")) else None
    # A file that cannot be read (too large, a device, not UTF-8) is refused with that reason: "cannot
    # tell what it is" would hide it.
    try:
        text = read_text(path)
    except UnicodeDecodeError:
        raise InputFileError(errno.EINVAL, "not a text file (not UTF-8)", str(path)) from None
    return format_of_text(text, path.name)


def foreign_problem(found: tuple[str, str] | None, file: str) -> Problem | None:
    """The one problem reported for another tool's file (``found`` from the ``format_of_*`` above)."""
    if found is None:
        return None
    fmt, what = found
    return Problem(
        file,
        1,
        1,
        f"this is {what}, not a tablewright design",
        f"write a design from it: tablewright import --from {fmt} {file}",
    )
