"""The rows of the items table, written straight to HTML.

A page of up to 1,000 items is most of what the explorer draws; a Jinja macro call per cell made
that page take most of a second, string building here takes a small fraction of it. Every value
goes through ``markupsafe.escape``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape

from .items import cell


def _value(wire_value: Mapping[str, Any]) -> str:
    c = cell(wire_value)
    kind = escape(c["type"])
    return f'<span class="v t-{kind}">{escape(c["text"])}</span><sup class="type">{kind}</sup>'


def _parts(entity: Mapping[str, Any] | None, column: str) -> str:
    if not entity:
        return ""
    out = []
    for part in entity["key_parts"]:
        if part["attribute"] != column or part["index"] != "table":
            continue
        if part["problem"]:
            out.append(f'<div class="parts"><span class="bad">{escape(part["problem"])}</span></div>')
        else:
            fields = " ".join(
                f'<span class="field">{escape(k)}={escape(v)}</span>' for k, v in part["fields"].items()
            )
            out.append(f'<div class="parts">{fields}</div>')
    return "".join(out)


def items_body(
    table: str,
    rows: list[dict[str, Any]],
    groups: list[dict[str, Any]],
    columns: list[str],
    with_entities: bool,
) -> Markup:
    """``<tbody>`` per partition (a collection when it holds several entities), one ``<tr>`` per item."""
    out: list[str] = []
    span = len(columns) + (2 if with_entities else 1)
    for group in groups:
        collection = len(group["entities"]) > 1
        out.append(f'<tbody class="partition{" collection" if collection else ""}">')
        if collection:
            kinds = ", ".join(f"{escape(e)} ×{n}" for e, n in group["entities"].items())
            out.append(
                f'<tr class="group"><td colspan="{span}">collection {escape(group["partition"])}: {kinds}</td></tr>'
            )
        for index in group["rows"]:
            out.append(_row(table, index, rows[index], columns, with_entities))
        out.append("</tbody>")
    return Markup("".join(out))


def _row(table: str, index: int, row: Mapping[str, Any], columns: list[str], with_entities: bool) -> str:
    entity = row["entity"]
    bad = {v["attribute"]: v["message"] for v in entity["violations"]} if entity else {}
    href = f"/tables/{quote(table)}/item?key={quote(row['key'], safe='')}"
    cells = [
        f'<td class="tools"><a href="{escape(href)}" class="open">open</a> '
        '<button type="button" class="copy" data-copy="ddb" title="copy as DynamoDB JSON">DDB</button>'
        '<button type="button" class="copy" data-copy="plain" title="copy as plain JSON">JSON</button></td>'
    ]
    if with_entities:
        name = entity and entity["entity"]
        cells.append(
            f'<td><span class="entity">{escape(name)}</span></td>'
            if name
            else '<td><span class="entity unknown">—</span></td>'
        )
    item = row["item"]
    for column in columns:
        value = _value(item[column]) if column in item else ""
        if column in bad:
            cells.append(
                f'<td class="bad" title="{escape(bad[column])}">{value}{_parts(entity, column)}</td>'
            )
        else:
            cells.append(f"<td>{value}{_parts(entity, column)}</td>")
    invalid = " invalid" if bad else ""
    return f'<tr class="item{invalid}" data-index="{index}">{"".join(cells)}</tr>'
