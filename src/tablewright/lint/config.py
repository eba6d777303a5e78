"""Which rules run and how severe they are: rule defaults, then the design's ``lint:`` section, then a
sidecar file, then the command line (each later one wins).

The shape everywhere is ``{disable: [TW203, unused-index], severity: {TW304: error}}``; rules may
be named by id or name. The sidecar of ``design.yaml`` is ``design.lint.yaml`` beside it. ``batches``
(``{Reading: 100}`` or ``{Reading: {items: 100, extra_actions: 1}}``, the extra actions being other
puts in the same transaction, like the sensor API's processed-batch marker) declares the largest
batch an entity is written in, for TW402, until the design model has a place for it. ``transactional``
(``[Reading, ProcessedBatch]``) lists entities written with TransactWriteItems, which cost prices at
2x (``tablewright.cost.estimate.written_in_transactions``) until volumes can say so. ``conventions`` holds team rules the design model has no
key for (the Nexus checklist): ``key_templates: {GSI1: {pk: '^USER#\\{userId\\}#\\{\\w+\\|year\\}$'}}``,
``max_items_without_limit: 100`` and ``scans: forbidden``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablewright.design.yamlsource import YAMLFileError, read_yaml

from .registry import SEVERITIES, resolve

SIDECAR_SUFFIX = ".lint.yaml"
KEYS = ("disable", "severity", "batches", "conventions", "transactional")
# Team rules beyond the design model's conventions (rules TW708-TW710).
CONVENTION_KEYS = ("key_templates", "max_items_without_limit", "scans")


class LintConfigError(ValueError):
    """A lint configuration names an unknown rule, severity or key; ``path`` says where."""

    def __init__(self, message: str, path: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.path = path


@dataclass
class LintConfig:
    """Disabled rule ids, severity overrides by rule id, and options for rules."""

    disable: set[str] = field(default_factory=set)
    severity: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)

    def merged(self, later: LintConfig) -> LintConfig:
        """This configuration overridden by ``later``."""
        severity = {**self.severity, **later.severity}
        disable = (self.disable - set(later.severity)) | later.disable
        options = {**self.options, **{k: {**self.options.get(k, {}), **v} for k, v in later.options.items()}}
        return LintConfig(disable, severity, options)

    @classmethod
    def from_mapping(cls, data: object, base: tuple[object, ...] = ()) -> LintConfig:
        """Build from ``{disable, severity, batches}``; raises ``LintConfigError`` with the path of a fault."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise LintConfigError(
                "the lint configuration must be a mapping with disable: and severity:", base
            )
        for key in data:
            if key not in KEYS:
                raise LintConfigError(
                    f"unknown lint configuration key {key!r} (use {', '.join(KEYS)})", (*base, key)
                )
        config = cls()
        disable = data.get("disable") or []
        for position, name in enumerate(disable if isinstance(disable, list) else [disable]):
            config.disable.add(_rule(name, (*base, "disable", position)))
        severity = data.get("severity") or {}
        if not isinstance(severity, dict):
            raise LintConfigError(
                "severity: must map rule ids to info, warning or error", (*base, "severity")
            )
        for name, level in severity.items():
            if level not in SEVERITIES:
                raise LintConfigError(
                    f"severity {level!r} for {name} is not one of {', '.join(SEVERITIES)}",
                    (*base, "severity", name),
                )
            config.severity[_rule(name, (*base, "severity", name))] = str(level)
        batches = data.get("batches") or {}
        if not isinstance(batches, dict):
            raise LintConfigError("batches: must map entity names to a batch size", (*base, "batches"))
        for entity, spec in batches.items():
            config.options.setdefault("batches", {})[entity] = _batch(spec, (*base, "batches", entity))
        transactional = data.get("transactional") or []
        if not isinstance(transactional, list) or not all(isinstance(n, str) for n in transactional):
            raise LintConfigError(
                "transactional: lists the entities written with TransactWriteItems", (*base, "transactional")
            )
        if transactional:
            config.options["transactional"] = {name: True for name in transactional}
        conventions = data.get("conventions") or {}
        if not isinstance(conventions, dict):
            raise LintConfigError("conventions: must be a mapping", (*base, "conventions"))
        for key, value in conventions.items():
            if key not in CONVENTION_KEYS:
                raise LintConfigError(
                    f"unknown lint convention {key!r} (use {', '.join(CONVENTION_KEYS)})",
                    (*base, "conventions", key),
                )
            config.options.setdefault("conventions", {})[key] = _convention(
                key, value, (*base, "conventions", key)
            )
        return config


def _batch(spec: object, path: tuple[object, ...]) -> tuple[int, int]:
    """``100`` or ``{items: 100, extra_actions: 1}`` -> (items, other actions in the same transaction)."""
    items, extra = (
        (spec, 0) if not isinstance(spec, dict) else (spec.get("items"), spec.get("extra_actions", 0))
    )
    if not isinstance(items, int) or items < 1 or not isinstance(extra, int) or extra < 0:
        raise LintConfigError("a batch is a positive item count or {items: N, extra_actions: M}", path)
    return items, extra


def _convention(key: str, value: object, path: tuple[object, ...]) -> object:
    """Validate one team convention: key template regexes, a result size, or ``scans: forbidden``."""
    if key == "key_templates":
        if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
            raise LintConfigError("key_templates: maps table/index names to {pk: regex, sk: regex}", path)
        for target, roles in value.items():
            for role, pattern in roles.items():
                if role not in ("pk", "sk"):
                    raise LintConfigError(
                        f"key_templates.{target}: use pk and sk, not {role!r}", (*path, target, role)
                    )
                try:
                    re.compile(str(pattern))
                except re.error as exc:
                    raise LintConfigError(
                        f"key_templates.{target}.{role}: bad regex: {exc}", (*path, target, role)
                    ) from None
        return value
    if key == "max_items_without_limit":
        if not isinstance(value, int) or value < 1:
            raise LintConfigError("max_items_without_limit: a positive number of items", path)
        return value
    if value not in ("forbidden", "allowed"):
        raise LintConfigError("scans: forbidden or allowed", path)
    return value


def _rule(name: object, path: tuple[object, ...]) -> str:
    try:
        return resolve(str(name))
    except KeyError as exc:
        raise LintConfigError(str(exc.args[0]), path) from None


def sidecar_for(design_path: str | Path) -> Path:
    """``design.yaml`` -> ``design.lint.yaml`` in the same directory."""
    path = Path(design_path)
    return path.with_name(path.name.rsplit(".", 1)[0] + SIDECAR_SUFFIX)


def load_sidecar(design_path: str | Path) -> LintConfig:
    """The sidecar's configuration, or an empty one when there is no sidecar."""
    path = sidecar_for(design_path)
    if not path.exists():
        return LintConfig()
    try:
        data = read_yaml(path)
    except YAMLFileError as exc:
        raise LintConfigError(str(exc)) from None
    return LintConfig.from_mapping(data)
