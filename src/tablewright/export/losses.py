"""What an export format cannot carry, per feature, so an export never drops part of a design silently.

``FEATURES`` maps a feature name to a function listing where a design uses it; ``CARRIED`` says,
per format, which features the format holds. ``losses(design, fmt)`` returns one warning per feature
the design uses and the format drops, naming where ("TTL on table readings (expires_at)"). An
exporter that learns to carry a feature adds it to its row here (the CloudFormation and Terraform
exports own their rows).
"""

from __future__ import annotations

from collections.abc import Callable

from ..design.model import Design

Finder = Callable[[Design], list[str]]


def _tables(design: Design, has: Callable, describe: Callable) -> list[str]:
    return [describe(name, table) for name, table in design.tables.items() if has(table)]


def _ttl(design: Design) -> list[str]:
    return _tables(design, lambda t: t.ttl, lambda n, t: f"{n} ({t.ttl})")


def _streams(design: Design) -> list[str]:
    return _tables(design, lambda t: t.stream, lambda n, t: f"{n} ({t.stream})")


def _table_class(design: Design) -> list[str]:
    return _tables(design, lambda t: t.table_class != "STANDARD", lambda n, t: f"{n} ({t.table_class})")


def _pitr(design: Design) -> list[str]:
    return _tables(design, lambda t: t.pitr, lambda n, _: n)


def _local_indexes(design: Design) -> list[str]:
    return [
        f"{t}.{i}"
        for t, table in design.tables.items()
        for i, x in table.indexes.items()
        if x.kind == "local"
    ]


def _unique(design: Design) -> list[str]:
    return [
        f"{e}({', '.join('+'.join(u) for u in entity.unique)})"
        for e, entity in design.entities.items()
        if entity.unique
    ]


def _templates(design: Design, table_keys: bool) -> list[str]:
    """Entities whose keys on the table (or on indexes) are templates rather than a bare attribute."""
    found = []
    for name, entity in design.entities.items():
        for target, entry in entity.keys.items():
            if (target == "table") != table_keys:
                continue
            templates = [t for t in (entry.pk, entry.sk) if t is not None]
            if any(not t.is_bare_field for t in templates) or entry.when is not None:
                found.append(f"{name} on {target}")
    return found


def _entities(design: Design) -> list[str]:
    return list(design.entities)


def _rules(design: Design) -> list[str]:
    rule_fields = (
        "required",
        "enum",
        "pattern",
        "min",
        "max",
        "min_length",
        "max_length",
        "charset",
        "format",
    )
    return [
        f"{e}.{a}"
        for e, entity in design.entities.items()
        for a, attr in entity.attributes.items()
        if any(getattr(attr, f) not in (None, False) for f in rule_fields)
    ]


def _computed(design: Design) -> list[str]:
    return [
        f"{e}.{a}"
        for e, entity in design.entities.items()
        for a, attr in entity.attributes.items()
        if attr.computed is not None
    ]


def _index_throughput(design: Design) -> list[str]:
    """Indexes with capacity other than their table's (a format without it gives each the table's)."""
    return [
        f"{t}.{i} ({x.throughput.read} RCU / {x.throughput.write} WCU)"
        for t, table in design.tables.items()
        for i, x in table.indexes.items()
        if x.throughput is not None
        and (x.throughput.read, x.throughput.write) != (table.billing.read, table.billing.write)
    ]


def _table_settings(design: Design) -> list[str]:
    """Settings that change nothing in how items are stored but are part of the deployed table."""
    found = []
    for name, table in design.tables.items():
        used = [
            label
            for label, present in (
                ("encryption", table.encryption != "aws_owned"),
                ("tags", bool(table.tags)),
                ("deletion protection", table.deletion_protection),
                ("contributor insights", table.contributor_insights),
                ("Kinesis stream", table.kinesis_stream is not None),
                ("resource policy", table.resource_policy is not None),
            )
            if present
        ]
        if used:
            found.append(f"{name} ({', '.join(used)})")
    return found


def _entity_types(design: Design) -> list[str]:
    return [
        f"{e} ({entity.entity_type_attribute} = {entity.entity_type})"
        for e, entity in design.entities.items()
        if entity.entity_type is not None and entity.entity_type_attribute
    ]


def _patterns(design: Design) -> list[str]:
    return list(design.patterns)


def _volumes(design: Design) -> list[str]:
    declared = [*design.volumes.entities, *design.volumes.patterns]
    return declared


# Feature -> (what a reader calls it, where a design uses it).
FEATURES: dict[str, tuple[str, Finder]] = {
    "ttl": ("TTL", _ttl),
    "streams": ("streams", _streams),
    "table_class": ("table class", _table_class),
    "pitr": ("point-in-time recovery", _pitr),
    "local_indexes": ("local secondary indexes", _local_indexes),
    "index_throughput": ("index capacity other than the table's", _index_throughput),
    "table_settings": (
        "table settings (encryption, tags, deletion protection, insights, Kinesis, resource policy)",
        _table_settings,
    ),
    "entities": ("entities", _entities),
    "entity_types": ("entity type discriminators", _entity_types),
    "table_key_templates": ("table key templates", lambda d: _templates(d, True)),
    "index_key_templates": (
        "index key templates and sparse-index conditions",
        lambda d: _templates(d, False),
    ),
    "unique": ("unique constraints", _unique),
    "rules": ("attribute rules (required, enum, pattern, bounds, format)", _rules),
    "computed": ("computed attributes", _computed),
    "patterns": ("access patterns", _patterns),
    "volumes": ("volumes", _volumes),
}

_TABLE_RESOURCES = {
    "ttl",
    "streams",
    "table_class",
    "pitr",
    "local_indexes",
    "index_throughput",
    "table_settings",
}
CARRIED: dict[str, set[str]] = {
    "cloudformation": set(_TABLE_RESOURCES),
    "terraform": set(_TABLE_RESOURCES),
    "create-table": set(_TABLE_RESOURCES),
    # Facets carry entities, their attributes and their table key templates (as key aliases).
    "nosql-workbench": {"entities", "table_key_templates"},
    "markdown": set(FEATURES),
}

# A feature of another one: said only where the format carries the other (a format without entities
# has already said so, and their discriminators go with them).
_PART_OF = {"entity_types": "entities"}


def losses(design: Design, fmt: str) -> list[str]:
    """One sentence per feature the design uses and ``fmt`` cannot carry, naming where it is used."""
    carried = CARRIED.get(fmt, set(FEATURES))
    warnings = []
    for feature, (label, find) in FEATURES.items():
        whole = _PART_OF.get(feature)
        if feature in carried or (whole is not None and whole not in carried):
            continue
        where = find(design)
        if where:
            shown = ", ".join(where[:5]) + (f" and {len(where) - 5} more" if len(where) > 5 else "")
            warnings.append(f"{fmt} cannot carry {label}: left out ({shown})")
    return warnings


__all__ = ["CARRIED", "FEATURES", "losses"]
