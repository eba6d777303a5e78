"""Semantic checks of a linked design: references, key types, sparse conditions, DynamoDB limits.

Each check is a function ``(design, issues) -> None`` in ``CHECKS``; issues are addressed by the
YAML path of the offending value so the loader can put a line number on them.
"""

from __future__ import annotations

from collections.abc import Callable

from .entities import TIMESTAMP_FORMATS, Entity, EntityKey
from .issues import Issues, suggest
from .model import Design, KeyAttribute, Table
from .predicates import Node, Predicate
from .predicates import Path as PathOperand
from .templates import KeyTemplate
from .templates.filters import zero_pad_width
from .views import REQUIRED_FIELDS, VIEW_KINDS, View

MAX_GSI, MAX_LSI, MAX_INCLUDE = 20, 5, 100
_NUMERIC_FILTERS = {"epoch_ms", "epoch_s", "shard"}
_STRING_FORMATS = {"uuid", "uuid4", "mac", "rfc3339", "date", "iana_tz", "sha256_hex", "semver"}


def _check_tables(design: Design, issues: Issues) -> None:
    for name, table in design.tables.items():
        gsis = [i for i in table.indexes.values() if i.kind == "global"]
        lsis = [i for i in table.indexes.values() if i.kind == "local"]
        if len(gsis) > MAX_GSI:
            issues.add(
                ("tables", name, "indexes"), f"table {name} has {len(gsis)} GSIs; DynamoDB allows {MAX_GSI}"
            )
        if len(lsis) > MAX_LSI:
            issues.add(
                ("tables", name, "indexes"), f"table {name} has {len(lsis)} LSIs; DynamoDB allows {MAX_LSI}"
            )
        for index in lsis:
            if index.partition_key.name != table.partition_key.name:
                issues.add(
                    ("tables", name, "indexes", index.name, "partition_key"),
                    f"local index {index.name} must use the table's partition key {table.partition_key.name}",
                    "make it a global index, or use the table's partition key",
                )
            if index.sort_key is None:
                issues.add(
                    ("tables", name, "indexes", index.name), f"local index {index.name} needs a sort_key"
                )
            if table.sort_key is None:
                # CreateTable: "Table KeySchema does not have a range key, which is required when
                # specifying a LocalSecondaryIndex".
                issues.add(
                    ("tables", name, "indexes", index.name),
                    f"local index {index.name} needs a table with a sort key, and table {name} has none: "
                    "DynamoDB refuses to create it",
                    "give the table a sort_key, or make the index global (kind: global)",
                    on_key=True,
                )
        included = sum(len(i.projection.attributes) for i in table.indexes.values())
        if included > MAX_INCLUDE:
            issues.add(
                ("tables", name, "indexes"),
                f"{included} INCLUDE attributes across indexes; DynamoDB allows {MAX_INCLUDE}",
            )
        if table.billing.mode == "provisioned" and (
            table.billing.read is None or table.billing.write is None
        ):
            issues.add(
                ("tables", name, "billing"),
                "provisioned billing needs read and write units",
                "add read: N and write: N",
            )
        if table.billing.mode == "on_demand" and (table.billing.read or table.billing.write):
            issues.add(
                ("tables", name, "billing"),
                "on-demand billing takes no read or write units (DynamoDB refuses a table given both)",
                "remove read and write, or write mode: provisioned",
            )
        _check_ttl(name, table, issues)
        types = {}
        for key in (
            table.partition_key,
            table.sort_key,
            *(k for i in table.indexes.values() for k in (i.partition_key, i.sort_key)),
        ):
            if key is not None and types.setdefault(key.name, key.type) != key.type:
                issues.add(
                    ("tables", name),
                    f"key attribute {key.name} is declared both {types[key.name]} and {key.type}",
                )


def _check_ttl(name: str, table: Table, issues: Issues) -> None:
    """The TTL attribute's name as DynamoDB would read it: an empty or space-padded name, or a key
    that is not a Number, is accepted by DynamoDB and then expires nothing."""
    if table.ttl is None:
        return
    where = ("tables", name, "ttl")
    if not table.ttl.strip():
        issues.add(
            where, "ttl names no attribute", "write the name of the epoch-seconds attribute, or remove ttl"
        )
        return
    if table.ttl != table.ttl.strip():
        issues.add(
            where,
            f"ttl {table.ttl!r} begins or ends with a space: DynamoDB would read an attribute of that name",
            f"write ttl: {table.ttl.strip()}",
        )
    keys = [(table.partition_key, "partition key"), (table.sort_key, "sort key")]
    keys += [(i.partition_key, f"index {i.name}'s partition key") for i in table.indexes.values()]
    keys += [(i.sort_key, f"index {i.name}'s sort key") for i in table.indexes.values()]
    for key, role in keys:
        if key is not None and key.name == table.ttl and key.type != "N":
            issues.add(
                where,
                f"ttl {table.ttl} is the {role}, of type {key.type}: TTL reads only Numbers, so no item expires",
                "give TTL an attribute of its own holding epoch seconds",
            )
            return


def _check_entities(design: Design, issues: Issues) -> None:
    for name, entity in design.entities.items():
        base = ("entities", name)
        table = design.tables.get(entity.table)
        if table is None:
            issues.add(
                (*base, "table"),
                f"entity {name} uses unknown table {entity.table!r}",
                suggest(entity.table, design.tables),
            )
            continue
        if "table" not in entity.keys:
            issues.add(
                (*base, "keys"),
                f"entity {name} has no table key",
                f"add keys: {{table: {{pk: ..., sk: ...}}}} for {table.partition_key.name}",
            )
        for key_name, entry in entity.keys.items():
            where = (*base, "keys", key_name)
            if key_name != "table" and key_name not in table.indexes:
                issues.add(
                    where,
                    f"table {entity.table} has no index {key_name!r}",
                    suggest(key_name, [*table.indexes, "table"]),
                    on_key=True,
                )
                continue
            _check_key(design, entity, key_name, entry, where, issues)
        for attr_name, attr in entity.attributes.items():
            _check_attribute(entity, attr_name, attr, (*base, "attributes", attr_name), issues)
        _check_entity_type_attribute(name, entity, issues)
        if table.ttl and table.ttl in entity.attributes and entity.attributes[table.ttl].type != "number":
            issues.add(
                (*base, "attributes", table.ttl),
                f"TTL attribute {table.ttl} must be a number (epoch seconds)",
            )
        for group_index, group in enumerate(entity.unique):
            for attr_name in group:
                if attr_name not in entity.attributes:
                    issues.add(
                        (*base, "unique", group_index),
                        f"unique constraint names unknown attribute {attr_name!r}",
                        suggest(attr_name, entity.attributes),
                    )
        for label, attr_name in (
            ("version", entity.version_attribute),
            ("idempotency_key", entity.idempotency_key),
        ):
            if attr_name and attr_name not in entity.attributes:
                issues.add(
                    (*base, label),
                    f"{label} names unknown attribute {attr_name!r}",
                    suggest(attr_name, entity.attributes),
                )
        if (
            entity.version_attribute in entity.attributes
            and entity.attributes[entity.version_attribute].type != "number"
        ):
            issues.add((*base, "version"), f"version attribute {entity.version_attribute} must be a number")


def _check_entity_type_attribute(name: str, entity: Entity, issues: Issues) -> None:
    """``entity_type: USER`` with no attribute to hold it would be written nowhere: items would carry
    no discriminator, and a pattern comparing one (``entityType = 'USER'``) would match nothing."""
    if entity.entity_type is None or entity.entity_type_attribute:
        return
    issues.add(
        ("entities", name, "entity_type"),
        f"entity type {entity.entity_type!r} of {name} names no attribute to be written to, so no item "
        "would carry it",
        f"set entity_type_attribute: entityType at the top level (every entity), or write "
        f"entity_type: {{attribute: entityType, value: {entity.entity_type}}}",
    )


def _check_key(
    design: Design, entity: Entity, key_name: str, entry: EntityKey, where: tuple, issues: Issues
) -> None:
    table = design.tables[entity.table]
    pk_attr, sk_attr = table.key_schema(key_name)
    known = set(entity.attributes) | (
        {entity.entity_type_attribute} if entity.entity_type_attribute else set()
    )
    for role, template, key_attr in (("pk", entry.pk, pk_attr), ("sk", entry.sk, sk_attr)):
        if template is None:
            if role == "sk" and key_attr is not None:
                issues.add(
                    where,
                    f"{key_name} has sort key {key_attr.name} but entity {entity.name} gives no sk template",
                    "add sk: ...",
                )
            continue
        if key_attr is None:
            issues.add((*where, role), f"{key_name} has no sort key, but an sk template is given")
            continue
        for field in template.fields:
            if field not in known:
                issues.add(
                    (*where, role),
                    f"template {template.source!r} uses unknown attribute {field!r}",
                    suggest(field, known),
                )
        _check_key_type(entity, template, key_attr.type, key_attr.name, (*where, role), issues)
        _check_padding(entity, template, (*where, role), issues)
    if entry.when is not None:
        _check_dotted_names(entry.when, entity, (*where, "when"), issues)
        for attr_name in entry.when.attributes - known:
            issues.add(
                (*where, "when"),
                f"condition uses unknown attribute {attr_name!r}",
                f"quote string literals ('{attr_name}'), or {suggest(attr_name, known)}",
            )
        if key_name != "table":
            _check_when_on_natural_key(entity, key_name, entry, entry.when, (pk_attr, sk_attr), where, issues)
    if key_name == "table" and entry.when is not None:
        issues.add((*where, "when"), "the table key cannot be conditional: every item has one")


def _check_padding(entity: Entity, template: KeyTemplate, where: tuple, issues: Issues) -> None:
    """A zero-padded field (``ISSUE#{number:07}``) whose number bounds allow more digits, or a negative
    value: the runtime refuses every such write (it would not sort), so the bounds promise values no
    item can hold. Said at load, where both halves are written, not at the first write of a big value."""
    for part in template.field_parts:
        attr = entity.attributes.get(part.name)
        width = zero_pad_width(part.spec)
        if part.filters or width is None or attr is None or attr.type != "number":
            continue
        if attr.max is not None and len(str(int(attr.max))) > width:
            issues.add(
                where,
                f"template {template.source!r} pads {part.name} to {width} digits, but {entity.name}."
                f"{part.name} may be up to {attr.max} ({len(str(int(attr.max)))} digits): every write "
                f"of a value from {10**width:,} on would be refused",
                f"widen the padding to :0{len(str(int(attr.max)))}, or lower max to {10**width - 1}",
            )
        if attr.min is not None and attr.min < 0:
            issues.add(
                where,
                f"template {template.source!r} zero-pads {part.name}, but {entity.name}.{part.name} may "
                f"be {attr.min}: a negative number cannot be padded to sort, and its writes would be refused",
                "set min: 0, or key on a value that is never negative",
            )


def _check_when_on_natural_key(
    entity: Entity,
    key_name: str,
    entry: EntityKey,
    when: Predicate,
    key_attrs: tuple[KeyAttribute, KeyAttribute | None],
    where: tuple,
    issues: Issues,
) -> None:
    """``when`` on an index keyed directly on entity attributes (``pk: "{flagged}"`` where ``flagged``
    is the index's own key attribute): the runtime cannot leave out an attribute the item stores, and
    DynamoDB indexes every item that holds all the index's key attributes. Only an optional attribute
    (not required, no default, not computed) is missing from some items, so ``when: "flagged exists"``
    says what DynamoDB does; a condition saying anything else is not what the index holds."""
    names = {k.name for k in key_attrs if k is not None}
    natural = [
        t.fields[0]
        for t in (entry.pk, entry.sk)
        if t is not None and t.is_bare_field and t.fields[0] in names
    ]
    if not natural:
        return
    optional = [n for n in natural if _optional(entity, n)]
    if not optional:
        issues.add(
            (*where, "when"),
            f"when cannot keep items out of {key_name}: its key attribute {natural[0]} is stored on every item",
            "compose the index key into its own attribute (e.g. GSI1PK) so it can be left out",
        )
        return
    tested = _exists_tests(when.tree)
    if tested is None or not set(optional) <= tested or not tested <= set(natural):
        wanted = " AND ".join(f"{n} exists" for n in optional)
        issues.add(
            (*where, "when"),
            f"when cannot keep items out of {key_name}: its key attribute {optional[0]} is stored on every "
            "item that has a value for it, and DynamoDB indexes each of them whatever when says",
            f'write when: "{wanted}" (items without it are left out), or compose the index key into its '
            "own attribute (e.g. GSI1PK) so it can be left out",
        )


def _optional(entity: Entity, name: str) -> bool:
    """An attribute that some items do not store: declared, not required, no default, not computed."""
    attr = entity.attributes.get(name)
    return attr is not None and not attr.required and attr.default is None and attr.computed is None


def _exists_tests(node: object) -> set[str] | None:
    """The attributes tested by a condition made only of ``x exists`` joined by AND, else None."""
    if isinstance(node, Node) and node.op == "exists" and isinstance(node.args[0], PathOperand):
        return {node.args[0].text}
    if isinstance(node, Node) and node.op == "and":
        tested: set[str] = set()
        for arg in node.args:
            part = _exists_tests(arg)
            if part is None:
                return None
            tested |= part
        return tested
    return None


def _check_key_type(
    entity: Entity, template: KeyTemplate, key_type: str, key_name: str, where: tuple, issues: Issues
) -> None:
    if template.is_bare_field:
        field = template.field_parts[0]
        attr = entity.attributes.get(field.name)
        if field.filters or field.spec:
            numeric = field.filters and field.filters[-1].name in _NUMERIC_FILTERS and not field.spec
        else:
            numeric = attr is not None and attr.type == "number"
        produced = (
            "N"
            if numeric
            else ("B" if attr is not None and attr.type == "binary" and not field.filters else "S")
        )
    else:
        produced = "S"
    if produced != key_type:
        issues.add(
            where,
            f"key {key_name} is type {key_type} but template {template.source!r} composes type {produced}",
            "match the key type, or format the value into a string template",
        )


def _check_attribute(entity: Entity, name: str, attr, where: tuple, issues: Issues) -> None:
    if attr.format in ("epoch_ms", "epoch_s") and attr.type != "number":
        issues.add((*where, "format"), f"format {attr.format} needs type number, not {attr.type}")
    if attr.format in _STRING_FORMATS and attr.type != "string":
        issues.add((*where, "format"), f"format {attr.format} needs type string, not {attr.type}")
    if attr.enum and attr.type == "string" and any(isinstance(v, bool) for v in attr.enum):
        issues.add(
            (*where, "enum"),
            f"enum of string attribute {name} contains a boolean",
            "YAML reads unquoted on/off/yes/no/true/false as booleans; quote them",
        )
    comp = attr.computed
    if comp is None:
        return
    if comp.kind == "ttl":
        if attr.type != "number":
            issues.add((*where, "type"), f"TTL attribute {name} must be type number (epoch seconds)")
        source = entity.attributes.get(comp.source or "")
        if comp.source and source is None:
            issues.add(
                (*where, "computed", "ttl", "from"),
                f"TTL source {comp.source!r} is not an attribute",
                suggest(comp.source, entity.attributes),
            )
        elif source is not None and not comp.unit and source.format not in TIMESTAMP_FORMATS:
            issues.add(
                (*where, "computed", "ttl"),
                f"the unit of TTL source {comp.source} is unknown",
                "add unit: ms | s | rfc3339, or give the source a format",
            )
    if comp.kind == "template" and comp.template is not None:
        for field in comp.template.fields:
            if field not in entity.attributes:
                issues.add(
                    (*where, "computed", "template"),
                    f"template uses unknown attribute {field!r}",
                    suggest(field, entity.attributes),
                )


def _check_patterns(design: Design, issues: Issues) -> None:
    for name, pattern in design.patterns.items():
        base = ("patterns", name)
        served = pattern.served
        for returned in pattern.returns:
            if returned not in design.entities:
                issues.add(
                    (*base, "returns"),
                    f"pattern returns unknown entity {returned!r}",
                    suggest(returned, design.entities),
                )
        via = served.via or (pattern.returns[0] if pattern.returns else None)
        entity = design.entities.get(via or "")
        declared = set(pattern.params)
        for label, predicate in (("means", pattern.means.where), ("served", served.filter)):
            if predicate is not None:
                where = (*base, label, "where" if label == "means" else "filter")
                for returned in pattern.returns:
                    _check_dotted_names(predicate, design.entities.get(returned), where, issues)
                for param in predicate.params - declared:
                    issues.add(
                        (*base, label, "where" if label == "means" else "filter"),
                        f"parameter :{param} is not declared",
                        "add it under params:",
                    )
        if entity is None or served.op not in ("get", "query"):
            continue
        table = design.tables.get(entity.table)
        if served.index and table is not None and served.index not in table.indexes:
            issues.add(
                (*base, "served", "index"),
                f"table {entity.table} has no index {served.index!r}",
                suggest(served.index, table.indexes),
            )
            continue
        entry = served.entity_key
        if entry is None:
            issues.add(
                (*base, "served"),
                f"entity {entity.name} has no key on {served.index or 'the table'}",
                "add it under the entity's keys:",
            )
            continue
        bound = {k for k, v in served.partition.items() if k != "*"}
        for field in entry.pk.fields:
            if (
                field not in bound
                and field not in declared
                and not (len(entry.pk.fields) == 1 and "*" in served.partition)
            ):
                issues.add(
                    (*base, "served"),
                    f"partition key field {field!r} of {entry.pk.source!r} is neither bound nor a param",
                    f"add {field} to params or bind it under partition:",
                )
        refs = [v for v in served.partition.values() if isinstance(v, str) and v.startswith(":")]
        refs += [
            v
            for cond in ([served.sort] if served.sort else [])
            for b in cond.bounds
            for v in b.values()
            if isinstance(v, str) and v.startswith(":")
        ]
        for ref in refs:
            if ref[1:] not in declared:
                issues.add((*base, "served"), f"parameter {ref} is not declared", "add it under params:")
        if served.buckets and served.buckets.attribute not in entry.pk.fields:
            issues.add(
                (*base, "served", "buckets", "attribute"),
                f"bucket attribute {served.buckets.attribute!r} is not in the partition template {entry.pk.source!r}",
            )


def _check_dotted_names(predicate: Predicate, entity: Entity | None, where: tuple, issues: Issues) -> None:
    """A path such as ``first.name`` reads member ``name`` of map ``first`` (as in DynamoDB's own
    expressions); an entity declaring an attribute named ``first.name`` would never be read by it."""
    if entity is None:
        return
    for path in sorted(predicate.paths):
        if "." in path and path in entity.attributes:
            issues.add(
                where,
                f"{path!r} reads member {path.split('.', 1)[1]!r} of a map {path.split('.')[0]!r}, but "
                f"entity {entity.name} declares an attribute named {path!r}, which a predicate cannot name",
                f"rename the attribute (e.g. {path.replace('.', '_')})",
            )


def _check_volumes(design: Design, issues: Issues) -> None:
    for name in design.volumes.entities:
        if name not in design.entities:
            issues.add(
                ("volumes", "entities", name),
                f"volume for unknown entity {name!r}",
                suggest(name, design.entities),
                on_key=True,
            )
    for name in design.volumes.patterns:
        if name not in design.patterns:
            issues.add(
                ("volumes", "patterns", name),
                f"volume for unknown pattern {name!r}",
                suggest(name, design.patterns),
                on_key=True,
            )


def _check_views(design: Design, issues: Issues) -> None:
    for name, view in design.views.items():
        base = ("views", name)
        if view.kind not in VIEW_KINDS:
            issues.add(
                (*base, "kind"), f"view {name}: unknown kind {view.kind!r}", suggest(view.kind, VIEW_KINDS)
            )
        for needed in REQUIRED_FIELDS.get(view.kind, ()):
            if not getattr(view, needed):
                issues.add(base, f"a {view.kind} view needs {needed}", f"add {needed}: <attribute>")
        pattern = design.patterns.get(view.pattern)
        if pattern is None:
            issues.add(
                (*base, "pattern"),
                f"view {name} uses unknown pattern {view.pattern!r}",
                suggest(view.pattern, design.patterns),
            )
            continue
        for param in view.params:
            if param not in pattern.params:
                issues.add(
                    (*base, "params", param),
                    f"view {name}: pattern {view.pattern} has no parameter {param!r}",
                    suggest(param, pattern.params),
                    on_key=True,
                )
        _check_view_attributes(design, view, pattern.returns, base, issues)


def _check_view_attributes(
    design: Design, view: View, returns: tuple[str, ...], base: tuple, issues: Issues
) -> None:
    """Every attribute a view names is declared by one of the entities its pattern returns."""
    entities = [design.entities[e] for e in returns if e in design.entities]
    if not entities:
        return
    # A view is drawn from declared attributes; an undeclared name is most likely a typo.
    known = {a for e in entities for a in e.attributes} | {
        e.entity_type_attribute for e in entities if e.entity_type_attribute
    }
    named = [("columns", c) for c in view.columns] + [("time", t) for t in view.time]
    named += [(f, getattr(view, f)) for f in ("label", "group_by") if getattr(view, f)]
    for where, attribute in named:
        if attribute not in known:
            issues.add(
                (*base, where),
                f"view {view.name}: no entity of pattern {view.pattern} has attribute {attribute!r}",
                suggest(attribute, known),
            )


def _check_examples(design: Design, issues: Issues) -> None:
    """Sample items name known entities; examples name only their pattern's params."""
    for name in design.samples:
        if name not in design.entities:
            issues.add(
                ("samples", name),
                f"samples for unknown entity {name!r}",
                suggest(name, design.entities),
                on_key=True,
            )
    for name, pattern in design.patterns.items():
        for position, example in enumerate(pattern.examples):
            for param in example:
                if param not in pattern.params:
                    issues.add(
                        ("patterns", name, "examples", position, param),
                        f"example {position + 1} of {name} gives {param!r}, which is not a param of the pattern",
                        suggest(param, pattern.params),
                        on_key=True,
                    )


CHECKS: dict[str, Callable[[Design, Issues], None]] = {
    "tables": _check_tables,
    "entities": _check_entities,
    "patterns": _check_patterns,
    "volumes": _check_volumes,
    "views": _check_views,
    "examples": _check_examples,
}


def check_design(design: Design, issues: Issues) -> None:
    """Run every semantic check on a linked design."""
    for check in CHECKS.values():
        check(design, issues)
