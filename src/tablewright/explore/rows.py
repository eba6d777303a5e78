"""The rows of the items table, written straight to HTML (a grid of rows, not a ``<table>``).

A page of up to 1,000 items is most of what the explorer draws; a Jinja macro call per cell made
that page take most of a second, string building here takes a small fraction of it. Every value
goes through ``markupsafe.escape``. Rows are grid rows with declared column widths and
``content-visibility: auto``, so the browser lays out only the rows on screen: a ``<table>`` of
1,000 rows is laid out whole before anything is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape

from .items import cell


def _value(wire_value: Mapping[str, Any]) -> tuple[str, str]:
    """The cell's text and its DynamoDB type (drawn by CSS after the text: one node per cell)."""
    c = cell(wire_value)
    return str(escape(c["text"])), str(escape(c["type"]))


def _parts(entity: Mapping[str, Any] | None, column: str) -> str:
    """The fields a key attribute's template was built from, as one small line (one node per cell)."""
    if not entity:
        return ""
    out = []
    for part in entity["key_parts"]:
        if part["attribute"] != column or part["index"] != "table":
            continue
        if part["problem"]:
            out.append(f'<small class="parts bad">{escape(part["problem"])}</small>')
        elif part["fields"]:
            fields = " · ".join(f"{escape(k)}={escape(v)}" for k, v in part["fields"].items())
            out.append(f'<small class="parts">{fields}</small>')
    return "".join(out)


def column_types(rows: list[dict[str, Any]], columns: list[str]) -> dict[str, str | None]:
    """Each column's DynamoDB type when every item that has it agrees, else None."""
    seen: dict[str, set[str]] = {c: set() for c in columns}
    for row in rows:
        for name, value in row["item"].items():
            if name in seen:
                seen[name].add(next(iter(value)))
    return {c: next(iter(kinds)) if len(kinds) == 1 else None for c, kinds in seen.items()}


def column_widths(rows: list[dict[str, Any]], columns: list[str]) -> dict[str, int]:
    """A width in characters per column from its longest value (within 6-36; longer values wrap).

    Declared widths let every row be laid out on its own (the page turns characters into ``em``),
    so rows off screen need not be laid out at all.
    """
    widths = {c: len(c) + 4 for c in columns}  # the header: name and type
    for row in rows:
        for name, value in row["item"].items():
            if name in widths:
                widths[name] = max(widths[name], len(cell(value)["text"]) + 3)
    return {c: min(max(w, 6), 36) for c, w in widths.items()}


def items_body(
    table: str,
    rows: list[dict[str, Any]],
    groups: list[dict[str, Any]],
    columns: list[str],
    with_entities: bool,
    types: dict[str, str | None],
) -> Markup:
    """A row group per partition (a collection when it holds several entities), one row per item."""
    out: list[str] = []
    for group in groups:
        collection = len(group["entities"]) > 1
        out.append(f'<div class="partition{" collection" if collection else ""}" role="rowgroup">')
        if collection:
            kinds = ", ".join(f"{escape(e)} ×{n}" for e, n in group["entities"].items())
            out.append(f'<div class="group">collection {escape(group["partition"])}: {kinds}</div>')
        for index in group["rows"]:
            out.append(_row(table, index, rows[index], columns, with_entities, types))
        out.append("</div>")
    return Markup("".join(out))


def _row(
    table: str, index: int, row: Mapping[str, Any], columns: list[str], with_entities: bool, types: dict
) -> str:
    entity = row["entity"]
    bad = {v["attribute"]: v["message"] for v in entity["violations"]} if entity else {}
    href = f"/tables/{quote(table)}/item?key={quote(row['key'], safe='')}"
    cells = [
        f'<div class="c tools"><a href="{escape(href)}" class="open">open</a> '
        '<span class="copy" role="button" tabindex="0" data-copy="ddb" title="copy as DynamoDB JSON">DDB</span>'
        '<span class="copy" role="button" tabindex="0" data-copy="plain" title="copy as plain JSON">JSON</span></div>'
    ]
    if with_entities:
        name = entity and entity["entity"]
        cells.append(
            f'<div class="c"><span class="entity">{escape(name)}</span></div>'
            if name
            else '<div class="c"><span class="entity unknown">—</span></div>'
        )
    item = row["item"]
    for column in columns:
        if column not in item:
            cells.append('<div class="c"></div>')
            continue
        text, kind = _value(item[column])
        # A column of one type says it once, in its header; a mixed one says it in each cell.
        tag = "" if types.get(column) == kind else f'<sup class="type">{kind}</sup>'
        title = f' class="c bad" title="{escape(bad[column])}"' if column in bad else ' class="c"'
        cells.append(f"<div{title}>{text}{tag}{_parts(entity, column)}</div>")
    invalid = " invalid" if bad else ""
    return f'<div class="item{invalid}" role="row" data-index="{index}">{"".join(cells)}</div>'
