"""Request-shape validation driven by botocore's DynamoDB (and DynamoDB Streams) service model.

``validate_request(operation, request)`` checks a wire request the way DynamoDB's front end does
before any operation runs: JSON types (SerializationException, raised at the first mismatch), then
the model's ``required``, ``min``/``max``, ``enum`` and ``pattern`` constraints, all violations
reported together in one ValidationException with DynamoDB's wording. Attribute values are only
checked to be JSON objects; :mod:`tablewright.engine.types` validates them.

Each operation's input shape is compiled once, on first use, into a tree of closures
(:mod:`.compiler`), so a typical PutItem costs a few microseconds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import DynamoDBError, UnknownOperationException
from .compiler import Compiler, Inner, MemberCheck
from .messages import Violation, serialization_error, validation_error
from .model import service_model

__all__ = [
    "OPERATIONS",
    "STREAMS_OPERATIONS",
    "member_validator",
    "structure_validator",
    "validate_request",
]

_SERVICES = ("dynamodb", "dynamodbstreams")
_plans: dict[str, Inner] = {}
_compilers: dict[str, Compiler] = {}


def _nothing(value: Any, path: str, errors: list[Violation]) -> None:
    """The plan of an operation whose input has no members to check."""


def _compiler(service: str) -> Compiler:
    """The service model's compiler, made at its first use and kept (its nodes are cached in it)."""
    compiler = _compilers.get(service)
    if compiler is None:
        compiler = _compilers[service] = Compiler(service_model(service).shapes)
    return compiler


def _compile(operation: str) -> Inner:
    for service in _SERVICES:
        model = service_model(service)
        if operation in model.inputs:
            input_shape = model.inputs[operation]
            plan = _compiler(service).node(input_shape).inner if input_shape else None
            return plan or _nothing
    raise UnknownOperationException(
        f"Unknown operation: '{operation}' is not a DynamoDB or DynamoDB Streams operation"
    )


def validate_request(operation: str, request: object) -> None:
    """Check ``request`` (a JSON wire body) against ``operation``'s input shape; raise DynamoDB's error.

    Raises UnknownOperationException, SerializationException (a value of the wrong JSON type, naming
    its member path) or ValidationException (every constraint violation, aggregated). A member that
    is null is absent to DynamoDB, so it is removed from ``request`` (in place) for the operation.
    """
    plan = _plans.get(operation)
    if plan is None:
        plan = _plans[operation] = _compile(operation)
    if request is None:
        request = {}
    elif not isinstance(request, dict):
        raise serialization_error("structure", request, "")
    errors: list[Violation] = []
    plan(request, "", errors)
    if errors:
        raise validation_error(errors)


def member_validator(operation: str, member: str) -> Callable[[Any], bool]:
    """A test of one member of ``operation``'s input: whether a (non-null) value passes every check
    :func:`validate_request` makes of that member, its JSON type and its constraints.

    For shortcuts that recognise a request of a known shape and check its members themselves (e.g.
    PutItem's, engine/ops/items.py); the check is the compiled one, so the answers are the same.
    """
    check = _member_check(operation, member)
    segment = member[:1].lower() + member[1:]

    def valid(value: Any) -> bool:
        errors: list[Violation] = []
        try:
            check(value, "", segment, errors)
        except DynamoDBError:  # a wrong JSON type
            return False
        return not errors

    return valid


def structure_validator(shape: str, without: frozenset[str] = frozenset()) -> Callable[[Any], bool]:
    """A test of a value of the DynamoDB model's structure ``shape`` (``"Put"``, the input shape
    ``"TransactWriteItemsInput"``, ...): whether :func:`validate_request` would find nothing wrong
    with it, leaving out the members named in ``without`` (which the caller checks itself: they are
    neither checked nor required here).

    For shortcuts, like :func:`member_validator`: the checks are the compiled ones. A value that is
    not a plain ``dict``, or has a null member (which validation would drop from the request), fails;
    the test never raises.
    """
    compiler = _compiler("dynamodb")
    definition = compiler.shapes[shape]
    inner = compiler.structure(
        {
            **definition,
            "members": {k: v for k, v in definition["members"].items() if k not in without},
            "required": [k for k in definition.get("required", ()) if k not in without],
        }
    )

    def valid(value: Any) -> bool:
        if value.__class__ is not dict:
            return False
        for member in value.values():
            if member is None:
                return False
        errors: list[Violation] = []
        try:
            inner(value, "", errors)
        except Exception:  # noqa: BLE001 - a wrong JSON type, or anything else: validation's to report
            return False
        return not errors

    return valid


def _member_check(operation: str, member: str) -> MemberCheck:
    for service in _SERVICES:
        model = service_model(service)
        input_shape = model.inputs.get(operation)
        if input_shape:
            return _compiler(service).node(model.shapes[input_shape]["members"][member]["shape"]).as_member
    raise UnknownOperationException(f"Unknown operation: '{operation}' has no input member {member}")


def __getattr__(name: str) -> frozenset[str]:
    # Loading a model costs ~0.2 s; importing the engine should not pay it until it is needed.
    if name == "OPERATIONS":
        return frozenset(service_model("dynamodb").inputs)
    if name == "STREAMS_OPERATIONS":
        return frozenset(service_model("dynamodbstreams").inputs)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
