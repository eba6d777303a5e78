"""Items as a person reads them: typed values, both JSON spellings, and (with a design) the entity.

The entity view labels an item with its entity, splits each key attribute into the fields its
template was built from, and lists the attributes that break the entity's validation.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import orjson
from markupsafe import Markup

from ..design.model import Design, Entity, Table
from ..runtime.items import Classifier, natural
from ..runtime.wire import item_from_wire

TYPE_NAMES = {
    "S": "string",
    "N": "number",
    "B": "binary",
    "BOOL": "boolean",
    "NULL": "null",
    "L": "list",
    "M": "map",
    "SS": "string set",
    "NS": "number set",
    "BS": "binary set",
}


def json_wire(value: Any) -> Any:
    """A client's wire value (or item) as DynamoDB JSON: binary as base64 text, as on the wire."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, dict):
        return {k: json_wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_wire(v) for v in value]
    return value


def client_wire(value: Any, kind: str | None = None) -> Any:
    """DynamoDB JSON back into what a low-level client takes (binary as bytes)."""
    if kind == "B":
        return base64.b64decode(value)
    if kind == "BS":
        return [base64.b64decode(v) for v in value]
    if kind == "L":
        return [client_wire(v) for v in value]
    if kind == "M" or (kind is None and isinstance(value, dict) and not _is_typed(value)):
        return {k: client_wire(v) for k, v in value.items()}
    if kind is None and isinstance(value, dict):
        ((inner_kind, inner),) = value.items()
        return {inner_kind: client_wire(inner, inner_kind)}
    return value


def _is_typed(value: dict) -> bool:
    return len(value) == 1 and next(iter(value)) in TYPE_NAMES


def _plain_default(value: object) -> object:
    if isinstance(value, Decimal):
        return float(value) if Decimal(repr(float(value))) == value else str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _dumps(value: object, option: int = 0) -> bytes:
    """orjson's text, with integers beyond 64 bits (DynamoDB keeps 38 digits; orjson refuses them
    without asking ``default``) spelled as Decimals are: tried as they are first, it is rare."""
    try:
        return orjson.dumps(value, default=_plain_default, option=option)
    except orjson.JSONEncodeError:
        return orjson.dumps(_no_big_ints(value), default=_plain_default, option=option)


def _no_big_ints(value: object) -> object:
    """``value`` with every integer orjson cannot write as a Decimal (``_plain_default`` spells it)."""
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        return Decimal(value)
    if isinstance(value, dict):
        return {k: _no_big_ints(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [
            _no_big_ints(v)
            for v in (sorted(value, key=repr) if isinstance(value, set | frozenset) else value)
        ]
    return value


def exact(wire_item: Mapping[str, Any]) -> dict[str, object]:
    """A DynamoDB JSON item as the Python values the runtime writes: every number as stored (``int``
    or ``Decimal``), binary as bytes, sets as sets. What edits start from; ``plain`` is for reading."""
    return item_from_wire(client_wire(wire_item))


def plain(wire_item: Mapping[str, Any]) -> dict[str, object]:
    """A DynamoDB JSON item as plain JSON-ready values: sets as lists, binary as base64, and a number
    as a number where a double holds it exactly, else as its exact text. JavaScript, and many other
    readers of JSON, read every number into a double: 9007199254740993 would be copied as ...992."""
    return orjson.loads(_dumps(_doubles_or_text(exact(wire_item))))


def _doubles_or_text(value: object) -> object:
    """``value`` with every integer no double holds as a Decimal, which ``_plain_default`` spells as text."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if -(2**53) <= value <= 2**53 or float(value) == value else Decimal(value)
    if isinstance(value, dict):
        return {k: _doubles_or_text(v) for k, v in value.items()}
    if isinstance(value, list | set | frozenset):
        return type(value)(_doubles_or_text(v) for v in value)
    return value


def to_json(value: object, *, indent: bool = True) -> str:
    """JSON text of plain data (Decimals, bytes and sets spelled as in ``plain``)."""
    return _dumps(value, orjson.OPT_INDENT_2 if indent else 0).decode()


# Inside <script> nothing is unescaped: JSON there must not close the element or open a comment.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def script_json(value: object) -> Markup:
    """JSON text safe to place inside ``<script type="application/json">`` as is."""
    return Markup(to_json(value, indent=False).translate(_SCRIPT_SAFE))


def cell(wire_value: Mapping[str, Any]) -> dict[str, str]:
    """One attribute value for a table cell: its DynamoDB type and a short text."""
    kind, value = next(iter(wire_value.items()))
    if kind in ("S", "N", "B"):
        text = str(value)
    elif kind == "BOOL":
        text = "true" if value else "false"
    elif kind == "NULL":
        text = "null"
    else:
        text = to_json(plain({"v": wire_value})["v"], indent=False)
    return {"type": kind, "text": text}


@dataclass
class KeyPart:
    """A key attribute split by its template: ``fields`` recovered, or ``problem`` when it does not fit."""

    attribute: str
    index: str
    template: str
    fields: dict[str, object] = field(default_factory=dict)
    problem: str | None = None


@dataclass
class EntityInfo:
    """What the design says an item is."""

    entity: str | None
    key_parts: list[KeyPart] = field(default_factory=list)
    violations: list[dict[str, str]] = field(default_factory=list)
    computed: dict[str, str] = field(default_factory=dict)  # attribute -> the template it is made from

    def as_dict(self) -> dict[str, object]:
        """JSON-ready (built by hand: ``dataclasses.asdict`` deep-copies, a page has 1,000 of these)."""
        return {
            "entity": self.entity,
            "key_parts": [
                {
                    "attribute": p.attribute,
                    "index": p.index,
                    "template": p.template,
                    "fields": p.fields,
                    "problem": p.problem,
                }
                for p in self.key_parts
            ],
            "violations": self.violations,
            "computed": self.computed,
        }


class EntityReader:
    """Labels the items of one design table with their entities (one classifier per table)."""

    def __init__(self, design: Design, table: Table) -> None:
        self.table = table
        self.classify = Classifier(design, [e.name for e in design.entities_in(table.name)])

    def describe(self, wire_item: Mapping[str, Any]) -> EntityInfo:
        """The entity of ``wire_item`` (DynamoDB JSON), its key fields and its validation problems."""
        item = item_from_wire(client_wire(wire_item))
        entity = self.classify(item)
        if entity is None:
            return EntityInfo(None)
        info = EntityInfo(entity.name, key_parts=_key_parts(entity, item))
        info.violations = [
            {"attribute": v.attribute, "rule": v.rule, "message": v.message}
            for v in entity.validate(natural(entity, item))
        ]
        info.computed = {
            name: attr.computed.template.source
            for name, attr in entity.attributes.items()
            if attr.computed is not None and attr.computed.template is not None
        }
        return info


def _key_parts(entity: Entity, item: Mapping[str, object]) -> list[KeyPart]:
    parts: list[KeyPart] = []
    for index, entry in entity.keys.items():
        for template, attribute in ((entry.pk, entry.partition_name), (entry.sk, entry.sort_name)):
            if template is None or attribute is None or attribute not in item:
                continue
            part = KeyPart(attribute, index, template.source)
            try:
                part.fields = template.parse(item[attribute])
            except ValueError as exc:
                part.problem = str(exc)
            parts.append(part)
    return parts
