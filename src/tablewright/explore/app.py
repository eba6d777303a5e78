"""The Starlette application: every page is server-rendered HTML and, with a ``.json`` suffix or
``?_format=json``, the same data as JSON.

Each handler builds one JSON-ready ``data`` dict; ``Handlers.respond`` renders it with the page's
template or returns it as JSON (``pages`` reads, ``forms`` shows and writes items). Writes are POSTs carrying the page's token (another site cannot forge one)
and only exist with ``--write``.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .forms import ItemPages
from .handlers import NotFound, human_bytes, quote
from .items import cell, plain, script_json, to_json
from .pages import Pages
from .rows import items_body
from .workspace import Explorer

HERE = Path(__file__).parent
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}


def create_app(explorer: Explorer, *, allowed_hosts: set[str] | None = None) -> Starlette:
    """The explorer's web application over ``explorer``.

    Only requests addressed to a loopback name (or ``allowed_hosts``) are answered: a page on
    another site may point a DNS name it controls at our port (DNS rebinding).
    """
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["json"] = lambda value: to_json(value, indent=False)
    env.filters["pretty"] = to_json
    env.filters["script_json"] = script_json
    env.filters["plain"] = plain
    env.filters["bytes"] = human_bytes
    env.filters["path"] = quote  # a name as one path segment: a design folder may be "a #1?"
    env.globals["cell"] = cell
    env.globals["items_body"] = items_body
    token = secrets.token_urlsafe(24)
    pages = Pages(explorer, env, token)
    items = ItemPages(explorer, env, token)
    routes = [
        Route("/", pages.index),
        Route("/index.json", pages.index),
        Route("/tables/{table}", pages.table),
        Route("/tables/{table}/item", items.item, methods=["GET", "POST"]),
        Route("/tables/{table}/item.json", items.item, methods=["GET", "POST"]),
        Route("/tables/{table}/new", items.new_item, methods=["GET", "POST"]),
        Route("/tables/{table}/new.json", items.new_item, methods=["GET", "POST"]),
        Route("/tables/{table}/live", pages.live),
        Route("/designs/{design}", pages.design),
        Route("/designs/{design}/review", pages.review),
        Route("/designs/{design}/review.json", pages.review),
        Route("/designs/{design}/patterns/{pattern}", pages.pattern),
        Route("/designs/{design}/views/{view}", pages.view),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    hosts = sorted(LOOPBACK_HOSTS | (allowed_hosts or set()))
    return Starlette(
        routes=routes,
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
        exception_handlers={NotFound: pages.not_found, HTTPException: pages.http_error},
    )
