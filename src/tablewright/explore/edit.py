"""Writes from the page (only with ``--write``): through the runtime when a design owns the table, so
validation, version checks, uniqueness and key templates apply; as raw DynamoDB requests otherwise.

A refusal is an answer, not a failure of the page: ``WriteRefused`` carries the reason to show.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from botocore.exceptions import ClientError

from ..design.model import Attribute, Entity
from ..runtime import Runtime, RuntimeFailure
from ..runtime.items import key_fields
from .items import client_wire, to_json
from .patterns import PARAM_PARSERS, exact_json


class WriteRefused(Exception):
    """A write the runtime or DynamoDB refused; ``str()`` is the reason as they gave it."""


def parse_fields(entity: Entity, fields: Mapping[str, str]) -> tuple[dict[str, object], list[str]]:
    """Form fields (attribute -> text) as typed values, and the attributes left empty (to remove)."""
    values: dict[str, object] = {}
    empty: list[str] = []
    for name, text in fields.items():
        if text == "":
            empty.append(name)
            continue
        spec = entity.attributes.get(name) or Attribute(name, "any")
        values[name] = _value(name, spec, text)
    return values, empty


def _value(name: str, spec: Attribute, text: str) -> object:
    parser = PARAM_PARSERS.get(spec.type)
    if spec.type == "any":
        try:  # an undeclared attribute: JSON when it reads as JSON, else the text itself
            return exact_json(text)
        except ValueError:
            return text
    if parser is None:
        return text
    try:
        return parser(text)
    except Exception as exc:  # the parser's own message says what is wrong with the text
        raise WriteRefused(f"{name} ({spec.type}): {text!r}: {exc}") from None


def parse_json_values(text: str) -> dict[str, object]:
    """A JSON object of attribute values (numbers exact, as DynamoDB keeps them)."""
    try:
        data = exact_json(text)
    except ValueError as exc:
        raise WriteRefused(f"the JSON does not parse: {exc}") from None
    if not isinstance(data, dict):
        raise WriteRefused("the JSON must be an object of attribute values")
    return data


def entity_values(entity: Entity, data: Mapping[str, object]) -> dict[str, object]:
    """JSON values given the entity's declared types where JSON has none (sets, binary)."""
    values = dict(data)
    for name, value in data.items():
        spec = entity.attributes.get(name)
        if spec is None or value is None:
            continue
        if (
            spec.type.endswith("_set")
            and isinstance(value, list)
            or spec.type == "binary"
            and isinstance(value, str)
        ):
            values[name] = _value(name, spec, to_json(value, indent=False))
    return values


def _refused(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return call(*args, **kwargs)
    except RuntimeFailure as exc:
        raise WriteRefused(f"{type(exc).__name__}: {exc}") from None
    except (KeyError, ValueError) as exc:
        raise WriteRefused(str(exc).strip("'\"")) from None
    except ClientError as exc:
        error = exc.response.get("Error", {})
        raise WriteRefused(f"{error.get('Code')}: {error.get('Message')}") from None


def create(rt: Runtime, entity: str, values: Mapping[str, object]) -> Any:
    """Create an entity (``rt.put`` is create-only: an existing key is refused, never overwritten)."""
    return _refused(rt.put, entity, values).record


def update(
    rt: Runtime, entity: str, stored: Mapping[str, object], changes: Mapping[str, object], remove: list[str]
) -> Any:
    """Change an entity's attributes, checking the version it was read at (when it has one)."""
    found = rt.entity(entity)
    key = {name: stored.get(name) for name in key_fields(found)}
    version = stored.get(found.version_attribute) if found.version_attribute else None
    changes = {k: v for k, v in changes.items() if k not in key and k != found.version_attribute}
    return _refused(rt.update, entity, key, changes, remove=remove, expected_version=version).record


def delete(rt: Runtime, entity: str, stored: Mapping[str, object]) -> None:
    """Delete an entity at the version it was read (when it has one)."""
    found = rt.entity(entity)
    key = {name: stored.get(name) for name in key_fields(found)}
    version = stored.get(found.version_attribute) if found.version_attribute else None
    _refused(rt.delete, entity, key, expected_version=version)


def raw_put(
    client: Any, table: str, item: Mapping[str, Any], key_names: list[str], create_only: bool
) -> None:
    """PutItem of a DynamoDB JSON item; ``create_only`` refuses an item that exists."""
    request: dict[str, Any] = {"TableName": table, "Item": client_wire(dict(item))}
    if create_only:
        request["ConditionExpression"] = "attribute_not_exists(#k)"
        request["ExpressionAttributeNames"] = {"#k": key_names[0]}
    _refused(client.put_item, **request)


def raw_delete(client: Any, table: str, key: Mapping[str, Any]) -> None:
    """DeleteItem by a DynamoDB JSON key."""
    _refused(client.delete_item, TableName=table, Key=client_wire(dict(key)))
