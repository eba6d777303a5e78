"""Property tests of the design's guards: every validator matches the whole value, every number has
one spelling in a key, every timestamp one spelling per attribute (issue 10, requirement 1)."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tablewright.design import loads
from tablewright.design.entities import Attribute
from tablewright.design.templates import KeyTemplate, TemplateValueError
from tablewright.design.timeutil import PrecisionError, normalise_rfc3339
from tablewright.design.validators import CHARSETS

# Characters a format or class never contains: whitespace, line breaks, controls, non-ASCII digits
# and letters, and ASCII punctuation no format below uses.
OUTSIDE = st.one_of(
    st.sampled_from(
        list("\n\r\t \x00\x0b\x0c\x1f\x7f\u00a0\u2028\u0663\u00e9\uff11!\"'`~;,<>?*&^%$#@(){}[]|\\")
    ),
    st.characters(codec="utf-8", exclude_characters="-_.:+/").filter(
        lambda c: not (c.isascii() and c.isalnum())
    ),
)


def _hex(n: int, upper: bool = False) -> st.SearchStrategy[str]:
    alphabet = "0123456789ABCDEF" if upper else "0123456789abcdef"
    return st.text(alphabet, min_size=n, max_size=n)


VALID_BY_FORMAT: dict[str, st.SearchStrategy[str]] = {
    "uuid": st.uuids().map(str),
    "uuid4": st.uuids(version=4).map(str),
    "mac": st.lists(_hex(2, upper=True), min_size=6, max_size=6).map(":".join),
    "rfc3339": st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2999, 1, 1)).map(
        lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")
    ),
    "date": st.dates().map(lambda d: d.isoformat()).filter(lambda t: len(t) == 10),
    "iana_tz": st.sampled_from(["UTC", "America/New_York", "Europe/Berlin", "America/Denver", "Asia/Tokyo"]),
    "sha256_hex": st.binary(max_size=40).map(lambda b: hashlib.sha256(b).hexdigest()),
    "semver": st.tuples(st.integers(0, 99), st.integers(0, 99), st.integers(0, 99)).map(
        lambda t: ".".join(map(str, t))
    ),
}


def _spoiled(value: str, char: str, where: int) -> str:
    position = [len(value), 0, len(value) // 2][where]
    return value[:position] + char + value[position:]


@pytest.mark.parametrize("fmt", sorted(VALID_BY_FORMAT))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_format_matches_the_whole_value(fmt, data):
    attribute = Attribute("a", format=fmt)
    value = data.draw(VALID_BY_FORMAT[fmt])
    assert attribute.validate(value) == []
    char = data.draw(OUTSIDE)
    spoiled = _spoiled(value, char, data.draw(st.integers(0, 2)))
    assert [rule for _, rule, _ in attribute.validate(spoiled)] == ["format"], spoiled


def test_a_trailing_newline_never_registers_a_second_device():
    mac = Attribute("hardware_id", format="mac")
    assert mac.validate("AA:BB:CC:DD:EE:FF") == []
    assert mac.validate("AA:BB:CC:DD:EE:FF\n")[0][1] == "format"


@pytest.mark.parametrize(
    "pattern, outside",
    [
        (r"^[a-z0-9-]+$", "\n\u0663\x00A_"),
        (r"[a-z0-9-]+", "\n\u0663\x00A_"),
        (r"^SC-[0-9A-F]{8}$", "\n\u0663a "),
        (r"\d{4}-\d{2}", "\n\u0663\uff11x"),  # \d is ASCII, as in JSON Schema
        (r"^[^@\s]+@[^@\s]+$", "\n\r\t @\u2028\u00a0"),  # \s stays Unicode, as in JSON Schema
        (r"^\w+$", "\n\u00e9\u0663-"),
    ],
)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_pattern_matches_the_whole_value_anchored_or_not(pattern, outside, data):
    attribute = Attribute("a", pattern=pattern)
    value = data.draw(
        st.from_regex(pattern.strip("^$"), fullmatch=True, alphabet=st.characters(codec="ascii"))
    )
    assume("\n" not in value)
    assert attribute.validate(value) == []
    char = data.draw(st.sampled_from(list(outside) + ["\r\n"]))
    where = data.draw(st.integers(0, 2))
    assume(not (char == "@" and where != 0))  # an @ elsewhere would be a second @, also refused
    spoiled = _spoiled(value, char, where)
    assert "pattern" in [rule for _, rule, _ in attribute.validate(spoiled)], spoiled


@pytest.mark.parametrize("charset", [*sorted(set(CHARSETS) - {"ascii"}), "[A-Za-z0-9_:-]"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_charset_matches_every_character(charset, data):
    attribute = Attribute("a", charset=charset)
    allowed = CHARSETS.get(charset, charset)
    value = data.draw(st.from_regex(f"(?:{allowed})*", fullmatch=True, alphabet=st.characters(codec="ascii")))
    assert attribute.validate(value) == []
    char = data.draw(st.sampled_from(["\n", "\u00e9", "\u0663", "\x00", "\t", "\U0001f600"]))
    assume(not (charset == "printable" and char == " "))
    spoiled = _spoiled(value, char, data.draw(st.integers(0, 2)))
    assert [rule for _, rule, _ in attribute.validate(spoiled)] == ["charset"], spoiled


def test_ascii_charset_refuses_non_ascii_anywhere():
    attribute = Attribute("a", charset="ascii")
    assert attribute.validate("plain\n") == []  # a newline is ASCII
    assert attribute.validate("caf\u00e9")[0][1] == "charset"


def test_prefixed_format_matches_the_whole_rest():
    attribute = Attribute("eventId", prefix="evt_", format="uuid4")
    good = f"evt_{uuid.uuid4()}"
    assert attribute.validate(good) == []
    assert attribute.validate(good + "\n")[0][1] == "format"


# ---------------------------------------------------------------------------------------- numbers


def _spellings(number: Decimal) -> st.SearchStrategy[object]:
    """Ways a caller might write ``number``: int, trailing zeros, exponent forms, float when exact."""
    forms: list[object] = [number, Decimal(str(number)), number.normalize(), number + Decimal("0.000")]
    forms.append(Decimal(f"{number.normalize():E}"))  # 7E+0, 1.704067800000E+12
    forms.append(Decimal(number.scaleb(2)).scaleb(-2))
    if number == number.to_integral_value():
        forms += [int(number), Decimal(f"{int(number)}.0")]
    if number == Decimal(repr(float(number))):
        forms.append(float(number))
    return st.sampled_from(forms)


NUMBERS = st.one_of(
    st.integers(-(10**15), 10**15).map(Decimal),
    st.decimals(min_value=-(10**9), max_value=10**9, places=4, allow_nan=False, allow_infinity=False),
)


@settings(max_examples=200, deadline=None)
@given(number=NUMBERS, data=st.data())
def test_one_key_per_number_whatever_its_spelling(number, data):
    a, b = data.draw(_spellings(number)), data.draw(_spellings(number))
    for source in ("N#{n}", "{n}#tail", "{n|sha256:4}", "{n|shard:10}", "X#{n|upper}"):
        template = KeyTemplate(source)
        assert template.render({"n": a}) == template.render({"n": b}), (source, a, b)
    bare = KeyTemplate("{n}")
    assert bare.render({"n": a}) == bare.render({"n": b}) == number
    text = KeyTemplate("N#{n}").render({"n": a})
    assert "E" not in text and "e" not in text
    assert Decimal(text[2:]) == number


@settings(max_examples=200, deadline=None)
@given(whole=st.integers(0, 10**13 - 1), data=st.data())
def test_padded_integers_have_one_spelling(whole, data):
    template = KeyTemplate("{ts:013}#{batch}")
    spelled = data.draw(_spellings(Decimal(whole)))
    assert template.render({"ts": spelled, "batch": "b"}) == f"{whole:013d}#b"


def test_the_issue_spellings():
    template = KeyTemplate("P#{n}")
    assert template.render({"n": Decimal("7.0")}) == "P#7"
    assert template.render({"n": Decimal("1704067800000.000")}) == "P#1704067800000"


@settings(max_examples=100, deadline=None)
@given(number=st.decimals(min_value=0, max_value=10**9, places=3, allow_nan=False, allow_infinity=False))
def test_a_fraction_where_a_padded_integer_is_declared_is_refused(number):
    assume(number != number.to_integral_value())
    with pytest.raises(TemplateValueError) as caught:
        KeyTemplate("{timestamp_ms:013}#{batch_id}").render({"timestamp_ms": number, "batch_id": "b"})
    message = str(caught.value)
    assert "not a whole number" in message
    assert "{timestamp_ms}" in message and "'{timestamp_ms:013}#{batch_id}'" in message


# ---------------------------------------------------------------------------------------- timestamps

INSTANTS = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2199, 12, 31))
DIGITS = {"s": 0, "ms": 3, "us": 6}


def _spell(moment: datetime, digits: int) -> str:
    fraction = f"{moment.microsecond:06d}".ljust(9, "0")[:digits]
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + (f".{fraction}" if digits else "") + "Z"


def _at_precision(moment: datetime, precision: str) -> datetime:
    keep = 10 ** (6 - DIGITS[precision])
    return moment.replace(microsecond=moment.microsecond // keep * keep)


@pytest.mark.parametrize("precision", ["s", "ms", "us"])
@settings(max_examples=150, deadline=None)
@given(moment=INSTANTS, data=st.data())
def test_one_spelling_per_instant(precision, moment, data):
    moment = _at_precision(moment, precision)
    exact = DIGITS[precision]
    shortest = len(f"{moment.microsecond:06d}".rstrip("0")) if moment.microsecond else 0
    digits = data.draw(st.integers(shortest, 9))
    spelled = _spell(moment, digits)
    assert normalise_rfc3339(spelled, precision) == _spell(moment, exact)


@pytest.mark.parametrize("precision", ["s", "ms"])
@settings(max_examples=150, deadline=None)
@given(moment=INSTANTS)
def test_finer_digits_are_refused_or_truncated_never_kept(precision, moment):
    assume(moment != _at_precision(moment, precision))
    spelled = _spell(moment, 6)
    with pytest.raises(PrecisionError, match=f"precision is {precision}"):
        normalise_rfc3339(spelled, precision)
    assert normalise_rfc3339(spelled, precision, truncate=True) == _spell(
        _at_precision(moment, precision), DIGITS[precision]
    )


@pytest.mark.parametrize("precision", ["s", "ms", "us"])
@settings(max_examples=150, deadline=None)
@given(a=INSTANTS, b=INSTANTS, digits=st.tuples(st.integers(0, 9), st.integers(0, 9)))
def test_normalised_spellings_sort_as_the_instants_do(precision, a, b, digits):
    a, b = _at_precision(a, precision), _at_precision(b, precision)
    texts = [
        normalise_rfc3339(_spell(m, max(d, DIGITS[precision])), precision) for m, d in zip((a, b), digits)
    ]
    assert (texts[0] < texts[1]) == (a < b) and (texts[0] == texts[1]) == (a == b)


_DESIGN = """
version: 1
tables:
  t: {partition_key: PK, sort_key: SK}
entities:
  Item:
    table: t
    attributes:
      id: {type: string, required: true}
      at: {type: string, format: rfc3339, precision: %s}
      seen: {type: string, format: rfc3339, pattern: "^\\\\d{4}-\\\\d{2}-\\\\d{2}T\\\\d{2}:\\\\d{2}:\\\\d{2}\\\\.\\\\d{3}Z$"}
      plain: {type: string, format: rfc3339}
      created: {type: string, format: rfc3339, precision: ms, computed: created_at}
    keys:
      table: {pk: "ITEM#{id}", sk: "AT#{at}"}
"""


def test_precision_is_declared_or_inferred_per_attribute():
    design = loads(_DESIGN % "ms")
    attributes = design.entities["Item"].attributes
    assert attributes["at"].precision == "ms"
    assert attributes["seen"].precision == "ms"  # inferred from the pattern the design gives
    assert attributes["plain"].precision == "s"  # the default: what created_at has always written
    entity = design.entities["Item"]
    item = entity.to_item(
        {"id": "a", "at": "2025-12-31T23:59:59Z"}, now=datetime(2025, 1, 1, 0, 0, 0, 7000, UTC)
    )
    assert item["at"] == "2025-12-31T23:59:59.000Z" and item["SK"] == "AT#2025-12-31T23:59:59.000Z"
    assert item["created"] == "2025-01-01T00:00:00.007Z"
    problems = entity.validate({"id": "a", "at": "2025-01-01T00:00:00Z", "plain": "2025-12-31T00:00:00.500Z"})
    assert [(v.attribute, v.rule) for v in problems] == [("plain", "precision")]


def test_a_precision_outside_s_ms_us_does_not_load():
    with pytest.raises(Exception, match="precision"):
        loads(_DESIGN % "ns")


# ---------------------------------------------------------------------------------------- computed

_COMPUTED = """
version: 1
tables:
  t: {partition_key: PK, sort_key: SK, ttl: expires}
entities:
  Reading:
    table: t
    attributes:
      id: {type: string, required: true}
      code: {type: string}
      ts: {type: number, format: epoch_ms, required: true}
      label: {type: string, pattern: "[A-Z]{3}", computed: {template: "{code|upper}"}}
      expires: {type: number, computed: {ttl: {from: ts, unit: ms, retention: 1d}}}
    keys:
      table: {pk: "R#{id}", sk: "{ts:013}"}
"""
NOW = datetime(2026, 1, 1, tzinfo=UTC)


@settings(max_examples=150, deadline=None)
@given(code=st.text("abcXYZ1-", min_size=1, max_size=5))
def test_computed_templates_are_checked_like_given_values(code):
    entity = loads(_COMPUTED).entities["Reading"]
    item = entity.to_item({"id": "r", "code": code, "ts": 1767225600000}, now=NOW)
    problems = entity.computed_violations(item, NOW)
    computed = code.upper()
    valid = len(computed) == 3 and computed.isalpha() and computed.isascii()
    assert (problems == []) is valid
    if not valid:
        assert problems[0].attribute == "label" and "computed value" in problems[0].message


@settings(max_examples=150, deadline=None)
@given(age_days=st.integers(-1000, 4000))
def test_a_computed_ttl_dynamodb_would_ignore_is_refused(age_days):
    entity = loads(_COMPUTED).entities["Reading"]
    ts = int((NOW - timedelta(days=age_days)).timestamp() * 1000)
    item = entity.to_item({"id": "r", "ts": ts}, now=NOW)
    problems = [v for v in entity.computed_violations(item, NOW) if v.rule == "ttl"]
    expires = item["expires"]
    ignored = expires < int((NOW - timedelta(days=5 * 365)).timestamp())
    assert bool(problems) is ignored
    if ignored:
        assert "never expire" in problems[0].message
