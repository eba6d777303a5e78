"""Entity values <-> stored items: validation, composition, typing items read back as Records.

Composition is the design's (``Entity.to_item``); this module adds what sits between the design
and a client: collecting every violation before a write, refusing floats, finding which entity a
stored item belongs to, and stripping composed keys to give back the natural values.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from datetime import datetime

from ..design.entities import TIMESTAMP_FORMATS
from ..design.model import Design, Entity, EntityKey, Table
from ..design.templates import KeyTemplate, TemplateValueError
from ..design.timeutil import epoch_ms, epoch_s
from ..design.validators import Violation, type_problem
from .errors import AmbiguousItemError, ValidationError
from .fast_accept import accepts, accepts_computed
from .key_values import recovered_values
from .markers import is_marker
from .wire import Record

HIDDEN_PREFIX = "_tw"


def float_violations(entity: Entity, values: Mapping[str, object]) -> list[Violation]:
    """Floats anywhere in undeclared attributes: DynamoDB numbers are exact, floats are not."""
    found: list[Violation] = []

    def walk(value: object, path: str) -> None:
        if isinstance(value, float):
            found.append(Violation(entity.name, path, "type", f"{value!r} is a float: use int or Decimal"))
        elif isinstance(value, Mapping):
            for k, v in value.items():
                walk(v, f"{path}.{k}")
        elif isinstance(value, list | tuple | set | frozenset):
            for i, v in enumerate(value):
                walk(v, f"{path}[{i}]")

    for name, value in values.items():
        if name not in entity.attributes:
            walk(value, name)
    return found


# DynamoDB counts the top-level attribute as level 1; a map or list may sit at level 31 at most
# (its members at 32): "Nesting Levels have exceeded supported limits".
DEEPEST_CONTAINER = 31


def nesting_violations(entity: Entity, values: Mapping[str, object]) -> list[Violation]:
    """Attributes nested deeper than DynamoDB stores, found without recursion: a value nested
    thousands deep (a hostile request) must be refused, not end validation in a RecursionError."""
    found: list[Violation] = []
    for name, value in values.items():
        pending: list[tuple[object, int]] = [(value, 1)]
        while pending:
            current, level = pending.pop()
            if not isinstance(current, Mapping | list | tuple):
                continue
            if level > DEEPEST_CONTAINER:
                message = "maps and lists nested deeper than DynamoDB's 32 levels"
                found.append(Violation(entity.name, name, "nesting", message))
                break
            members = current.values() if isinstance(current, Mapping) else current
            pending.extend((member, level + 1) for member in members)
    return found


def violations_of(entity: Entity, values: Mapping[str, object]) -> list[Violation]:
    """Every rule ``values`` break (design rules plus the runtime's float rule). Too deep a value
    is said alone: the other rules walk values recursively."""
    if accepts(entity, values):
        return []  # fast path: values the entity's acceptor finds valid break nothing (fast_accept.py)
    return general_violations(entity, values)


def general_violations(entity: Entity, values: Mapping[str, object]) -> list[Violation]:
    """``violations_of`` without the fast path: every rule asked, every violation worded."""
    return nesting_violations(entity, values) or entity.validate(values) + float_violations(entity, values)


def compose(
    entity: Entity, values: Mapping[str, object], *, now: datetime, created: bool
) -> dict[str, object]:
    """Validate, then build the full item to store; raises ``ValidationError`` listing every violation."""
    violations = violations_of(entity, values)
    if violations:
        raise ValidationError(entity.name, violations)
    try:
        item = entity.to_item(values, now=now, created=created)
    except TemplateValueError as exc:
        where = exc.field.lstrip(":") if exc.field else "(key)"
        raise ValidationError(entity.name, [Violation(entity.name, where, "key", str(exc))]) from None
    # Fast path: computed values the entity's acceptor finds valid break nothing (fast_accept.py).
    computed = (
        ([] if accepts_computed(entity, item, now) else entity.computed_violations(item, now))
        + run_on_violations(entity, item)
        + key_size_violations(entity, item)
    )
    if computed:
        raise ValidationError(entity.name, computed)
    if entity.key(item) is None:
        fields = key_fields(entity)
        missing = [f for f in fields if item.get(f) is None] or fields
        raise ValidationError(
            entity.name,
            [
                Violation(entity.name, name, "key", f"{name} is needed to compose the table key")
                for name in missing
            ],
        )
    return item


def run_on_violations(entity: Entity, item: Mapping[str, object]) -> list[Violation]:
    """A value that contains the separator following it in a key template (``{a}#{b}`` with
    ``a = "x#y"``): its key would be another item's too (see ``KeyTemplate.run_on_field``)."""
    found: list[Violation] = []
    for index, entry in entity.keys.items():
        for template in (entry.pk, entry.sk):
            run_on = template.run_on_field(item) if template is not None else None
            if run_on is not None:
                name, separator = run_on
                message = (
                    f"{item.get(name)!r} contains {separator!r}, which follows {{{name}}} in "
                    f"{template.source!r} ({index} key): the key could also be made from other values"
                )
                found.append(Violation(entity.name, name, "key", message))
    return found


# DynamoDB's bounds for one key value, in bytes (UTF-8 for strings), table and index keys alike.
KEY_BYTES = {"partition": 2048, "sort": 1024}


def key_size_violations(entity: Entity, item: Mapping[str, object]) -> list[Violation]:
    """Key values DynamoDB would refuse: empty, or longer than a partition or sort key may be. Said
    here, naming the attribute, rather than by the service's error for the whole request (or, inside a
    transaction, as a cancellation that reads like a conflict)."""
    found: list[Violation] = []
    for index, entry in entity.keys.items():
        for role, name in (("partition", entry.partition_name), ("sort", entry.sort_name)):
            value = item.get(name) if name else None
            if not isinstance(value, str | bytes):
                continue
            if isinstance(value, str):
                # ASCII text (most keys) is as many UTF-8 bytes as characters: no encoded copy.
                size = len(value) if value.isascii() else len(value.encode("utf-8"))
            else:
                size = len(value)
            if 0 < size <= KEY_BYTES[role]:
                continue
            where = f"the table's {role} key" if index == "table" else f"index {index}'s {role} key"
            if size == 0:
                message = f"{name} is empty: {where} must hold at least one byte"
            else:
                message = f"{name} is {size:,} bytes: {where} holds at most {KEY_BYTES[role]:,}"
            found.append(Violation(entity.name, name, "key", message))
    return found


def key_type_violations(entity: Entity, natural_key: Mapping[str, object]) -> list[Violation]:
    """Key values of the wrong type for their attribute (bytes or a list for a string id, a string
    for a number): refused rather than rendered into a key no item has, which would read as "not
    found". Only the type is checked: a well-typed value that breaks a pattern or a format simply
    names no stored item, as in DynamoDB."""
    found: list[Violation] = []
    for name, value in natural_key.items():
        attr = entity.attributes.get(name)
        if attr is None or value is None:
            continue
        if isinstance(value, datetime) and attr.format in TIMESTAMP_FORMATS:
            continue  # a lookup may name an instant; the key renders it as the attribute stores it
        wrong = type_problem(attr, value)
        if wrong:
            found.append(Violation(entity.name, name, "type", wrong))
    return found


_EPOCH_OF_DATETIME = {"epoch_ms": epoch_ms, "epoch_s": epoch_s}


def key_instants_stored(entity: Entity, natural_key: Mapping[str, object]) -> dict[str, object]:
    """``natural_key`` with the ``datetime`` of each epoch attribute as the number it stores.

    A key template renders a datetime as RFC 3339 text: ``{ms}`` would name ``M#2025-01-15T...``
    and ``{ms:013}`` the literal ``013``, keys no item has, so a lookup by instant read as "not
    found". Pattern parameters are converted the same way (``params.convert``)."""
    converted = dict(natural_key)
    for name, value in natural_key.items():
        attr = entity.attributes.get(name)
        if isinstance(value, datetime) and attr is not None and attr.format in _EPOCH_OF_DATETIME:
            converted[name] = _EPOCH_OF_DATETIME[attr.format](value)
    return converted


def key_fields(entity: Entity) -> list[str]:
    """The natural attributes the entity's table key is composed from, each once, in template order.

    A field may feed both templates (``PLANT#{plant_id}`` / ``PLANT#{plant_id}``); it is one value.
    """
    entry = entity.keys["table"]
    return list(dict.fromkeys([*entry.pk.fields, *(entry.sk.fields if entry.sk else ())]))


def table_key(table: Table, item: Mapping[str, object]) -> dict[str, object]:
    """The table key attributes of a stored item."""
    names = [table.partition_key.name] + ([table.sort_key.name] if table.sort_key else [])
    return {name: item[name] for name in names if name in item}


def natural(entity: Entity, item: Mapping[str, object]) -> dict[str, object]:
    """An item's values without composed key attributes that are not declared and hidden attributes."""
    composed: set[str] = set()
    for entry in entity.keys.values():
        composed.add(entry.partition_name)
        if entry.sort_name:
            composed.add(entry.sort_name)
    drop = {name for name in composed if name not in entity.attributes}
    return {k: v for k, v in item.items() if k not in drop and not k.startswith(HIDDEN_PREFIX)}


def to_record(
    entity: Entity, table: Table, item: Mapping[str, object], *, projected: Collection[str] | None = None
) -> Record:
    """A stored item as a Record of ``entity``.

    ``projected`` names the non-key attributes of the index the item was read through when that
    index does not project them all (``KEYS_ONLY``: none); the values the item lacks for that reason
    are then recovered from its key attributes where they spell them unambiguously. A whole item
    (None) is taken as it is: a value it lacks is absent, whatever a stale key may still spell.
    """
    values = natural(entity, item)
    if projected is not None:
        recovered = recovered_values(entity, item)
        values = {**{k: v for k, v in recovered.items() if k not in projected}, **values}
    return Record(entity.name, values, table_key(table, item))


def _ambiguity(entities: list[Entity], item: Mapping[str, object]) -> str:
    names = " and ".join(e.name for e in entities)
    tag = entities[0].entity_type_attribute
    return (
        f"an item without {tag} (read through an index that does not project it) has a key that fits "
        f"{names}: project {tag} into the index, or give their keys different shapes; "
        f"key {dict((k, item[k]) for k in sorted(item))!r}"
    )


class Classifier:
    """Finds the entity of an item read from one table.

    An entity with a discriminator (``entity_type``) is recognised by it; otherwise by whether the
    item's table key matches the entity's key templates (``TASK#...`` vs ``EVENT#...``). Entities
    whose keys are bare fields cannot be told apart that way: the first candidate wins, which is
    right when a table holds one entity (the van telemetry case).

    An item that lacks the discriminator attribute altogether (read through an index that does not
    project it, ``KEYS_ONLY`` or ``INCLUDE`` without it) is told by its key shape too: its table key
    and the index keys it holds, against every discriminated entity of its table, not only the ones
    asked for, so that an item of another entity is not taken for a wanted one. A key that fits
    several of them is never guessed: an ``AmbiguousItemError`` with ``refuse_ambiguous`` (a pattern
    run, whose caller must hear of it), else no entity (a scan of a whole table, where one foreign
    item must not stop the rest, sees it as it saw every untyped item before).
    """

    def __init__(self, design: Design, candidates: Iterable[str], *, refuse_ambiguous: bool = False) -> None:
        self.refuse_ambiguous = refuse_ambiguous
        entities = [design.entities[name] for name in candidates]
        # Discriminated entities first: their test is exact.
        self.entities = sorted(entities, key=lambda e: not self._discriminated(e))
        self.names = {e.name for e in entities}
        self.undiscriminated = [e for e in self.entities if not self._discriminated(e)]
        tables = dict.fromkeys(e.table for e in entities)
        # Every discriminated entity sharing a table with a candidate: the ones an untyped item may be.
        self.typed_neighbours = [e for t in tables for e in design.entities_in(t) if self._discriminated(e)]

    @staticmethod
    def _discriminated(entity: Entity) -> bool:
        return bool(entity.entity_type_attribute and entity.entity_type is not None)

    def __call__(self, item: Mapping[str, object]) -> Entity | None:
        if is_marker(item):
            return None
        for entity in self.entities:
            tag = entity.entity_type_attribute
            if self._discriminated(entity) and item.get(tag) == entity.entity_type:  # type: ignore[arg-type]
                return entity
        untyped = self._untyped_candidates(item)
        # A key the item's own values compose first; then a key of the right shape (an item without
        # those values: a keys-only projection, or written in a spelling since made canonical).
        for exact in (True, False):
            for entity in self.undiscriminated:
                if self._key_matches(entity, item, exact=exact):
                    return entity
            fitting = [e for e in untyped if self._keys_match(e, item, exact=exact)]
            if len(fitting) == 1:
                return fitting[0] if fitting[0].name in self.names else None
            if fitting and self.refuse_ambiguous:
                raise AmbiguousItemError(_ambiguity(fitting, item))
            if fitting:
                return None
        return None

    def _untyped_candidates(self, item: Mapping[str, object]) -> list[Entity]:
        """The typed entities ``item`` may be although it lacks their type attribute: none when it
        carries another entity's type (entities may name their type attribute each their own way)."""
        if any(item.get(e.entity_type_attribute) == e.entity_type for e in self.typed_neighbours):  # type: ignore[arg-type]
            return []
        return [e for e in self.typed_neighbours if e.entity_type_attribute not in item]

    @staticmethod
    def _keys_match(entity: Entity, item: Mapping[str, object], *, exact: bool) -> bool:
        """The table key and every index key of ``entity`` that ``item`` holds fit its templates."""
        if not Classifier._key_matches(entity, item, exact=exact):
            return False
        return all(
            Classifier._entry_matches(entry, item, exact=exact)
            for index, entry in entity.keys.items()
            if index != "table" and entry.partition_name in item
        )

    @staticmethod
    def _key_matches(entity: Entity, item: Mapping[str, object], *, exact: bool) -> bool:
        entry = entity.keys.get("table")
        return entry is not None and Classifier._entry_matches(entry, item, exact=exact)

    @staticmethod
    def _entry_matches(entry: EntityKey, item: Mapping[str, object], *, exact: bool) -> bool:
        pairs = [(entry.pk, entry.partition_name), (entry.sk, entry.sort_name)]
        for template, name in pairs:
            if template is None or name is None:
                continue
            if name not in item:
                return False
            if template.is_bare_field:
                continue
            if not Classifier._made_from(template, item, item[name], exact=exact):
                return False
        return True

    @staticmethod
    def _made_from(template: KeyTemplate, item: Mapping[str, object], key: object, *, exact: bool) -> bool:
        """Whether ``key`` is what ``template`` composes: ``exact``, rendered again from the item's own
        values (a key's shape alone lets ``ORDER#{oid}`` claim ``ORDER#o1#LINE#001``, as the last
        field takes any text); otherwise by its shape."""
        if exact:
            try:
                return template.render(item) == key
            except TemplateValueError:
                return False
        try:
            template.parse(key)
        except ValueError:
            return False
        return True
