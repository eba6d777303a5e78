"""Fast acceptance of valid items: the common write's validation without building any violation.

``violations_of`` (items.py) asks every rule of the design and of the runtime and lists what is
broken, walking each value three times (nesting depth, the declared rules, storability) and naming
every path on the way. Most items a runtime writes break nothing, so they are first offered to an
*acceptor*: a check compiled once per entity and per attribute from the same rule functions, which
answers only True ("breaks nothing") or False ("not sure"). False sends the item down the general
path, which then finds and words every violation exactly as it always did; only True skips it.

So an acceptor may answer False for anything it does not handle itself (a ``Mapping`` that is not a
dict, a tuple, a float, a ``bytearray``, a ``str`` subclass) and must never answer True for an item
the general path would refuse. ``tests/runtime/test_fast_paths_compose.py`` compares the two over
generated items, valid and invalid.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from decimal import Decimal

from ..design.entities import Attribute, ttl_floor
from ..design.model import Entity
from ..design.validators import (
    MAX_DIGITS,
    TYPE_CHECKS,
    charset_regex,
    declared_rules,
    number_problem,
    pattern_regex,
    text_problem,
    ttl_problem,
)

# The deepest level a map or list may sit at: items.DEEPEST_CONTAINER, which imports this module, so
# it is repeated here (a test holds the two equal).
DEEPEST_CONTAINER = 31
# Integers of at most 38 digits are numbers DynamoDB stores as they are (validators.number_problem).
_INT_LIMIT = 10**MAX_DIGITS

Acceptor = Callable[[object, int], bool]
"""``accept(value, level)``: True only when ``value``, sitting at nesting ``level`` (a top-level
attribute is level 1), breaks no rule; False when it may break one."""


def _storable_leaf(value: object) -> bool:
    """A value that is no map or list and that DynamoDB stores as it is (validators.unstorable finds
    nothing in it), of the plain types only."""
    cls = type(value)
    if cls is str:
        return value.isascii() or text_problem(value) is None  # type: ignore[union-attr]
    if cls is int:
        return -_INT_LIMIT < value < _INT_LIMIT or number_problem(value) is None  # type: ignore[operator,arg-type]
    if cls is bool or cls is bytes:
        return True
    if cls is Decimal:
        return number_problem(value) is None  # type: ignore[arg-type]
    if cls is set or cls is frozenset:
        return all(_storable_leaf(member) for member in value)  # type: ignore[attr-defined]
    return False


def _storable_key(key: object) -> bool:
    return type(key) is str and (key.isascii() or text_problem(key) is None)


def plain(value: object, level: int) -> bool:
    """The acceptor of a value no attribute declares: storable, no float, not nested too deep."""
    cls = type(value)
    if cls is dict:
        if level > DEEPEST_CONTAINER:
            return False
        for key, member in value.items():  # type: ignore[attr-defined]
            if not _storable_key(key) or not plain(member, level + 1):
                return False
        return True
    if cls is list:
        if level > DEEPEST_CONTAINER:
            return False
        return all(plain(member, level + 1) for member in value)  # type: ignore[attr-defined]
    return value is None or _storable_leaf(value)


def acceptor(attr: Attribute) -> Acceptor:
    """The acceptor of ``attr``, compiled at its first use and kept on the attribute (as the rules it
    declares are, by ``validators.declared_rules``: a design's attributes do not change once built)."""
    compiled = attr.__dict__.get("_tw_acceptor")
    if compiled is None:
        compiled = attr.__dict__["_tw_acceptor"] = _compile(attr)
    return compiled


def _refuse(value: object, level: int) -> bool:
    return False


def _compile(attr: Attribute) -> Acceptor:
    """What ``validators.check_attribute`` and then ``validators.unstorable`` ask of a value of
    ``attr``, and the nesting limit, as one walk that stops at the first doubt."""
    type_ok = TYPE_CHECKS.get(attr.type)
    if type_ok is None:
        return _refuse  # an unknown type: the general path says what it says about it
    declared = declared_rules(attr)
    checks = tuple(check for _rule, check in declared)
    nullable = attr.nullable or attr.type == "null"
    children = {name: acceptor(child) for name, child in attr.attributes.items()}
    required = tuple(name for name, child in attr.attributes.items() if child.required)
    others = acceptor(attr.values) if attr.values is not None else plain  # map members not declared
    members = acceptor(attr.items) if attr.items is not None else plain  # list members
    text = _text_rules(attr, dict(declared)) if attr.type == "string" else None
    whole = _int_rules(attr, dict(declared)) if attr.type == "number" else None

    def accept(value: object, level: int) -> bool:
        cls = type(value)
        # Fast path: a str is of type string and nothing else; its rules as text_rules compiled them.
        if cls is str:
            return text is not None and text(value) and (value.isascii() or text_problem(value) is None)  # type: ignore[union-attr]
        # Fast path: an int (no bool) is of type number and nothing else; its rules as int_rules has them.
        if cls is int:
            return (
                whole is not None
                and whole(value)
                and (-_INT_LIMIT < value < _INT_LIMIT or number_problem(value) is None)  # type: ignore[operator,arg-type]
            )
        if value is None:
            return nullable
        if not type_ok(value):
            return False
        for check in checks:
            if check(attr, value):  # a message (check_attribute tests its truth, not None)
                return False
        if cls is dict:
            if level > DEEPEST_CONTAINER:
                return False
            for key, member in value.items():  # type: ignore[attr-defined]
                if not _storable_key(key) or not children.get(key, others)(member, level + 1):
                    return False
            return all(name in value for name in required)  # type: ignore[operator]
        if cls is list:
            if level > DEEPEST_CONTAINER:
                return False
            return all(members(member, level + 1) for member in value)  # type: ignore[attr-defined]
        return _storable_leaf(value)

    return accept


Check = Callable[[Attribute, object], "str | None"]


# The rules the acceptors ask inline, and those whose checks pass every value of the kind (min and
# max ask only numbers; lengths, charset and precision only text and containers).
_TEXT_INLINE = frozenset({"enum", "prefix", "pattern", "min_length", "max_length", "charset"})
_NOTHING_OF_TEXT = frozenset({"min", "max"})
_INT_INLINE = frozenset({"enum", "min", "max"})
_NOTHING_OF_INTS = frozenset({"min_length", "max_length", "charset", "precision"})


def _text_rules(attr: Attribute, declared: dict[str, Check]) -> Callable[[str], bool]:
    """Whether a str breaks none of ``attr``'s declared rules (RULES in validators.py), the common
    ones asked directly of the parameters they read: the enum, the prefix, the pattern and charset
    regexes, the lengths; min and max say nothing of text; format and precision are asked as such."""
    enum, prefix = attr.enum, attr.prefix
    pattern = pattern_regex(attr.pattern) if "pattern" in declared else None  # type: ignore[arg-type]
    charset = charset_regex(attr.charset) if "charset" in declared else None  # type: ignore[arg-type]
    shortest, longest = attr.min_length, attr.max_length
    # Every rule not asked inline, nor known to pass any str, is asked as such: a rule added to
    # RULES later is checked here too, never skipped.
    asked = [check for rule, check in declared.items() if rule not in _TEXT_INLINE | _NOTHING_OF_TEXT]

    def ok(value: str) -> bool:
        if enum is not None and value not in enum:
            return False
        if prefix and not value.startswith(prefix):
            return False
        if pattern is not None and pattern.fullmatch(value) is None:
            return False
        if shortest is not None and len(value) < shortest:
            return False
        if longest is not None and len(value) > longest:
            return False
        if charset is not None and charset.fullmatch(value) is None:
            return False
        for check in asked:  # noqa: SIM110 - a loop, not all(): no generator made per value
            if check(attr, value):
                return False
        return True

    return ok


def _int_rules(attr: Attribute, declared: dict[str, Check]) -> Callable[[int], bool]:
    """Whether an int breaks none of ``attr``'s declared rules: the enum and the bounds asked
    directly; lengths, charset and precision say nothing of a number; the rest asked as such."""
    enum, low, high = attr.enum, attr.min, attr.max
    asked = [check for rule, check in declared.items() if rule not in _INT_INLINE | _NOTHING_OF_INTS]

    def ok(value: int) -> bool:
        if enum is not None and value not in enum:
            return False
        if low is not None and value < low:
            return False
        if high is not None and value > high:
            return False
        for check in asked:  # noqa: SIM110 - a loop, not all(): no generator made per value
            if check(attr, value):
                return False
        return True

    return ok


class EntityAcceptor:
    """What ``Entity.validate``, ``items.nesting_violations`` and ``items.float_violations`` ask of
    one entity's values, worked out once: each declared attribute's acceptor, the attributes that
    must be given, the names an entity without additional attributes allows, the TTL attribute
    whose given value is checked and the fields the table key needs."""

    def __init__(self, entity: Entity, signature: tuple) -> None:
        self.signature = signature
        self.checks = {name: acceptor(attr) for name, attr in entity.attributes.items()}
        # Entity.validate: "required but missing" unless computed or defaulted; None counts as
        # missing for an attribute that may not be NULL.
        self.needed = tuple(
            (name, attr.nullable)
            for name, attr in entity.attributes.items()
            if attr.required and attr.computed is None and attr.default is None
        )
        self.allowed: frozenset[str] | None = None
        if not entity.additional_attributes:
            keys = {e.partition_name for e in entity.keys.values()}
            keys |= {e.sort_name for e in entity.keys.values() if e.sort_name}
            self.allowed = frozenset({*entity.attributes, entity.entity_type_attribute, *keys})  # type: ignore[arg-type]
        ttl = entity.ttl_attribute
        declared = entity.attributes.get(ttl or "")
        self.ttl = None if ttl is None or (declared is not None and declared.computed is not None) else ttl
        self.computed = tuple(
            (name, acceptor(attr), attr.computed.kind == "ttl")
            for name, attr in entity.attributes.items()
            if attr.computed is not None
        )
        entry = entity.keys.get("table")
        templates = (entry.pk, entry.sk) if entry is not None else ()
        self.key_fields = tuple(
            name
            for template in templates
            if template
            for name in template.fields
            if name in entity.attributes and not entity.attributes[name].computed
        )

    def computed_ok(self, item: Mapping[str, object], now: datetime) -> bool:
        """What ``Entity.computed_violations`` asks of the computed values of a composed item."""
        floor = None
        for name, check, ttl in self.computed:
            value = item.get(name)
            if value is None:
                continue
            if not check(value, 1):
                return False
            if ttl and isinstance(value, int):
                floor = ttl_floor(now) if floor is None else floor
                if value < floor:
                    return False
        return True

    def __call__(self, values: Mapping[str, object]) -> bool:
        checks, allowed = self.checks, self.allowed
        for name, value in values.items():
            check = checks.get(name)
            if check is None:
                if (allowed is not None and name not in allowed) or not plain(value, 1):
                    return False
            elif value is not None and not check(value, 1):
                return False
            # A declared attribute given None is missing (settled just below) or NULL where it may be.
        for name, nullable in self.needed:
            if name not in values or (values[name] is None and not nullable):
                return False
        if self.ttl is not None and ttl_problem(values.get(self.ttl)) is not None:
            return False
        return all(values.get(name) is not None for name in self.key_fields)


def _signature(entity: Entity) -> tuple:
    """What an entity's acceptor is worked out from besides its attributes' own rules. Linking fills
    in the TTL attribute and key names after the entity is built; a changed one makes a new acceptor."""
    return (
        entity.ttl_attribute,
        entity.additional_attributes,
        entity.entity_type_attribute,
        tuple(entity.attributes.items()),
        tuple((n, e.pk, e.sk, e.partition_name, e.sort_name) for n, e in entity.keys.items()),
    )


def _acceptor_of(entity: Entity) -> EntityAcceptor:
    signature = _signature(entity)
    found = entity.__dict__.get("_tw_entity_acceptor")
    if found is None or found.signature != signature:
        found = entity.__dict__["_tw_entity_acceptor"] = EntityAcceptor(entity, signature)
    return found


# Both checks below answer False on any exception: the general path then meets it and says it as it
# always did (a broken design's rule, a value no comparison takes).


def accepts(entity: Entity, values: Mapping[str, object]) -> bool:
    """True when ``values`` break no rule ``items.violations_of`` asks about; False when they may."""
    try:
        return _acceptor_of(entity)(values)
    except Exception:  # noqa: BLE001
        return False


def accepts_computed(entity: Entity, item: Mapping[str, object], now: datetime) -> bool:
    """True when ``Entity.computed_violations(item, now)`` finds nothing; False when it may."""
    try:
        return _acceptor_of(entity).computed_ok(item, now)
    except Exception:  # noqa: BLE001
        return False
