"""``cost --measure``: run a design's patterns on the embedded engine and report the read units
DynamoDB's rules charge (ReturnConsumedCapacity), to put beside the estimate.

This is the one part of ``tablewright.cost`` that needs an engine: it goes through the runtime and
is imported only for ``--measure``. Sample data is what ``tablewright check`` loads: the design's
``samples:``, then its generator's items (``generate.py`` beside ``design.yaml``); each pattern runs
with its ``examples:`` and the generator's parameter sets. A design with neither gets items invented
from the declared attributes (as the estimate's sizes are), and a pattern with no parameter set runs
with parameters taken from a stored item.

The measured units are compared, pattern by pattern, with the estimate's own rules applied to what
the run read (``agreement``): the items DynamoDB read (ScannedCount) per request, at the stored
items' average size on the table or index read, rounded as the estimate rounds. The two agree within
``TOLERANCE_STEPS`` 4 KB steps per request (sizes are averaged, DynamoDB sums the real ones). The
estimate at the declared volumes differs from a measurement on sample data only in how many items a
call reads; ``items_read`` shows that part.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablewright.design.model import AccessPattern, Attribute, Design, Entity
from tablewright.runtime import Runtime
from tablewright.runtime.samples import call_flexibly, find_examples, load_generator
from tablewright.runtime.wire import item_from_wire

from . import analysis
from .sizes import item_size, read_units, sample_value

TOLERANCE_STEPS = 1  # 4 KB read steps per request by which the model may miss the measurement

SYNTHETIC_ITEMS = 50  # per entity when the design has no generator
SEED, SCALE = 7, 1.0
WIDE_WINDOW = {"epoch_ms": (946_684_800_000, 4_102_444_800_000), "epoch_s": (946_684_800, 4_102_444_800)}


@dataclass
class Run:
    """What one pattern's runs consumed in total."""

    calls: int = 0
    requests: int = 0
    items_read: int = 0
    units: float = 0.0


@dataclass
class Agreement:
    """A pattern's measured units per call beside the estimate's rules applied to the same reads."""

    measured: float
    modelled: float
    tolerance: float
    items_read: float  # per call, measured

    @property
    def agrees(self) -> bool:
        """True when the model is within the tolerance of the measurement."""
        return abs(self.measured - self.modelled) <= self.tolerance + 1e-9


@dataclass
class Measurement:
    """Read units per call for each pattern, and how the data was produced."""

    per_call: dict[str, float] = field(default_factory=dict)
    items_written: int = 0
    source: str = "synthetic"
    runs: dict[str, Run] = field(default_factory=dict)
    entry_bytes: dict[str, float] = field(default_factory=dict)  # table or table/index -> average


def measure_design(design: Design, path: str | Path | None = None) -> dict[str, dict[str, float | bool]]:
    """Per pattern: measured units per call, the estimate's rules on the same reads, the tolerance,
    whether they agree, and the items read per call (what the report puts beside the estimate)."""
    measured = measure(design, path)
    return {
        name: {
            "units": a.measured,
            "modelled": a.modelled,
            "tolerance": a.tolerance,
            "agrees": a.agrees,
            "items_read": a.items_read,
        }
        for name, a in agreement(design, measured).items()
    }


class MeasureError(ValueError):
    """The design cannot be measured: the engine refused its tables, an item or a pattern run."""


def measure(design: Design, path: str | Path | None = None) -> Measurement:
    """Create the tables in memory, load sample data, run every pattern once per parameter set.

    Raises ``MeasureError`` saying which step failed and why (a table name DynamoDB refuses, a sample
    item the design rejects, a pattern that cannot run)."""
    rt = Runtime(design)
    _step("create the tables", rt.create_tables)
    generator_path = _generator_path(path)
    generator = (
        _step(f"loading {generator_path}", lambda: load_generator(generator_path), user_code=True)
        if generator_path
        else None
    )
    source = "generator" if generator else "samples" if design.samples else "synthetic"
    result = Measurement(source=source)
    generated = (
        _step(
            f"{generator_path}: generate()",
            lambda: call_flexibly(generator.generate, SEED, SCALE),
            user_code=True,
        )
        if generator
        else {}
    )
    _expect_mapping_of_lists(generated, f"{generator_path}: generate()", "entity name: [values, ...]")
    # As `tablewright check` loads them: the design's own samples, then the generator's items; only a
    # design with neither gets invented ones.
    data = _joined(design.samples, generated) if generator or design.samples else _synthesize(design)
    for entity, items in data.items():
        for values in items:
            _step(f"write a sample {entity}", lambda e=entity, v=values: rt.put(e, v))
            result.items_written += 1
    param_sets = (
        _step(
            f"{generator_path}: params()",
            lambda: call_flexibly(generator.params, SEED, SCALE),
            user_code=True,
        )
        if generator
        else {}
    )
    _expect_mapping_of_lists(param_sets, f"{generator_path}: params()", "pattern name: [params, ...]")
    for name, pattern in design.patterns.items():
        runs = [*pattern.examples, *param_sets.get(name, [])] or [_params_for(design, pattern, data)]
        totals = result.runs[name] = Run()
        for params in runs:
            stats = _step(f"run pattern {name}", lambda n=name, p=params: rt.run(n, p)).stats
            totals.calls += 1
            totals.requests += stats.requests
            totals.items_read += stats.items_read
            totals.units += stats.consumed_capacity
        result.per_call[name] = totals.units / len(runs)
    result.entry_bytes = _entry_bytes(rt)
    return result


def _step(what: str, action: Any, *, user_code: bool = False) -> Any:
    """Run one step of a measurement; any failure becomes a ``MeasureError`` naming the step.

    In the user's own code (``user_code``) the exception's kind is said too: ``boom`` alone does not
    tell a RuntimeError raised on purpose from a KeyError of a typo."""
    try:
        return action()
    except Exception as error:  # noqa: BLE001  (engine, runtime and generator errors alike)
        said = f"{type(error).__name__}: {error}" if user_code else str(error)
        raise MeasureError(f"cannot measure: {what} failed: {said}") from None


def _expect_mapping_of_lists(value: object, what: str, shape: str) -> None:
    """A generator's result must have the shape the measurement walks; say which function broke it."""
    if not isinstance(value, dict):
        raise MeasureError(f"cannot measure: {what} must return {{{shape}}}, not {type(value).__name__}")
    for name, entries in value.items():
        if not isinstance(entries, list | tuple):
            raise MeasureError(
                f"cannot measure: {what} must return {{{shape}}}; {name!r} has {type(entries).__name__}"
            )


def _entry_bytes(rt: Runtime) -> dict[str, float]:
    """Average stored bytes per item of every table and index, read back from the engine."""
    sizes: dict[str, float] = {}
    for tname, table in rt.design.tables.items():
        items = [item_from_wire(i) for i in _scan_all(rt, table.table_name)]
        sizes[tname] = _average([item_size(i) for i in items])
        table_keys = {table.partition_key.name, *([table.sort_key.name] if table.sort_key else [])}
        for iname, index in table.indexes.items():
            keys = {index.partition_key.name, *([index.sort_key.name] if index.sort_key else [])}
            inside = [i for i in items if keys <= set(i)]
            keep = (
                None
                if index.projection.type == "ALL"
                else table_keys | keys | set(index.projection.attributes)
            )
            entries = [i if keep is None else {k: v for k, v in i.items() if k in keep} for i in inside]
            sizes[f"{tname}/{iname}"] = _average([item_size(e) for e in entries])
    return sizes


def _scan_all(rt: Runtime, table: str) -> list[dict]:
    items, start = [], None
    while True:
        response = rt.data.scan(TableName=table, **({"ExclusiveStartKey": start} if start else {}))
        items += response["Items"]
        start = response.get("LastEvaluatedKey")
        if not start:
            return items


def _average(values: list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


def agreement(design: Design, measurement: Measurement) -> dict[str, Agreement]:
    """Per pattern: measured units per call and the estimate's rules applied to the same reads."""
    from .estimate import consistency_of

    found = {}
    for name, run in measurement.runs.items():
        pattern = design.patterns[name]
        if not run.calls or not run.requests:
            continue
        table = analysis.pattern_table(design, pattern) or ""
        served = pattern.served
        target = f"{table}/{served.index}" if served.index and served.op in ("query", "scan") else table
        size = measurement.entry_bytes.get(target) or measurement.entry_bytes.get(table, 0.0)
        consistency = consistency_of(design, pattern, table)
        step = read_units(1, consistency)
        if served.op in ("query", "scan"):
            per_request = run.items_read / run.requests
            modelled = run.requests * read_units(max(1, round(per_request * size)), consistency)
        else:  # one unit step per item (or per key asked for, found or not)
            modelled = max(run.items_read, run.requests) * read_units(max(1, round(size)), consistency)
        found[name] = Agreement(
            measured=run.units / run.calls,
            modelled=modelled / run.calls,
            tolerance=TOLERANCE_STEPS * step * run.requests / run.calls,
            items_read=run.items_read / run.calls,
        )
    return found


def _generator_path(path: str | Path | None) -> Path | None:
    """The sample generator (``generate.py``) beside the design at ``path``, if it has one."""
    if path is None:
        return None
    examples = find_examples([Path(path)])
    return examples[0].generator if examples and examples[0].generator else None


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


def _joined(*sources: dict[str, list]) -> dict[str, list]:
    """Entity -> values of every source, in order."""
    joined: dict[str, list] = {}
    for source in sources:
        for entity, values in source.items():
            joined.setdefault(entity, []).extend(values)
    return joined


def _synthesize(design: Design) -> dict[str, list[dict[str, object]]]:
    data: dict[str, list[dict[str, object]]] = {}
    made = 0  # numbered across entities: User and Organization keyed ACCOUNT#{name} must not meet
    for name, entity in design.entities.items():
        count = (
            min(SYNTHETIC_ITEMS, design.volumes.entities[name].items)
            if name in design.volumes.entities
            else SYNTHETIC_ITEMS
        )
        data[name] = [_item(entity, made + i) for i in range(max(1, count))]
        made += max(1, count)
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
