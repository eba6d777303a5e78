"""Team conventions (Nexus-style "constitution") checked when a design loads.

Each rule is a row of ``RULES``: a function yielding ``(path, message, hint)`` for every breach. The
severity of a rule comes from the design's ``conventions.severity``; ``Design.conventions`` keeps the
rules so the runtime can enforce the write-time ones (version checks on updates).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from .entities import TIMESTAMP_FORMATS
from .issues import Issues
from .model import Design

Finding = tuple[tuple[object, ...], str, str]

CASES: dict[str, re.Pattern[str]] = {
    "camelCase": re.compile(r"^[a-z][a-zA-Z0-9]*$"),
    "snake_case": re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$"),
    "PascalCase": re.compile(r"^[A-Z][a-zA-Z0-9]*$"),
    "UPPERCASE": re.compile(r"^[A-Z][A-Z0-9_]*$"),
    "lowercase": re.compile(r"^[a-z][a-z0-9_]*$"),
}
_GENERIC_INDEX_KEY = re.compile(r"^(GSI|LSI)(\d+)(PK|SK)$")


def _key_names(design: Design) -> set[str]:
    return {name for table in design.tables.values() for name in table.key_attributes()}


def _attribute_case(design: Design) -> Iterator[Finding]:
    case = design.conventions.attribute_case
    if case not in CASES:
        return
    exempt = _key_names(design) if design.conventions.key_names == "generic" else set()
    for ename, entity in design.entities.items():
        for name in entity.attributes:
            if name not in exempt and not CASES[case].match(name):
                yield (
                    ("entities", ename, "attributes", name),
                    f"attribute {name} of {ename} is not {case}",
                    f"rename it in {case}",
                )


def _entity_type_case(design: Design) -> Iterator[Finding]:
    case = design.conventions.entity_type_case
    for ename, entity in design.entities.items():
        if case in CASES and entity.entity_type is not None and not CASES[case].match(entity.entity_type):
            yield (
                ("entities", ename, "entity_type"),
                f"entity type {entity.entity_type!r} of {ename} is not {case}",
                f"write {entity.entity_type.upper() if case == 'UPPERCASE' else entity.entity_type.lower()!r}",
            )


def _generic_key_names(design: Design) -> Iterator[Finding]:
    if design.conventions.key_names != "generic":
        return
    for tname, table in design.tables.items():
        for role, key, want in (
            ("partition_key", table.partition_key, "PK"),
            ("sort_key", table.sort_key, "SK"),
        ):
            if key is not None and key.name != want:
                yield (
                    ("tables", tname, role),
                    f"table key {key.name} of {tname} is not named {want}",
                    f"name it {want}",
                )
        for iname, index in table.indexes.items():
            for role, key, suffix in (
                ("partition_key", index.partition_key, "PK"),
                ("sort_key", index.sort_key, "SK"),
            ):
                if key is None or (index.kind == "local" and role == "partition_key"):
                    continue
                match = _GENERIC_INDEX_KEY.match(key.name)
                if not match or match.group(3) != suffix:
                    yield (
                        ("tables", tname, "indexes", iname, role),
                        f"index key {key.name} of {iname} is not named GSI<N>{suffix}",
                        f"name it like GSI1{suffix}",
                    )


def _id_prefix(design: Design) -> Iterator[Finding]:
    if design.conventions.id_prefix != "required":
        return
    for ename, entity in design.entities.items():
        if not any(a.prefix for a in entity.attributes.values()):
            yield (
                ("entities", ename, "attributes"),
                f"entity {ename} has no prefixed identifier",
                "declare its id attribute with prefix: (e.g. prefix: evt_, format: uuid4)",
            )


def _required_attributes(design: Design) -> Iterator[Finding]:
    for ename, entity in design.entities.items():
        present = set(entity.attributes) | {entity.entity_type_attribute} | _key_names(design)
        for name in design.conventions.required_attributes:
            if name not in present:
                yield (
                    ("entities", ename, "attributes"),
                    f"entity {ename} lacks required attribute {name}",
                    f"declare {name} under attributes:",
                )


def _version_on_update(design: Design) -> Iterator[Finding]:
    if design.conventions.requires_version_check:
        for ename, entity in design.entities.items():
            if not entity.version_attribute:
                yield (
                    ("entities", ename),
                    f"entity {ename} declares no version attribute but updates must check one",
                    "add version: version (a number attribute)",
                )


def _timestamps(design: Design) -> Iterator[Finding]:
    wanted = design.conventions.timestamps
    if not wanted:
        return
    for ename, entity in design.entities.items():
        for name, attr in entity.attributes.items():
            stamps = attr.format in TIMESTAMP_FORMATS or (
                attr.computed and attr.computed.kind in ("created_at", "updated_at")
            )
            if stamps and attr.format != wanted:
                yield (
                    ("entities", ename, "attributes", name),
                    f"timestamp {name} of {ename} is {attr.format or 'unformatted'}, not {wanted}",
                    f"declare format: {wanted}",
                )


RULES: dict[str, Callable[[Design], Iterator[Finding]]] = {
    "attribute_case": _attribute_case,
    "entity_type_case": _entity_type_case,
    "key_names": _generic_key_names,
    "id_prefix": _id_prefix,
    "required_attributes": _required_attributes,
    "version_on_update": _version_on_update,
    "timestamps": _timestamps,
}


def check_conventions(design: Design, issues: Issues) -> None:
    """Record every convention breach with the severity the design chose for that rule."""
    for rule, check in RULES.items():
        severity = design.conventions.severity_of(rule)
        for path, message, hint in check(design):
            issues.add(
                path,
                f"convention {rule}: {message}",
                hint,
                severity=severity,
                on_key=path[-1] != "attributes" and len(path) == 4,
            )
