"""``KeyTemplate``: render attribute values into a key, render prefixes, and parse keys back."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal

from ..timeutil import PrecisionError, normalise_rfc3339
from .filters import (
    BUCKET_FILTERS,
    FILTERS,
    TemplateValueError,
    Zoned,
    apply_spec,
    canonical_integer,
    canonical_number,
    to_text,
)
from .parser import Field, Literal, parse
from .tokenizer import TemplateSyntaxError

KeyValue = str | int | Decimal | bytes


def _is_zero_pad(spec: str | None) -> bool:
    return spec is not None and len(spec) > 1 and spec[0] == "0" and spec[1:].isdigit()


class KeyTemplate:
    """A key template such as ``USER#{userId}#{startUtc|year}`` bound to its fields' units.

    ``units`` maps a field name to its timestamp unit (``epoch_ms``, ``epoch_s``, ``rfc3339``) so
    date filters can read numbers. Rendering returns None when any field is missing, which is how
    sparse indexes fall out of the templates rather than being hand-coded.
    """

    def __init__(
        self,
        source: str,
        units: Mapping[str, str] | None = None,
        precisions: Mapping[str, tuple[str, bool]] | None = None,
    ) -> None:
        self.source = source
        self.units = dict(units or {})
        # field -> (precision, truncate) of rfc3339 attributes: a timestamp inserted as text gets
        # its attribute's one spelling, whether it comes from an item or a query parameter.
        self.precisions = dict(precisions or {})
        self._parts = parse(source).parts
        for part in self._parts:
            if isinstance(part, Field):
                for call in part.filters:
                    if call.name not in FILTERS:
                        known = ", ".join(sorted(FILTERS))
                        raise TemplateSyntaxError(
                            f"unknown filter {call.name!r} (known: {known})", source, source.find(call.name)
                        )
        self._regex: re.Pattern[str] | None = None
        # What every render asks of the parsed template, worked out once (the parts never change):
        # the fields, whether it is one bare field, each part as (literal text, None) or (None,
        # field), and the fields ``run_on_field`` asks about with the literal that follows each.
        self._fields = tuple(dict.fromkeys(p.name for p in self._parts if isinstance(p, Field)))
        self._field_parts = tuple(p for p in self._parts if isinstance(p, Field))
        self._is_bare = len(self._parts) == 1 and isinstance(self._parts[0], Field)
        self._steps = tuple(
            (part.text, None) if isinstance(part, Literal) else (None, part) for part in self._parts
        )
        self._run_on = tuple(
            (part, follower.text)
            for part, follower in zip(self._parts, self._parts[1:])
            if isinstance(part, Field)
            and isinstance(follower, Literal)
            and not part.filters
            and not part.spec
        )

    def __repr__(self) -> str:
        return f"KeyTemplate({self.source!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeyTemplate) and (self.source, self.units) == (other.source, other.units)

    def __hash__(self) -> int:
        return hash(self.source)

    @property
    def fields(self) -> tuple[str, ...]:
        """Attribute (or parameter) names used, in order, without duplicates."""
        return self._fields

    @property
    def field_parts(self) -> tuple[Field, ...]:
        """The parsed fields, with their specs and filters (for tools such as lint)."""
        return self._field_parts

    @property
    def is_constant(self) -> bool:
        """True for a template with no fields (e.g. the sensor design's ``gsi1pk: devices``)."""
        return not self.fields

    @property
    def is_bare_field(self) -> bool:
        """True when the template is one field with no literal text: its value is stored unchanged."""
        return self._is_bare

    @property
    def reversible(self) -> bool:
        """True when ``parse`` recovers every field (no filters; at most zero padding)."""
        return all(self._field_reversible(f) for f in self.field_parts)

    def bucket_step(self, name: str) -> str | None:
        """The time bucket (``year``, ``month``, ``day``, ``hour``) a date filter puts ``name`` in."""
        for fld in self.field_parts:
            if fld.name == name:
                for call in fld.filters:
                    if call.name in BUCKET_FILTERS:
                        return BUCKET_FILTERS[call.name]
        return None

    def render(self, values: Mapping[str, object]) -> KeyValue | None:
        """Compose the key from ``values``; None when a field is missing or None (item not in the index).

        A bare single-field template returns the value's own type (a number stays a number, for
        ``N`` keys); anything else returns a string. Raises ``TemplateValueError`` when a value
        cannot go through a filter.
        """
        if self._is_bare:
            value = self._field_value(self._parts[0], values)  # type: ignore[arg-type]
            return None if value is None else self._bare(value)
        texts: list[str] = []
        for text, fld in self._steps:
            if fld is None:
                texts.append(text)  # type: ignore[arg-type]
                continue
            value = self._field_value(fld, values)
            if value is None:
                return None
            # Fast path: text and ints are their own key text (to_text gives str(value) for both).
            kind = type(value)
            texts.append(value if kind is str else str(value) if kind is int else to_text(value))
        return "".join(texts)

    def run_on_field(self, values: Mapping[str, object]) -> tuple[str, str] | None:
        """``(field, separator)`` when a field's text contains the literal that follows it, else None.

        ``{a}#{b}`` renders ``x#y`` + ``z`` and ``x`` + ``y#z`` as the same key ``x#y#z``: two items
        would share one key, and reading the key back cannot tell which values made it. Writes refuse
        such a value; reads do not ask (an item stored before the refusal existed is still found).
        Only fields stored as given are asked (no filter, no format spec): a filter's output has a
        shape of its own (``|day`` is ``2024-01-15`` whatever follows it).
        """
        for part, separator in self._run_on:
            value = self._field_value(part, values)
            if isinstance(value, str) and (value + separator).find(separator) != len(value):
                return part.name, separator
        return None

    def render_prefix(self, values: Mapping[str, object]) -> str:
        """Render up to the first missing field (including the literal before it), for begins_with."""
        texts: list[str] = []
        for part in self._parts:
            if isinstance(part, Literal):
                texts.append(part.text)
                continue
            value = self._field_value(part, values)
            if value is None:
                break
            texts.append(to_text(value))
        return "".join(texts)

    def parse(self, key: object) -> dict[str, object]:
        """Recover field values from a composed key.

        Fields without filters come back as text (zero-padded ones as ``int``); fields whose filters
        lose information (case, hashing, date parts) are left out. Raises ``ValueError`` when the
        key does not have this template's shape.
        """
        if self.is_bare_field and self.field_parts[0].spec is None:  # the key is the value itself
            return {self.fields[0]: key} if self._field_reversible(self.field_parts[0]) else {}
        if not isinstance(key, str):
            raise ValueError(f"key {key!r} is not a string; template {self.source!r} composes strings")
        match = self._pattern().fullmatch(key)
        if not match:
            raise ValueError(f"key {key!r} does not match template {self.source!r}")
        result: dict[str, object] = {}
        for index, fld in enumerate(self.field_parts):
            if self._field_reversible(fld):
                text = match.group(f"f{index}")
                result[fld.name] = int(text) if _is_zero_pad(fld.spec) else text
        return result

    def _field_value(self, fld: Field, values: Mapping[str, object]) -> object:
        value = _lookup(values, fld.name)
        if value is None:
            return None
        try:
            if not fld.filters and isinstance(value, str) and fld.name in self.precisions:
                precision, truncate = self.precisions[fld.name]
                try:
                    value = normalise_rfc3339(value, precision, truncate=truncate)
                except PrecisionError as exc:
                    raise TemplateValueError(str(exc)) from None
            if fld.filters:  # the unit is only the filters' business
                unit = self.units.get(fld.name.lstrip(":"))
                for call in fld.filters:
                    value = FILTERS[call.name](value, call.arg, unit)
            if fld.spec is not None:
                value = apply_spec(value, fld.spec)
        except TemplateValueError as exc:
            raise TemplateValueError(
                f"{exc} (field {{{fld.name}}} of template {self.source!r})", fld.name, self.source
            ) from None
        return value

    @staticmethod
    def _bare(value: object) -> KeyValue:
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            # One spelling per number in N keys too: Decimal("7.0") and 7 are one key.
            whole = canonical_integer(value)
            return whole if whole is not None else Decimal(canonical_number(value))
        if isinstance(value, datetime | Zoned | bool):
            return to_text(value)
        return value  # type: ignore[return-value]

    @staticmethod
    def _field_reversible(fld: Field) -> bool:
        return not fld.filters and (fld.spec is None or _is_zero_pad(fld.spec))

    def _pattern(self) -> re.Pattern[str]:
        if self._regex is None:
            pieces: list[str] = []
            fields = self.field_parts
            index = 0
            for position, part in enumerate(self._parts):
                if isinstance(part, Literal):
                    pieces.append(re.escape(part.text))
                    continue
                last = position == len(self._parts) - 1
                body = r"-?\d+" if _is_zero_pad(part.spec) else (".*" if last else ".*?")
                pieces.append(f"(?P<f{fields.index(part, index)}>{body})")
                index += 1
            self._regex = re.compile("".join(pieces), re.DOTALL)
        return self._regex


def _lookup(values: Mapping[str, object], name: str) -> object:
    """Find ``name`` (a dotted path into maps is allowed: ``capabilities.model``)."""
    if name in values:
        return values[name]
    current: object = values
    for piece in name.split("."):
        if not isinstance(current, Mapping) or piece not in current:
            return None
        current = current[piece]
    return current
