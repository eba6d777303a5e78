"""Sample items from an example's ``generate.py`` (the ``tablewright check`` convention), composed into
full items by the design's entities, without a client: for exports that embed sample data.
"""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..design.model import Design, Entity

# A fixed write time keeps computed attributes (created_at, ttl) and thus the export reproducible.
SAMPLE_TIME = datetime(2025, 1, 1, tzinfo=UTC)


def generator_for(design_path: Path) -> Path | None:
    """``<stem>.generate.py`` or (for ``design.yaml``) ``generate.py`` beside a design file."""
    for candidate in (
        design_path.with_name(f"{design_path.stem}.generate.py"),
        design_path.with_name("generate.py"),
    ):
        if candidate.is_file() and (design_path.name == "design.yaml" or candidate.name != "generate.py"):
            return candidate
    return None


def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"_tw_export_sample_{abs(hash(path))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # generators import helper modules beside them
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


class SampleDataError(ValueError):
    """The sample data of a design cannot be exported: its generator fails or its values do not fit."""


def sample_items(
    design: Design, design_path: Path | None, per_entity: int = 10, seed: int = 0
) -> dict[str, list[dict]]:
    """Logical table name -> full items (keys composed), at most ``per_entity`` per entity.

    The design's own ``samples:`` first, then what a generator beside it makes, as ``tablewright
    check`` loads them; empty when the design has neither. Raises :class:`SampleDataError` when the
    generator fails or an item does not fit the design's entities.
    """
    values_by_source = [("the design's samples", design.samples)]
    generator = generator_for(design_path) if design_path else None
    if generator is not None:
        values_by_source.append((str(generator), _generated(generator, seed)))
    tables: dict[str, list[dict]] = {}
    kept: dict[str, int] = {}  # entity -> items kept so far, from every source
    for source, values_by_entity in values_by_source:
        for entity_name, values_list in values_by_entity.items():
            entity = design.entities.get(entity_name)
            if entity is None:
                continue
            for number, values in enumerate(values_list, 1):
                if kept.get(entity_name, 0) >= per_entity:
                    break
                kept[entity_name] = kept.get(entity_name, 0) + 1
                tables.setdefault(entity.table, []).append(_item(source, entity, number, values))
    return tables


def _generated(generator: Path, seed: int) -> dict[str, list]:
    try:
        generated = _load(generator).generate(seed, 1.0)
    except Exception as error:  # noqa: BLE001 - the user's generator: any failure is its own
        raise SampleDataError(
            f"{generator}: generate() failed, so the sample data cannot be exported: "
            f"{type(error).__name__}: {error}"
        ) from error
    if not isinstance(generated, dict):
        raise SampleDataError(f"{generator}: generate() must return {{entity name: [values, ...]}}")
    return generated


def _item(source: str, entity: Entity, number: int, values: object) -> dict:
    """One sample as the full item DynamoDB would store (keys and computed attributes included)."""
    violations = entity.validate(values) if isinstance(values, dict) else ["not a mapping"]
    if violations:
        said = "; ".join(str(violation) for violation in violations[:3])
        raise SampleDataError(f"{source}: {entity.name} #{number} does not fit the design: {said}")
    try:
        return entity.to_item(values, now=SAMPLE_TIME)
    except Exception as error:  # noqa: BLE001 - a value the entity rejects, whatever its kind
        raise SampleDataError(
            f"{source}: {entity.name} #{number} cannot be made into an item: {error}"
        ) from error
