"""Time and identity rules (TW6xx): local-time keys across DST, truncated-hash identifiers."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tablewright.design.model import Entity, KeyTemplate

from ..context import Context
from ..registry import Hit, rule

OFFSET_DIRECTIVES = ("%z", "%Z", "%:z")
SAFE_HASH_BYTES = 16  # 128 bits: collisions are negligible at any fleet size
ERROR_PROBABILITY, WARNING_PROBABILITY = 1e-3, 1e-6


def observes_dst(zone: str) -> bool:
    """True when the IANA zone's UTC offset differs between January and July."""
    try:
        tz = ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    year = datetime.now().year
    return datetime(year, 1, 15, tzinfo=tz).utcoffset() != datetime(year, 7, 15, tzinfo=tz).utcoffset()


@dataclass(frozen=True)
class _Use:
    entity: Entity
    path: tuple[object, ...]
    role: str
    template: KeyTemplate


def _templates(ctx: Context) -> Iterator[_Use]:
    for placement in ctx.placements():
        yield _Use(
            placement.entity, (*placement.path, "pk"), f"{placement.label} partition key", placement.key.pk
        )
        if placement.key.sk is not None:
            yield _Use(
                placement.entity, (*placement.path, "sk"), f"{placement.label} sort key", placement.key.sk
            )
    for entity in ctx.design.entities.values():
        for name, attr in entity.attributes.items():
            if attr.computed is not None and attr.computed.template is not None:
                path = ("entities", entity.name, "attributes", name, "computed")
                yield _Use(entity, path, f"computed attribute {name}", attr.computed.template)


@rule(
    "TW601",
    "local-time-key",
    "time",
    "warning",
    "A key holds local wall-clock time in a zone with daylight-saving changes.",
    "When clocks fall back, one wall-clock hour happens twice: keys written in it interleave out of "
    "chronological order and two instants an hour apart get the same key text. When clocks spring "
    "forward an hour of keys never exists, so ranges computed in local time misalign.",
    "Key on UTC (RFC 3339 with Z, or epoch numbers) and convert to local time for display; if local time "
    "must stay, include the offset (%z) in the format.",
)
def local_time_key(ctx: Context) -> Iterator[Hit]:
    for use in _templates(ctx):
        if "computed" in use.path:
            continue  # a display attribute, not a key (unless a key uses it: followed below)
        for template, via in _with_computed(use):
            zone = _local_zone(template)
            if zone is None:
                continue
            rate = _writes_per_hour(ctx, use.entity.name)
            affected = (
                f"; about {rate:,.0f} {use.entity.name} items a year are written in the repeated hour"
                if rate
                else ""
            )
            yield Hit(
                use.path,
                f"{use.entity.name}: {use.role} {use.template.source!r}{via} is wall-clock time in {zone}, which "
                f"changes offset for daylight saving{affected}",
            )
            break


def _with_computed(use: _Use) -> Iterator[tuple[KeyTemplate, str]]:
    """The key template itself, then the templates of computed attributes it is made of."""
    yield use.template, ""
    for name in use.template.fields:
        attr = use.entity.attributes.get(name)
        if attr is not None and attr.computed is not None and attr.computed.template is not None:
            yield attr.computed.template, f" (= {attr.computed.template.source!r})"


def _local_zone(template: KeyTemplate) -> str | None:
    """The DST-observing zone a template renders wall-clock time in without an offset, if any."""
    for fld in template.field_parts:
        zones = [c.arg for c in fld.filters if c.name == "tz" and c.arg]
        formats = [c.arg or "" for c in fld.filters if c.name == "format"]
        if zones and observes_dst(zones[0]) and not any(d in f for f in formats for d in OFFSET_DIRECTIVES):
            return zones[0]
    return None


def _writes_per_hour(ctx: Context, entity: str) -> float:
    volume = ctx.design.volumes.entities.get(entity)
    return volume.writes_per_second * 3600 if volume else 0.0


def collision_probability(population: int, hash_bytes: int) -> float:
    """Birthday bound: probability that any two of ``population`` values share a ``hash_bytes`` prefix."""
    space = 2.0 ** (8 * hash_bytes)
    return -math.expm1(-population * (population - 1) / (2 * space))


def _population(ctx: Context, entity: Entity, source: str) -> tuple[int, str]:
    """How many distinct values get hashed: items of an entity keyed one item per ``source`` value."""
    design = ctx.design
    candidates = [entity] + [
        e for e in design.entities.values() if e is not entity and source in e.attributes
    ]
    for candidate in candidates:
        table = design.tables.get(candidate.table)
        volume = design.volumes.entities.get(candidate.name)
        if table is not None and table.sort_key is None and volume and volume.items:
            return volume.items, f"{volume.items:,} {candidate.name} items"
    return 0, ""


@rule(
    "TW602",
    "truncated-hash-id",
    "time",
    "warning",
    "An identifier or key is a truncated hash short enough to collide.",
    "A hash cut to N bytes has 2^(8N) values; by the birthday bound two of n inputs collide with "
    "probability about 1 - exp(-n^2 / 2^(8N+1)). Two devices with one id share a partition and overwrite "
    "each other's items.",
    "Keep at least 16 bytes (32 hex digits) of the hash, or guard the identifier with a uniqueness marker "
    "(unique: [[id]]) so a collision fails loudly at registration.",
)
def truncated_hash(ctx: Context) -> Iterator[Hit]:
    seen: set[str] = set()
    for use in _templates(ctx):
        if use.template.source in seen:
            continue  # one identity scheme shared by several entities: report it once
        seen.add(use.template.source)
        for fld in use.template.field_parts:
            for call in fld.filters:
                if call.name != "sha256" or not call.arg or int(call.arg) >= SAFE_HASH_BYTES:
                    continue
                size = int(call.arg)
                n, what = _population(ctx, use.entity, fld.name)
                if n:
                    p, p10 = collision_probability(n, size), collision_probability(10 * n, size)
                    severity = (
                        "error"
                        if p >= ERROR_PROBABILITY
                        else "warning"
                        if p >= WARNING_PROBABILITY
                        else "info"
                    )
                    odds = f"P(collision) = {p:.2g} at {what}, {p10:.2g} at {10 * n:,}"
                else:
                    severity = None
                    odds = (
                        f"P(collision) = {collision_probability(1000, size):.2g} at 1,000 values, "
                        f"{collision_probability(10000, size):.2g} at 10,000 (no volumes declared)"
                    )
                yield Hit(
                    use.path,
                    f"{use.entity.name}: {use.role} {use.template.source!r} keeps {size} byte(s) of SHA-256 "
                    f"of {fld.name}; {odds}",
                    severity=severity,
                )
