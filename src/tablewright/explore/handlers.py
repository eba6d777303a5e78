"""What every page handler shares: rendering ``data`` as HTML or JSON, errors, small helpers."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import quote as url_quote

import jinja2
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from .items import to_json
from .workspace import Explorer, Workspace


class NotFound(Exception):
    """A page for something that does not exist (404 with what was asked for)."""


class JsonPage(JSONResponse):
    """JSON with exact numbers, binary as base64 and sets as lists (``items.to_json``)."""

    def render(self, content: Any) -> bytes:
        return to_json(content, indent=False).encode()


class Handlers:
    """The state every handler needs and the one way a page answers (``respond``)."""

    def __init__(self, explorer: Explorer, env: jinja2.Environment, token: str) -> None:
        self.explorer = explorer
        self.env = env
        self.token = token

    def respond(
        self, request: Request, template: str, data: dict[str, Any], as_json: bool, status: int = 200
    ) -> Response:
        """``data`` as JSON, or drawn by ``template`` (which also gets the mode and the form token)."""
        if as_json:
            return JsonPage(data, status_code=status)
        page = self.env.get_template(template).render(
            data=data, mode=self.mode(), token=self.token, request=request
        )
        return HTMLResponse(page, status_code=status)

    def mode(self) -> dict[str, Any]:
        """What the header shows: read-only or writable, the data's source, the designs."""
        return {
            "writable": self.explorer.writable,
            "source": self.explorer.source,
            "designs": list(self.explorer.workspaces),
        }

    def table_names(self) -> list[str]:
        """Every table the client sees (ListTables, all pages)."""
        names: list[str] = []
        request: dict[str, Any] = {}
        while True:
            response = self.explorer.client.list_tables(**request)
            names += response.get("TableNames", [])
            if "LastEvaluatedTableName" not in response:
                return names
            request["ExclusiveStartTableName"] = response["LastEvaluatedTableName"]

    def workspace(self, name: str) -> Workspace:
        """The design ``name`` (``NotFound`` naming the designs there are)."""
        if name not in self.explorer.workspaces:
            raise NotFound(
                f"no design {name!r} (explore was started with: {', '.join(self.explorer.workspaces) or 'none'})"
            )
        return self.explorer.workspaces[name]

    async def not_found(self, request: Request, exc: Exception) -> Response:
        """The 404 page (or JSON) saying what was asked for."""
        data = {"error": str(exc), "status": 404}
        return self.respond(
            request, "error.html", data, wants_json(request)[1] or request.url.path.endswith(".json"), 404
        )

    async def http_error(self, request: Request, exc: Exception) -> Response:
        """Starlette's own refusals (no such route, a method a page does not take) as the explorer's
        error page or JSON, like every other refusal, with their headers (``Allow`` on a 405)."""
        status = getattr(exc, "status_code", 500)
        said = {404: "no such page", 405: f"{request.method} is not taken here"}.get(status, str(exc))
        data = {"error": f"{said}: {request.url.path}", "status": status}
        as_json = wants_json(request)[1] or request.url.path.endswith(".json")
        response = self.respond(request, "error.html", data, as_json, status)
        response.headers.update(getattr(exc, "headers", None) or {})
        return response

    def error(self, request: Request, message: str, status: int, as_json: bool) -> Response:
        """A refusal page (or JSON) with ``status``."""
        return self.respond(request, "error.html", {"error": message, "status": status}, as_json, status)


def human_bytes(size: object) -> str:
    """A byte count as people read it (``129.9 KB``)."""
    value = float(size or 0)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value} B"


def wants_json(request: Request, name: str | None = None, known: Any = ()) -> tuple[str | None, bool]:
    """The name without a ``.json`` suffix, and whether JSON was asked for (a name that exists as
    written, dots and all, is taken as written; a page whose own route ends in ``.json`` is JSON)."""
    route_path = getattr(request.scope.get("route"), "path", "")
    as_json = request.query_params.get("_format") == "json" or route_path.endswith(".json")
    if name is not None and name.endswith(".json") and name not in known and name[:-5] in known:
        return name[:-5], True
    return name, as_json


async def read_form(request: Request) -> FormData:
    """The POSTed form (``application/x-www-form-urlencoded``; the pages send nothing else)."""
    body = (await request.body()).decode("utf-8", errors="replace")
    return FormData(parse_qsl(body, keep_blank_values=True))


async def in_thread(function: Any, *args: Any) -> Any:
    """Run a blocking call (a client request) off the event loop."""
    return await run_in_threadpool(function, *args)


def quote(text: str) -> str:
    """``text`` for a URL's query string (nothing left unescaped)."""
    return url_quote(text, safe="")


def client_message(exc: Exception) -> str:
    """``Code: Message`` of a DynamoDB error, else the exception's type and text."""
    response = getattr(exc, "response", None)
    if isinstance(response, dict) and "Error" in response:
        return f"{response['Error'].get('Code')}: {response['Error'].get('Message')}"
    return f"{type(exc).__name__}: {exc}"
