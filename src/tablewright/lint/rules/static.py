"""What ``tablewright check`` finds only with data, found from the design alone.

- TW003: a computed or templated value that breaks its own attribute's rules (an id built from a MAC
  address, ``AA:BB:...``, under a charset without ``:``): every write of such an item fails.
- TW004: a table or index name DynamoDB's CreateTable refuses (``t``: shorter than 3 characters).
- TW307: a time-bucketed partition key queried over a range with no bucket fan-out: a window that
  crosses a bucket boundary silently reads only the first bucket.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tablewright.cost.sizes import Unbounded, sample_value
from tablewright.design.model import AccessPattern, Attribute, Entity
from tablewright.design.predicates import Node, Path
from tablewright.design.templates import KeyTemplate, TemplateValueError
from tablewright.design.validators import check_attribute

from ..context import Context, pattern_path
from ..registry import Hit, rule

RANGE_OPS = {"between", "lt", "le", "gt", "ge"}


def _source_values(entity: Entity, fields: tuple[str, ...], largest: bool) -> dict[str, object] | None:
    values: dict[str, object] = {}
    for name in fields:
        attr = entity.attributes.get(name)
        if attr is None:
            return None  # a parameter or an unknown field: nothing to judge
        try:
            values[name] = sample_value(attr, largest)
        except Unbounded:
            return None
    return values


def _templated(entity: Entity) -> Iterator[tuple[str, Attribute, KeyTemplate, tuple[object, ...]]]:
    """Every (attribute, its declaration, the template that writes it, where) of an entity."""
    for name, attr in entity.attributes.items():
        if attr.computed is not None and attr.computed.template is not None:
            yield (
                name,
                attr,
                attr.computed.template,
                ("entities", entity.name, "attributes", name, "computed"),
            )
    for key_name, entry in entity.keys.items():
        for stored, template in ((entry.partition_name, entry.pk), (entry.sort_name, entry.sk)):
            attr = entity.attributes.get(stored or "")
            if attr is not None and template is not None and not template.is_bare_field:
                yield stored or "", attr, template, ("entities", entity.name, "keys", key_name)


@rule(
    "TW003",
    "computed-breaks-rule",
    "design",
    "error",
    "A computed or templated value breaks its own attribute's rules.",
    "The runtime validates every value it writes, computed ones included: an attribute whose template can "
    "only produce values its charset, pattern, format or length refuses makes every write of the entity "
    "fail (an id built from a MAC address, with ':', under a charset without ':').",
    "Let the rule admit what the template writes (widen the charset or pattern), or change the template "
    "(a filter such as |lower, another separator) so its output fits.",
)
def computed_breaks_rule(ctx: Context) -> Iterator[Hit]:
    for entity in ctx.design.entities.values():
        for name, attr, template, where in _templated(entity):
            for largest in (False, True):
                values = _source_values(entity, template.fields, largest)
                if values is None:
                    continue
                try:
                    value = template.render(values)
                except (TemplateValueError, ValueError, TypeError):
                    continue
                problems = check_attribute(attr, value, name)
                if problems:
                    _, rule_name, message = problems[0]
                    yield Hit(
                        where,
                        f"{entity.name}.{name} is written by template {template.source!r}, which gives "
                        f"{value!r} for {values!r}: {message} ({rule_name}); every such write is refused",
                    )
                    break


def _ranges(node: object) -> set[str]:
    """Attributes a ``means.where`` bounds by a range (BETWEEN, <, <=, >, >=)."""
    found: set[str] = set()
    if isinstance(node, Node):
        if node.op in RANGE_OPS:
            found |= {a.text for a in node.args if isinstance(a, Path)}
        if node.op in ("and", "not", "or"):
            for arg in node.args:
                found |= _ranges(arg)
    return found


def _ranged(pattern: AccessPattern) -> set[str]:
    ranged = _ranges(pattern.means.where.tree) if pattern.means.where is not None else set()
    sort = pattern.served.sort
    if sort is not None and sort.op in RANGE_OPS:
        ranged |= {f for b in sort.bounds if isinstance(b, dict) for f in b}
    return ranged


@rule(
    "TW307",
    "bucket-not-fanned-out",
    "patterns",
    "warning",
    "A time-bucketed partition key is queried over a range without bucket fan-out.",
    "With the bucket (year, month, day) in the partition key, one Query reads one bucket. A window that "
    "crosses a bucket boundary (Dec 30 to Jan 2) needs one Query per bucket; without it the pattern "
    "silently returns only the first bucket's items.",
    "Declare served.buckets: {attribute, from, to, step} so the runtime queries every bucket the window "
    "spans, or bound the window to one bucket in means.",
)
def bucket_not_fanned_out(ctx: Context) -> Iterator[Hit]:
    for pattern in ctx.design.patterns.values():
        served, entry = pattern.served, pattern.served.entity_key
        if served.op != "query" or entry is None or served.buckets is not None:
            continue
        for attribute in sorted(_ranged(pattern)):
            step = entry.pk.bucket_step(attribute)
            if step is None:
                continue
            yield Hit(
                pattern_path(pattern.name, "served"),
                f"pattern {pattern.name} reads a range of {attribute}, but the partition key "
                f"{entry.pk.source!r} holds one {step} of it: a window across a {step} boundary reads only "
                "the first, and there is no served.buckets to fan out",
            )


NAME = re.compile(r"[A-Za-z0-9_.\-]{3,255}")


@rule(
    "TW004",
    "name-rejected-by-dynamodb",
    "design",
    "error",
    "A table or index name DynamoDB rejects.",
    "DynamoDB table and index names are 3 to 255 characters of letters, digits, '_', '-' and '.'; "
    "CreateTable refuses any other, so the design cannot be deployed, checked or measured.",
    "Rename it (tables: give `name:` a physical name that fits; the logical name may stay short).",
)
def name_rejected(ctx: Context) -> Iterator[Hit]:
    for tname, table in ctx.design.tables.items():
        if not NAME.fullmatch(table.table_name):
            yield Hit(
                ("tables", tname),
                f"table name {table.table_name!r} is not 3-255 characters of letters, digits, '_', '-', '.'",
            )
        for iname in table.indexes:
            if not NAME.fullmatch(iname):
                yield Hit(
                    ("tables", tname, "indexes", iname),
                    f"index name {iname!r} of table {tname} is not 3-255 characters of letters, digits, '_', '-', '.'",
                )
