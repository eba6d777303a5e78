"""Resolve a design's cross references in place (lenient: broken references are left for checks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .entities import EntityKey
from .templates import KeyTemplate, field_source

if TYPE_CHECKING:
    from .model import Design


def link_design(design: Design) -> None:
    """Fill key names and default templates on entities and resolve each pattern's served key."""
    for entity in design.entities.values():
        table = design.tables.get(entity.table)
        if table is None:
            continue
        entity.ttl_attribute = table.ttl or None
        units, precisions = entity.units, entity.precisions
        for entry in entity.keys.values():
            # Templates built in Python without units or precisions learn them from the entity's
            # attribute formats.
            for attr in ("pk", "sk"):
                template = getattr(entry, attr)
                if template is not None and _lacks(template, units, precisions):
                    setattr(entry, attr, KeyTemplate(template.source, units, precisions))
        for attr in entity.attributes.values():
            comp = attr.computed
            if comp is not None and comp.template is not None and _lacks(comp.template, units, precisions):
                comp.template = KeyTemplate(comp.template.source, units, precisions)
        targets: dict[str, tuple] = {"table": (table.partition_key, table.sort_key)}
        targets.update({n: (i.partition_key, i.sort_key) for n, i in table.indexes.items()})
        for name, (pk, sk) in targets.items():
            entry = entity.keys.get(name)
            if (
                entry is None
                and pk.name in entity.attributes
                and (sk is None or sk.name in entity.attributes)
            ):
                # A key attribute that is itself an entity attribute needs no template: {name}.
                entry = EntityKey(
                    KeyTemplate(field_source(pk.name), units, precisions),
                    KeyTemplate(field_source(sk.name), units, precisions) if sk else None,
                    index=None if name == "table" else name,
                )
                entity.keys[name] = entry
            if entry is not None:
                entry.partition_name, entry.sort_name = pk.name, sk.name if sk else None
    for pattern in design.patterns.values():
        served = pattern.served
        via = served.via or (pattern.returns[0] if pattern.returns else None)
        entity = design.entities.get(via or "")
        served.entity_key = entity.keys.get(served.index or "table") if entity else None


def _lacks(template: KeyTemplate, units: dict[str, str], precisions: dict[str, tuple[str, bool]]) -> bool:
    """Whether a template was built without the entity's units or precisions (in Python, or by an
    importer), which it then needs to render timestamps as the entity stores them."""
    return (not template.units and bool(units)) or (not template.precisions and bool(precisions))
