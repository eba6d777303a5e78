"""``connect()`` and ``resource()``: standard boto3 objects, served in-process by an engine or remotely.

In-process, botocore validates and serialises every request exactly as it would for AWS, and parses
every response with its own parser, except the items of read answers, which ``answers`` decodes
(proven identical by tests); only the HTTP exchange is left out. The engine answers at botocore's
``before-call`` hook (the hook botocore's own ``Stubber`` answers at), so a call skips what only a
network needs: request signing, the HTTP request object, the retry loop, and encoding the response to
JSON bytes that botocore would decode straight back. Errors go through botocore's full error parsing, so
they raise the same ``ClientError`` subclasses, with the same modeled fields, as from AWS.
"""

from __future__ import annotations

import ipaddress
import os
import re
from typing import Any
from urllib.parse import urlsplit

import boto3
import botocore
import orjson
from botocore.awsrequest import AWSResponse
from botocore.config import Config
from botocore.model import OperationModel
from botocore.parsers import JSONParser

from . import __version__, answers
from .engine import Engine, encoded
from .engine.errors import DynamoDBError, SerializationException

_LOCAL_URL = "http://tablewright.local"
_HEADERS = {"content-type": "application/x-amz-json-1.0", "x-amzn-requestid": "tablewright"}
# The unique_id of the in-process responder on a client's event system (lets a caller swap it out).
RESPONDER_ID = "tablewright-engine-responder"
# A fixed User-Agent for in-process clients. Without one, botocore assembles the header from a dozen
# sanitised components on every call, for a header nobody reads in-process. A user's
# Config(user_agent=...) or user_agent_extra still applies.
_USER_AGENT = f"tablewright/{__version__}"  # boto3 appends its own Botocore/<version>


class _Body:
    """The raw-response object botocore reads a body from; encodes the engine's answer only if read."""

    def __init__(self, result: dict) -> None:
        self._result = result

    def stream(self, **_: Any):
        yield encoded.dumps(self._result)


class _DecodedBodyParser(JSONParser):
    """botocore's JSON parser, given the engine's answer as the dict its JSON would decode to.

    Everything after decoding (blobs, timestamps, ResponseMetadata) is botocore's own code.
    """

    def _parse_body_as_json(self, body_contents: Any) -> Any:
        if type(body_contents) is dict:
            return body_contents
        return super()._parse_body_as_json(body_contents)


_PARSER = _DecodedBodyParser()


def _responder(engine: Engine):
    def respond(model: OperationModel, params: dict, **_: Any) -> tuple[AWSResponse, dict]:
        try:
            try:
                payload = orjson.loads(params.get("body") or b"{}")
            except orjson.JSONDecodeError as exc:
                raise SerializationException(f"Request body is not valid JSON: {exc}") from None
            result = engine.handle(model.name, payload, encoded=True)
        except DynamoDBError as error:
            return _error_response(model, error)
        parsed = answers.parse(_PARSER, model, result, _HEADERS)
        parsed["ResponseMetadata"]["RetryAttempts"] = 0
        return AWSResponse(_LOCAL_URL, 200, _HEADERS, _Body(result)), parsed

    return respond


def _error_response(model: OperationModel, error: DynamoDBError) -> tuple[AWSResponse, dict]:
    """An error parsed from its JSON bytes as botocore's endpoint does, modeled fields included."""
    body = orjson.dumps(error.to_wire())
    response = {"status_code": error.status, "headers": _HEADERS, "body": body}
    parsed = _PARSER.parse(response, model.output_shape)
    shape = model.service_model.shape_for_error_code(parsed.get("Error", {}).get("Code"))
    if shape is not None:
        parsed.update(_PARSER.parse(response, shape))
    parsed["ResponseMetadata"]["RetryAttempts"] = 0
    return AWSResponse(_LOCAL_URL, error.status, _HEADERS, _Body(error.to_wire())), parsed


def is_loopback(endpoint_url: str) -> bool:
    """Whether the endpoint's host is this machine's loopback: ``localhost`` (or a name under
    ``.localhost``, RFC 6761), 127.0.0.0/8 or ``::1``. Not a name that merely starts with "localhost"."""
    host = (urlsplit(endpoint_url).hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


class InvalidEndpoint(ValueError):
    """An endpoint that is not an http(s) URL with a host; ``url`` is what was given."""

    def __init__(self, url: str) -> None:
        super().__init__(f"{url!r} is not an endpoint URL: write http://HOST:PORT or https://HOST")
        self.url = url


def check_endpoint(url: str) -> str:
    """``url`` if it is an http or https URL with a host, else :class:`InvalidEndpoint`."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError:
        raise InvalidEndpoint(url) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidEndpoint(url)
    return url.strip()


def _session_kwargs(region_name: str, endpoint_url: str | None) -> dict[str, Any]:
    """Client arguments; dummy credentials where nobody checks them.

    The in-process engine signs nothing, and a loopback endpoint (``tablewright serve`` without
    ``--auth``) accepts any key. Asking botocore's credential chain first would, on a machine without
    credentials, wait on the EC2 metadata service for seconds.
    """
    kwargs: dict[str, Any] = {"region_name": region_name}
    local = endpoint_url is None or is_loopback(endpoint_url)
    if local and not os.environ.get("AWS_ACCESS_KEY_ID") and not os.environ.get("AWS_PROFILE"):
        kwargs.update(aws_access_key_id="tablewright", aws_secret_access_key="tablewright")
    return kwargs


def _attach(client: Any, engine: Engine) -> None:
    # before-call.<service id> of this client only: dynamodb or dynamodb-streams. Registered last, so
    # that a user's botocore Stubber on the same client still answers first.
    service_id = client.meta.service_model.service_id.hyphenize()
    client.meta.events.register_last(f"before-call.{service_id}", _responder(engine), unique_id=RESPONDER_ID)
    client._tablewright_engine = engine


def _local_config(config: Config | None) -> Config:
    local = Config(
        signature_version=botocore.UNSIGNED, retries={"total_max_attempts": 1}, user_agent=_USER_AGENT
    )
    return local.merge(config) if config else local


# Endpoint clients give up on a silent server in under a minute, not botocore's three: a server that
# accepts the connection and never answers would otherwise hold a command 60 s per attempt, three
# attempts. DynamoDB answers one request in milliseconds; 15 s without a byte is a stuck endpoint.
# Retries stay botocore's (standard mode, AWS_MAX_ATTEMPTS / AWS_RETRY_MODE honoured); a caller's own
# Config wins, option by option.
ENDPOINT_DEFAULTS = Config(connect_timeout=5, read_timeout=15)


def _endpoint_config(config: Config | None) -> Config:
    return ENDPOINT_DEFAULTS.merge(config) if config else ENDPOINT_DEFAULTS


def _say_what_answered(http_response: Any, parsed: dict, **_: Any) -> None:
    """An answer that is no DynamoDB error (a web server's HTML page, a proxy's 502) is said as such.

    botocore makes the HTTP status the error code and the whole body the message, so a URL that
    points at a web server would put its page into every error. Runs at ``after-call``, before
    botocore raises the ClientError from ``parsed``.
    """
    error = parsed.get("Error") if http_response.status_code >= 300 else None
    if not error or not str(error.get("Code", "")).isdigit():
        return
    text = " ".join(re.sub(r"<[^>]*>", " ", str(error.get("Message", ""))).split())
    excerpt = f": {text[:120]}{'...' if len(text) > 120 else ''}" if text else ""
    error["Message"] = (
        f"HTTP {error['Code']} and no DynamoDB error (is the URL a DynamoDB endpoint?){excerpt}"
    )


def _endpoint_client(client: Any) -> Any:
    client.meta.events.register_last("after-call.*", _say_what_answered)
    return client


def connect(
    path: str | os.PathLike | None = None,
    *,
    endpoint_url: str | None = None,
    engine: Engine | None = None,
    region_name: str = "us-east-1",
    config: Config | None = None,
    service: str = "dynamodb",
    read_only: bool = False,
) -> Any:
    """A boto3 DynamoDB client.

    ``connect()`` serves it from a new in-memory engine, ``connect("app.db")`` from a SQLite file,
    ``connect(engine=e)`` from an existing engine, and ``connect(endpoint_url=URL)`` talks to a remote
    endpoint (Amazon DynamoDB, a compatible cluster, or ``tablewright serve``), with the timeouts of
    :data:`ENDPOINT_DEFAULTS` where ``config`` does not set its own. ``service="dynamodbstreams"``
    gives the Streams client for the same engine. ``read_only=True`` opens the file without ever
    writing to it (writes get ``AccessDeniedException``). An ``endpoint_url`` that is not a URL raises
    :class:`InvalidEndpoint`; a file that cannot be opened, ``tablewright.engine.DatabaseFileError``.
    """
    if endpoint_url is not None:
        endpoint_url = check_endpoint(endpoint_url)
        return _endpoint_client(
            boto3.client(
                service,
                endpoint_url=endpoint_url,
                config=_endpoint_config(config),
                **_session_kwargs(region_name, endpoint_url),
            )
        )
    engine = engine or Engine(None if path is None else os.fspath(path), read_only=read_only)
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
    read_only: bool = False,
) -> Any:
    """A boto3 DynamoDB service resource (``Table``, ``batch_writer``, ``boto3.dynamodb.conditions``)."""
    if endpoint_url is not None:
        endpoint_url = check_endpoint(endpoint_url)
        dynamodb = boto3.resource(
            "dynamodb",
            endpoint_url=endpoint_url,
            config=_endpoint_config(config),
            **_session_kwargs(region_name, endpoint_url),
        )
        _endpoint_client(dynamodb.meta.client)
        return dynamodb
    engine = engine or Engine(None if path is None else os.fspath(path), read_only=read_only)
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


# What the in-process client relies on inside botocore (not its public API). pyproject.toml bounds
# botocore to the minor versions these are tested with; tests/engine/test_botocore_contract.py runs
# botocore_contract_problems() so that a botocore that changes them fails loudly, not subtly.
def botocore_contract_problems() -> list[str]:
    """What, if anything, the installed botocore changed of the internals this module relies on."""
    import inspect

    problems = []
    signatures = {
        "JSONParser._parse_body_as_json": (JSONParser, "_parse_body_as_json", ["self", "body_contents"]),
        "ResponseParser.parse": (JSONParser, "parse", ["self", "response", "shape"]),
        "AWSResponse.__init__": (AWSResponse, "__init__", ["self", "url", "status_code", "headers", "raw"]),
    }
    for name, (owner, attribute, expected) in signatures.items():
        function = getattr(owner, attribute, None)
        found = list(inspect.signature(function).parameters) if function else None
        if found != expected:
            problems.append(f"{name} takes {found}, not {expected}")
    client = connect()
    try:  # the before-call hook answers, the parser takes a decoded body, errors parse to modeled classes
        if client.list_tables().get("TableNames") != []:
            problems.append("ListTables answered in-process did not parse to TableNames: []")
        client.describe_table(TableName="tablewright-contract-probe")
        problems.append("DescribeTable of a missing table did not raise")
    except client.exceptions.ResourceNotFoundException as error:
        if error.response.get("ResponseMetadata", {}).get("HTTPStatusCode") != 400:
            problems.append("an in-process error lost its HTTP status")
    except Exception as error:  # noqa: BLE001 - any other failure is exactly what this reports
        problems.append(f"an in-process call failed: {type(error).__name__}: {error}")
    finally:
        engine_of(client).close()
    return problems
