"""Entities: attributes, computed values, key templates per table/index, and item composition."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from .predicates import Predicate
from .templates import KeyTemplate, KeyValue
from .timeutil import (
    PrecisionError,
    epoch_ms,
    epoch_s,
    epoch_seconds_of,
    format_with_precision,
    instants_as_text,
    normalise_rfc3339,
    to_datetime,
)
from .validators import Violation, check_attribute, ttl_problem, unstorable

ATTRIBUTE_TYPES = (
    "string",
    "number",
    "boolean",
    "binary",
    "map",
    "list",
    "string_set",
    "number_set",
    "binary_set",
    "null",
)
# DynamoDB's TTL skips items whose expiry is more than five years in the past.
TTL_IGNORED_AFTER_DAYS = 5 * 365
# Where a timestamp attribute's format says how it is stored, the template/TTL unit follows it.
TIMESTAMP_FORMATS = ("rfc3339", "epoch_ms", "epoch_s")
_TTL_UNITS = {
    "ms": "epoch_ms",
    "s": "epoch_s",
    "rfc3339": "rfc3339",
    "epoch_ms": "epoch_ms",
    "epoch_s": "epoch_s",
}


@dataclass
class Computed:
    """How an attribute is computed on write.

    ``kind`` is ``created_at`` (first write), ``updated_at`` (every write), ``ttl`` (``source`` +
    ``retention_seconds``, always epoch seconds; ``unit`` is the source's unit) or ``template``.
    """

    kind: str
    source: str | None = None
    unit: str | None = None
    retention_seconds: int = 0
    template: KeyTemplate | None = None


@dataclass
class Attribute:
    """One attribute: its type and validation rules. Maps nest ``attributes``; lists have ``items``."""

    name: str
    type: str = "string"
    required: bool = False
    nullable: bool = False
    default: object = None
    enum: tuple[object, ...] | None = None
    pattern: str | None = None
    min: int | float | None = None
    max: int | float | None = None
    min_length: int | None = None
    max_length: int | None = None
    charset: str | None = None
    format: str | None = None
    prefix: str | None = None
    # rfc3339 strings: fraction digits kept (``s``, ``ms``, ``us``); ``truncate`` drops finer digits
    # instead of refusing the value. Entity attributes always have one (the builder infers it).
    precision: str | None = None
    truncate: bool = False
    attributes: dict[str, Attribute] = field(default_factory=dict)
    values: Attribute | None = None
    items: Attribute | None = None
    computed: Computed | None = None
    description: str | None = None

    def validate(self, value: object) -> list[tuple[str, str, str]]:
        """``(path, rule, message)`` for every rule ``value`` breaks."""
        return check_attribute(self, value, self.name)


@dataclass
class EntityKey:
    """The key templates an entity uses on the table (``index=None``) or on one index.

    ``partition_name``/``sort_name`` are the key attribute names, filled in when the design links.
    ``when`` makes the index sparse on purpose; a template that cannot render does so implicitly.
    """

    pk: KeyTemplate
    sk: KeyTemplate | None = None
    when: Predicate | None = None
    index: str | None = None
    partition_name: str = ""
    sort_name: str | None = None

    def compose(self, values: Mapping[str, object]) -> dict[str, KeyValue] | None:
        """The key attributes for ``values``, or None when the item is not in this index."""
        if self.when is not None and not self.when.evaluate(values):
            return None
        # A datetime is held to its attribute's precision as its RFC 3339 text is (rt.get(at=...)).
        # Fast path: values holding no datetime under those names (most) have nothing to spell and
        # go as they are; the names are fewer than the values instants_as_text would go through.
        precise = self.pk.precisions
        if self.sk is not None and self.sk.precisions:
            precise = {**precise, **self.sk.precisions}
        for name in precise:
            if isinstance(values.get(name), datetime):
                values = instants_as_text(values, precise)
                break
        pk = self.pk.render(values)
        if pk is None:
            return None
        key: dict[str, KeyValue] = {self.partition_name: pk}
        if self.sort_name is not None and self.sk is not None:
            sk = self.sk.render(values)
            if sk is None:
                return None
            key[self.sort_name] = sk
        return key


@dataclass
class Entity:
    """An entity stored in one table, with its attributes and key templates.

    ``keys`` maps ``"table"`` and index names to ``EntityKey``. ``entity_type`` is the discriminator
    value written to ``entity_type_attribute`` on every item.
    """

    name: str
    table: str
    attributes: dict[str, Attribute] = field(default_factory=dict)
    keys: dict[str, EntityKey] = field(default_factory=dict)
    entity_type: str | None = None
    entity_type_attribute: str | None = None
    unique: tuple[tuple[str, ...], ...] = ()
    version_attribute: str | None = None
    idempotency_key: str | None = None
    max_batch: int | None = None  # most items written together (lint checks it against DynamoDB's limits)
    additional_attributes: bool = True
    description: str | None = None
    # The table's TTL attribute, filled in when the design links (the entity alone does not know
    # its table's settings). Left out of equality: it is derived from the table, not declared here.
    ttl_attribute: str | None = field(default=None, compare=False)

    @property
    def units(self) -> dict[str, str]:
        """Timestamp unit of each attribute declared with a timestamp format (for key templates)."""
        return {n: a.format for n, a in self.attributes.items() if a.format in TIMESTAMP_FORMATS}

    @property
    def precisions(self) -> dict[str, tuple[str, bool]]:
        """``(precision, truncate)`` of each attribute that declares a precision (for key templates: a
        timestamp inserted as text gets its attribute's one spelling, from an item or a parameter)."""
        return {n: (a.precision, a.truncate) for n, a in self.attributes.items() if a.precision}

    def key(self, values: Mapping[str, object], index: str | None = None) -> dict[str, KeyValue] | None:
        """The table key (``index=None``) or an index key for ``values``; None if not in that index."""
        entry = self.keys.get(index or "table")
        return entry.compose(values) if entry else None

    def indexes(self) -> list[str]:
        """Names of the indexes this entity declares keys for."""
        return [name for name in self.keys if name != "table"]

    def validate(self, values: Mapping[str, object]) -> list[Violation]:
        """Every rule the values break, each naming entity, attribute and rule."""
        violations: list[Violation] = []
        for name, attr in self.attributes.items():
            if name not in values or (values[name] is None and not attr.nullable):
                if attr.required and attr.computed is None and attr.default is None:
                    violations.append(
                        Violation(self.name, name, "required", f"{name} is required but missing")
                    )
                continue
            broken = [
                Violation(self.name, path, rule, message)
                for path, rule, message in attr.validate(values[name])
            ]
            violations += broken or self._unstorable(name, values[name])
        for name, value in values.items():
            if name not in self.attributes:
                violations += self._unstorable(name, value)
        if not self.additional_attributes:
            allowed = set(self.attributes) | {self.entity_type_attribute} | self._key_names()
            for name in values:
                if name not in allowed:
                    violations.append(
                        Violation(self.name, name, "unknown", f"{name} is not an attribute of {self.name}")
                    )
        violations += self._ttl_violations(values)
        table_key = self.keys.get("table")
        if table_key is not None:
            for template in (table_key.pk, table_key.sk):
                for fld in template.fields if template else ():
                    if (
                        values.get(fld) is None
                        and fld in self.attributes
                        and not self.attributes[fld].computed
                    ):
                        violations.append(
                            Violation(self.name, fld, "key", f"{fld} is needed to compose the table key")
                        )
        return violations

    def to_item(
        self, values: Mapping[str, object], *, now: datetime | None = None, created: bool = True
    ) -> dict[str, object]:
        """The full item to write: values + defaults + computed attributes + discriminator + keys.

        ``now`` is the write time (UTC now when omitted); ``created`` says whether this write creates
        the item (``created_at`` is only set then). Index keys are added only where they compose.
        """
        moment = to_datetime(now or datetime.now(UTC))
        # None for an attribute that may not be NULL means "not given" (validate reads it so): it is
        # left out, so a default applies and nothing is stored as NULL, on an update: removed.
        item = {n: v for n, v in self.normalise(values).items() if v is not None or self._may_be_null(n)}
        for name, attr in self.attributes.items():
            if name not in item and attr.default is not None:
                item[name] = attr.default
        for name, attr in self.attributes.items():
            if attr.computed is not None:
                value = self._compute(attr, item, moment, created)
                if value is not None:
                    item[name] = value
        if self.entity_type_attribute and self.entity_type is not None:
            item[self.entity_type_attribute] = self.entity_type
        for entry in self.keys.values():
            key = entry.compose(item)
            if key:
                item.update(key)
        return item

    def _ttl_violations(self, values: Mapping[str, object]) -> list[Violation]:
        """A given value of the table's TTL attribute that DynamoDB's TTL would never act on (a
        string, or milliseconds), declared as an attribute of the entity or not: such an item is
        stored and never expires. A computed TTL is checked once computed (``computed_violations``)."""
        name = self.ttl_attribute
        attr = self.attributes.get(name or "")
        if name is None or (attr is not None and attr.computed is not None):
            return []
        problem = ttl_problem(values.get(name))
        if problem is None:
            return []
        return [Violation(self.name, name, "ttl", problem)]

    def _unstorable(self, name: str, value: object) -> list[Violation]:
        return [Violation(self.name, path, "storable", message) for path, message in unstorable(value, name)]

    def _may_be_null(self, name: str) -> bool:
        attr = self.attributes.get(name)
        return attr is None or attr.nullable or attr.type == "null"

    def normalise(self, values: Mapping[str, object]) -> dict[str, object]:
        """``values`` with each timestamp string in its attribute's declared precision.

        A value that cannot be normalised without losing digits is left as it is: ``validate``
        reports it (rule ``precision``), and ``to_item`` is only called on valid values.
        """
        item = dict(values)
        for name, attr in self.attributes.items():
            value = item.get(name)
            if attr.precision and isinstance(value, str):
                with contextlib.suppress(PrecisionError):
                    item[name] = normalise_rfc3339(value, attr.precision, truncate=attr.truncate)
        return item

    def computed_violations(self, item: Mapping[str, object], now: datetime) -> list[Violation]:
        """Every rule a computed value breaks, checked after computing it, as given values are.

        A computed TTL also has to be one DynamoDB acts on: an expiry more than five years before
        the write is ignored by DynamoDB's TTL, so such an item would never expire.
        """
        violations: list[Violation] = []
        for name, attr in self.attributes.items():
            if attr.computed is None or item.get(name) is None:
                continue
            value = item[name]
            for path, rule, message in attr.validate(value):
                violations.append(
                    Violation(self.name, path, rule, f"computed value {message} ({attr.computed.kind})")
                )
            if attr.computed.kind == "ttl" and isinstance(value, int) and value < ttl_floor(now):
                violations.append(
                    Violation(
                        self.name,
                        name,
                        "ttl",
                        f"computed TTL {value} is more than five years before the write; "
                        "DynamoDB's TTL ignores it, so the item would never expire",
                    )
                )
        return violations

    def _compute(self, attr: Attribute, item: dict[str, object], moment: datetime, created: bool) -> object:
        comp = attr.computed
        assert comp is not None
        if comp.kind in ("created_at", "updated_at"):
            if comp.kind == "created_at" and (not created or item.get(attr.name) is not None):
                return None
            return _timestamp_as(attr.format, moment, attr.precision)
        if comp.kind == "ttl":
            if comp.source is None:
                start = epoch_s(moment)
            elif item.get(comp.source) is None:
                return None
            else:
                source_attr = self.attributes.get(comp.source)
                unit = _TTL_UNITS.get(comp.unit or (source_attr.format if source_attr else "") or "")
                start = epoch_seconds_of(item[comp.source], unit)
            # In whole seconds, not through a datetime: an expiry past 9999-12-31 is still a number.
            return start + comp.retention_seconds
        if comp.kind == "template" and comp.template is not None:
            return comp.template.render(item)
        return None

    def _key_names(self) -> set[str]:
        names: set[str] = set()
        for entry in self.keys.values():
            names.add(entry.partition_name)
            if entry.sort_name:
                names.add(entry.sort_name)
        return names


def ttl_floor(now: datetime) -> int:
    """The earliest expiry (epoch seconds) DynamoDB's TTL still acts on for an item written at ``now``."""
    return epoch_s(to_datetime(now) - timedelta(days=TTL_IGNORED_AFTER_DAYS))


def _timestamp_as(fmt: str | None, moment: datetime, precision: str | None = None) -> object:
    """A write time in an attribute's timestamp format (RFC 3339 string unless it says epoch)."""
    if fmt == "epoch_ms":
        return epoch_ms(moment)
    if fmt == "epoch_s":
        return epoch_s(moment)
    return format_with_precision(moment, precision)
