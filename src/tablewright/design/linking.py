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
        units = entity.units
        for entry in entity.keys.values():
            # Templates built in Python without units learn them from the entity's attribute formats.
            for attr in ("pk", "sk"):
                template = getattr(entry, attr)
                if template is not None and not template.units and units:
                    setattr(entry, attr, KeyTemplate(template.source, units))
        for attr in entity.attributes.values():
            comp = attr.computed
            if comp is not None and comp.template is not None and not comp.template.units and units:
                comp.template = KeyTemplate(comp.template.source, units)
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
                    KeyTemplate(field_source(pk.name), units),
                    KeyTemplate(field_source(sk.name), units) if sk else None,
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
