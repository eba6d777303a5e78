"""Natural values recovered from the key attributes of an item that lacks them (read through a
``KEYS_ONLY`` or ``INCLUDE`` index): ``REPO#{owner}#{name}`` holding ``REPO#ada#engine`` gives
``owner='ada'`` and ``name='engine'``.

A value is given back only when the key spells it one way: every field of the template reversible
(no filter, at most zero padding), one split of the key into fields (``REPO#a#b#c`` splits as
``a`` / ``b#c`` and as ``a#b`` / ``c``: neither is given), a value of the attribute's declared type
that passes its rules, the template rendering that value back to the very key, and every key of the
item that holds the field agreeing. Anything less is left out: a missing value is honest, a guessed
one is not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from ..design.entities import Attribute
from ..design.model import Entity
from ..design.templates import KeyTemplate, TemplateValueError
from ..design.templates.filters import zero_pad_width
from ..design.templates.parser import Field, Literal, parse
from ..design.validators import check_attribute

_BOOLEANS = {"true": True, "false": False}


def recovered_values(entity: Entity, item: Mapping[str, object]) -> dict[str, object]:
    """The declared attributes ``item`` lacks that its key attributes give back unambiguously."""
    if not _lacks_key_fields(entity, item):
        return {}  # a whole item (the common read): nothing to recover, nothing to parse
    found: dict[str, object] = {}
    disputed: set[str] = set()
    for template, stored in _stored_keys(entity, item):
        for name, value in _values_in_key(entity, template, stored).items():
            if name in item:
                continue
            if name in found and found[name] != value:
                disputed.add(name)  # two keys spell it two ways: neither is trusted
            found.setdefault(name, value)
    return {name: value for name, value in found.items() if name not in disputed}


def _lacks_key_fields(entity: Entity, item: Mapping[str, object]) -> bool:
    return any(
        name in entity.attributes and name not in item
        for template, _ in _stored_keys(entity, item)
        for name in template.fields
    )


def _stored_keys(entity: Entity, item: Mapping[str, object]) -> list[tuple[KeyTemplate, object]]:
    """Each key template of ``entity`` whose attribute ``item`` holds, with the stored value."""
    pairs: list[tuple[KeyTemplate, object]] = []
    for entry in entity.keys.values():
        for template, attribute in ((entry.pk, entry.partition_name), (entry.sk, entry.sort_name)):
            if template is not None and attribute is not None and attribute in item:
                pairs.append((template, item[attribute]))
    return pairs


def _values_in_key(entity: Entity, template: KeyTemplate, stored: object) -> dict[str, object]:
    """The field values ``stored`` was composed from, typed; empty unless all of them come back
    and render ``stored`` again (so a spelling the template would not write is never believed)."""
    if template.is_constant or not template.reversible:
        return {}
    texts = {template.fields[0]: stored} if template.is_bare_field else _unique_split(template.source, stored)
    if texts is None:
        return {}
    values: dict[str, object] = {}
    for fld in template.field_parts:
        attribute = entity.attributes.get(fld.name)
        value = None if attribute is None else _typed(attribute, fld, texts[fld.name])
        if value is None:
            return {}
        values[fld.name] = value
    return values if _renders(template, values, stored) else {}


def _renders(template: KeyTemplate, values: Mapping[str, object], stored: object) -> bool:
    try:
        return template.render(values) == stored
    except TemplateValueError:
        return False


def _typed(attribute: Attribute, fld: Field, text: object) -> object | None:
    """``text`` as a value of ``attribute`` that passes its rules, or None."""
    value = _converted(attribute, fld, text)
    if value is None or check_attribute(attribute, value, attribute.name):
        return None
    return value


def _converted(attribute: Attribute, fld: Field, text: object) -> object | None:
    if not isinstance(text, str):
        # A bare field's key stored as N or B: the value itself, if that is the attribute's type.
        return _number(text) if isinstance(text, Decimal | int) else text
    padded = zero_pad_width(fld.spec) is not None
    if attribute.type == "string":
        # Padding drops the value's own leading zeros ("42" and "042" both store as "00042").
        return None if padded else text
    if attribute.type == "number":
        return _number_text(text)
    if attribute.type == "boolean" and not padded:
        return _BOOLEANS.get(text)
    return None  # binary, maps, lists, sets never come back out of a text key


def _number_text(text: str) -> int | Decimal | None:
    try:
        return _number(Decimal(text))
    except InvalidOperation:
        return None


def _number(value: int | Decimal) -> int | Decimal | None:
    # Whole numbers as int, as numbers read from items are given back.
    if isinstance(value, int):
        return value
    if not value.is_finite():
        return None
    return int(value) if value == value.to_integral_value() else value


def _unique_split(source: str, key: object) -> dict[str, object] | None:
    """Field name -> text, when ``key`` splits into the template's fields exactly one way."""
    if not isinstance(key, str):
        return None
    shortest, longest = split_patterns(source)
    first, last = shortest.fullmatch(key), longest.fullmatch(key)
    # The match with each field as short as it can be and the one with each as long as it can be
    # are the same only when no other split exists.
    if first is None or last is None or first.groups() != last.groups():
        return None
    texts: dict[str, object] = {}
    for fld, text in zip(_fields(source), first.groups(), strict=True):
        if texts.setdefault(fld.name, text) != text:
            return None  # a field used twice must spell one value both times
    return texts


def _fields(source: str) -> list[Field]:
    return [part for part in parse(source).parts if isinstance(part, Field)]


@lru_cache(maxsize=512)
def split_patterns(source: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The regular expressions that split a key of template ``source`` into its fields, each field
    as short as it can be and as long as it can be; cached per template text."""
    return _pattern(source, greedy=False), _pattern(source, greedy=True)


def _pattern(source: str, *, greedy: bool) -> re.Pattern[str]:
    lazy = "" if greedy else "?"
    pieces: list[str] = []
    for part in parse(source).parts:
        if isinstance(part, Literal):
            pieces.append(re.escape(part.text))
        elif zero_pad_width(part.spec) is not None:
            pieces.append(rf"(-?\d+{lazy})")
        else:
            pieces.append(f"(.*{lazy})")
    return re.compile("".join(pieces), re.DOTALL)
