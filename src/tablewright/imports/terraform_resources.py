"""Terraform resources around an ``aws_dynamodb_table``: the ones whose settings the design holds
(contributor insights, a Kinesis destination, a resource policy) join their table; the others that
concern DynamoDB (auto-scaling, replicas, legacy global tables) are described for the notes
(``REPORTED``: resource type -> describer).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lark import Tree

from ..export.settings import design_values
from .hcl import Block, Scope, Unresolved, evaluate, text_of
from .writer import ImportedTable


def _link(expression: Tree, tables: dict[str, str]) -> str | None:
    """The table label a companion resource's ``table_name``/``resource_arn`` refers to."""
    text = text_of(expression)
    match = re.search(r"aws_dynamodb_table\.([\w-]+)", text)
    if match:
        return match.group(1)
    literal = text.strip('"')
    return next((label for label, name in tables.items() if name == literal), None)


def _argument(block: Block, name: str, scope: Scope) -> Any:
    """An argument's value; ``Unresolved`` names the whole argument and what stopped it."""
    try:
        return evaluate(block.arguments[name], scope)
    except Unresolved as error:
        raise Unresolved(
            f"{name} = {text_of(block.arguments[name])}", f"{error.reason}: {error.expression}"
        ) from None


def join_companions(
    blocks: list[Block], tables: dict[str, ImportedTable], scope: Scope, notes: list[str]
) -> None:
    """Contributor insights, Kinesis destinations and resource policies declared as resources."""
    names = {label: t.create["TableName"] for label, t in tables.items()}
    for block in blocks:
        if block.type != "resource" or len(block.labels) != 2:
            continue
        kind, label = block.labels
        reference = block.arguments.get("table_name") or block.arguments.get("resource_arn")
        owner = tables.get(_link(reference, names) or "") if reference is not None else None
        try:
            if kind == "aws_dynamodb_contributor_insights" and owner and "index_name" not in block.arguments:
                owner.settings["contributor_insights"] = True
            elif kind == "aws_dynamodb_kinesis_streaming_destination" and owner:
                owner.settings["kinesis_stream"] = _argument(block, "stream_arn", scope)
            elif kind == "aws_dynamodb_resource_policy" and owner:
                owner.settings.update(
                    design_values(
                        {"CreateTable": {"ResourcePolicy": evaluate(block.arguments["policy"], scope)}}
                    )
                )
            elif kind in REPORTED:
                note = REPORTED[kind](label, block, scope)
                if note:
                    notes.append(note)
        except Unresolved as error:
            notes.append(f"{kind}.{label} is not carried: {error}")


def _quiet(block: Block, name: str, scope: Scope) -> Any:
    """An argument's value, or its text when only apply decides it (for a note)."""
    try:
        return evaluate(block.arguments[name], scope) if name in block.arguments else None
    except Unresolved:
        return text_of(block.arguments[name])


def _scaling_target(label: str, block: Block, scope: Scope) -> str | None:
    if _quiet(block, "service_namespace", scope) != "dynamodb":
        return None
    dimension, low, high = (
        _quiet(block, n, scope) for n in ("scalable_dimension", "min_capacity", "max_capacity")
    )
    return f"auto-scaling target {label}: {dimension} {low}..{high} units"


def _scaling_policy(label: str, block: Block, scope: Scope) -> str | None:
    about = f"{_quiet(block, 'service_namespace', scope)} {_quiet(block, 'name', scope)}"
    return (
        f"auto-scaling policy {label}: {_quiet(block, 'policy_type', scope)}"
        if "dynamodb" in about.lower()
        else None
    )


# Resource type -> a note for a resource around the tables the design does not carry (None: unrelated).
REPORTED: dict[str, Callable[[str, Block, Scope], str | None]] = {
    "aws_appautoscaling_target": _scaling_target,
    "aws_appautoscaling_policy": _scaling_policy,
    "aws_dynamodb_table_replica": lambda label, _, __: f"table replica {label} (a global table)",
    "aws_dynamodb_global_table": lambda label, _, __: f"global table {label}: not imported",
    "aws_dynamodb_contributor_insights": lambda label, _, __: (
        f"contributor insights {label} (of an index, or of a table not found here)"
    ),
    "aws_dynamodb_kinesis_streaming_destination": lambda label, _, __: (
        f"Kinesis destination {label} of a table not found here"
    ),
    "aws_dynamodb_resource_policy": lambda label, _, __: f"resource policy {label} of a table not found here",
}
