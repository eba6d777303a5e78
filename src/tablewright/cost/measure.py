"""``cost --measure``: run a design's patterns on the embedded engine and report the read units
DynamoDB's rules charge (ReturnConsumedCapacity), to put beside the estimate.

This is the one part of ``tablewright.cost`` that needs an engine: it goes through the runtime and
is imported only for ``--measure``. Sample data comes from the design's generator (``generate.py``
beside ``design.yaml``, the ``tablewright check`` convention) when there is one; otherwise items are
invented from the declared attributes (as the estimate's sizes are) and each pattern is run with
parameters taken from a stored item.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablewright.design.model import AccessPattern, Attribute, Design, Entity
from tablewright.runtime import Runtime
from tablewright.runtime.samples import call_flexibly, find_examples, load_generator

from .sizes import sample_value

SYNTHETIC_ITEMS = 50  # per entity when the design has no generator
SEED, SCALE = 7, 1.0
WIDE_WINDOW = {"epoch_ms": (946_684_800_000, 4_102_444_800_000), "epoch_s": (946_684_800, 4_102_444_800)}


@dataclass
class Measurement:
    """Read units per call for each pattern, and how the data was produced."""

    per_call: dict[str, float] = field(default_factory=dict)
    items_written: int = 0
    source: str = "synthetic"


def measure_design(design: Design, path: str | Path | None = None) -> dict[str, float]:
    """Average consumed read units per call of every pattern (pattern name -> units)."""
    return measure(design, path).per_call


def measure(design: Design, path: str | Path | None = None) -> Measurement:
    """Create the tables in memory, load sample data, run every pattern once per parameter set."""
    rt = Runtime(design)
    rt.create_tables()
    generator = _generator(path)
    result = Measurement(source="generator" if generator else "synthetic")
    data = call_flexibly(generator.generate, SEED, SCALE) if generator else _synthesize(design)
    for entity, items in data.items():
        for values in items:
            rt.put(entity, values)
            result.items_written += 1
    param_sets = call_flexibly(generator.params, SEED, SCALE) if generator else {}
    for name, pattern in design.patterns.items():
        runs = param_sets.get(name) or [_params_for(design, pattern, data)]
        total = 0.0
        for params in runs:
            total += rt.run(name, params).stats.consumed_capacity
        result.per_call[name] = total / len(runs)
    return result


def _generator(path: str | Path | None) -> Any:
    if path is None:
        return None
    examples = find_examples([Path(path)])
    return load_generator(examples[0].generator) if examples and examples[0].generator else None


def _vary(attr: Attribute, value: object, i: int) -> object:
    """Make key-bearing values distinct per item while keeping them valid for their declaration."""
    if attr.enum:
        return attr.enum[i % len(attr.enum)]
    if attr.format in ("uuid", "uuid4"):
        return (attr.prefix or "") + str(uuid.UUID(int=(i + 1) << 64 | 0x4000_8000_0000_0000, version=4))
    if attr.format == "mac":
        return ":".join(f"{b:02X}" for b in (i + 1).to_bytes(6, "big"))
    if attr.format in WIDE_WINDOW and isinstance(value, int):
        return value + i * (1000 if attr.format == "epoch_ms" else 1)
    if attr.type == "string" and isinstance(value, str) and not attr.format and not attr.pattern:
        text = f"{value[: max(0, len(value) - 6)]}{i:06d}"
        return text[: attr.max_length] if attr.max_length else text
    return value


def _synthesize(design: Design) -> dict[str, list[dict[str, object]]]:
    data: dict[str, list[dict[str, object]]] = {}
    for name, entity in design.entities.items():
        count = (
            min(SYNTHETIC_ITEMS, design.volumes.entities[name].items)
            if name in design.volumes.entities
            else SYNTHETIC_ITEMS
        )
        data[name] = [_item(entity, i) for i in range(max(1, count))]
    return data


def _item(entity: Entity, i: int) -> dict[str, object]:
    return {
        name: _vary(attr, sample_value(attr), i)
        for name, attr in entity.attributes.items()
        if attr.computed is None
    }


def _params_for(
    design: Design, pattern: AccessPattern, data: dict[str, list[dict[str, object]]]
) -> dict[str, object]:
    """Parameters for one run: values of the first stored item, windows as wide as possible."""
    entity = pattern.served.via or pattern.returns[0]
    first = (data.get(entity) or [{}])[0]
    params: dict[str, object] = {}
    for name, attr in pattern.params.items():
        if name in first:
            params[name] = first[name]
        elif attr.format in WIDE_WINDOW:
            low, high = WIDE_WINDOW[attr.format]
            params[name] = high if name in ("to", "end", "until", "before") else low
        elif attr.type == "list":
            params[name] = [first] if first else []
        else:
            params[name] = sample_value(attr)
    return params
