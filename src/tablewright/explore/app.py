"""The Starlette application: every page is server-rendered HTML and, with a ``.json`` suffix or
``?_format=json``, the same data as JSON.

Each handler builds one JSON-ready ``data`` dict; ``_respond`` renders it with the page's template
or returns it as JSON. Writes are POSTs carrying the page's token (another site cannot forge one)
and only exist with ``--write``.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import jinja2
import orjson
from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..runtime.items import key_fields
from . import edit, layouts, live, patterns, review, tables
from .items import EntityReader, cell, plain, to_json
from .rows import column_types, items_body
from .workspace import Explorer

HERE = Path(__file__).parent
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}


class _Json(JSONResponse):
    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, default=_json_default)


def _json_default(value: object) -> object:
    import json

    return orjson.loads(to_json(value)) if not isinstance(value, type) else json.dumps(str(value))


class NotFound(Exception):
    """A page for something that does not exist (404 with what was asked for)."""


def create_app(explorer: Explorer, *, allowed_hosts: set[str] | None = None) -> Starlette:
    """The explorer's web application over ``explorer``."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["json"] = lambda value: to_json(value, indent=False)
    env.filters["pretty"] = to_json
    env.filters["bytes"] = _human_bytes
    env.globals["cell"] = cell
    env.globals["items_body"] = items_body
    token = secrets.token_urlsafe(24)
    hosts = LOOPBACK_HOSTS | (allowed_hosts or set())
    pages = Pages(explorer, env, token)

    async def guard(scope: Any, receive: Any, send: Any) -> None:
        # A page on another site may point at our loopback port by a DNS name it controls
        # (DNS rebinding): answer only to the host names we were started for.
        if scope["type"] == "http":
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if name not in hosts:
                response = Response(f"host {host!r} is not served here\n", 421, media_type="text/plain")
                await response(scope, receive, send)
                return
        await app(scope, receive, send)

    routes = [
        Route("/", pages.index),
        Route("/index.json", pages.index),
        Route("/tables/{table}", pages.table),
        Route("/tables/{table}/item", pages.item, methods=["GET", "POST"]),
        Route("/tables/{table}/new", pages.new_item, methods=["GET", "POST"]),
        Route("/tables/{table}/live", pages.live),
        Route("/designs/{design}", pages.design),
        Route("/designs/{design}/review", pages.review),
        Route("/designs/{design}/patterns/{pattern}", pages.pattern),
        Route("/designs/{design}/views/{view}", pages.view),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={NotFound: pages.not_found})
    guard.app = app  # type: ignore[attr-defined]  # for tests and tools that want the inner app
    return guard  # type: ignore[return-value]


def _human_bytes(size: object) -> str:
    value = float(size or 0)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value} B"


def _wants_json(request: Request, name: str | None = None, known: Any = ()) -> tuple[str | None, bool]:
    """The name without a ``.json`` suffix, and whether JSON was asked for (a name that exists as
    written, dots and all, is taken as written)."""
    as_json = request.query_params.get("_format") == "json"
    if name is not None and name.endswith(".json") and name not in known and name[:-5] in known:
        return name[:-5], True
    return name, as_json


class Pages:
    """The handlers; each builds ``data`` and hands it to ``_respond``."""

    def __init__(self, explorer: Explorer, env: jinja2.Environment, token: str) -> None:
        self.explorer = explorer
        self.env = env
        self.token = token

    # ------------------------------------------------------------------------------------ helpers
    def _respond(
        self, request: Request, template: str, data: dict[str, Any], as_json: bool, status: int = 200
    ) -> Response:
        if as_json:
            return _Json(data, status_code=status)
        page = self.env.get_template(template).render(
            data=data, mode=self._mode(), token=self.token, request=request, cell=cell
        )
        return HTMLResponse(page, status_code=status)

    def _mode(self) -> dict[str, Any]:
        return {
            "writable": self.explorer.writable,
            "source": self.explorer.source,
            "designs": list(self.explorer.workspaces),
        }

    def _table_names(self) -> list[str]:
        names: list[str] = []
        request: dict[str, Any] = {}
        while True:
            response = self.explorer.client.list_tables(**request)
            names += response.get("TableNames", [])
            if "LastEvaluatedTableName" not in response:
                return names
            request["ExclusiveStartTableName"] = response["LastEvaluatedTableName"]

    def _workspace(self, name: str) -> Any:
        if name not in self.explorer.workspaces:
            raise NotFound(
                f"no design {name!r} (explore was started with: {', '.join(self.explorer.workspaces) or 'none'})"
            )
        return self.explorer.workspaces[name]

    async def not_found(self, request: Request, exc: Exception) -> Response:
        data = {"error": str(exc), "status": 404}
        return self._respond(
            request, "error.html", data, _wants_json(request)[1] or request.url.path.endswith(".json"), 404
        )

    def _error(self, request: Request, message: str, status: int, as_json: bool) -> Response:
        return self._respond(request, "error.html", {"error": message, "status": status}, as_json, status)

    # ------------------------------------------------------------------------------------ pages
    def index(self, request: Request) -> Response:
        """Every table of the client, every design with its patterns and views."""
        as_json = request.url.path.endswith(".json") or _wants_json(request)[1]
        table_rows = []
        for name in self._table_names():
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
        return self._respond(request, "index.html", data, as_json)

    def table(self, request: Request) -> Response:
        """A table's description and a page of its items: scan, or query by key condition, with filters."""
        name, as_json = _wants_json(request, request.path_params["table"], self._table_names())
        if name not in self._table_names():
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
            data["error"], status = _client_message(exc), 400
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
            data["columns"] = _columns(description, rows)
            data["groups"] = _groups(description, rows, query_ok)
            data["column_types"] = column_types(rows, data["columns"])
        data["result"].pop("items", None)
        data["operators"] = list(tables.SORT_OPERATORS)
        data["filter_operators"] = list(tables.FILTER_OPERATORS)
        data["filter_types"] = list(tables.FILTER_TYPES)
        data["entities"] = (
            [e.name for e in workspace.design.entities_in(design_table.name)] if workspace else []
        )
        return self._respond(request, "table.html", data, as_json, status)

    def _item_context(self, name: str, key_text: str | None) -> tuple[dict[str, Any], Any, Any, dict | None]:
        if name not in self._table_names():
            raise NotFound(f"no table {name!r}")
        description = tables.describe(self.explorer.client, name)
        if not key_text:
            raise NotFound("give the item's key as ?key={DynamoDB JSON}")
        try:
            key = orjson.loads(key_text)
            response = self.explorer.data.get_item(
                TableName=name, Key=edit.client_wire(key), ConsistentRead=True
            )
        except Exception as exc:  # not JSON, not a key of this table: say which
            raise NotFound(f"key {key_text[:200]}: {_client_message(exc)}") from None
        if "Item" not in response:
            raise NotFound(f"table {name} has no item with key {key_text[:200]}")
        item = tables.json_wire(response["Item"])
        workspace, design_table = self.explorer.design_of_table(name)
        info = EntityReader(workspace.design, design_table).describe(item) if workspace else None
        data = {
            "table": description,
            "design": workspace.name if workspace else None,
            "key": key,
            "key_text": key_text,
            "item": item,
            "plain": plain(item),
            "entity": info.as_dict() if info else None,
        }
        if workspace and info and info.entity:
            entity = workspace.design.entities[info.entity]
            data["attributes"] = [
                {
                    "name": n,
                    "type": a.type,
                    "required": a.required,
                    "computed": a.computed is not None,
                    "format": a.format,
                }
                for n, a in entity.attributes.items()
            ]
            data["natural"] = {k: v for k, v in data["plain"].items() if k in entity.attributes}
            data["version"] = (
                data["plain"].get(entity.version_attribute) if entity.version_attribute else None
            )
        return data, workspace, info, item

    async def item(self, request: Request) -> Response:
        """One item: DynamoDB JSON and plain JSON, its entity; edit and delete with ``--write``."""
        name, as_json = _wants_json(request, request.path_params["table"])
        form = await _form(request) if request.method == "POST" else None
        key_text = request.query_params.get("key") or (form.get("key") if form else None)
        data, workspace, info, item = await _in_thread(self._item_context, name, key_text)
        if form is None:
            return self._respond(request, "item.html", data, as_json)
        refusal = self._check_post(form, request)
        if refusal is not None:
            return refusal
        action = form.get("action")
        try:
            if workspace and info and info.entity:
                await _in_thread(self._design_write, workspace, info.entity, action, data["plain"], form)
            else:
                await _in_thread(self._raw_write, name, action, data, form)
        except edit.WriteRefused as exc:
            data["refused"] = str(exc)
            data["submitted"] = dict(form)
            return self._respond(request, "item.html", data, as_json, 409)
        if action == "delete":
            return self._done(request, f"/tables/{name}", {"deleted": data["key"]}, as_json)
        return self._done(
            request, f"/tables/{name}/item?key={_quote(key_text or '')}", {"updated": data["key"]}, as_json
        )

    def _check_post(self, form: Any, request: Request) -> Response | None:
        as_json = _wants_json(request)[1]
        if not self.explorer.writable:
            return self._error(
                request, "explore is read-only: start it with --write to change items", 403, as_json
            )
        if not secrets.compare_digest(
            str(form.get("_token") or request.headers.get("x-explore-token") or ""), self.token
        ):
            return self._error(
                request,
                "the form's token is missing or stale: reload the page and submit again",
                403,
                as_json,
            )
        return None

    def _done(self, request: Request, location: str, data: dict[str, Any], as_json: bool) -> Response:
        if as_json:
            return _Json({"ok": True, **data})
        return RedirectResponse(location, status_code=303)

    def _design_write(self, workspace: Any, entity: str, action: str, stored: dict, form: Any) -> None:
        rt = workspace.runtime
        found = workspace.design.entities[entity]
        if found.version_attribute and (form.get("_version") or "").strip().isdigit():
            # The version the person saw when the form was drawn: a change stored since is a conflict.
            stored = {**stored, found.version_attribute: int(form["_version"])}
        if action == "delete":
            edit.delete(rt, entity, stored)
            return
        if form.get("json"):
            values = edit.entity_values(found, edit.parse_json_values(form["json"]))
            # What the JSON leaves out is removed; never what the runtime owns (keys, version, computed).
            owned = {*key_fields(found), found.version_attribute} | {
                n for n, a in found.attributes.items() if a.computed is not None
            }
            remove = [n for n in stored if n not in values and n in found.attributes and n not in owned]
        else:
            fields = {k[5:]: v for k, v in form.multi_items() if k.startswith("attr:")}
            values, remove = edit.parse_fields(found, fields)
            remove = [name for name in remove if name in stored]
        edit.update(rt, entity, stored, values, remove)

    def _raw_write(self, table: str, action: str, data: dict, form: Any) -> None:
        if action == "delete":
            edit.raw_delete(self.explorer.client, table, data["key"])
            return
        item = edit.parse_json_values(form.get("json") or "{}")
        if any(item.get(k) != data["item"].get(k) for k in data["key"]):
            raise edit.WriteRefused("the key cannot change in an edit: create a new item instead")
        edit.raw_put(self.explorer.client, table, item, list(data["key"]), create_only=False)

    async def new_item(self, request: Request) -> Response:
        """Create an item: an entity through the runtime (with a design) or a DynamoDB JSON item."""
        name, as_json = _wants_json(request, request.path_params["table"])
        if name not in await _in_thread(self._table_names):
            raise NotFound(f"no table {name!r}")
        description = await _in_thread(tables.describe, self.explorer.client, name)
        workspace, design_table = self.explorer.design_of_table(name)
        entities = {e.name: e for e in workspace.design.entities_in(design_table.name)} if workspace else {}
        chosen = request.query_params.get("entity") or next(iter(entities), None)
        data: dict[str, Any] = {
            "table": description,
            "design": workspace.name if workspace else None,
            "entities": list(entities),
            "entity": chosen,
        }
        if chosen in entities:
            data["attributes"] = [
                {
                    "name": n,
                    "type": a.type,
                    "required": a.required,
                    "computed": a.computed is not None,
                    "format": a.format,
                }
                for n, a in entities[chosen].attributes.items()
            ]
        if request.method == "GET":
            return self._respond(request, "new.html", data, as_json)
        form = await _form(request)
        refusal = self._check_post(form, request)
        if refusal is not None:
            return refusal
        try:
            key = await _in_thread(self._create, workspace, entities, form, name, description)
        except edit.WriteRefused as exc:
            data.update(refused=str(exc), submitted=dict(form), entity=form.get("entity") or chosen)
            return self._respond(request, "new.html", data, as_json, 409)
        return self._done(
            request,
            f"/tables/{name}/item?key={_quote(to_json(key, indent=False))}",
            {"created": key},
            as_json,
        )

    def _create(self, workspace: Any, entities: dict, form: Any, table: str, description: dict) -> dict:
        key_names = [k for k in (description["partition"], description["sort"]) if k]
        if workspace is None:
            item = edit.parse_json_values(form.get("json") or "{}")
            edit.raw_put(self.explorer.client, table, item, key_names, create_only=True)
            return {k: item[k] for k in key_names if k in item}
        entity = form.get("entity")
        if entity not in entities:
            raise edit.WriteRefused(f"entity {entity!r}: table {table} holds {', '.join(entities)}")
        if form.get("json"):
            values = edit.entity_values(entities[entity], edit.parse_json_values(form["json"]))
        else:
            values, _ = edit.parse_fields(
                entities[entity], {k[5:]: v for k, v in form.multi_items() if k.startswith("attr:")}
            )
        record = edit.create(workspace.runtime, entity, values)
        stored = record.key if record is not None else {}
        return orjson.loads(to_json({k: _wire_scalar(v) for k, v in stored.items()}))

    async def live(self, request: Request) -> Response:
        """Server-sent events of the table's stream (404 when the table has none)."""
        name = request.path_params["table"]
        if name not in await _in_thread(self._table_names):
            raise NotFound(f"no table {name!r}")
        description = await _in_thread(tables.describe, self.explorer.client, name)
        if not description["stream_arn"]:
            raise NotFound(f"table {name} has no stream: live changes need one (stream: in the design)")
        return StreamingResponse(
            live.events(self.explorer.streams, description["stream_arn"], request.is_disconnected),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache"},
        )

    def design(self, request: Request) -> Response:
        """A design: its tables, patterns with parameters, and views."""
        name, as_json = _wants_json(request, request.path_params["design"], self.explorer.workspaces)
        workspace = self._workspace(name)
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
            "patterns": [_pattern_summary(p) for p in design.patterns.values()],
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
        return self._respond(request, "design.html", data, as_json)

    def review(self, request: Request) -> Response:
        """Lint findings and cost per pattern of a design."""
        name, as_json = _wants_json(request, request.path_params["design"])
        workspace = self._workspace(name)
        data = {"design": name, **review.review(workspace)}
        return self._respond(request, "review.html", data, as_json)

    def pattern(self, request: Request) -> Response:
        """A pattern with its parameters; ``?_run=1`` runs it and shows served beside means."""
        workspace = self._workspace(request.path_params["design"])
        name, as_json = _wants_json(request, request.path_params["pattern"], workspace.design.patterns)
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
            **_pattern_summary(pattern),
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
        return self._respond(request, "pattern.html", data, as_json, status)

    def view(self, request: Request) -> Response:
        """A view declared in the design, drawn by its kind."""
        workspace = self._workspace(request.path_params["design"])
        name, as_json = _wants_json(request, request.path_params["view"], workspace.design.views)
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
            },
            "params": [{"name": n, "type": s.type, "value": values[n]} for n, s in pattern.params.items()],
        }
        status = 200
        try:
            data["layout"] = layouts.run_view(workspace, view, patterns.parse_params(pattern, values))
        except Exception as exc:  # a parameter the pattern refuses: show the form with the reason
            data["error"], status = f"{type(exc).__name__}: {exc}", 400
        return self._respond(request, "view.html", data, as_json, status)


async def _form(request: Request) -> FormData:
    """The POSTed form (``application/x-www-form-urlencoded``; the pages send nothing else)."""
    body = (await request.body()).decode("utf-8", errors="replace")
    return FormData(parse_qsl(body, keep_blank_values=True))


async def _in_thread(function: Any, *args: Any) -> Any:
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(function, *args)


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


def _wire_scalar(value: object) -> dict[str, object]:
    if isinstance(value, bytes):
        import base64

        return {"B": base64.b64encode(value).decode()}
    if isinstance(value, int | float) or type(value).__name__ == "Decimal":
        return {"N": str(value)}
    return {"S": str(value)}


def _client_message(exc: Exception) -> str:
    response = getattr(exc, "response", None)
    if isinstance(response, dict) and "Error" in response:
        return f"{response['Error'].get('Code')}: {response['Error'].get('Message')}"
    return f"{type(exc).__name__}: {exc}"


def _pattern_summary(pattern: Any) -> dict[str, Any]:
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


def _columns(description: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
    keys = [k for k in (description["partition"], description["sort"]) if k]
    others = dict.fromkeys(name for row in rows for name in row["item"] if name not in keys)
    return keys + sorted(others)


def _groups(description: dict[str, Any], rows: list[dict[str, Any]], enabled: bool) -> list[dict[str, Any]]:
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
