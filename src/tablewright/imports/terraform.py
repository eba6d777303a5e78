"""Import Terraform: every ``aws_dynamodb_table`` of a ``.tf`` file or of a folder's ``.tf`` files.

Expressions are evaluated by ``hcl`` with variables' defaults (overridden by ``terraform.tfvars``
and ``*.auto.tfvars`` in the folder), ``locals``, ``dynamic`` blocks and resource ``for_each`` /
``count`` expanded. An argument that decides the table (keys, billing, indexes...) and cannot be
evaluated stops the import, naming the table, the argument and the expression; a name decided at
apply time keeps the resource name and is recorded as ``name_from``. ``replica`` blocks (global
tables), auto-scaling and anything else the design cannot hold are listed in ``Imported.notes``.

``ARGUMENTS`` and ``BLOCKS`` are the inverse of ``tablewright.export.terraform``'s tables: argument
or block type -> how it fills the DynamoDB API requests the writer reads.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from lark import Tree

from ..export.settings import design_values
from ..export.terraform import KMS_LOOKUPS, NAME_FROM_COMMENT
from . import terraform_modules
from .checks import check_create_table
from .cloudformation import stand_in_name
from .hcl import (
    NO_DEFAULT,
    Block,
    Scope,
    Unresolved,
    evaluate,
    parse_file,
    read_blocks,
    text_of,
    top_level_attributes,
)
from .terraform_resources import join_companions
from .terraform_types import typed
from .writer import Imported, ImportedTable, assume_capacity

TABLE = "aws_dynamodb_table"
Calls = dict[str, dict[str, Any]]


def _create(calls: Calls) -> dict[str, Any]:
    return calls.setdefault("CreateTable", {})


def _key(kind: str) -> Callable[[Calls, Any], None]:
    def set_key(calls: Calls, name: Any) -> None:
        _create(calls).setdefault("KeySchema", []).append({"AttributeName": name, "KeyType": kind})

    return set_key


def as_int(value: Any) -> int:
    """A whole number the way Terraform converts one (``5``, ``"5"``, ``5.0``)."""
    try:
        number = float(value.strip()) if isinstance(value, str) else value
    except ValueError:
        number = None
    if isinstance(number, bool) or not isinstance(number, (int, float)) or not float(number).is_integer():
        raise ValueError(f"{value!r} is not a whole number")
    return int(number)


def as_bool(value: Any) -> bool:
    """A boolean the way Terraform converts one (``true``, ``"true"``)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip() in ("true", "false"):
        return value.strip() == "true"
    raise ValueError(f"{value!r} is not true or false")


def _capacity(field: str) -> Callable[[Calls, Any], None]:
    def set_capacity(calls: Calls, units: Any) -> None:
        _create(calls).setdefault("ProvisionedThroughput", {})[field] = as_int(units)

    return set_capacity


def _field(name: str, convert: Callable[[Any], Any] = lambda v: v) -> Callable[[Calls, Any], None]:
    def set_field(calls: Calls, value: Any) -> None:
        _create(calls)[name] = convert(value)

    return set_field


def _stream_view(calls: Calls, view: Any) -> None:
    _create(calls).setdefault("StreamSpecification", {"StreamEnabled": True})["StreamViewType"] = view


def _stream_enabled(calls: Calls, enabled: Any) -> None:
    _create(calls).setdefault("StreamSpecification", {})["StreamEnabled"] = as_bool(enabled)


# Argument -> how its value fills the requests. Settings (tags...) may be left out with a note.
ARGUMENTS: dict[str, Callable[[Calls, Any], None]] = {
    "name": _field("TableName"),
    "billing_mode": _field("BillingMode"),
    "read_capacity": _capacity("ReadCapacityUnits"),
    "write_capacity": _capacity("WriteCapacityUnits"),
    "hash_key": _key("HASH"),
    "range_key": _key("RANGE"),
    "table_class": _field("TableClass"),
    "stream_enabled": _stream_enabled,
    "stream_view_type": _stream_view,
    "deletion_protection_enabled": _field("DeletionProtectionEnabled", as_bool),
    "tags": _field("Tags", lambda tags: [{"Key": k, "Value": str(v)} for k, v in tags.items()]),
}
SETTINGS = {"deletion_protection_enabled", "tags", "server_side_encryption"}
# Terraform's own arguments on every resource: nothing for the design to hold.
META = {"count", "for_each", "provider", "depends_on", "lifecycle", "timeouts", "tags_all"}


def _index(values: dict[str, Any], local: bool) -> dict[str, Any]:
    schema = [{"AttributeName": values["hash_key"], "KeyType": "HASH"}] if "hash_key" in values else []
    if values.get("range_key"):
        schema.append({"AttributeName": values["range_key"], "KeyType": "RANGE"})
    projection: dict[str, Any] = {"ProjectionType": values.get("projection_type", "ALL")}
    if values.get("non_key_attributes"):
        projection["NonKeyAttributes"] = list(values["non_key_attributes"])
    index: dict[str, Any] = {"IndexName": values["name"], "KeySchema": schema, "Projection": projection}
    if not local and "read_capacity" in values:
        index["ProvisionedThroughput"] = {
            "ReadCapacityUnits": as_int(values["read_capacity"]),
            "WriteCapacityUnits": as_int(values.get("write_capacity", values["read_capacity"])),
        }
    return index


def _lsi(calls: Calls, values: dict[str, Any]) -> None:
    index = _index(values, local=True)
    index["KeySchema"] = [k for k in index["KeySchema"] if k["KeyType"] == "RANGE"]
    calls.setdefault("_lsis", {"list": []})["list"].append(index)  # the table's hash key joins later


def _sse(calls: Calls, values: dict[str, Any]) -> None:
    spec = {"Enabled": as_bool(values.get("enabled", False)), "SSEType": "KMS"}
    if values.get("kms_key_arn"):
        spec["KMSMasterKeyId"] = values["kms_key_arn"]
    _create(calls)["SSESpecification"] = spec


def _ttl(calls: Calls, values: dict[str, Any]) -> None:
    # The AWS provider's ``enabled`` defaults to false: a ttl block naming only the attribute is off.
    if as_bool(values.get("enabled", False)) and values.get("attribute_name"):
        calls["UpdateTimeToLive"] = {
            "TimeToLiveSpecification": {"Enabled": True, "AttributeName": values["attribute_name"]}
        }


def _pitr(calls: Calls, values: dict[str, Any]) -> None:
    if as_bool(values.get("enabled", False)):
        calls["UpdateContinuousBackups"] = {
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}
        }


# Nested block type -> how one block's evaluated arguments fill the requests.
BLOCKS: dict[str, Callable[[Calls, dict[str, Any]], None]] = {
    "attribute": lambda calls, v: (
        _create(calls)
        .setdefault("AttributeDefinitions", [])
        .append({"AttributeName": v["name"], "AttributeType": v["type"]})
    ),
    "global_secondary_index": lambda calls, v: (
        _create(calls).setdefault("GlobalSecondaryIndexes", []).append(_index(v, local=False))
    ),
    "local_secondary_index": _lsi,
    "ttl": _ttl,
    "point_in_time_recovery": _pitr,
    "server_side_encryption": _sse,
}


_INDEX_ARGUMENTS = {"name", "hash_key", "range_key", "projection_type", "non_key_attributes"}
# Nested block type -> the arguments of it the design holds; any other is listed.
HELD_ARGUMENTS: dict[str, set[str]] = {
    "attribute": {"name", "type"},
    "global_secondary_index": _INDEX_ARGUMENTS | {"read_capacity", "write_capacity"},
    "local_secondary_index": _INDEX_ARGUMENTS,
    "ttl": {"attribute_name", "enabled"},
    "point_in_time_recovery": {"enabled"},
    "server_side_encryption": {"enabled", "kms_key_arn"},
}


class _Table:
    """One ``aws_dynamodb_table`` being read: errors and notes say which one."""

    def __init__(self, label: str, block: Block, scope: Scope, notes: list[str]) -> None:
        self.label, self.block, self.scope, self.notes = label, block, scope, notes
        self.calls: Calls = {"CreateTable": {}}
        self.settings: dict[str, Any] = {}

    def value(self, where: str, expression: Tree, scope: Scope, setting: bool) -> Any:
        """An argument's value; None (with a note) for a setting nothing decides."""
        try:
            return evaluate(expression, scope)
        except Unresolved as error:
            if where == "name":
                self.settings["name_from"] = text_of(expression)
                return stand_in_name(self.label)
            problem = f"{where} = {text_of(expression)}: {error.reason} ({error.expression})"
            if setting:
                self.notes.append(f"table {self.label}: {where.split('.')[0]} is not carried: {problem}")
                return None
            raise ValueError(f"{self.block.file}: table {self.label}: cannot evaluate {problem}") from None

    def arguments(self, block: Block, scope: Scope, where: str, setting: bool) -> dict[str, Any] | None:
        values = {}
        for name, expression in block.arguments.items():
            value = self.value(f"{where}.{name}", expression, scope, setting)
            if value is None and setting:
                return None
            values[name] = value
        return values

    def expanded(self, block: Block) -> list[tuple[Block, Scope]]:
        """Nested blocks, ``dynamic`` ones repeated over their ``for_each``."""
        out = []
        for nested in block.blocks:
            if nested.type != "dynamic":
                out.append((nested, self.scope))
                continue
            content = next((b for b in nested.blocks if b.type == "content"), None)
            if not nested.labels or "for_each" not in nested.arguments or content is None:
                raise ValueError(
                    f"{self.block.file}: table {self.label}: a dynamic block needs a label,"
                    " a for_each and a content block"
                )
            kind = nested.labels[0]
            iterator = text_of(nested.arguments["iterator"]) if "iterator" in nested.arguments else kind
            items = self.value(f"dynamic {kind}.for_each", nested.arguments["for_each"], self.scope, False)
            pairs = items.items() if isinstance(items, dict) else enumerate(items or [])
            for key, item in pairs:
                scope = self.scope.with_names(**{iterator: {"key": key, "value": item}})
                out.append((Block(kind, [], content.arguments, content.blocks, nested.file), scope))
        return out

    def read(self) -> ImportedTable:
        for comment in self.block.comments:  # written by our own export for a deploy-time name
            if comment.startswith(NAME_FROM_COMMENT):
                self.settings["name_from"] = comment.removeprefix(NAME_FROM_COMMENT).strip()
        for name, expression in self.block.arguments.items():
            if name in META:
                continue
            if name not in ARGUMENTS:
                self.notes.append(f"table {self.label}: argument {name} is not carried")
                continue
            value = self.value(name, expression, self.scope, name in SETTINGS)
            if value is not None:
                self.apply(name, ARGUMENTS[name], value)
        for nested, scope in self.expanded(self.block):
            if nested.type == "replica":
                region = self.value("replica.region_name", nested.arguments.get("region_name"), scope, True)
                region = region or "a region not given"
                self.notes.append(f"table {self.label}: a global table: replica in {region} is not carried")
            elif nested.type in BLOCKS:
                self._note_unheld(nested)
                setting = nested.type in SETTINGS
                values = self.arguments(nested, scope, nested.type, setting)
                if values is not None:
                    self.apply(nested.type, BLOCKS[nested.type], values)
                if (
                    nested.type == "ttl"
                    and values
                    and values.get("attribute_name")
                    and "enabled" not in values
                ):
                    self.notes.append(
                        f"table {self.label}: ttl names attribute {values['attribute_name']!r} without "
                        "enabled = true: TTL is off as written (the AWS provider's default), so the design "
                        "has no ttl"
                    )
            elif nested.type == "lifecycle":
                self._note_prevent_destroy(nested, scope)
            elif nested.type not in META:
                self.notes.append(f"table {self.label}: block {nested.type} is not carried")
        return self.table()

    def _note_prevent_destroy(self, block: Block, scope: Scope) -> None:
        """``lifecycle { prevent_destroy = true }`` guards the table's items against a destroy or a
        replacement; the design has no place for it, and an exported resource lacks it."""
        expression = block.arguments.get("prevent_destroy")
        if expression is not None and self.value("lifecycle.prevent_destroy", expression, scope, True):
            self.notes.append(
                f"table {self.label}: lifecycle.prevent_destroy is not carried: an exported resource"
                " lets terraform destroy or replace the table and its items"
            )

    def apply(self, where: str, fill: Callable[[Calls, Any], None], value: Any) -> None:
        """Fill the requests from one argument or block; a wrong value names the table and where."""
        try:
            fill(self.calls, value)
        except KeyError as error:
            raise ValueError(f"{self.block.file}: table {self.label}: {where}: missing {error}") from None
        except (ValueError, TypeError) as error:
            raise ValueError(f"{self.block.file}: table {self.label}: {where}: {error}") from None

    def _note_unheld(self, block: Block) -> None:
        """List the arguments and blocks inside a known block that the design has no place for."""
        held = HELD_ARGUMENTS[block.type]
        where = f"{block.type} {block.arguments.get('name') and text_of(block.arguments['name'])}"
        where = where.replace(" None", "")
        for name in [*block.arguments, *(b.type for b in block.blocks)]:
            if name not in held:
                self.notes.append(f"table {self.label}: {where}: {name} is not carried")
                block.arguments.pop(name, None)

    def table(self) -> ImportedTable:
        create = self.calls["CreateTable"]
        create.setdefault("TableName", stand_in_name(self.label))
        create.setdefault("BillingMode", "PROVISIONED")  # the provider's default
        hash_key = next((k for k in create.get("KeySchema", []) if k["KeyType"] == "HASH"), None)
        if hash_key is None:
            raise ValueError(f"{self.block.file}: table {self.label}: no hash_key")
        create["KeySchema"].sort(key=lambda k: k["KeyType"] != "HASH")
        for lsi in self.calls.pop("_lsis", {"list": []})["list"]:
            lsi["KeySchema"].insert(0, dict(hash_key))
            create.setdefault("LocalSecondaryIndexes", []).append(lsi)
        try:
            check_create_table(create, self.label)
        except ValueError as error:
            raise ValueError(f"{self.block.file}: {error}") from None
        if create.get("StreamSpecification", {}).get("StreamEnabled") is False:
            del create["StreamSpecification"]
        ttl = self.calls.get("UpdateTimeToLive", {}).get("TimeToLiveSpecification")
        table = ImportedTable(
            create=create,
            ttl=ttl["AttributeName"] if ttl else None,
            pitr="UpdateContinuousBackups" in self.calls,
            settings={**design_values(self.calls), **self.settings},
        )
        assume_capacity(table, billing_stated="billing_mode" in self.block.arguments)
        return table


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted([*path.glob("*.tf"), *path.glob("*.tf.json")])
        if not files:
            raise ValueError(f"{path}: no .tf file in the folder (nor a .tf.json one)")
        return files
    return [path]


def _variables(blocks: list[Block], folder: Path, scope: Scope) -> None:
    """Variable -> default; ``terraform.tfvars`` and ``*.auto.tfvars`` override, as Terraform does."""
    types = {}
    for block in blocks:
        if block.type == "variable" and block.labels:
            default = block.arguments.get("default")
            scope.variables[block.labels[0]] = NO_DEFAULT if default is None else evaluate(default, scope)
            if "type" in block.arguments:
                types[block.labels[0]] = block.arguments["type"]
    for tfvars in [folder / "terraform.tfvars", *sorted(folder.glob("*.auto.tfvars"))]:
        if tfvars.is_file():
            for name, expression in top_level_attributes(parse_file(tfvars).children[0]).items():
                scope.variables[name] = evaluate(expression, scope)
    for name, constraint in types.items():  # optional attributes' defaults, conversions
        if scope.variables.get(name, NO_DEFAULT) is not NO_DEFAULT:
            scope.variables[name] = typed(scope.variables[name], constraint, scope, name)


class _DataSources(dict[str, Any]):
    """``data.*`` as far as the files decide it: the KMS keys our export looks up by alias or id
    (``data.aws_kms_alias.t.target_key_arn`` is the alias the design names); any other data source
    is read by terraform plan."""

    def __init__(self, blocks: list[Block], scope: Scope) -> None:
        super().__init__()
        for kind, argument, attribute in KMS_LOOKUPS.values():
            for block in blocks:
                if block.type == "data" and block.labels[:1] == [kind] and argument in block.arguments:
                    try:
                        key = evaluate(block.arguments[argument], scope)
                    except Unresolved:
                        continue
                    self.setdefault(kind, {})[block.labels[-1]] = {attribute: key}

    def __missing__(self, kind: str) -> Any:
        raise Unresolved(f"data.{kind}", "a data source, read by terraform plan")


NO_INSTANCE = "not imported: its count or for_each makes no instance with the variables' values"


def _instances(label: str, block: Block, scope: Scope) -> list[tuple[str, Scope]]:
    """One (label, scope) per instance of a resource: ``for_each`` and ``count`` expanded."""
    if "for_each" in block.arguments:
        items = evaluate(block.arguments["for_each"], scope)
        pairs = items.items() if isinstance(items, dict) else ((i, i) for i in items)
        return [(f"{label}[{key}]", scope.with_names(each={"key": key, "value": v})) for key, v in pairs]
    if "count" in block.arguments:
        count = int(evaluate(block.arguments["count"], scope))
        return [(f"{label}[{i}]", scope.with_names(count={"index": i})) for i in range(count)]
    return [(label, scope)]


def _found(blocks: list[Block]) -> str:
    """What the files hold instead of a table, for the 'no table' message."""
    found = sorted({f"resource {b.labels[0]}" for b in blocks if b.type == "resource" and b.labels})
    found += sorted(f"module {b.labels[0]}" for b in blocks if b.type == "module" and b.labels)
    found += sorted({f"{b.type} block" for b in blocks if b.type not in ("resource", "module")})
    return f"found {', '.join(found)}" if found else "found nothing but comments"


def import_file(path: Path, **_: Any) -> Imported:
    """Every ``aws_dynamodb_table`` of a ``.tf`` file or a folder of them."""
    files = _files(path)
    blocks = [b for f in files for b in read_blocks(parse_file(f).children[0], str(f))]
    locals_ = {k: v for b in blocks if b.type == "locals" for k, v in b.arguments.items()}
    scope = Scope({}, locals_)
    folder = path if path.is_dir() else path.parent
    try:
        _variables(blocks, folder, scope)
    except Unresolved as error:
        raise ValueError(f"{path}: a variable's default: cannot evaluate {error}") from None
    scope = scope.with_names(data=_DataSources(blocks, scope))
    notes: list[str] = []
    tables: dict[str, ImportedTable] = {}
    for block in blocks:
        try:
            if terraform_modules.is_table_module(block, scope):
                if not terraform_modules.creates_table(block, scope):
                    notes.append(f"table {block.labels[0]}: not imported: create_table is false")
                    continue
                block = terraform_modules.as_table_block(block, scope, notes)  # noqa: PLW2901
            if block.type == "resource" and block.labels[:1] == [TABLE] and len(block.labels) != 2:
                raise ValueError(f"{block.file}: a resource {TABLE} needs exactly one name label")
            if block.type == "resource" and block.labels[:1] == [TABLE]:
                instances = _instances(block.labels[1], block, scope)
                if not instances:  # count = var.enabled ? 1 : 0, for_each = {}: none with these values
                    notes.append(f"table {block.labels[1]}: {NO_INSTANCE}")
                for label, instance_scope in instances:
                    tables[label] = _Table(label, block, instance_scope, notes).read()
        except Unresolved as error:
            label = block.labels[-1] if block.labels else block.type
            raise ValueError(f"{block.file}: table {label}: cannot evaluate {error}") from None
        except (KeyError, IndexError, TypeError, AttributeError) as error:  # a shape HCL allows, we do not
            label = block.labels[-1] if block.labels else block.type
            raise ValueError(f"{block.file}: table {label}: cannot read it: {error!r}") from None
    if not tables and notes:  # every table counted out, or a module told not to create its table
        raise ValueError(f"{path}: no table to import: {'; '.join(notes)}")
    if not tables:
        raise ValueError(f"{path}: no {TABLE} resource (nor a dynamodb-table module); {_found(blocks)}")
    join_companions(blocks, tables, scope, notes)
    name = path.name if path.is_dir() else path.name.removesuffix(".tf.json").removesuffix(".tf")
    return Imported(name=name, tables=list(tables.values()), source=f"the Terraform {path.name}", notes=notes)
