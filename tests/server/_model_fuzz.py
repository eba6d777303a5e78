"""Hostile requests generated from botocore's service models: every field of every operation's input.

For each operation a plausible request is built from its input shape (every member filled, aimed at
a table ``fuzz`` that exists), then each field at every depth is replaced, one at a time, by null, by a
value of every wrong JSON type and by extreme values; attribute values also get malformed forms.
The requests come from the model's data, so an operation botocore adds is fuzzed without a change here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from botocore.loaders import Loader

TABLE = "fuzz"
SERVICES = {"dynamodb": "DynamoDB_20120810", "dynamodbstreams": "DynamoDBStreams_20120810"}

# Plausible values for shapes whose name says what they hold, so the unmutated fields get past the
# first checks and the mutation reaches deeper code.
_STRINGS = {
    "TableName": TABLE,
    "TableArn": TABLE,
    "TableNameOrArn": TABLE,
    "ResourceArnString": f"arn:aws:dynamodb:us-east-1:000000000000:table/{TABLE}",
    "IndexName": "gsi",
    "KeySchemaAttributeName": "pk",
    "AttributeName": "pk",
    "ConditionExpression": "attribute_exists(#n) AND :v <> #n",
    "KeyExpression": "#n = :v",
    "ProjectionExpression": "#n, other.path[0]",
    "UpdateExpression": "SET #n = :v",
    "ExpressionAttributeNameVariable": "#n",
    "ExpressionAttributeValueVariable": ":v",
    "PartiQLStatement": f'SELECT * FROM "{TABLE}" WHERE pk = ?',
}
_NAME_MAPS = {"ExpressionAttributeNameMap": {"#n": "pk"}, "ExpressionAttributeValueMap": {":v": {"S": "a"}}}
_ATTRIBUTE_VALUE = {"S": "a"}
# A request may use expressions or the legacy parameters, not both: plausible requests alternate.
_LEGACY = frozenset(
    {"AttributesToGet", "Expected", "ConditionalOperator", "QueryFilter", "ScanFilter", "KeyConditions"}
    | {"AttributeUpdates"}
)
_EXPRESSIONS = frozenset(
    {"ProjectionExpression", "ConditionExpression", "KeyConditionExpression", "FilterExpression"}
    | {"UpdateExpression", "ExpressionAttributeNames", "ExpressionAttributeValues"}
)

# Members left out of plausible requests because with the others they make a request invalid
# (mutations still put every type of value where the others are).
_NEVER = frozenset({"ConditionalOperator", "ConsistentRead", "ExclusiveStartKey", "NextToken"})

# Replacements for any field: null, every JSON type, and the extremes of each.
_ANY = [
    None,
    "",
    "x",
    "x" * 70_000,
    "\u0000\ud7ff\U0010ffff",
    0,
    -1,
    2**31,
    2**63,
    -(2**64),
    10**400,
    1.5,
    -1e308,
    True,
    False,
    [],
    [None],
    [[[]]],
    {},
    {"": None},
    {"S": "a"},
]
# Malformed attribute values, for fields that hold one.
_ATTRIBUTE_VALUES = [
    {"S": 1},
    {"N": "abc"},
    {"N": "1e999"},
    {"N": "-0"},
    {"N": "9" * 40},
    {"B": "!!"},
    {"SS": []},
    {"SS": ["a", "a"]},
    {"NS": ["1", "1.0"]},
    {"L": None},
    {"M": {"a": None}},
    {"NULL": False},
    {"BOOL": "yes"},
    {"S": "a", "N": "1"},
    {"X": "a"},
    {"S": None},
]


def _deep(levels: int) -> dict:
    value: dict = {"S": "leaf"}
    for _ in range(levels):
        value = {"M": {"a": value}}
    return value


_ATTRIBUTE_VALUES += [_deep(33), _deep(200), {"L": [_deep(40)]}]


class RequestFactory:
    """Builds the plausible request of an operation and its mutants from one service model."""

    def __init__(self, service: str) -> None:
        model = Loader().load_service_model(service, "service-2")
        self.shapes = model["shapes"]
        self.inputs = {name: op.get("input", {}).get("shape") for name, op in model["operations"].items()}
        self.choice = 0
        self.variants_seen = False

    def _is_union(self, shape: dict) -> bool:
        # "Exactly one of" structures (WriteRequest, TransactWriteItem, ...): no required member, and
        # every member a structure. A plausible value fills one member, chosen by ``self.choice``.
        members = shape.get("members", {})
        return (
            shape["type"] == "structure"
            and len(members) > 1
            and not shape.get("required")
            and all(self.shapes[ref["shape"]]["type"] == "structure" for ref in members.values())
        )

    def plausible(self, shape_name: str, depth: int = 0) -> Any:
        """A value of shape ``shape_name`` with every member filled (bounded depth)."""
        if shape_name in _STRINGS:
            return _STRINGS[shape_name]
        if shape_name in _NAME_MAPS:
            return dict(_NAME_MAPS[shape_name])
        if shape_name == "AttributeValue":
            return dict(_ATTRIBUTE_VALUE)
        shape = self.shapes[shape_name]
        kind = shape["type"]
        if kind == "structure":
            if depth > 6:
                return {}
            if self._is_union(shape):
                names = list(shape["members"])
                name = names[self.choice % len(names)]
                self.variants_seen = True
                return {name: self.plausible(shape["members"][name]["shape"], depth + 1)}
            members = shape["members"]
            if not _LEGACY.isdisjoint(members):
                self.variants_seen = True
            left_out = (_EXPRESSIONS if self.choice % 2 else _LEGACY) | _NEVER
            return {
                name: self.plausible(ref["shape"], depth + 1)
                for name, ref in members.items()
                if name not in left_out
            }
        if kind == "list":
            return [self.plausible(shape["member"]["shape"], depth + 1)]
        if kind == "map":
            if self.shapes[shape["value"]["shape"]]["type"] == "structure" or shape["value"]["shape"] in (
                "AttributeValue",
            ):
                key = _STRINGS.get(shape["key"]["shape"], "k")
                return {key: self.plausible(shape["value"]["shape"], depth + 1)}
            return {"k": self.plausible(shape["value"]["shape"], depth + 1)}
        if kind == "string":
            if "enum" in shape:
                return shape["enum"][0]
            return "a" * max(shape.get("min", 1), 3)
        if kind in ("integer", "long"):
            return max(shape.get("min", 1), 1)
        return {"boolean": True, "double": 1.0, "timestamp": 1_700_000_000, "blob": "AAAA"}[kind]

    def fields(self, value: Any, shape_name: str, path: tuple = ()) -> Iterator[tuple[tuple, str]]:
        """Every ``(path, shape name)`` inside ``value``, the value itself first."""
        yield path, shape_name
        if shape_name == "AttributeValue":
            return
        shape = self.shapes[shape_name]
        kind = shape["type"]
        if kind == "structure" and isinstance(value, dict):
            for name, ref in shape["members"].items():
                if name in value:
                    yield from self.fields(value[name], ref["shape"], (*path, name))
        elif kind == "list" and isinstance(value, list):
            for index, item in enumerate(value):
                yield from self.fields(item, shape["member"]["shape"], (*path, index))
        elif kind == "map" and isinstance(value, dict):
            for key, item in value.items():
                yield from self.fields(item, shape["value"]["shape"], (*path, key))

    def mutants(self, operation: str) -> Iterator[dict]:
        """The operation's plausible request, then one request per (field, replacement)."""
        shape_name = self.inputs[operation]
        if shape_name is None:
            yield {}
            return
        # Several plausible requests: expressions or legacy parameters, and each member of the
        # "exactly one of" structures it contains.
        for self.choice in range(4):
            self.variants_seen = False
            base = self.plausible(shape_name)
            yield base
            for path, field_shape in self.fields(base, shape_name):
                if not path:
                    continue
                replacements = list(_ANY)
                if field_shape == "AttributeValue" or self._holds_attribute_values(field_shape):
                    replacements += _ATTRIBUTE_VALUES
                for replacement in replacements:
                    yield _replace(base, path, replacement)
                yield _replace(base, path, _REMOVE)
            if not self.variants_seen:
                break

    def _holds_attribute_values(self, shape_name: str) -> bool:
        shape = self.shapes.get(shape_name, {})
        return shape.get("type") == "map" and shape["value"]["shape"] == "AttributeValue"


_REMOVE = object()


def _replace(value: Any, path: tuple, replacement: Any) -> Any:
    """A copy of ``value`` with the field at ``path`` replaced (or removed), sharing untouched parts."""
    if not path:
        return replacement
    head, rest = path[0], path[1:]
    if isinstance(value, list):
        copy = list(value)
    else:
        copy = dict(value)
    if not rest and replacement is _REMOVE:
        if isinstance(copy, list):
            del copy[head]
        else:
            copy.pop(head, None)
        return copy
    copy[head] = _replace(value[head], rest, replacement)
    return copy


def all_requests() -> Iterator[tuple[str, str, dict]]:
    """``(target prefix, operation, request)`` for every mutant of every operation of both services."""
    for service, prefix in SERVICES.items():
        factory = RequestFactory(service)
        for operation in sorted(factory.inputs):
            for request in factory.mutants(operation):
                yield prefix, operation, request


SETUP_TABLE = {
    "TableName": TABLE,
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "g", "AttributeType": "S"},
    ],
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "gsi",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
        }
    ],
    "BillingMode": "PAY_PER_REQUEST",
    "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
}
