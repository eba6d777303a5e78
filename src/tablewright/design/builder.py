"""Plain design data (from YAML or JSON) -> model objects, recording issues instead of stopping.

Shape errors are the JSON Schema's job; this module converts what it can and reports values that
only code can judge (template and predicate syntax, durations, rates).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from .entities import Attribute, Computed, Entity, EntityKey
from .issues import Issues, Path
from .model import KEY_TYPES, Billing, Conventions, Design, Index, KeyAttribute, Projection, Table
from .patterns import AccessPattern, Buckets, Means, Order, Served, SortCondition
from .predicates import Predicate, PredicateError
from .templates import KeyTemplate, TemplateSyntaxError
from .timeutil import format_rfc3339
from .units import parse_duration, parse_factor, parse_rate, parse_size
from .validators import pattern_regex
from .views import View
from .volumes import EntityVolume, PatternVolume, Volumes

# Operators as DynamoDB writes them, and as ElectroDB names them (gte, lte, begins).
_SORT_ALIASES = {
    "=": "eq",
    "<": "lt",
    "<=": "le",
    ">": "gt",
    ">=": "ge",
    "gte": "ge",
    "lte": "le",
    "begins": "begins_with",
}


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _guard(issues: Issues, path: Path, make: Callable[[], Any], hint: str = "") -> Any:
    """Run a converter; a ValueError becomes an issue at ``path`` and the result is None."""
    try:
        return make()
    except (TemplateSyntaxError, PredicateError, ValueError, KeyError, TypeError, OverflowError) as exc:
        issues.add(path, str(exc), hint)
        return None


def build_design(data: dict[str, Any], issues: Issues) -> Design:
    """Build a ``Design`` from plain data; every conversion failure is added to ``issues``."""
    default_type_attr = data.get("entity_type_attribute")
    design = Design(
        name=str(data.get("name", "design")),
        description=data.get("description"),
        version=data.get("version", 1) if isinstance(data.get("version"), int) else 1,
        conventions=_conventions(_dict(data.get("conventions"))),
    )
    for name, raw in _dict(data.get("tables")).items():
        if isinstance(raw, dict):
            design.tables[name] = _table(name, raw)
    for name, raw in _dict(data.get("entities")).items():
        if isinstance(raw, dict):
            design.entities[name] = _entity(name, raw, default_type_attr, ("entities", name), issues)
    for name, raw in _dict(data.get("patterns")).items():
        if isinstance(raw, dict):
            design.patterns[name] = _pattern(name, raw, ("patterns", name), issues)
    design.volumes = _volumes(_dict(data.get("volumes")), issues)
    design.lint = _dict(data.get("lint"))
    design.views = {
        name: _view(name, raw) for name, raw in _dict(data.get("views")).items() if isinstance(raw, dict)
    }
    design.samples = {
        name: [_plain(item) for item in items if isinstance(item, dict)]
        for name, items in _dict(data.get("samples")).items()
        if isinstance(items, list)
    }
    return design


def _plain(value: Any) -> Any:
    """A value written in YAML as the runtime takes it: decimals for numbers with a fraction (stored
    values are never floats), RFC 3339 text for timestamps YAML read as dates (DynamoDB has none)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return format_rfc3339(moment, millis=bool(moment.microsecond))
    if isinstance(value, date):
        return value.isoformat()
    return value


def _key(raw: object) -> KeyAttribute | None:
    if isinstance(raw, str):
        return KeyAttribute(raw, "S")
    if isinstance(raw, dict) and "name" in raw:
        return KeyAttribute(str(raw["name"]), KEY_TYPES.get(str(raw.get("type", "S")), "S"))
    return None


def _billing(raw: object) -> Billing:
    if isinstance(raw, dict):
        return Billing(str(raw.get("mode", "provisioned")), raw.get("read"), raw.get("write"))
    return Billing(str(raw or "on_demand"))


def _projection(raw: object) -> Projection:
    if isinstance(raw, dict):
        return Projection("INCLUDE", tuple(str(a) for a in raw.get("include", ())))
    return Projection(str(raw or "ALL").upper())


def _table(name: str, raw: dict[str, Any]) -> Table:
    table = Table(
        name=name,
        physical_name=raw.get("name"),
        partition_key=_key(raw.get("partition_key")) or KeyAttribute("?"),
        sort_key=_key(raw.get("sort_key")),
        billing=_billing(raw.get("billing")),
        ttl=raw.get("ttl"),
        stream=raw.get("stream"),
        table_class=str(raw.get("table_class", "STANDARD")),
        pitr=bool(raw.get("pitr", False)),
        tags={str(k): str(v) for k, v in _dict(raw.get("tags")).items()},
        deletion_protection=bool(raw.get("deletion_protection", False)),
        contributor_insights=bool(raw.get("contributor_insights", False)),
        kinesis_stream=raw.get("kinesis_stream"),
        resource_policy=raw.get("resource_policy"),
        name_from=raw.get("name_from"),
    )
    encryption = raw.get("encryption", "aws_owned")
    if isinstance(encryption, dict):  # {kms_key: ARN}: a customer managed key
        table.encryption, table.kms_key = "customer_managed", encryption.get("kms_key")
    else:
        table.encryption = str(encryption)
    for index_name, spec in _dict(raw.get("indexes")).items():
        if isinstance(spec, dict):
            throughput = spec.get("throughput")
            table.indexes[index_name] = Index(
                name=index_name,
                kind=str(spec.get("kind", "global")),
                partition_key=_key(spec.get("partition_key")) or KeyAttribute("?"),
                sort_key=_key(spec.get("sort_key")),
                projection=_projection(spec.get("projection")),
                throughput=Billing("provisioned", throughput.get("read"), throughput.get("write"))
                if isinstance(throughput, dict)
                else None,
            )
    return table


def attribute(name: str, raw: object, path: Path, issues: Issues) -> Attribute:
    """Build one attribute (recursively for maps and lists); ``raw`` may be a bare type name."""
    if isinstance(raw, str):
        return Attribute(name, raw)
    spec = _dict(raw)
    attr = Attribute(
        name=name,
        type=str(spec.get("type", "string")),
        required=bool(spec.get("required", False)),
        nullable=bool(spec.get("nullable", False)),
        default=spec.get("default"),
        enum=tuple(spec["enum"]) if isinstance(spec.get("enum"), list) else None,
        pattern=spec.get("pattern"),
        min=spec.get("min"),
        max=spec.get("max"),
        min_length=spec.get("min_length"),
        max_length=spec.get("max_length"),
        charset=spec.get("charset"),
        format=spec.get("format"),
        prefix=spec.get("prefix"),
        precision=spec.get("precision"),
        truncate=spec.get("truncate") is True,
        description=spec.get("description"),
    )
    if attr.pattern is not None:
        _check_pattern(attr.pattern, (*path, "pattern"), issues)
    for child, child_raw in _dict(spec.get("attributes")).items():
        attr.attributes[child] = attribute(child, child_raw, (*path, "attributes", child), issues)
    if "values" in spec:
        attr.values = attribute(f"{name}.*", spec["values"], (*path, "values"), issues)
    if "items" in spec:
        attr.items = attribute(f"{name}[]", spec["items"], (*path, "items"), issues)
    if "computed" in spec:
        attr.computed = _computed(spec["computed"], (*path, "computed"), issues)
    return attr


def _check_pattern(pattern: object, path: Path, issues: Issues) -> None:
    """A ``pattern`` that is not a regular expression is refused when the design loads, not on the
    first write that checks it."""
    if not isinstance(pattern, str):
        return  # the schema refuses it
    try:
        pattern_regex(pattern)
    except re.error as exc:
        issues.add(
            path,
            f"pattern {pattern!r} is not a valid regular expression: {exc}",
            "patterns are ECMA-262 regular expressions as JSON Schema reads them; "
            "Python's named groups (?P<name>...) and ECMA's (?<name>...) both work",
        )


# One sample instant per precision: a declared pattern that accepts exactly one of them says which.
_PRECISION_SAMPLES = {
    "s": "2000-01-01T00:00:00Z",
    "ms": "2000-01-01T00:00:00.000Z",
    "us": "2000-01-01T00:00:00.000000Z",
}


def infer_precision(attr: Attribute) -> str:
    """The precision of an rfc3339 entity attribute that declares none.

    A ``pattern`` that accepts exactly one precision's spelling decides (the sensor design's
    ``...:\\d{2}Z$`` is seconds); otherwise seconds, the precision the runtime has always written
    ``created_at``/``updated_at`` in.
    """
    if isinstance(attr.pattern, str) and attr.pattern:  # another kind is the schema's to report
        try:
            regex = pattern_regex(attr.pattern)
        except re.error:
            return "s"
        accepted = [name for name, sample in _PRECISION_SAMPLES.items() if regex.fullmatch(sample)]
        if len(accepted) == 1:
            return accepted[0]
    return "s"


def _computed(raw: object, path: Path, issues: Issues) -> Computed | None:
    if raw in ("created_at", "updated_at"):
        return Computed(str(raw))
    spec = _dict(raw)
    if "ttl" in spec:
        ttl = _dict(spec["ttl"])
        retention = _guard(
            issues, (*path, "ttl", "retention"), lambda: parse_duration(ttl.get("retention", 0))
        )
        return Computed("ttl", ttl.get("from"), ttl.get("unit"), retention or 0)
    if "template" in spec:
        template = _guard(issues, (*path, "template"), lambda: KeyTemplate(str(spec["template"])))
        return Computed("template", template=template) if template else None
    return None


def _entity(name: str, raw: dict[str, Any], default_type_attr: object, path: Path, issues: Issues) -> Entity:
    entity = Entity(name=name, table=str(raw.get("table", "")), description=raw.get("description"))
    for attr_name, attr_raw in _dict(raw.get("attributes")).items():
        entity.attributes[attr_name] = attribute(
            attr_name, attr_raw, (*path, "attributes", attr_name), issues
        )
    for attr in entity.attributes.values():
        if attr.format == "rfc3339" and attr.precision is None:
            attr.precision = infer_precision(attr)
    kind = raw.get("entity_type")
    if isinstance(kind, dict):
        entity.entity_type, entity.entity_type_attribute = kind.get("value"), kind.get("attribute")
    elif kind is not None:
        entity.entity_type = str(kind)
        entity.entity_type_attribute = str(default_type_attr) if default_type_attr else None
    units = entity.units
    precisions = entity.precisions
    for key_name, spec in _dict(raw.get("keys")).items():
        spec = _dict(spec)
        where = (*path, "keys", key_name)
        pk = _guard(
            issues, (*where, "pk"), lambda s=spec: KeyTemplate(str(s.get("pk", "")), units, precisions)
        )
        sk = (
            _guard(issues, (*where, "sk"), lambda s=spec: KeyTemplate(str(s["sk"]), units, precisions))
            if "sk" in spec
            else None
        )
        when = (
            _guard(
                issues,
                (*where, "when"),
                lambda s=spec: Predicate(str(s["when"])),
                "quote string literals: 'BACKLOG'",
            )
            if "when" in spec
            else None
        )
        if pk is not None:
            entity.keys[key_name] = EntityKey(pk, sk, when, None if key_name == "table" else key_name)
    groups = raw.get("unique")  # a wrong type is the schema check's to report
    entity.unique = tuple(
        tuple(str(a) for a in group)
        for group in (groups if isinstance(groups, list) else ())
        if isinstance(group, list)
    )
    entity.version_attribute = raw.get("version")
    entity.idempotency_key = raw.get("idempotency_key")
    entity.max_batch = raw.get("max_batch") if isinstance(raw.get("max_batch"), int) else None
    entity.additional_attributes = bool(raw.get("additional_attributes", True))
    return entity


def _pattern(name: str, raw: dict[str, Any], path: Path, issues: Issues) -> AccessPattern:
    params = {
        p: attribute(p, spec, (*path, "params", p), issues) for p, spec in _dict(raw.get("params")).items()
    }
    returns = raw.get("returns")  # a wrong type is the schema check's to report
    returns = (
        (returns,)
        if isinstance(returns, str)
        else tuple(str(r) for r in returns)
        if isinstance(returns, list)
        else ()
    )
    means_raw = _dict(raw.get("means"))
    where = means_raw.get("where")
    means = Means(
        where=_guard(issues, (*path, "means", "where"), lambda: Predicate(str(where))) if where else None,
        order=_order(means_raw.get("order")),
        limit=means_raw.get("limit"),
    )
    served_raw = _dict(raw.get("served"))
    examples = raw.get("examples")
    unchecked = raw.get("unchecked")
    return AccessPattern(
        name,
        params,
        returns,
        means,
        _served(served_raw, (*path, "served"), issues),
        raw.get("description"),
        examples=tuple(_plain(e) for e in examples if isinstance(e, dict))
        if isinstance(examples, list)
        else (),
        unchecked=str(unchecked).strip() or None if unchecked is not None else None,
    )


def _order(raw: object) -> Order | None:
    if isinstance(raw, str) and raw.split():
        words = raw.split()
        return Order(words[0], len(words) > 1 and words[1].lower() == "desc")
    if isinstance(raw, dict) and "by" in raw:
        return Order(str(raw["by"]), str(raw.get("direction", "asc")).lower() == "desc")
    return None


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _served(raw: dict[str, Any], path: Path, issues: Issues) -> Served:
    filt = raw.get("filter")
    served = Served(
        op=str(raw.get("op", "query")),
        index=_text_or_none(raw.get("index")),  # a wrong type is the schema check's to report
        via=_text_or_none(raw.get("via")),
        partition=_binding(raw["partition"]) if "partition" in raw else {},
        filter=_guard(issues, (*path, "filter"), lambda: Predicate(str(filt))) if filt else None,
        forward=bool(raw.get("forward", True)),
        page_size=raw.get("page_size"),
        consistent=bool(raw.get("consistent", False)),
        keys=raw.get("keys"),
        items=tuple(i for i in raw.get("items", ()) if isinstance(i, dict)),
    )
    sort = _dict(raw.get("sort"))
    if len(sort) == 1:
        op, bounds = next(iter(sort.items()))
        op = _SORT_ALIASES.get(op, op)
        bounds = bounds if isinstance(bounds, list) else [bounds]
        served.sort = SortCondition(op, tuple(_binding(b) for b in bounds))
    buckets = _dict(raw.get("buckets"))
    if buckets:
        served.buckets = Buckets(
            str(buckets.get("attribute", "")),
            str(buckets.get("from", "")),
            str(buckets.get("to", "")),
            buckets.get("step"),
        )
    return served


def _binding(raw: object) -> dict[str, object]:
    """A bound: a binding map, or a bare ``:param``/literal for a single-field template (key ``*``)."""
    return dict(raw) if isinstance(raw, dict) else {"*": raw}


def _conventions(raw: dict[str, Any]) -> Conventions:
    severity = raw.get("severity", "error")
    return Conventions(
        attribute_case=str(raw.get("attribute_case", "any")),
        entity_type_case=str(raw.get("entity_type_case", "any")),
        key_names=str(raw.get("key_names", "any")),
        id_prefix=str(raw.get("id_prefix", "optional")),
        required_attributes=tuple(raw.get("required_attributes", ())),
        version_on_update=str(raw.get("version_on_update", "optional")),
        timestamps=raw.get("timestamps"),
        default_severity=severity if isinstance(severity, str) else "error",
        severity=dict(severity) if isinstance(severity, dict) else {},
    )


def _volumes(raw: dict[str, Any], issues: Issues) -> Volumes:
    peak = _guard(issues, ("volumes", "peak_factor"), lambda: parse_factor(raw.get("peak_factor", 1.0)))
    volumes = Volumes(peak_factor=peak if peak is not None else 1.0)
    for name, spec in _dict(raw.get("entities")).items():
        spec, where = _dict(spec), ("volumes", "entities", name)
        volumes.entities[name] = EntityVolume(
            items=_count(spec.get("items")),
            item_size=_guard(issues, (*where, "item_size"), lambda s=spec: parse_size(s["item_size"]))
            if "item_size" in spec
            else None,
            growth_per_month=_count(spec.get("growth_per_month")),
            writes_per_second=_guard(
                issues, (*where, "writes"), lambda s=spec: parse_rate(s.get("writes", 0))
            )
            or 0.0,
            transactional=spec.get("transactional") is True,
            updates_per_second=_guard(
                issues, (*where, "updates"), lambda s=spec: parse_rate(s.get("updates", 0))
            )
            or 0.0,
            update_changes=tuple(spec["update_changes"])
            if isinstance(spec.get("update_changes"), list)
            else None,
            shares=dict(spec["shares"]) if isinstance(spec.get("shares"), dict) else {},
        )
    for name, spec in _dict(raw.get("patterns")).items():
        spec, where = _dict(spec), ("volumes", "patterns", name)
        volumes.patterns[name] = PatternVolume(
            reads_per_second=_guard(issues, (*where, "reads"), lambda s=spec: parse_rate(s.get("reads", 0)))
            or 0.0,
            writes_per_second=_guard(
                issues, (*where, "writes"), lambda s=spec: parse_rate(s.get("writes", 0))
            )
            or 0.0,
        )
    return volumes


def _count(raw: object) -> int:
    """A count of items; 0 when it is not a whole number, which the JSON Schema reports at its line
    (converting it here too would add Python's own "invalid literal for int()" beside that message)."""
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return 0
    if isinstance(raw, float) and not raw.is_integer():  # a fraction, .inf or .nan
        return 0
    return int(raw)


def _names(raw: object) -> tuple[str, ...]:
    """One attribute name or a list of them, as a tuple."""
    if isinstance(raw, str):
        return (raw,)
    return tuple(str(r) for r in raw) if isinstance(raw, list) else ()


def _view(name: str, raw: dict[str, Any]) -> View:
    return View(
        name=name,
        kind=str(raw.get("kind", "table")),
        pattern=str(raw.get("pattern", "")),
        title=raw.get("title"),
        description=raw.get("description"),
        params=_dict(raw.get("params")),
        columns=_names(raw.get("columns")),
        time=_names(raw.get("time")),
        label=raw.get("label"),
        group_by=raw.get("group_by"),
        groups=tuple(str(g) for g in raw.get("groups", ()) if g is not None),
        timezone=raw.get("timezone"),
    )
