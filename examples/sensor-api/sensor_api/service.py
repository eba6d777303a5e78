"""The sensor API over HTTP (Starlette): devices, readings, batch ingestion, admin API keys.

Devices present ``X-API-Key: <64 hex digits>`` (checked against ``SHA256(pepper + key)`` through
``api_key_hash_index``); admins present ``Authorization: Bearer <admin token>``, a credential of
their own that no device key can stand in for. Every answer is JSON; every error is
``{"error": code, "message": sentence, "fields": [{field, rule, message}]}`` (README, "The HTTP API").
Handlers do the table work in Starlette's thread pool: the runtime's calls block.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.routing import Route

from tablewright.runtime import (
    ConflictError,
    CursorError,
    NotFoundError,
    PatternError,
    Record,
    Runtime,
    ValidationError,
)

from . import api_keys, devices, ingestion, readings
from .http import (
    BODY_SECONDS,
    ApiError,
    JsonResponse,
    Throttle,
    check_fields,
    error_response,
    field_error,
    int_param,
    json_body,
)
from .openapi import openapi_document

MAC = re.compile(r"^[0-9A-F]{2}(:[0-9A-F]{2}){5}$")
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
MAX_PAGE = 100
FIRST_MS, LAST_MS = 946_684_800_000, 4_102_444_800_000  # 2000-01-01 .. 2100-01-01 (the document)
PARAMETER = re.compile(r"parameter (\w+): ")
THROTTLED_CODES = {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
# Registration's request names the boot "boot_id"; the Device stores it as last_boot_id.
REGISTRATION_FIELDS = {"last_boot_id": "boot_id"}
BATCH_LEVEL = ("hardware_id", "batch_id", "boot_id", "firmware_version")
HIDDEN_KEY_FIELDS = ("api_key_hash",)  # never leaves the service, not even to admins


@dataclass(frozen=True)
class Settings:
    """What the service needs besides its runtime: the pepper, the admin token, the per-key limit."""

    pepper: str
    admin_token: str
    rate: float = 50.0
    burst: int = 100
    body_seconds: float = BODY_SECONDS


def create_app(rt: Runtime, settings: Settings) -> Starlette:
    """The ASGI application on ``rt``'s tables."""
    throttle = Throttle(settings.rate, settings.burst)

    def device_call(work: Callable[[Request, dict[str, Any]], Any], *, body: bool = False):
        async def endpoint(request: Request) -> JsonResponse:
            try:
                raw_key = request.headers.get("x-api-key")
                key = await run_in_threadpool(_authenticate, rt, settings, raw_key)
                throttle.admit(key["key_id"])
                # Read only once the key is known: a stranger's body is never buffered.
                payload = await json_body(request, settings.body_seconds) if body else {}
                status, content = await run_in_threadpool(_guarded, work, request, payload)
                return JsonResponse(content, status_code=status)
            except ApiError as error:
                return error_response(error)

        return endpoint

    def admin_call(work: Callable[[Request, dict[str, Any]], Any], *, body: bool = False):
        async def endpoint(request: Request) -> JsonResponse:
            try:
                _check_admin(request, settings)
                payload = await json_body(request, settings.body_seconds) if body else {}
                status, content = await run_in_threadpool(_guarded, work, request, payload)
                return JsonResponse(content, status_code=status)
            except ApiError as error:
                return error_response(error)

        return endpoint

    def register(request: Request, body: dict[str, Any]) -> tuple[int, object]:
        check_fields(
            body,
            {"hardware_id": str, "boot_id": str, "firmware_version": str, "capabilities": dict},
            {},
        )
        _check_mac(body["hardware_id"])
        result = devices.register_device(
            rt,
            body["hardware_id"],
            boot_id=body["boot_id"],
            firmware_version=body["firmware_version"],
            capabilities=body["capabilities"],
        )
        return (201 if result.created else 200), _device(result.device)

    def list_devices(request: Request, body: dict[str, Any]) -> tuple[int, object]:
        page = devices.devices_by_activity(
            rt, limit=_limit(request), cursor=request.query_params.get("cursor")
        )
        return 200, {"items": [_device(r) for r in page.items], "cursor": page.cursor}

    def get_device(request: Request, body: dict[str, Any]) -> tuple[int, object]:
        hardware_id = _check_mac(request.path_params["hardware_id"])
        found = rt.get("Device", hardware_id=hardware_id)
        if found is None:
            raise _not_registered(hardware_id)
        return 200, _device(found)

    def rename(request: Request, body: dict[str, Any]) -> tuple[int, object]:
        hardware_id = _check_mac(request.path_params["hardware_id"])
        if "friendly_name" not in body:
            raise field_error("friendly_name", "required", "is required (null removes the name)")
        check_fields(body, {}, {"friendly_name": None})
        name = body["friendly_name"]
        if name is not None and not isinstance(name, str):
            raise field_error("friendly_name", "type", "must be a string or null")
        try:
            return 200, _device(devices.set_friendly_name(rt, hardware_id, name))
        except NotFoundError:
            raise _not_registered(hardware_id) from None

    def latest(request: Request, body: dict[str, Any]) -> tuple[int, object]:
        hardware_id = _check_mac(request.path_params["hardware_id"])
        found = readings.latest_reading(rt, hardware_id)
        if found is None:
            raise ApiError(404, "no_readings", f"device {hardware_id} has no readings")
        return 200, _reading(found)

    def time_range(request: Request, body: dict[str, Any]) -> tuple[int, object]:
        hardware_id = _check_mac(request.path_params["hardware_id"])
        bounds = {"low": FIRST_MS, "high": LAST_MS}  # the design's epoch_ms range for timestamp_ms
        from_ms = int_param(request, "from_ms", required=True, **bounds)
        to_ms = int_param(request, "to_ms", required=True, **bounds)
        if from_ms > to_ms:  # type: ignore[operator]
            raise field_error("from_ms", "range", f"from_ms {from_ms} is after to_ms {to_ms}")
        page = readings.readings_between(
            rt,
            hardware_id,
            from_ms,
            to_ms,
            limit=_limit(request),
            cursor=request.query_params.get("cursor"),  # type: ignore[arg-type]
        )
        return 200, {"items": [_reading(r) for r in page.items], "cursor": page.cursor}

    def ingest(request: Request, body: dict[str, Any]) -> tuple[int, object]:
        check_fields(
            body,
            {"hardware_id": str, "batch_id": str, "boot_id": str, "firmware_version": str, "readings": list},
            {},
        )
        _check_mac(body["hardware_id"])
        not_objects = [
            {"field": f"readings[{i}]", "rule": "type", "message": "must be an object"}
            for i, r in enumerate(body["readings"])
            if not isinstance(r, dict)
        ]
        if not_objects:
            raise ApiError(422, "validation_failed", "every reading must be an object", not_objects)
        try:
            result = ingestion.ingest_batch(
                rt,
                hardware_id=body["hardware_id"],
                batch_id=body["batch_id"],
                boot_id=body["boot_id"],
                firmware_version=body["firmware_version"],
                readings=body["readings"],
            )
        except ingestion.UnknownDeviceError as error:
            raise ApiError(
                404, "device_not_registered", str(error), [_field("hardware_id", "registered", str(error))]
            ) from None
        except ingestion.BatchConflictError as error:
            raise ApiError(
                409, "conflicting_replay", str(error), [_field("batch_id", "conflict", str(error))]
            ) from None
        content = {"status": result.status, "batch_id": result.batch_id, "readings": result.readings}
        return (201 if result.status == "accepted" else 200), content

    def create_key(request: Request, body: dict[str, Any]) -> tuple[int, object]:
        check_fields(body, {}, {"description": None})
        description = body.get("description")
        if description is not None and not isinstance(description, str):
            raise field_error("description", "type", "must be a string")
        created = api_keys.create_api_key(rt, description, pepper_value=settings.pepper)
        return 201, {**_key(created.record), "api_key": created.raw_key}

    def list_keys(request: Request, body: dict[str, Any]) -> tuple[int, object]:
        page = api_keys.api_keys_by_creation(
            rt, limit=_limit(request), cursor=request.query_params.get("cursor")
        )
        return 200, {"items": [_key(r) for r in page.items], "cursor": page.cursor}

    def revoke_key(request: Request, body: dict[str, Any]) -> tuple[int, object]:
        key_id = request.path_params["key_id"]
        if not UUID4.fullmatch(key_id):  # `$` alone would take "...\n"
            raise field_error("key_id", "format", f"must be a UUID v4, got {key_id!r}")
        try:
            return 200, _key(api_keys.revoke_api_key(rt, key_id))
        except NotFoundError:
            raise ApiError(404, "unknown_key_id", f"no API key {key_id}") from None

    async def openapi(request: Request) -> JsonResponse:
        return JsonResponse(openapi_document())

    async def health(request: Request) -> JsonResponse:
        return JsonResponse({"status": "ok"})

    routes = [
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        Route("/v1/devices", device_call(register, body=True), methods=["POST"]),
        Route("/v1/devices", device_call(list_devices), methods=["GET"]),
        Route("/v1/devices/{hardware_id}", device_call(get_device), methods=["GET"]),
        Route("/v1/devices/{hardware_id}", device_call(rename, body=True), methods=["PATCH"]),
        Route("/v1/devices/{hardware_id}/readings/latest", device_call(latest), methods=["GET"]),
        Route("/v1/devices/{hardware_id}/readings", device_call(time_range), methods=["GET"]),
        Route("/v1/batches", device_call(ingest, body=True), methods=["POST"]),
        Route("/admin/api-keys", admin_call(create_key, body=True), methods=["POST"]),
        Route("/admin/api-keys", admin_call(list_keys), methods=["GET"]),
        Route("/admin/api-keys/{key_id}/revoke", admin_call(revoke_key), methods=["POST"]),
    ]
    return Starlette(
        routes=routes, exception_handlers={HTTPException: _http_error, Exception: _internal_error}
    )


async def _http_error(request: Request, error: Exception) -> JsonResponse:
    """Starlette's own 404 and 405 in the service's JSON error shape, like every other answer."""
    assert isinstance(error, HTTPException)
    codes = {404: "not_found", 405: "method_not_allowed"}
    headers = dict(error.headers or {})
    body = {
        "error": codes.get(error.status_code, "http_error"),
        "message": f"{request.method} {request.url.path}: {error.detail}",
    }
    return JsonResponse(body, status_code=error.status_code, headers=headers or None)


async def _internal_error(request: Request, error: Exception) -> JsonResponse:
    """A fault of the service itself: still the JSON error shape, never Starlette's plain text (the
    traceback goes to the log, where Starlette re-raises it after this answer)."""
    body = {"error": "internal_error", "message": f"{request.method} {request.url.path}: the service failed"}
    return JsonResponse(body, status_code=500)


def _guarded(work: Callable[[Request, dict[str, Any]], Any], request: Request, body: dict[str, Any]) -> Any:
    """Run a handler; the runtime's and the table's refusals become answers that say what and where."""
    try:
        return work(request, body)
    except ValidationError as error:
        fields = [_field(_field_name(v.attribute, v.rule), v.rule, v.message) for v in error.violations]
        fields = list({(f["field"], f["rule"]): f for f in fields}.values())  # one per field and rule
        raise ApiError(
            422, "validation_failed", "; ".join(f"{f['field']}: {f['message']}" for f in fields), fields
        ) from None
    except ConflictError as error:
        # Optimistic retries ran out: the device is being written by many requests at once.
        raise ApiError(
            409, "concurrent_update", f"{error}; retry the request", **{"Retry-After": "1"}
        ) from None
    except CursorError as error:
        raise field_error("cursor", "cursor", str(error)) from None
    except PatternError as error:
        named = PARAMETER.search(str(error))
        raise field_error(named.group(1) if named else "query", "parameter", str(error)) from None
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code", "")
        if code in THROTTLED_CODES:
            raise ApiError(
                429, "throttled", f"the table is throttling: {code}", **{"Retry-After": "1"}
            ) from None
        raise ApiError(503, "table_unavailable", f"the table refused the request: {code}") from None
    except BotoCoreError as error:
        raise ApiError(503, "table_unavailable", f"the table cannot be reached: {error}") from None
    except RecursionError:
        # Only a body nested hundreds deep (the JSON parser takes up to ~1,000 levels) recurses
        # this far: validation walks maps and lists recursively, and the runtime's 32-level limit
        # may not be checked first on every path. It is raised before any write; the body's fault,
        # said in JSON like the parser's own refusal (json_body), never a plain-text 500.
        raise ApiError(400, "malformed_json", "the body nests too deeply to be a request") from None


def _field_name(attribute: str, rule: str) -> str:
    """A violation's attribute as the request spells it: ``[3].sensors.x`` -> ``readings[3].sensors.x``.

    The batch's own fields are copied into every reading, so their violations come back once per
    reading; they name the batch's field (``batch_id``), except a reading that named another batch.
    """
    if attribute.startswith("["):
        index, _, rest = attribute.partition("]")
        rest = rest.lstrip(".")
        if rest in BATCH_LEVEL and rule not in ("batch_identity", "unknown_field"):
            return rest
        return f"readings{index}]" + (f".{rest}" if rest else "")
    return REGISTRATION_FIELDS.get(attribute, attribute)


def _field(field: str, rule: str, message: str) -> dict[str, str]:
    return {"field": field, "rule": rule, "message": message}


def _authenticate(rt: Runtime, settings: Settings, raw_key: str | None) -> Record:
    if not raw_key:
        raise ApiError(401, "missing_api_key", "send the API key in the X-API-Key header")
    try:
        status, record = api_keys.key_status(rt, raw_key.strip(), pepper_value=settings.pepper)
    except ClientError as error:
        raise ApiError(503, "table_unavailable", f"API keys cannot be checked: {error}") from None
    if status == "unknown":
        raise ApiError(401, "unknown_api_key", "the API key is not one this service issued")
    if status == "revoked":
        raise ApiError(403, "revoked_api_key", "the API key was revoked")
    return record  # type: ignore[return-value]


def _check_admin(request: Request, settings: Settings) -> None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise ApiError(401, "missing_admin_token", "send the admin token as 'Authorization: Bearer <token>'")
    if not hmac.compare_digest(token.strip().encode(), settings.admin_token.encode()):
        raise ApiError(403, "wrong_admin_token", "the admin token is not this service's")


def _check_mac(hardware_id: str) -> str:
    if not MAC.fullmatch(hardware_id):  # `$` alone would take "AA:...:FF\n"
        raise field_error(
            "hardware_id", "format", f"must be a MAC address like AA:BB:CC:DD:EE:FF, got {hardware_id!r}"
        )
    return hardware_id


def _limit(request: Request) -> int | None:
    return int_param(request, "limit", required=False, low=1, high=MAX_PAGE)


def _not_registered(hardware_id: str) -> ApiError:
    return ApiError(404, "device_not_registered", f"device {hardware_id} is not registered")


def _device(record: Record) -> dict[str, object]:
    return {k: v for k, v in record.items() if k != "version"}


def _reading(record: Record) -> dict[str, object]:
    return dict(record)


def _key(record: Record) -> dict[str, object]:
    return {k: v for k, v in record.items() if k not in HIDDEN_KEY_FIELDS}
