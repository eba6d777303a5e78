"""The OpenAPI 3.1 description served at ``/openapi.json``, written from the routes as data.

Hand-written rather than generated: the service has eleven operations and no request models, and a
generator would need a framework (FastAPI, pydantic) the example otherwise does without.
"""

from __future__ import annotations

from typing import Any

_ERROR = {"$ref": "#/components/schemas/Error"}
_DEVICE_KEY = [{"apiKey": []}]
_ADMIN = [{"adminToken": []}]
_HW = {
    "name": "hardware_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": "^[0-9A-F]{2}(:[0-9A-F]{2}){5}$"},
}
_PAGE = [
    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
    {
        "name": "cursor",
        "in": "query",
        "schema": {"type": "string"},
        "description": "the previous page's cursor",
    },
]
_AUTH_ERRORS = {"401": "missing or unknown API key", "403": "revoked API key", "429": "throttled"}
_ADMIN_ERRORS = {"401": "missing admin token", "403": "wrong admin token"}
_NOT_JSON = "not JSON, or nested too deeply to be a request"

# (method, path, summary, security, parameters, request schema name or None, {status: description})
OPERATIONS: list[tuple[str, str, str, list, list, str | None, dict[str, str]]] = [
    (
        "post",
        "/v1/devices",
        "Register or re-register a device",
        _DEVICE_KEY,
        [],
        "Registration",
        {
            "201": "registered",
            "200": "re-registered",
            "400": _NOT_JSON,
            "422": "a field breaks a rule",
            **_AUTH_ERRORS,
        },
    ),
    (
        "get",
        "/v1/devices",
        "Devices, most recently seen first",
        _DEVICE_KEY,
        _PAGE,
        None,
        {"200": "a page of devices", "422": "bad limit or cursor", **_AUTH_ERRORS},
    ),
    (
        "get",
        "/v1/devices/{hardware_id}",
        "One device",
        _DEVICE_KEY,
        [_HW],
        None,
        {"200": "the device", "404": "not registered", "422": "bad hardware_id", **_AUTH_ERRORS},
    ),
    (
        "patch",
        "/v1/devices/{hardware_id}",
        "Set or remove the friendly name",
        _DEVICE_KEY,
        [_HW],
        "Rename",
        {
            "200": "renamed",
            "404": "not registered",
            "400": _NOT_JSON,
            "422": "a field breaks a rule",
            **_AUTH_ERRORS,
        },
    ),
    (
        "get",
        "/v1/devices/{hardware_id}/readings/latest",
        "The latest reading",
        _DEVICE_KEY,
        [_HW],
        None,
        {"200": "the reading", "404": "no readings", "422": "bad hardware_id", **_AUTH_ERRORS},
    ),
    (
        "get",
        "/v1/devices/{hardware_id}/readings",
        "Readings from_ms..to_ms inclusive, oldest first",
        _DEVICE_KEY,
        [
            _HW,
            {"name": "from_ms", "in": "query", "required": True, "schema": {"type": "integer"}},
            {"name": "to_ms", "in": "query", "required": True, "schema": {"type": "integer"}},
            *_PAGE,
        ],
        None,
        {"200": "a page of readings", "422": "a parameter breaks a rule", **_AUTH_ERRORS},
    ),
    (
        "post",
        "/v1/batches",
        "Ingest a batch of 1-100 readings exactly once",
        _DEVICE_KEY,
        [],
        "Batch",
        {
            "201": "accepted",
            "200": "duplicate replay (already stored, nothing written)",
            "409": "conflicting replay (the batch_id holds other readings or another device)",
            "404": "device not registered",
            "413": "body over 1 MB",
            "400": _NOT_JSON,
            "422": "a field breaks a rule (nothing written)",
            **_AUTH_ERRORS,
        },
    ),
    (
        "post",
        "/admin/api-keys",
        "Create an API key (the raw key is in this answer only)",
        _ADMIN,
        [],
        "NewKey",
        {"201": "created", "400": _NOT_JSON, "422": "a field breaks a rule", **_ADMIN_ERRORS},
    ),
    (
        "get",
        "/admin/api-keys",
        "API keys, newest first",
        _ADMIN,
        _PAGE,
        None,
        {"200": "a page of keys", "422": "bad limit or cursor", **_ADMIN_ERRORS},
    ),
    (
        "post",
        "/admin/api-keys/{key_id}/revoke",
        "Revoke an API key",
        _ADMIN,
        [{"name": "key_id", "in": "path", "required": True, "schema": {"type": "string", "format": "uuid"}}],
        None,
        {"200": "revoked", "404": "unknown key_id", "422": "bad key_id", **_ADMIN_ERRORS},
    ),
    ("get", "/openapi.json", "This document", [], [], None, {"200": "OpenAPI 3.1"}),
    ("get", "/health", "Liveness", [], [], None, {"200": "up"}),
]

_READING = {
    "type": "object",
    "required": ["timestamp_ms", "sensors", "sensor_status"],
    "additionalProperties": False,
    "properties": {
        "timestamp_ms": {"type": "integer", "description": "epoch ms, 2000-01-01..2100-01-01"},
        "sensors": {"type": "object", "additionalProperties": {"type": "number"}},
        "sensor_status": {"type": "object", "additionalProperties": {"enum": ["ok", "error"]}},
    },
}
SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error", "message"],
        "properties": {
            "error": {"type": "string"},
            "message": {"type": "string"},
            "fields": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "field": {"type": "string"},
                        "rule": {"type": "string"},
                        "message": {"type": "string"},
                    },
                },
            },
        },
    },
    "Registration": {
        "type": "object",
        "required": ["hardware_id", "boot_id", "firmware_version", "capabilities"],
        "additionalProperties": False,
        "properties": {
            "hardware_id": {"type": "string"},
            "boot_id": {"type": "string", "format": "uuid"},
            "firmware_version": {"type": "string"},
            "capabilities": {
                "type": "object",
                "properties": {
                    "sensors": {"type": "array", "items": {"type": "string"}},
                    "features": {"type": "object", "additionalProperties": {"type": "boolean"}},
                },
            },
        },
    },
    "Rename": {
        "type": "object",
        "required": ["friendly_name"],
        "additionalProperties": False,
        "properties": {"friendly_name": {"type": ["string", "null"], "maxLength": 128}},
    },
    "Batch": {
        "type": "object",
        "required": ["hardware_id", "batch_id", "boot_id", "firmware_version", "readings"],
        "additionalProperties": False,
        "properties": {
            "hardware_id": {"type": "string"},
            "batch_id": {"type": "string", "maxLength": 256},
            "boot_id": {"type": "string", "format": "uuid"},
            "firmware_version": {"type": "string"},
            "readings": {"type": "array", "minItems": 1, "maxItems": 100, "items": _READING},
        },
    },
    "NewKey": {
        "type": "object",
        "additionalProperties": False,
        "properties": {"description": {"type": "string", "maxLength": 1024}},
    },
}


def openapi_document() -> dict[str, Any]:
    """The whole description: paths from ``OPERATIONS``, schemas from ``SCHEMAS``."""
    paths: dict[str, dict[str, Any]] = {}
    for method, path, summary, security, parameters, request, answers in OPERATIONS:
        operation: dict[str, Any] = {
            "summary": summary,
            "security": security,
            "parameters": parameters,
            "responses": {
                status: {
                    "description": text,
                    "content": {"application/json": {"schema": _ERROR if status >= "400" else {}}},
                }
                for status, text in answers.items()
            },
        }
        if request:
            operation["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{request}"}}},
            }
        paths.setdefault(path, {})[method] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "Sensor backend API (tablewright example)", "version": "1.0.0"},
        "paths": paths,
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {
                "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
                "adminToken": {"type": "http", "scheme": "bearer"},
            },
        },
    }
