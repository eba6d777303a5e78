"""The design model: plain, typed dataclasses that can be built in Python or loaded from YAML.

Tables and indexes live here; entities, access patterns and volumes have their own modules and are
re-exported so ``from tablewright.design.model import ...`` reaches the whole model. The model is
pure: no DynamoDB client, no engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .entities import ATTRIBUTE_TYPES, Attribute, Computed, Entity, EntityKey
from .patterns import AccessPattern, Buckets, KeyCondition, Means, Order, Served, SortCondition
from .templates import KeyTemplate
from .views import VIEW_KINDS, View
from .volumes import EntityVolume, PatternVolume, Volumes

__all__ = [
    "ATTRIBUTE_TYPES",
    "AccessPattern",
    "Attribute",
    "Billing",
    "Buckets",
    "Computed",
    "Conventions",
    "Design",
    "Entity",
    "EntityKey",
    "EntityVolume",
    "Index",
    "KeyAttribute",
    "KeyCondition",
    "KeyTemplate",
    "Means",
    "Order",
    "PatternVolume",
    "Projection",
    "Served",
    "SortCondition",
    "Table",
    "VIEW_KINDS",
    "View",
    "Volumes",
]

KEY_TYPES = {"S": "S", "N": "N", "B": "B", "string": "S", "number": "N", "binary": "B"}


@dataclass
class KeyAttribute:
    """A key attribute: name and DynamoDB scalar type ``S``, ``N`` or ``B``."""

    name: str
    type: str = "S"


@dataclass
class Billing:
    """``on_demand`` or ``provisioned`` with read/write capacity units."""

    mode: str = "on_demand"
    read: int | None = None
    write: int | None = None


@dataclass
class Projection:
    """Index projection: ``ALL``, ``KEYS_ONLY`` or ``INCLUDE`` with ``attributes``."""

    type: str = "ALL"
    attributes: tuple[str, ...] = ()


@dataclass
class Index:
    """A GSI (``kind="global"``) or LSI (``kind="local"``)."""

    name: str
    partition_key: KeyAttribute
    sort_key: KeyAttribute | None = None
    kind: str = "global"
    projection: Projection = field(default_factory=Projection)
    throughput: Billing | None = None


@dataclass
class Table:
    """A table: keys, billing, TTL, stream, class and indexes. ``name`` is the logical name."""

    name: str
    partition_key: KeyAttribute
    sort_key: KeyAttribute | None = None
    physical_name: str | None = None
    billing: Billing = field(default_factory=Billing)
    ttl: str | None = None
    stream: str | None = None
    table_class: str = "STANDARD"
    pitr: bool = False
    indexes: dict[str, Index] = field(default_factory=dict)
    # Settings that do not change how items are stored, carried so an imported table exports as it
    # was declared (docs/design-file.md "Tables"). ``encryption``: aws_owned | aws_managed |
    # customer_managed (with ``kms_key``).
    encryption: str = "aws_owned"
    kms_key: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    deletion_protection: bool = False
    contributor_insights: bool = False
    kinesis_stream: str | None = None
    resource_policy: dict[str, Any] | None = None
    # The source's expression for a name decided at deploy time (the design names the table by
    # the source's resource id instead); exports say so rather than rename the table silently.
    name_from: str | None = None

    @property
    def table_name(self) -> str:
        """The physical DynamoDB table name."""
        return self.physical_name or self.name

    def key_schema(self, index: str | None = None) -> tuple[KeyAttribute, KeyAttribute | None]:
        """Partition and sort key of the table or one of its indexes (KeyError for unknown index)."""
        if index is None or index == "table":
            return self.partition_key, self.sort_key
        found = self.indexes[index]
        return found.partition_key, found.sort_key

    def key_attributes(self) -> dict[str, str]:
        """Every key attribute of the table and its indexes -> type (AttributeDefinitions)."""
        defs = {self.partition_key.name: self.partition_key.type}
        for key in (
            self.sort_key,
            *(k for i in self.indexes.values() for k in (i.partition_key, i.sort_key)),
        ):
            if key is not None:
                defs[key.name] = key.type
        return defs


@dataclass
class Conventions:
    """Team conventions checked at load and exposed for the runtime to enforce.

    ``severity`` maps a rule name to ``error`` or ``warning`` (``default_severity`` otherwise).
    """

    attribute_case: str = "any"
    entity_type_case: str = "any"
    key_names: str = "any"
    id_prefix: str = "optional"
    required_attributes: tuple[str, ...] = ()
    version_on_update: str = "optional"
    timestamps: str | None = None
    default_severity: str = "error"
    severity: dict[str, str] = field(default_factory=dict)

    @property
    def requires_version_check(self) -> bool:
        """True when every update must carry an optimistic-locking version condition."""
        return self.version_on_update == "required"

    def severity_of(self, rule: str) -> str:
        """``error`` or ``warning`` for a convention rule."""
        return self.severity.get(rule, self.default_severity)


@dataclass
class Design:
    """A whole design. Call ``link()`` after building one in Python (the loader does it for you)."""

    name: str
    tables: dict[str, Table] = field(default_factory=dict)
    entities: dict[str, Entity] = field(default_factory=dict)
    patterns: dict[str, AccessPattern] = field(default_factory=dict)
    volumes: Volumes = field(default_factory=Volumes)
    conventions: Conventions = field(default_factory=Conventions)
    description: str | None = None
    version: int = 1
    warnings: list[str] = field(default_factory=list)
    lint: dict[str, Any] = field(default_factory=dict)  # the design's own lint configuration, as written
    views: dict[str, View] = field(default_factory=dict)  # named views for `tablewright explore`
    # Sample items (entity name -> natural values) that `tablewright check` loads before running patterns.
    samples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def table_of(self, entity: str) -> Table:
        """The table an entity is stored in."""
        return self.tables[self.entities[entity].table]

    def entities_in(self, table: str) -> list[Entity]:
        """Entities stored in a (logical) table."""
        return [e for e in self.entities.values() if e.table == table]

    def link(self) -> Design:
        """Resolve cross references: key names and default templates on entities, served keys on patterns.

        Unresolvable references are skipped here and reported by ``tablewright.design.checks``.
        """
        from .linking import link_design

        link_design(self)
        return self
