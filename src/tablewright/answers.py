"""The in-process client's parsing of read answers, specialised for DynamoDB's item shapes.

botocore parses a response by walking its output shape: every attribute value of every item becomes
a new dict, built by trying each of AttributeValue's ten members in turn. For the items themselves
that walk changes exactly one thing: binary values (``B``, ``BS``, at any depth), base64 text on the
wire, become ``bytes``. Everything else (strings, number strings, sets as lists, ``M``, ``L``,
``NULL``, ``BOOL``) comes out as the JSON decoded it.

So for the answers that carry items (:data:`ITEM_MEMBERS`) botocore parses the answer *without* its
items (a few small members: counts, keys, capacity, unprocessed keys) and the items are decoded
here: an :class:`~tablewright.engine.encoded.EncodedItems` list in one ``orjson`` call with the
garbage collector paused, then binary values converted, a step skipped when the JSON holds none.
``tests/test_answers.py`` checks the result against botocore's own parser on generated items.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from botocore.model import OperationModel
from botocore.parsers import ResponseParser

from .engine.encoded import EncodedItem, EncodedItems

Item = dict[str, Any]
# What a JSON array of items holds if some item holds a binary value: the member name ``"B"`` or
# ``"BS"`` (or a string or attribute of that name, which merely costs the conversion walk).
_BINARY_MARKERS = (b'"B"', b'"BS"')


def _value(value: dict[str, Any]) -> dict[str, Any]:
    """An attribute value as botocore parses it: ``value`` itself unless it holds binary."""
    for kind, payload in value.items():
        convert = _CONVERT.get(kind)
        return value if convert is None else convert(value, payload)
    return value


def _binary(value: dict, payload: str) -> dict:
    return {"B": base64.b64decode(payload)}


def _binary_set(value: dict, payload: list[str]) -> dict:
    return {"BS": [base64.b64decode(element) for element in payload]}


def _map(value: dict, payload: Item) -> dict:
    converted = item(payload)
    return value if converted is payload else {"M": converted}


def _list(value: dict, payload: list[dict]) -> dict:
    converted = [_value(element) for element in payload]
    if all(new is old for new, old in zip(converted, payload, strict=True)):
        return value
    return {"L": converted}


# Attribute value members that hold binary or nest other values; the rest parse to themselves.
_CONVERT: dict[str, Callable[[dict, Any], dict]] = {"B": _binary, "BS": _binary_set, "M": _map, "L": _list}


def item(attributes: Item) -> Item:
    """An item (or map) as botocore parses it; ``attributes`` itself unless it holds binary."""
    converted: Item | None = None
    for name, value in attributes.items():
        new = _value(value)
        if new is not value:
            if converted is None:
                converted = dict(attributes)
            converted[name] = new
    return attributes if converted is None else converted


def stored_item(value: Item | EncodedItem) -> Item:
    """GetItem's item (possibly as its stored bytes) as botocore parses it."""
    return item(value.decode() if type(value) is EncodedItem else value)


def items(values: list[Item] | EncodedItems) -> list[Item]:
    """A list of items as botocore parses it."""
    if type(values) is EncodedItems:
        decoded = values.decode()
        if not any(marker in values.json for marker in _BINARY_MARKERS):
            return decoded
        values = decoded
    return [item(value) for value in values]


def _tables(responses: dict[str, list[Item]]) -> dict[str, list[Item]]:
    return {table: items(values) for table, values in responses.items()}


def _item_responses(responses: list[dict[str, Item]]) -> list[dict[str, Item]]:
    return [{"Item": item(entry["Item"])} if "Item" in entry else {} for entry in responses]


# Operation -> (the member of its answer that holds items, how to parse that member).
ITEM_MEMBERS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "Query": ("Items", items),
    "Scan": ("Items", items),
    "GetItem": ("Item", stored_item),
    "BatchGetItem": ("Responses", _tables),
    "TransactGetItems": ("Responses", _item_responses),
}


def parse(
    parser: ResponseParser, model: OperationModel, answer: dict[str, Any], headers: dict[str, str]
) -> dict[str, Any]:
    """``answer`` (the engine's, possibly with :class:`EncodedItems`) parsed as botocore would parse
    its JSON, members in the output shape's order; ``answer`` itself is left as it was."""
    special = ITEM_MEMBERS.get(model.name)
    if special is None or special[0] not in answer:
        return parser.parse({"status_code": 200, "headers": headers, "body": answer}, model.output_shape)
    member, parse_member = special
    rest = {name: value for name, value in answer.items() if name != member}
    parsed = parser.parse({"status_code": 200, "headers": headers, "body": rest}, model.output_shape)
    parsed[member] = parse_member(answer[member])
    order = model.output_shape.members
    return {
        **{name: parsed[name] for name in order if name in parsed},
        "ResponseMetadata": parsed["ResponseMetadata"],
    }
