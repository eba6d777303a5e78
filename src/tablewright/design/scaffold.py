"""A first design from a few answers: entities and their attributes in, a complete design file out.

``from_answers`` lays the entities out the way most single-table designs start: the first entity is
the parent (``PARENT#<id>`` / ``PARENT``), every other one a child stored in its parent's partition
(``PARENT#<id>`` / ``CHILD#<id>``) and found by its own id through the index ``GSI1``. Every pattern
carries ``examples:`` drawn from generated ``samples:``, so ``tablewright check`` runs it at once;
``to_yaml`` writes the design with a header saying what to change. Pure data: no client, no engine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import yaml

from .yamlsource import decimal_text

SAMPLE_TYPES = ("string", "number", "boolean")
CHILDREN_PER_PARENT = 2
KEY_ATTRIBUTES = frozenset({"PK", "SK", "GSI1PK", "GSI1SK"})  # the generic key names the scaffold writes


@dataclass
class EntityAnswer:
    """One entity as answered: its name and its attributes (name -> type) besides its id."""

    name: str
    attributes: dict[str, str] = field(default_factory=dict)

    @property
    def id_attribute(self) -> str:
        """``Customer`` -> ``customer_id``."""
        return f"{snake(self.name)}_id"


def snake(name: str) -> str:
    """``OrderLine`` -> ``order_line``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).replace("-", "_").lower()


def parse_entity(text: str) -> EntityAnswer:
    """``Order:status,total=number`` -> an answer; ``ValueError`` saying what is wrong."""
    name, _, rest = text.partition(":")
    name = name.strip()
    if not re.fullmatch(r"[A-Z][A-Za-z0-9]*", name):
        raise ValueError(f"entity name {name!r}: use a capitalised word such as Customer or OrderLine")
    answer = EntityAnswer(name)
    for part in filter(None, (p.strip() for p in rest.split(","))):
        attribute, _, kind = part.partition("=")
        attribute, kind = attribute.strip(), (kind.strip() or "string")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", attribute):
            raise ValueError(
                f"{name}: attribute name {attribute!r} is not a plain name (letters, digits and _, "
                "not starting with a digit); rename it here, or in design.yaml afterwards"
            )
        if kind not in SAMPLE_TYPES:
            raise ValueError(f"{name}.{attribute}: type {kind!r} is not one of {', '.join(SAMPLE_TYPES)}")
        if attribute in answer.attributes:  # the second would silently replace the first
            raise ValueError(f"{name}: attribute {attribute!r} is given twice")
        answer.attributes[attribute] = kind
    return answer


def _refuse_names_alike(entities: list[EntityAnswer]) -> None:
    """Order and ORDER (or OrderLine and Orderline) would write one ``ORDER#`` key prefix (or one
    ``order_id``): their items would share keys, and init's samples would overwrite each other."""
    made_by = {"key prefix": lambda e: e.name.upper(), "id attribute": lambda e: e.id_attribute}
    for what, made in made_by.items():
        seen: dict[str, str] = {}
        for entity in entities:
            if made(entity) in seen:
                raise ValueError(
                    f"{seen[made(entity)]} and {entity.name} would share the {what} {made(entity)!r}: "
                    "name them apart by more than letter case"
                )
            seen[made(entity)] = entity.name


def _refuse_generated_ids(entity: EntityAnswer, parent: EntityAnswer | None) -> None:
    """An attribute named like an id init writes (``repo_id``) would replace that string key with
    another type, or detach a child from its parent: every sample and example would then be wrong."""
    generated = [entity] + ([parent] if parent is not None else [])
    for owner in generated:
        if owner.id_attribute in entity.attributes:
            raise ValueError(
                f"{entity.name}: {owner.id_attribute} is {owner.name}'s id, which init writes itself "
                "(a string in the key); leave it out or choose another name"
            )


def _sample_value(kind: str, attribute: str, number: int) -> object:
    return {"string": f"{attribute} {number}", "number": number * 10, "boolean": number % 2 == 0}[kind]


def _attributes(entity: EntityAnswer, parent: EntityAnswer | None) -> dict[str, Any]:
    out: dict[str, Any] = {entity.id_attribute: {"type": "string", "required": True}}
    if parent is not None:
        out[parent.id_attribute] = {"type": "string", "required": True}
    out.update(entity.attributes)
    return out


def from_answers(name: str, entities: list[EntityAnswer], samples: int = 3) -> dict[str, Any]:
    """Design data (the YAML's mapping) for ``entities``; the first one is the parent of the rest."""
    if not entities:
        raise ValueError("a design needs at least one entity")
    if len({e.name for e in entities}) != len(entities):
        raise ValueError("entity names must differ")
    _refuse_names_alike(entities)
    parent, children = entities[0], entities[1:]
    for entity in entities:
        taken = sorted(KEY_ATTRIBUTES & set(entity.attributes))
        if taken:
            raise ValueError(
                f"{entity.name}: {', '.join(taken)} would be overwritten by the key templates; choose another name"
            )
        _refuse_generated_ids(entity, None if entity is parent else parent)
    table: dict[str, Any] = {"partition_key": "PK", "sort_key": "SK"}
    if children:
        table["indexes"] = {"GSI1": {"partition_key": "GSI1PK", "sort_key": "GSI1SK"}}
    tag = parent.name.upper()
    design_entities: dict[str, Any] = {
        parent.name: {
            "table": "main",
            "attributes": _attributes(parent, None),
            "keys": {"table": {"pk": f"{tag}#{{{parent.id_attribute}}}", "sk": tag}},
        }
    }
    get_parent = f"get_{snake(parent.name)}"
    patterns: dict[str, Any] = {
        get_parent: {
            "description": f"One {parent.name} by its id.",
            "params": {parent.id_attribute: "string"},
            "returns": parent.name,
            "means": {"where": f"{parent.id_attribute} = :{parent.id_attribute}"},
            "served": {"op": "get"},
        }
    }
    data: dict[str, list[dict[str, Any]]] = {parent.name: []}
    for i in range(1, samples + 1):
        item = {parent.id_attribute: f"{snake(parent.name)}-{i}"}
        item.update({a: _sample_value(k, a, i) for a, k in parent.attributes.items()})
        data[parent.name].append(item)
    parent_ids = [item[parent.id_attribute] for item in data[parent.name]]
    patterns[get_parent]["examples"] = [{parent.id_attribute: v} for v in parent_ids[:2]]
    for child in children:
        child_tag, child_id = child.name.upper(), child.id_attribute
        design_entities[child.name] = {
            "table": "main",
            "attributes": _attributes(child, parent),
            "keys": {
                "table": {"pk": f"{tag}#{{{parent.id_attribute}}}", "sk": f"{child_tag}#{{{child_id}}}"},
                "GSI1": {"pk": f"{child_tag}#{{{child_id}}}", "sk": child_tag},
            },
        }
        data[child.name] = []
        for i, owner in enumerate(parent_ids, start=1):
            for j in range(1, CHILDREN_PER_PARENT + 1):
                number = (i - 1) * CHILDREN_PER_PARENT + j
                item = {parent.id_attribute: owner, child_id: f"{snake(child.name)}-{number}"}
                item.update({a: _sample_value(k, a, number) for a, k in child.attributes.items()})
                data[child.name].append(item)
        patterns[f"{snake(child.name)}s_of_{snake(parent.name)}"] = {
            "description": f"Every {child.name} of one {parent.name}, in id order.",
            "params": {parent.id_attribute: "string"},
            "returns": child.name,
            "means": {"where": f"{parent.id_attribute} = :{parent.id_attribute}", "order": f"{child_id} asc"},
            "served": {"op": "query", "sort": {"begins_with": {}}},
            "examples": [{parent.id_attribute: v} for v in parent_ids[:2]],
        }
        patterns[f"get_{snake(child.name)}"] = {
            "description": f"One {child.name} by its own id, whoever owns it.",
            "params": {child_id: "string"},
            "returns": child.name,
            "means": {"where": f"{child_id} = :{child_id}"},
            "served": {"op": "query", "index": "GSI1"},
            "examples": [{child_id: data[child.name][0][child_id]}] if data[child.name] else [],
        }
    volumes = {
        "entities": {
            e.name: {"items": 10_000 * 10**i, "item_size": 500, "writes": "10/min" if i == 0 else "1/s"}
            for i, e in enumerate(entities[:1] + children[:1])
        }
        | {e.name: {"items": 100_000, "item_size": 500, "writes": "1/s"} for e in children[1:]},
        "patterns": {p: {"reads": "10/min"} for p in patterns},
    }
    return {
        "version": 1,
        "name": name,
        "description": f"TODO: what {name} stores and for whom.",
        "tables": {"main": table},
        "entities": design_entities,
        "patterns": patterns,
        "samples": data,
        "volumes": volumes,
    }


HEADER = """\
# {name}: written by `tablewright init` ({how}).
# Check it: `tablewright check {folder}`; review it: `tablewright lint {folder}/design.yaml`.
# Each pattern runs with its `examples:` over the items under `samples:` (see docs/design-file.md).
# Change the entities, keys and patterns to your own; a pattern you cannot give examples for needs
# `unchecked: <why>`, or `check` fails it.
"""
VOLUMES_NOTE = """\
# The volumes are placeholders: put your own numbers in for `tablewright cost` and `tablewright lint`.
"""


class _DesignDumper(yaml.SafeDumper):
    """``yaml.safe_dump`` that also writes Decimals (sample values read from live tables)."""

    def ignore_aliases(self, data: Any) -> bool:
        # A number shared by a sample and an example is written twice, as an int or a float is,
        # not as an anchor (&id001) and an alias a reader has to follow.
        return isinstance(data, Decimal) or super().ignore_aliases(data)


def _represent_decimal(dumper: yaml.SafeDumper, number: Decimal) -> yaml.ScalarNode:
    # Every digit, as the loader reads a number under samples:/examples: back (a float keeps ~17).
    if number == number.to_integral_value():
        return dumper.represent_int(int(number))
    return dumper.represent_scalar("tag:yaml.org,2002:float", decimal_text(number))


_DesignDumper.add_representer(Decimal, _represent_decimal)


def to_yaml(data: dict[str, Any], how: str, folder: str = ".") -> str:
    """The design file text: a header, then the data in the order a reader wants it."""
    header = HEADER.format(name=data.get("name", "design"), how=how, folder=folder)
    header += VOLUMES_NOTE if "volumes" in data else ""
    return header + yaml.dump(
        data,
        Dumper=_DesignDumper,
        sort_keys=False,
        width=100,
        allow_unicode=True,
        default_flow_style=None,
    )
