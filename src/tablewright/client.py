"""``connect()`` and ``resource()``: standard boto3 objects, served in-process by an engine or remotely.

In-process, botocore still builds and parses every request exactly as it would for AWS; only the
HTTP round trip is replaced: a ``before-send`` hook hands the serialised request to
:meth:`Engine.handle` and returns the engine's answer as the HTTP response. Requests are unsigned
(there is nobody to verify a signature), which saves botocore's signing cost on every call.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

import boto3
import botocore
import orjson
from botocore.awsrequest import AWSResponse
from botocore.config import Config

from . import __version__
from .engine import Engine
from .engine.errors import DynamoDBError, SerializationException

_LOCAL_URL = "http://tablewright.local"
_TARGET_PREFIXES = ("DynamoDB_20120810.", "DynamoDBStreams_20120810.")
_HEADERS = {"Content-Type": "application/x-amz-json-1.0", "x-amzn-RequestId": "tablewright"}
# The unique_id of the in-process responder on a client's event system (lets a caller swap it out).
RESPONDER_ID = "tablewright-engine-responder"
# A fixed User-Agent for in-process clients. Without one, botocore assembles the header from a dozen
# sanitised components twice per call (~100 µs each, more than the engine spends on a GetItem), for a
# header nobody reads in-process. A user's Config(user_agent=...) or user_agent_extra still applies.
_USER_AGENT = f"tablewright/{__version__}"  # boto3 appends its own Botocore/<version>


class _Body:
    """The minimal raw-response object botocore reads a body from."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def stream(self, **_: Any):
        yield self._data


def _responder(engine: Engine):
    def respond(request: Any, **_: Any) -> AWSResponse:
        target = request.headers.get("X-Amz-Target", b"")
        target = target.decode() if isinstance(target, bytes) else target
        operation = target.split(".", 1)[1] if target.startswith(_TARGET_PREFIXES) else target
        status = 200
        try:
            body = request.body or b"{}"
            try:
                payload = orjson.loads(body)
            except orjson.JSONDecodeError as exc:
                raise SerializationException(f"Request body is not valid JSON: {exc}") from None
            result = engine.handle(operation, payload)
        except DynamoDBError as error:
            status, result = error.status, error.to_wire()
        return AWSResponse(request.url, status, dict(_HEADERS), _Body(orjson.dumps(result)))

    return respond


_LOOPBACK = ("localhost", "127.", "[::1]")


def _session_kwargs(region_name: str, endpoint_url: str | None) -> dict[str, Any]:
    """Client arguments; dummy credentials where nobody checks them.

    The in-process engine signs nothing, and a loopback endpoint (``tablewright serve`` without
    ``--auth``) accepts any key. Asking botocore's credential chain first would, on a machine without
    credentials, wait on the EC2 metadata service for seconds.
    """
    kwargs: dict[str, Any] = {"region_name": region_name}
    host = (urlsplit(endpoint_url).hostname or "") if endpoint_url else ""
    local = endpoint_url is None or host.startswith(_LOOPBACK)
    if local and not os.environ.get("AWS_ACCESS_KEY_ID") and not os.environ.get("AWS_PROFILE"):
        kwargs.update(aws_access_key_id="tablewright", aws_secret_access_key="tablewright")
    return kwargs


def _attach(client: Any, engine: Engine) -> None:
    # before-send.<service id> of this client only: dynamodb or dynamodb-streams.
    service_id = client.meta.service_model.service_id.hyphenize()
    client.meta.events.register(f"before-send.{service_id}", _responder(engine), unique_id=RESPONDER_ID)
    client._tablewright_engine = engine


def _local_config(config: Config | None) -> Config:
    local = Config(
        signature_version=botocore.UNSIGNED, retries={"total_max_attempts": 1}, user_agent=_USER_AGENT
    )
    return local.merge(config) if config else local


def connect(
    path: str | os.PathLike | None = None,
    *,
    endpoint_url: str | None = None,
    engine: Engine | None = None,
    region_name: str = "us-east-1",
    config: Config | None = None,
    service: str = "dynamodb",
) -> Any:
    """A boto3 DynamoDB client.

    ``connect()`` serves it from a new in-memory engine, ``connect("app.db")`` from a SQLite file,
    ``connect(engine=e)`` from an existing engine, and ``connect(endpoint_url=URL)`` talks to a remote
    endpoint (Amazon DynamoDB, a compatible cluster, or ``tablewright serve``). ``service="dynamodbstreams"``
    gives the Streams client for the same engine.
    """
    if endpoint_url is not None:
        return boto3.client(
            service, endpoint_url=endpoint_url, config=config, **_session_kwargs(region_name, endpoint_url)
        )
    engine = engine or Engine(None if path is None else os.fspath(path))
    client = boto3.client(
        service, endpoint_url=_LOCAL_URL, config=_local_config(config), **_session_kwargs(region_name, None)
    )
    _attach(client, engine)
    return client


def resource(
    path: str | os.PathLike | None = None,
    *,
    endpoint_url: str | None = None,
    engine: Engine | None = None,
    region_name: str = "us-east-1",
    config: Config | None = None,
) -> Any:
    """A boto3 DynamoDB service resource (``Table``, ``batch_writer``, ``boto3.dynamodb.conditions``)."""
    if endpoint_url is not None:
        return boto3.resource(
            "dynamodb", endpoint_url=endpoint_url, config=config, **_session_kwargs(region_name, endpoint_url)
        )
    engine = engine or Engine(None if path is None else os.fspath(path))
    dynamodb = boto3.resource(
        "dynamodb",
        endpoint_url=_LOCAL_URL,
        config=_local_config(config),
        **_session_kwargs(region_name, None),
    )
    _attach(dynamodb.meta.client, engine)
    return dynamodb


def engine_of(client_or_resource: Any) -> Engine:
    """The engine behind an in-process client or resource made by :func:`connect` / :func:`resource`."""
    client = getattr(getattr(client_or_resource, "meta", None), "client", client_or_resource)
    engine = getattr(client, "_tablewright_engine", None)
    if engine is None:
        raise ValueError("this client is not served by an in-process tablewright engine")
    return engine
