"""Tables declared through the community module ``terraform-aws-modules/dynamodb-table/aws``, read
as the ``aws_dynamodb_table`` the module creates from its inputs.

``MODULE_SOURCES`` recognises the module by its source; ``ARGUMENTS`` are inputs passed to the
resource as they are; ``LIST_BLOCKS`` turn list inputs into nested blocks; ``FLAG_BLOCKS`` turn
flag inputs into nested blocks. The module's own defaults apply where they differ from the
provider's (on-demand billing). Inputs that create other resources (auto-scaling, replicas) are
listed as not carried by the table reader, as for a plain resource.
"""

from __future__ import annotations

from typing import Any

from .hcl import Block, Scope, Unresolved, evaluate

MODULE_SOURCES = ("terraform-aws-modules/dynamodb-table", "terraform-aws-dynamodb-table")
ARGUMENTS = (
    "name",
    "billing_mode",
    "read_capacity",
    "write_capacity",
    "hash_key",
    "range_key",
    "table_class",
    "stream_enabled",
    "stream_view_type",
    "deletion_protection_enabled",
    "tags",
)
# list input -> nested block type, one block per element
LIST_BLOCKS = {
    "attributes": "attribute",
    "global_secondary_indexes": "global_secondary_index",
    "local_secondary_indexes": "local_secondary_index",
}
# nested block type -> (block argument -> module input)
FLAG_BLOCKS = {
    "ttl": {"enabled": "ttl_enabled", "attribute_name": "ttl_attribute_name"},
    "point_in_time_recovery": {"enabled": "point_in_time_recovery_enabled"},
    "server_side_encryption": {
        "enabled": "server_side_encryption_enabled",
        "kms_key_arn": "server_side_encryption_kms_key_arn",
    },
}
# Inputs the module turns into resources the design does not hold: named in the notes.
REPORTED_INPUTS = ("autoscaling_enabled", "autoscaling_read", "autoscaling_write", "replica_regions")
_DEFAULTS = {"billing_mode": "PAY_PER_REQUEST"}
_META = ("source", "version", "providers", "depends_on", "count", "for_each", "create_table")


def is_table_module(block: Block, scope: Scope) -> bool:
    """True for a ``module`` block of the DynamoDB table module."""
    if block.type != "module" or "source" not in block.arguments:
        return False
    source = str(evaluate(block.arguments["source"], scope))
    return any(known in source for known in MODULE_SOURCES)


def creates_table(block: Block, scope: Scope) -> bool:
    """False when the module is told not to create its table (``create_table = false``)."""
    return "create_table" not in block.arguments or bool(evaluate(block.arguments["create_table"], scope))


def _set(expression: Any, scope: Scope) -> bool:
    """False for an input left empty or off (``[]``, ``false``); True when only apply knows."""
    try:
        return bool(evaluate(expression, scope))
    except Unresolved:
        return True


def as_table_block(block: Block, scope: Scope, notes: list[str]) -> Block:
    """The ``aws_dynamodb_table`` resource block the module creates (list inputs evaluated here)."""
    arguments: dict[str, Any] = dict(_DEFAULTS)
    passed = (*ARGUMENTS, "count", "for_each")
    arguments.update({k: block.arguments[k] for k in passed if k in block.arguments})
    table = Block("resource", ["aws_dynamodb_table", block.labels[0]], arguments, [], block.file)
    table.comments = block.comments
    for module_input, kind in LIST_BLOCKS.items():
        if module_input in block.arguments:
            for element in evaluate(block.arguments[module_input], scope) or []:
                table.blocks.append(Block(kind, [], dict(element), [], block.file))
    for kind, inputs in FLAG_BLOCKS.items():
        values = {arg: block.arguments[name] for arg, name in inputs.items() if name in block.arguments}
        if values:
            values.setdefault("enabled", False)  # the module's default for every flag
            table.blocks.append(Block(kind, [], values, [], block.file))
    for name in REPORTED_INPUTS:
        if name in block.arguments and _set(block.arguments[name], scope):
            notes.append(f"table {block.labels[0]}: module input {name} is not carried")
    unknown = set(block.arguments) - set(ARGUMENTS) - set(LIST_BLOCKS) - set(REPORTED_INPUTS) - set(_META)
    unknown -= {name for inputs in FLAG_BLOCKS.values() for name in inputs.values()}
    notes += [f"table {block.labels[0]}: module input {name} is not carried" for name in sorted(unknown)]
    return table
