"""Terraform's JSON syntax (``.tf.json``, what ``cdktf synth`` writes) as the native syntax text
``hcl`` parses, so one reader evaluates both.

The JSON syntax has the same blocks and arguments as HCL: a block type's value is nested one object
per label (``"resource": {"aws_dynamodb_table": {"orders": {...}}}``), a nested block is an object or
a list of objects, strings are templates (``"${var.prefix}-orders"``) and ``"//"`` keys are comments.
Which keys of a body are nested blocks rather than arguments holding an object is Terraform's schema
knowledge: ``NESTED_BLOCKS`` carries the part the importer reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .cloudformation import read_json

# Top-level block type -> how many labels it has.
LABELS = {
    "resource": 2,
    "data": 2,
    "module": 1,
    "variable": 1,
    "output": 1,
    "provider": 1,
    "locals": 0,
    "terraform": 0,
}
# Keys of a body that are nested blocks (any other key is an argument, whatever its value).
NESTED_BLOCKS = {
    # aws_dynamodb_table's blocks, and those inside its indexes and replicas
    "attribute",
    "global_secondary_index",
    "local_secondary_index",
    "ttl",
    "point_in_time_recovery",
    "server_side_encryption",
    "replica",
    "import_table",
    "on_demand_throughput",
    "warm_throughput",
    "s3_bucket_source",
    "input_format_options",
    "csv",
    # every resource's and every block's own
    "lifecycle",
    "timeouts",
    "provisioner",
    "connection",
    "content",
    "validation",
    "required_providers",
    "backend",
    "cloud",
    "default_tags",
    "assume_role",
}
# Arguments whose JSON strings are an expression's text, not templates: references everywhere, and
# per block type its own (a variable's type constraint, a dynamic block's iterator name).
REFERENCES = {"depends_on", "provider", "providers", "ignore_changes", "replace_triggered_by"}
RAW_ARGUMENTS = {"variable": {"type"}, "dynamic": {"iterator"}}
_COMMENT = "//"


def _value(value: Any) -> str:
    """A JSON value as an HCL expression: strings stay templates (``${...}`` is evaluated)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # HCL's string escapes are JSON's
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return (
        "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)} = {_value(v)}" for k, v in value.items()) + "}"
    )


def _raw(value: Any) -> str:
    """An argument whose strings are expression text (``string``, ``aws_kms_key.k``), not templates."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_raw(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_raw(v)}" for k, v in value.items()) + "}"
    return _value(value)


def _bodies(value: Any, where: str) -> list[dict[str, Any]]:
    """A block's body or bodies (the JSON syntax allows a list for a block given more than once)."""
    bodies = value if isinstance(value, list) else [value]
    if not all(isinstance(b, dict) for b in bodies):
        raise ValueError(f"{where}: a block's body must be an object (or a list of objects)")
    return bodies


def _body(kind: str, body: dict[str, Any], where: str, indent: str) -> list[str]:
    raw = REFERENCES | RAW_ARGUMENTS.get(kind, set())
    lines = []
    for name, value in body.items():
        if name == _COMMENT:
            continue
        if name == "dynamic":  # dynamic "<block type>" { for_each = ..., content { ... } }
            for labels in _bodies(value, f"{where}.dynamic"):
                for kind, inner in labels.items():
                    for one in _bodies(inner, f"{where}.dynamic.{kind}"):
                        lines += _block("dynamic", [kind], one, f"{where}.dynamic.{kind}", indent)
        elif name in NESTED_BLOCKS and isinstance(value, dict | list) and value != []:
            for one in _bodies(value, f"{where}.{name}"):
                lines += _block(name, [], one, f"{where}.{name}", indent)
        elif name in raw:
            lines.append(f"{indent}{name} = {_raw(value)}")
        else:
            lines.append(f"{indent}{name} = {_value(value)}")
    return lines


def _block(kind: str, labels: list[str], body: dict[str, Any], where: str, indent: str) -> list[str]:
    head = " ".join([kind, *(json.dumps(label, ensure_ascii=False) for label in labels)])
    return [f"{indent}{head} {{", *_body(kind, body, where, indent + "  "), f"{indent}}}"]


def _labelled(kind: str, value: Any, labels: list[str], depth: int, where: str) -> list[str]:
    """The blocks of one top-level type, ``depth`` labels still to read from the nesting."""
    lines = []
    for one in _bodies(value, where):
        if depth == 0:
            lines += _block(kind, labels, one, where, "")
            continue
        for label, inner in one.items():
            if label != _COMMENT:
                lines += _labelled(kind, inner, [*labels, label], depth - 1, f"{where}.{label}")
    return lines


def hcl_text(path: Path) -> str:
    """The native-syntax text of a ``.tf.json`` file; ``ValueError`` naming the file and the problem."""
    document = read_json(path)
    if not isinstance(document, dict):
        raise ValueError(f"{path}: Terraform JSON is an object of blocks, not {type(document).__name__}")
    lines = []
    for kind, value in document.items():
        if kind == _COMMENT:
            continue
        if kind not in LABELS:
            raise ValueError(f"{path}: {kind!r} is not a Terraform block type ({', '.join(LABELS)})")
        lines += _labelled(kind, value, [], LABELS[kind], f"{path}: {kind}")
    return "\n".join(lines) + "\n"


__all__ = ["NESTED_BLOCKS", "hcl_text"]
