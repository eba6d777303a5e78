"""Writes from the page (only with ``--write``): through the runtime when a design owns the table, so
validation, version checks, uniqueness and key templates apply; as raw DynamoDB requests otherwise.

A refusal is an answer, not a failure of the page: ``WriteRefused`` carries the reason to show.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

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


_WIRE_SCALARS = {"S": str, "N": str, "B": str, "BOOL": bool}
_WIRE_SETS = {"SS": "S", "NS": "N", "BS": "B"}


def wire_item(item: Mapping[str, Any]) -> dict[str, Any]:
    """A DynamoDB JSON item as the client takes it; ``WriteRefused`` naming the first value that
    is not DynamoDB JSON (botocore would fail on it, or base64 decoding would drop characters)."""
    for name, value in item.items():
        _check_wire(value, name)
    return client_wire(dict(item))


def _check_wire(value: object, where: str) -> None:
    """``WriteRefused`` unless ``value`` is one DynamoDB JSON value (``where`` names it)."""
    if not isinstance(value, dict) or len(value) != 1:
        raise WriteRefused(
            f'{where}: {to_json(value, indent=False)[:80]} is not DynamoDB JSON ({{"S": "text"}})'
        )
    ((kind, inner),) = value.items()
    if kind in _WIRE_SETS:
        if not isinstance(inner, list):
            raise WriteRefused(f"{where}: {kind} holds a list")
        for element in inner:
            _check_wire({_WIRE_SETS[kind]: element}, where)
    elif kind in _WIRE_SCALARS:
        if not isinstance(inner, _WIRE_SCALARS[kind]):
            raise WriteRefused(
                f"{where}: {kind} holds {_WIRE_SCALARS[kind].__name__}, not {to_json(inner, indent=False)[:40]}"
            )
        if kind == "B":
            try:
                base64.b64decode(inner, validate=True)
            except binascii.Error:
                raise WriteRefused(f"{where}: {inner[:40]!r} is not base64") from None
    elif kind == "NULL":
        if inner is not True:
            raise WriteRefused(f"{where}: NULL holds true, nothing else")
    elif kind == "L" and isinstance(inner, list):
        for n, element in enumerate(inner):
            _check_wire(element, f"{where}[{n}]")
    elif kind == "M" and isinstance(inner, dict):
        for key, element in inner.items():
            _check_wire(element, f"{where}.{key}")
    else:
        raise WriteRefused(
            f"{where}: {kind!r} with {to_json(inner, indent=False)[:40]} is not a DynamoDB type"
        )


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
    except BotoCoreError as exc:  # refused before sending (ParamValidationError): say what botocore said
        raise WriteRefused(" ".join(str(exc).split())) from None


def create(rt: Runtime, entity: str, values: Mapping[str, object]) -> Any:
    """Create an entity (``rt.put`` is create-only: an existing key is refused, never overwritten)."""
    return _refused(rt.put, entity, values).record


def update(
    rt: Runtime, entity: str, stored: Mapping[str, object], changes: Mapping[str, object], remove: list[str]
) -> Any:
    """Change an entity's attributes, checking the version it was read at (when it has one)."""
    found = rt.entity(entity)
    key = {name: stored.get(name) for name in key_fields(found)}
    moved = sorted(
        k
        for k, v in changes.items()
        if k in key and to_json(v, indent=False) != to_json(key[k], indent=False)
    )
    if moved:  # dropping them silently answered "updated" for an edit that did not happen
        raise WriteRefused(f"{', '.join(moved)}: part of the item's key; create a new item instead")
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
    request: dict[str, Any] = {"TableName": table, "Item": wire_item(item)}
    if create_only:
        request["ConditionExpression"] = "attribute_not_exists(#k)"
        request["ExpressionAttributeNames"] = {"#k": key_names[0]}
    _refused(client.put_item, **request)


def raw_delete(client: Any, table: str, key: Mapping[str, Any]) -> None:
    """DeleteItem by a DynamoDB JSON key."""
    _refused(client.delete_item, TableName=table, Key=wire_item(key))
