"""The pages that read: the start page, tables, designs, patterns (verified), views, review, live."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from . import layouts, live, patterns, review, tables
from .handlers import Handlers, NotFound, client_message, in_thread, wants_json
from .items import EntityReader, plain, to_json
from .rows import column_types, column_widths


class Pages(Handlers):
    """Handlers of the read-only pages; each builds ``data`` and hands it to ``respond``."""

    def index(self, request: Request) -> Response:
        """Every table of the client, every design with its patterns and views."""
        as_json = request.url.path.endswith(".json") or wants_json(request)[1]
        table_rows = []
        for name in self.table_names():
            workspace, table = self.explorer.design_of_table(name)
            table_rows.append(
                {
                    "name": name,
                    "design": workspace.name if workspace else None,
                    "logical": table.name if table else None,
                }
            )
        designs = [
            {
                "name": w.name,
                "path": str(w.path),
                "description": w.design.description,
                "patterns": list(w.design.patterns),
                "views": [
                    {"name": v.name, "title": v.heading, "kind": v.kind} for v in w.design.views.values()
                ],
            }
            for w in self.explorer.workspaces.values()
        ]
        data = {
            "tables": table_rows,
            "designs": designs,
            "writable": self.explorer.writable,
            "source": self.explorer.source,
        }
        return self.respond(request, "index.html", data, as_json)

    def table(self, request: Request) -> Response:
        """A table's description and a page of its items: scan, or query by key condition, with filters."""
        known = self.table_names()
        name, as_json = wants_json(request, request.path_params["table"], known)
        if name not in known:
            raise NotFound(f"no table {name!r}")
        description = tables.describe(self.explorer.client, name)
        workspace, design_table = self.explorer.design_of_table(name)
        data: dict[str, Any] = {
            "table": description,
            "design": workspace.name if workspace else None,
            "query": dict(request.query_params),
        }
        status = 200
        try:
            query = tables.ItemQuery.from_params(request.query_params, description)
            result = tables.run(self.explorer.data, description, query)
        except tables.QueryError as exc:
            data["error"], status = str(exc), 400
            result = {"items": [], "request": None, "next": None}
        except Exception as exc:  # DynamoDB's refusal of the query (a ClientError): show it with the form
            data["error"], status = client_message(exc), 400
            result = {"items": [], "request": None, "next": None}
        reader = EntityReader(workspace.design, design_table) if workspace else None
        rows = []
        for item in result["items"]:
            info = reader.describe(item).as_dict() if reader else None
            key = {k: item[k] for k in (description["partition"], description["sort"]) if k and k in item}
            row = {"item": item, "entity": info, "key": to_json(key, indent=False)}
            if as_json:  # the page converts to plain JSON itself, when someone copies a row
                row["plain"] = plain(item)
            rows.append(row)
        data.update(result=result | {"items": None}, rows=rows)
        data["key_names"] = [k for k in (description["partition"], description["sort"]) if k]
        if query_ok := ("error" not in data):
            data["columns"] = columns(description, rows)
            data["groups"] = groups(description, rows, query_ok)
            data["column_types"] = column_types(rows, data["columns"])
            data["column_widths"] = column_widths(rows, data["columns"])
        data["result"].pop("items", None)
        data["operators"] = list(tables.SORT_OPERATORS)
        data["filter_operators"] = list(tables.FILTER_OPERATORS)
        data["filter_types"] = list(tables.FILTER_TYPES)
        data["entities"] = (
            [e.name for e in workspace.design.entities_in(design_table.name)] if workspace else []
        )
        return self.respond(request, "table.html", data, as_json, status)

    async def live(self, request: Request) -> Response:
        """Server-sent events of the table's stream (404 when the table has none)."""
        name = request.path_params["table"]
        if name not in await in_thread(self.table_names):
            raise NotFound(f"no table {name!r}")
        description = await in_thread(tables.describe, self.explorer.client, name)
        if not description["stream_arn"]:
            raise NotFound(f"table {name} has no stream: live changes need one (stream: in the design)")
        return StreamingResponse(
            live.events(self.explorer.streams, description["stream_arn"], request.is_disconnected),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache"},
        )

    def design(self, request: Request) -> Response:
        """A design: its tables, patterns with parameters, and views."""
        name, as_json = wants_json(request, request.path_params["design"], self.explorer.workspaces)
        workspace = self.workspace(name)
        design = workspace.design
        data = {
            "design": name,
            "path": str(workspace.path),
            "description": design.description,
            "tables": [
                {
                    "name": t.name,
                    "physical": t.table_name,
                    "entities": [e.name for e in design.entities_in(t.name)],
                }
                for t in design.tables.values()
            ],
            "patterns": [pattern_summary(p) for p in design.patterns.values()],
            "views": [
                {
                    "name": v.name,
                    "title": v.heading,
                    "kind": v.kind,
                    "pattern": v.pattern,
                    "description": v.description,
                }
                for v in design.views.values()
            ],
        }
        return self.respond(request, "design.html", data, as_json)

    def review(self, request: Request) -> Response:
        """Lint findings and cost per pattern of a design."""
        name, as_json = wants_json(request, request.path_params["design"])
        workspace = self.workspace(name)
        data = {"design": name, **review.review(workspace)}
        return self.respond(request, "review.html", data, as_json)

    def pattern(self, request: Request) -> Response:
        """A pattern with its parameters; ``?_run=1`` runs it and shows served beside means."""
        workspace = self.workspace(request.path_params["design"])
        name, as_json = wants_json(request, request.path_params["pattern"], workspace.design.patterns)
        if name not in workspace.design.patterns:
            raise NotFound(f"design {workspace.name} has no pattern {name!r}")
        pattern = workspace.design.patterns[name]
        given = {k: v for k, v in request.query_params.items() if k in pattern.params}
        sample = request.query_params.get("_sample")
        samples = workspace.param_sets.get(name) or []
        defaults = (
            samples[int(sample)] if sample and sample.isdigit() and int(sample) < len(samples) else None
        )
        data: dict[str, Any] = {
            "design": workspace.name,
            **pattern_summary(pattern),
            "values": patterns.form_values(workspace, pattern, given, defaults),
            "samples": [{k: patterns.as_text(v) for k, v in s.items()} for s in samples],
        }
        status = 200
        if request.query_params.get("_run"):
            try:
                params = patterns.parse_params(pattern, data["values"])
                data["verification"] = patterns.verdict_json(patterns.run_verified(workspace, name, params))
            except patterns.ParamError as exc:
                data["error"], status = str(exc), 400
        return self.respond(request, "pattern.html", data, as_json, status)

    def view(self, request: Request) -> Response:
        """A view declared in the design, drawn by its kind."""
        workspace = self.workspace(request.path_params["design"])
        name, as_json = wants_json(request, request.path_params["view"], workspace.design.views)
        if name not in workspace.design.views:
            raise NotFound(f"design {workspace.name} has no view {name!r}")
        view = workspace.design.views[name]
        pattern = workspace.design.patterns[view.pattern]
        given = {k: v for k, v in request.query_params.items() if k in pattern.params}
        values = patterns.form_values(workspace, pattern, given, view.params)
        data: dict[str, Any] = {
            "design": workspace.name,
            "view": {
                "name": view.name,
                "title": view.heading,
                "kind": view.kind,
                "pattern": view.pattern,
                "description": view.description,
                "label": view.label,
                "time": list(view.time),
                "columns": list(view.columns),
            },
            "params": [{"name": n, "type": s.type, "value": values[n]} for n, s in pattern.params.items()],
        }
        status = 200
        try:
            data["layout"] = layouts.run_view(workspace, view, patterns.parse_params(pattern, values))
        except Exception as exc:  # a parameter the pattern refuses: show the form with the reason
            data["error"], status = f"{type(exc).__name__}: {exc}", 400
        return self.respond(request, "view.html", data, as_json, status)


def pattern_summary(pattern: Any) -> dict[str, Any]:
    served = pattern.served
    return {
        "name": pattern.name,
        "description": pattern.description,
        "params": [
            {"name": n, "type": a.type, "format": a.format, "enum": list(a.enum) if a.enum else None}
            for n, a in pattern.params.items()
        ],
        "returns": list(pattern.returns),
        "op": served.op,
        "index": served.index,
        "where": pattern.means.where.text if pattern.means.where is not None else None,
        "order": f"{pattern.means.order.attribute} {'desc' if pattern.means.order.descending else 'asc'}"
        if pattern.means.order
        else None,
        "limit": pattern.means.limit,
    }


def columns(description: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
    keys = [k for k in (description["partition"], description["sort"]) if k]
    others = dict.fromkeys(name for row in rows for name in row["item"] if name not in keys)
    return keys + sorted(others)


def groups(description: dict[str, Any], rows: list[dict[str, Any]], enabled: bool) -> list[dict[str, Any]]:
    """Consecutive items of one partition, with the entities they are (a collection when several)."""
    groups: list[dict[str, Any]] = []
    pk = description["partition"]
    for index, row in enumerate(rows):
        value = to_json(row["item"].get(pk), indent=False)
        if not groups or groups[-1]["partition"] != value:
            groups.append({"partition": value, "rows": [], "entities": {}})
        groups[-1]["rows"].append(index)
        entity = (row["entity"] or {}).get("entity") if row["entity"] else None
        if entity:
            groups[-1]["entities"][entity] = groups[-1]["entities"].get(entity, 0) + 1
    return groups
