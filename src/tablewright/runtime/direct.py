"""Data-plane calls straight to an in-process engine, skipping botocore's per-call cost.

Through botocore every call is serialised to JSON, passed through event hooks and parsed back:
about 1-3 ms, against ~0.1 ms of engine work. When the runtime's client is an in-process tablewright
client, the runtime's data-plane calls (``DATA_PLANE``) go to ``engine.handle`` instead. The runtime
already builds low-level requests; the wire form differs from botocore's parameters only in binary
values (``bytes`` in botocore, base64 text on the wire, in ``B`` and ``BS`` at any depth), so those
are converted both ways. Errors are raised as the same ``botocore.exceptions.ClientError`` subclass
botocore would raise, with the same ``response`` (``Error``, ``Item``, ``CancellationReasons``), so
every ``except`` in and around the runtime keeps working. A parameter name botocore's model does not
have is refused with botocore's own ``ParamValidationError``, as botocore would before sending (the
members' values are the engine's to check). Control-plane calls stay on botocore.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from botocore.client import BaseClient
from botocore.exceptions import ParamValidationError

from .. import engine_of
from ..engine.errors import DynamoDBError

# botocore method name -> DynamoDB operation name: the calls that may bypass botocore.
DATA_PLANE: dict[str, str] = {
    "get_item": "GetItem",
    "put_item": "PutItem",
    "update_item": "UpdateItem",
    "delete_item": "DeleteItem",
    "query": "Query",
    "scan": "Scan",
    "batch_get_item": "BatchGetItem",
    "batch_write_item": "BatchWriteItem",
    "transact_write_items": "TransactWriteItems",
    "transact_get_items": "TransactGetItems",
}


def _encode_one(value: Any) -> str:
    # botocore accepts bytes, bytearray, boto3's Binary (``.value``) and text (sent as UTF-8).
    raw = getattr(value, "value", value)
    if isinstance(raw, str):
        raw = raw.encode()
    return base64.b64encode(bytes(raw)).decode("ascii")


def _decode_one(value: str) -> bytes:
    return base64.b64decode(value)


# Exact types ``_convert`` hands back as they are (no container, nothing to encode): copied by
# reference where they are met, without a call per value. Subclasses still take the call.
_LEAVES = frozenset({str, int, bool, float, type(None)})


def _convert(node: Any, one: Callable[[Any], Any]) -> Any:
    """A deep copy of ``node`` with every binary value passed through ``one``.

    Copying also keeps the engine and the caller from sharing (and mutating) each other's dicts: the
    engine is not known never to change a request (nor to keep none of it), so the copy stays; it is
    made with as few calls as the nodes allow.
    """
    if isinstance(node, dict):
        if len(node) == 1:
            # One member: perhaps a typed binary attribute value. An item, key or map may have an
            # attribute *named* B or BS, but its value is then an attribute value (a dict), never a
            # scalar or a list, which is what tells the two apart.
            ((name, inner),) = node.items()
            if name == "B" and not isinstance(inner, dict):
                return {"B": one(inner)}
            if name == "BS" and isinstance(inner, list):
                return {"BS": [one(v) for v in inner]}
            return {name: inner if type(inner) in _LEAVES else _convert(inner, one)}
        copy = {}
        for key, value in node.items():
            kind = type(value)
            if kind in _LEAVES:
                copy[key] = value
                continue
            if kind is dict and len(value) == 1:
                # Fast path: a plain attribute value ({"S": "x"}, an item's members): what the call
                # below returns for it, made here. Only B with a leaf is binary (BS needs a list).
                ((name, inner),) = value.items()
                if name != "B" and type(inner) in _LEAVES:
                    copy[key] = {name: inner}
                    continue
            copy[key] = _convert(value, one)
        return copy
    if isinstance(node, list | tuple):
        return [v if type(v) in _LEAVES else _convert(v, one) for v in node]
    return node


def to_engine(params: dict) -> dict:
    """botocore parameters as a wire request (bytes -> base64 text)."""
    return _convert(params, _encode_one)


def from_engine(response: dict) -> dict:
    """A wire response as botocore returns it (base64 text -> bytes)."""
    return _convert(response, _decode_one)


def _metadata(status: int) -> dict[str, Any]:
    return {"RequestId": "tablewright", "HTTPStatusCode": status, "HTTPHeaders": {}, "RetryAttempts": 0}


class DirectClient:
    """A client whose data-plane methods call ``engine.handle``; everything else is ``client``'s."""

    def __init__(self, client: Any, engine: Any) -> None:
        self.client = client
        self.engine = engine

    def __getattr__(self, name: str) -> Any:
        # Control plane (create_table, describe_table, ...) and ``meta``/``exceptions`` stay botocore's.
        return getattr(self.client, name)

    def send(self, operation: str, params: dict) -> dict:
        """Run ``operation`` on the engine: botocore-shaped parameters in, botocore-shaped response out."""
        members = _input_members(self.client, operation)
        if not members.keys() >= params.keys():
            # botocore refuses a parameter its model does not have before sending anything; so must
            # this path, or a misspelt member would work here and fail on Amazon DynamoDB.
            unknown = next(name for name in params if name not in members)
            raise ParamValidationError(
                report=f'Unknown parameter in input: "{unknown}", must be one of: {", ".join(members)}'
            )
        try:
            response = self.engine.handle(operation, to_engine(params))
        except DynamoDBError as error:
            raise self.client_error(operation, error) from None
        parsed = from_engine(response)
        parsed["ResponseMetadata"] = _metadata(200)
        return parsed

    def client_error(self, operation: str, error: DynamoDBError) -> Exception:
        """The exception botocore raises for ``error``: the modelled class, the same ``response``.

        Like botocore, the response holds ``Error`` plus the body members the service model
        declares for that error (``Item``, ``CancellationReasons``, ...), and nothing else.
        """
        body = from_engine(error.to_wire())
        response: dict[str, Any] = {
            "Error": {"Message": error.message, "Code": error.code},
            "ResponseMetadata": _metadata(error.status),
        }
        for name, wire_name in _modelled_members(self.client, error.code):
            if wire_name in body:
                response[name] = body[wire_name]
        return self.client.exceptions.from_code(error.code)(response, operation)


_INPUTS: dict[str, dict[str, None]] = {}


def _input_members(client: Any, operation: str) -> dict[str, None]:
    """The parameter names botocore's model gives ``operation``, in the model's order (a dict used
    as an ordered set: its keys view compared with the call's, and the order for the message)."""
    if operation not in _INPUTS:
        shape = client.meta.service_model.operation_model(operation).input_shape
        _INPUTS[operation] = dict.fromkeys(shape.members)
    return _INPUTS[operation]


_MEMBERS: dict[str, list[tuple[str, str]]] = {}


def _modelled_members(client: Any, code: str) -> list[tuple[str, str]]:
    """(response name, wire name) of the members botocore's model declares for error ``code``."""
    if code not in _MEMBERS:
        shape = client.meta.service_model.shape_for_error_code(code)
        members = shape.members.items() if shape is not None else ()
        _MEMBERS[code] = [(n, m.serialization.get("name", n)) for n, m in members]
    return _MEMBERS[code]


def _method(operation: str) -> Callable[..., dict]:
    def call(self: DirectClient, **params: Any) -> dict:
        return self.send(operation, params)

    call.__name__ = call.__qualname__ = next(m for m, o in DATA_PLANE.items() if o == operation)
    call.__doc__ = f"{operation} on the engine, without botocore."
    return call


for _name, _operation in DATA_PLANE.items():
    setattr(DirectClient, _name, _method(_operation))


def data_client(client: Any) -> Any:
    """The client the runtime sends data-plane calls through: direct to the engine when ``client``
    is an in-process tablewright botocore client, else ``client`` itself.

    A wrapper around a client (instrumentation, a test's interleaving client) is not a botocore
    client, so it keeps seeing every call.
    """
    if not isinstance(client, BaseClient):
        return client
    try:
        engine = engine_of(client)
    except ValueError:
        return client
    return DirectClient(client, engine)
