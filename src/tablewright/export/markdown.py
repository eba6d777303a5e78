"""``--to markdown``: a design document in the spirit of the ADRs it replaces: tables, attributes,
indexes, access patterns (what they mean and how DynamoDB serves them), volumes, and, where those
packages exist, lint findings and the cost estimate.

Sections are a list of functions (``SECTIONS``); each returns lines or nothing.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..design.model import Design, Entity, Table


def _row(cells: list[Any]) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|") if c not in (None, "") else "" for c in cells) + " |"


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    return [_row(header), _row(["---"] * len(header)), *(_row(r) for r in rows), ""]


def _key(key: Any) -> str:
    return f"`{key.name}` ({key.type})" if key is not None else ""


def _billing(table: Table) -> str:
    billing = table.billing
    return (
        "on demand"
        if billing.mode == "on_demand"
        else f"provisioned {billing.read} RCU / {billing.write} WCU"
    )


def _projection(index: Any) -> str:
    projection = index.projection
    return (
        projection.type
        if not projection.attributes
        else f"{projection.type} ({', '.join(projection.attributes)})"
    )


def _tables(design: Design, **_: Any) -> list[str]:
    lines = ["## Tables", ""]
    for name, table in design.tables.items():
        lines += [
            f"### `{table.table_name}`" + (f" (logical `{name}`)" if name != table.table_name else ""),
            "",
        ]
        lines += _table(
            ["partition key", "sort key", "billing", "TTL", "stream", "class", "PITR"],
            [
                [
                    _key(table.partition_key),
                    _key(table.sort_key),
                    _billing(table),
                    table.ttl or "-",
                    table.stream or "-",
                    table.table_class,
                    "yes" if table.pitr else "no",
                ]
            ],
        )
        lines += _settings(table)
        if table.indexes:
            lines += _table(
                ["index", "kind", "partition key", "sort key", "projection", "capacity"],
                [
                    [
                        i.name,
                        "GSI" if i.kind == "global" else "LSI",
                        _key(i.partition_key),
                        _key(i.sort_key),
                        _projection(i),
                        _index_capacity(i, table),
                    ]
                    for i in table.indexes.values()
                ],
            )
    return lines


def _index_capacity(index: Any, table: Table) -> str:
    if index.throughput is not None:
        return f"{index.throughput.read} RCU / {index.throughput.write} WCU"
    if index.kind == "local":
        return "the table's"  # an LSI reads and writes out of its table's capacity
    return "on demand" if table.billing.mode == "on_demand" else "the table's"


def _settings(table: Table) -> list[str]:
    """The settings that do not change how items are stored, as one list (nothing when all are default)."""
    encryption = {"aws_managed": "AWS managed KMS key (aws/dynamodb)"}.get(
        table.encryption, f"customer managed KMS key `{table.kms_key}`"
    )
    settings = [
        ("encryption", encryption if table.encryption != "aws_owned" else None),
        ("tags", ", ".join(f"`{k}` = `{v}`" for k, v in table.tags.items()) or None),
        ("deletion protection", "on" if table.deletion_protection else None),
        ("contributor insights", "on" if table.contributor_insights else None),
        ("Kinesis stream", f"`{table.kinesis_stream}`" if table.kinesis_stream else None),
        ("resource policy", f"`{json.dumps(table.resource_policy)}`" if table.resource_policy else None),
    ]
    shown = [f"- {label}: {value}" for label, value in settings if value is not None]
    return [*shown, ""] if shown else []


def _rules(attr: Any) -> str:
    rules = []
    for field in ("enum", "pattern", "min", "max", "min_length", "max_length", "charset", "format", "prefix"):
        value = getattr(attr, field)
        if value is not None:
            rules.append(f"{field}={list(value) if isinstance(value, tuple) else value}")
    if attr.default is not None:
        rules.append(f"default={attr.default!r}")
    if attr.computed is not None:
        rules.append(f"computed={attr.computed.kind}")
    return ", ".join(rules)


def _keys(entity: Entity) -> list[list[Any]]:
    return [
        [where, f"`{k.pk.source}`", f"`{k.sk.source}`" if k.sk else "", k.when.text if k.when else ""]
        for where, k in entity.keys.items()
    ]


def _entity_facts(entity: Entity) -> list[str]:
    """What the runtime enforces beyond the attributes: discriminator, uniqueness, locking, idempotency."""
    facts = []
    if entity.entity_type is not None and entity.entity_type_attribute:
        facts.append(
            f"- entity type: `{entity.entity_type_attribute}` = `{entity.entity_type}` on every item"
        )
    facts += [f"- unique: {' + '.join(f'`{a}`' for a in group)}" for group in entity.unique]
    if entity.version_attribute:
        facts.append(f"- optimistic locking on `{entity.version_attribute}`")
    if entity.idempotency_key:
        facts.append(f"- idempotency key: `{entity.idempotency_key}`")
    return [*facts, ""] if facts else []


def _entities(design: Design, **_: Any) -> list[str]:
    if not design.entities:
        return []
    lines = ["## Entities", ""]
    for entity in design.entities.values():
        lines += [f"### {entity.name} (table `{design.tables[entity.table].table_name}`)", ""]
        if entity.description:
            lines += [entity.description, ""]
        lines += _entity_facts(entity)
        lines += _table(
            ["attribute", "type", "required", "rules"],
            [
                [f"`{a.name}`", a.type, "yes" if a.required else "", _rules(a)]
                for a in entity.attributes.values()
            ],
        )
        lines += _table(["key", "pk template", "sk template", "when"], _keys(entity))
    return lines


def _means(pattern: Any) -> str:
    means = pattern.means
    parts = [f"where {means.where.text}" if means.where else "all"]
    if means.order:
        parts.append(f"order by {means.order.attribute} {'desc' if means.order.descending else 'asc'}")
    if means.limit:
        parts.append(f"limit {means.limit}")
    return "; ".join(parts)


def _served(pattern: Any) -> str:
    served = pattern.served
    parts = [served.op + (f" on {served.index}" if served.index else "")]
    if served.sort:
        parts.append(f"sort {served.sort.op}")
    if served.filter:
        parts.append(f"filter {served.filter.text}")
    if not served.forward:
        parts.append("newest first")
    if served.page_size:
        parts.append(f"page size {served.page_size}")
    return ", ".join(parts)


def _patterns(design: Design, **_: Any) -> list[str]:
    if not design.patterns:
        return []
    rows = [
        [f"`{p.name}`", p.description or "", ", ".join(p.returns), _means(p), _served(p)]
        for p in design.patterns.values()
    ]
    return ["## Access patterns", "", *_table(["pattern", "description", "returns", "means", "served"], rows)]


def _volumes(design: Design, **_: Any) -> list[str]:
    volumes = design.volumes
    if not volumes.entities and not volumes.patterns:
        return []
    lines = ["## Volumes", "", f"Peak factor: {volumes.peak_factor}", ""]
    if volumes.entities:
        rows = [
            [n, v.items, v.item_size or "", v.growth_per_month, f"{v.writes_per_second:g}/s"]
            for n, v in volumes.entities.items()
        ]
        lines += _table(["entity", "items", "item size (B)", "growth / month", "writes"], rows)
    if volumes.patterns:
        rows = [
            [n, f"{v.reads_per_second:g}/s", f"{v.writes_per_second:g}/s"]
            for n, v in volumes.patterns.items()
        ]
        lines += _table(["pattern", "reads", "writes"], rows)
    return lines


def _optional(module: str) -> Any:
    # lint and cost are siblings that may be absent in a trimmed install: their sections are optional.
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def _lint(design: Design, design_path: Path | None = None, **_: Any) -> list[str]:
    lint = _optional("tablewright.lint")
    if lint is None or design_path is None or not hasattr(lint, "lint_file"):
        return []
    findings = lint.lint_file(design_path)
    if not findings:
        return ["## Lint", "", "No findings.", ""]
    rows = [[f.rule, f.severity, f"line {f.line}", f.message] for f in findings]
    return ["## Lint", "", *_table(["rule", "severity", "where", "finding"], rows)]


def _cost(design: Design, **_: Any) -> list[str]:
    cost = _optional("tablewright.cost")
    report = _optional("tablewright.cost.report")
    if cost is None or report is None or not hasattr(report, "to_markdown"):
        return []
    return ["## Cost", "", report.to_markdown(cost.build(design)).rstrip(), ""]


SECTIONS: tuple[Callable[..., list[str]], ...] = (_tables, _entities, _patterns, _volumes, _lint, _cost)


def export(design: Design, *, design_path: Path | None = None, **_: Any) -> str:
    """The design document as Markdown text."""
    lines = [f"# {design.name}", ""]
    if design.description:
        lines += [design.description.strip(), ""]
    for section in SECTIONS:
        lines += section(design, design_path=design_path)
    return "\n".join(lines).rstrip() + "\n"
