"""The item page and the writes made from it (only with ``--write``): through the runtime when a
design owns the table, as DynamoDB JSON otherwise. Every POST carries the page's token."""

from __future__ import annotations

import secrets
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from ..runtime.items import key_fields
from . import edit, tables
from .handlers import Handlers, JsonPage, NotFound, client_message, in_thread, quote, read_form, wants_json
from .items import EntityReader, exact, plain, to_json

FORM_TYPE = "application/x-www-form-urlencoded"


class ItemPages(Handlers):
    """One item (view, edit, delete) and the new-item page."""

    def _item_context(self, name: str, key_text: str | None) -> tuple[dict[str, Any], Any, Any, dict | None]:
        if name not in self.table_names():
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
            raise NotFound(f"key {key_text[:200]}: {client_message(exc)}") from None
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
        name, as_json = wants_json(request, request.path_params["table"])
        form = await read_form(request) if request.method == "POST" else None
        key_text = request.query_params.get("key") or (form.get("key") if form else None)
        data, workspace, info, item = await in_thread(self._item_context, name, key_text)
        if form is None:
            return self.respond(request, "item.html", data, as_json)
        refusal = self._check_post(form, request)
        if refusal is not None:
            return refusal
        action = form.get("action")
        if action not in ("update", "delete"):  # never "ok, updated" for a delete nobody could read
            return self.error(request, f"action {action!r}: use update or delete", 400, as_json)
        try:
            if workspace and info and info.entity:
                await in_thread(self._design_write, workspace, info.entity, action, exact(item), form)
            else:
                await in_thread(self._raw_write, name, action, data, form)
        except edit.WriteRefused as exc:
            data["refused"] = str(exc)
            data["submitted"] = dict(form)
            return self.respond(request, "item.html", data, as_json, 409)
        if action == "delete":
            return self._done(request, f"/tables/{name}", {"deleted": data["key"]}, as_json)
        return self._done(
            request, f"/tables/{name}/item?key={quote(key_text or '')}", {"updated": data["key"]}, as_json
        )

    def _check_post(self, form: Any, request: Request) -> Response | None:
        as_json = wants_json(request)[1]
        if not self.explorer.writable:
            return self.error(
                request, "explore is read-only: start it with --write to change items", 403, as_json
            )
        if not request.headers.get("content-type", "").startswith(FORM_TYPE):
            # A JSON body read as a form is no fields at all: an edit that changes nothing, "ok".
            return self.error(request, f"send the fields as a form ({FORM_TYPE})", 415, as_json)
        if not secrets.compare_digest(
            str(form.get("_token") or request.headers.get("x-explore-token") or ""), self.token
        ):
            return self.error(
                request,
                "the form's token is missing or stale: reload the page and submit again",
                403,
                as_json,
            )
        return None

    def _done(self, request: Request, location: str, data: dict[str, Any], as_json: bool) -> Response:
        if as_json:
            return JsonPage({"ok": True, **data})
        return RedirectResponse(location, status_code=303)

    def _design_write(self, workspace: Any, entity: str, action: str, stored: dict, form: Any) -> None:
        rt = workspace.runtime
        found = workspace.design.entities[entity]
        seen = (form.get("_version") or "").strip()
        if found.version_attribute and seen:
            # The version the person saw when the form was drawn: a change stored since is a conflict.
            # One that is not a version cannot be checked, and an edit without the check could undo a
            # change stored since.
            if not seen.isascii() or not seen.isdigit():
                raise edit.WriteRefused(f"_version {seen!r} is not a version number: reload the item")
            stored = {**stored, found.version_attribute: int(seen)}
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
        name, as_json = wants_json(request, request.path_params["table"])
        if name not in await in_thread(self.table_names):
            raise NotFound(f"no table {name!r}")
        description = await in_thread(tables.describe, self.explorer.client, name)
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
            return self.respond(request, "new.html", data, as_json)
        form = await read_form(request)
        refusal = self._check_post(form, request)
        if refusal is not None:
            return refusal
        try:
            key = await in_thread(self._create, workspace, entities, form, name, description)
        except edit.WriteRefused as exc:
            data.update(refused=str(exc), submitted=dict(form), entity=form.get("entity") or chosen)
            return self.respond(request, "new.html", data, as_json, 409)
        return self._done(
            request,
            f"/tables/{name}/item?key={quote(to_json(key, indent=False))}",
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
        return orjson.loads(to_json({k: wire_scalar(v) for k, v in stored.items()}))


def wire_scalar(value: object) -> dict[str, object]:
    if isinstance(value, bytes):
        import base64

        return {"B": base64.b64encode(value).decode()}
    if isinstance(value, int | float) or type(value).__name__ == "Decimal":
        return {"N": str(value)}
    return {"S": str(value)}
