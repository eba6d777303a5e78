"""Validator behaviours the mutation run of design/validators.py found unpinned (docs/mutation.md)."""

from decimal import Decimal

import pytest

from tablewright.design.entities import Attribute
from tablewright.design.validators import (
    MAX_DIGITS,
    TTL_LATEST_SECONDS,
    ecma_classes,
    number_problem,
    pattern_regex,
    text_problem,
    ttl_problem,
    unstorable,
)


def rules(attr: Attribute, value) -> list[str]:
    return [rule for _, rule, _ in attr.validate(value)]


def messages(attr: Attribute, value) -> list[str]:
    return [message for _, _, message in attr.validate(value)]


# --- numbers DynamoDB can store ---------------------------------------------------------------


def test_integers_at_the_38_digit_edge():
    """38 digits are stored, 39 are not; a huge int with trailing zeros counts only its significant digits."""
    assert number_problem(10**38 - 1) is None
    assert number_problem(-(10**38) + 1) is None
    assert number_problem(10**38) is None  # one significant digit
    assert number_problem(-(10**38)) is None
    assert number_problem(10**38 + 1) == f"39 significant digits: DynamoDB stores at most {MAX_DIGITS}"
    assert number_problem(-(10**38) - 1) == "39 significant digits: DynamoDB stores at most 38"
    assert number_problem(Decimal("1" * 38)) is None
    assert number_problem(Decimal("1" * 39)) == "39 significant digits: DynamoDB stores at most 38"
    assert number_problem(Decimal("100.000")) is None  # trailing zeros are no precision
    assert number_problem(Decimal("0.00" + "1" * 38)) is None  # leading zeros neither


def test_number_magnitude_bounds_are_inclusive():
    """1E-130 and 9.9E+125 are stored; 1E-131 and 1E+126 are not."""
    assert number_problem(Decimal("1E-130")) is None
    assert number_problem(Decimal("9.9E+125")) is None
    assert number_problem(Decimal("1E-131")) == "magnitude 1E-131: DynamoDB stores 1E-130 to 9.99...E+125"
    assert number_problem(Decimal("1E+126")) == "magnitude 1E+126: DynamoDB stores 1E-130 to 9.99...E+125"
    assert number_problem(Decimal("Infinity")) == "Infinity is not a finite number"
    assert number_problem(Decimal("0E+500")) is None


def test_a_lone_surrogate_is_named_with_the_first_40_characters():
    text = "a" * 50 + "\ud800"
    assert text_problem(text) == f"{'a' * 40!r} is not UTF-8 text: a lone surrogate at character 50"
    assert text_problem("é") is None


# --- unstorable values, nested -----------------------------------------------------------------


def test_unstorable_reports_every_bad_value_with_its_path():
    bad = "x\udc80"
    assert unstorable(bad, "a") == [("a", text_problem(bad))]
    assert unstorable(10**39 + 1, "n") == [("n", "40 significant digits: DynamoDB stores at most 38")]
    assert unstorable(1.5, "f") == [("f", "1.5 is a float: store numbers as int or Decimal")]
    for fine in (None, True, b"\xff", bytearray(b"x"), "ok", 7, Decimal("1.5")):
        assert unstorable(fine, "v") == []
    assert unstorable({1: "a", bad: "b", "ok": {"deep": 1.5}}, "m") == [
        ("m", "map key 1 is not a string"),
        ("m", text_problem(bad)),
        ("m.ok.deep", "1.5 is a float: store numbers as int or Decimal"),
    ]
    assert unstorable(["ok", [2, 1.5]], "l") == [
        ("l[1][1]", "1.5 is a float: store numbers as int or Decimal")
    ]
    assert unstorable(("ok", 1.5), "t") == [("t[1]", "1.5 is a float: store numbers as int or Decimal")]
    assert unstorable({1.5}, "s") == [("s", "1.5 is a float: store numbers as int or Decimal")]
    assert unstorable(frozenset({bad}), "s") == [("s", text_problem(bad))]


# --- types --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, good, bad",
    [
        ("string_set", {"a", "b"}, [set(), {"a", 1}, ["a"], frozenset()]),
        ("number_set", frozenset({1, Decimal("2.5")}), [{1, 1.5}, {True}, {Decimal("NaN")}, set(), [1]]),
        ("binary_set", {b"a"}, [{b"a", "a"}, set(), b"a"]),
    ],
)
def test_sets_are_non_empty_and_of_one_member_type(kind, good, bad):
    assert rules(Attribute("s", kind), good) == []
    for value in bad:
        assert rules(Attribute("s", kind), value) == ["type"], value


def test_type_message_names_the_value_type_and_the_expected_one():
    assert messages(Attribute("n", "number"), "7") == [
        "'7' (str) is not number: expected a finite int or Decimal (float is not stored: it loses precision)"
    ]


# --- TTL ----------------------------------------------------------------------------------------


def test_ttl_problems_and_their_words():
    assert ttl_problem(None) is None
    assert ttl_problem(TTL_LATEST_SECONDS) is None  # 2100-01-01 itself is still seconds
    assert ttl_problem("1700000000") == (
        "'1700000000' (str) is not a Number: DynamoDB's TTL reads only a Number "
        "of epoch seconds, so the item would never expire"
    )
    assert ttl_problem(True).startswith("True (bool) is not a Number")
    assert ttl_problem(TTL_LATEST_SECONDS + 1) == (
        f"{TTL_LATEST_SECONDS + 1} is after 2100-01-01 in epoch seconds: DynamoDB's TTL reads epoch "
        "seconds, so the item would not expire this century"
    )
    hint = " (it looks like {}): DynamoDB's TTL reads epoch seconds, so the item would never expire"
    assert ttl_problem(10**11) == f"{10**11} is after 2100-01-01 in epoch seconds" + hint.format(
        "milliseconds"
    )
    assert ttl_problem(10**11 - 1).endswith("would not expire this century")
    assert ttl_problem(10**14) == f"{10**14} is after 2100-01-01 in epoch seconds" + hint.format(
        "microseconds or finer"
    )
    assert ttl_problem(10**14 - 1).endswith(
        "(it looks like milliseconds): DynamoDB's TTL reads epoch seconds, so the item would never expire"
    )


# --- formats ------------------------------------------------------------------------------------


def test_uuid4_messages_name_the_version_and_the_variant():
    attr = Attribute("id", format="uuid4")
    assert messages(attr, "550e8400-e29b-31d4-a716-446655440000") == [
        "'550e8400-e29b-31d4-a716-446655440000' is a UUID version 3, not version 4"
    ]
    for variant in "89abAB":
        assert rules(attr, f"550e8400-e29b-41d4-{variant}716-446655440000") == []
    for variant in "c7fX":
        assert rules(attr, f"550e8400-e29b-41d4-{variant}716-446655440000") == ["format"]


def test_date_and_time_zone_need_text():
    assert messages(Attribute("d", "number", format="date"), 20240115) == [
        "20240115 is not a date (YYYY-MM-DD)"
    ]
    assert rules(Attribute("d", format="date"), "2024-02-30") == ["format"]
    assert rules(Attribute("d", format="date"), "2024-02-29") == []
    assert rules(Attribute("tz", "number", format="iana_tz"), 5) == ["format"]
    assert messages(Attribute("tz", format="iana_tz"), "Europe/Nowhere") == [
        "'Europe/Nowhere' is not a known IANA time zone"
    ]


@pytest.mark.parametrize(
    "value, ok",
    [
        (1704067800000, True),
        (Decimal("1704067800000"), True),
        (Decimal("1704067800000.0"), True),
        (Decimal("1704067800000.5"), False),
        (Decimal("NaN"), False),
        (1704067800000.0, False),  # a float is no whole number of the design's types
        ("1704067800000", False),
        (True, False),
        (946_684_800_000, True),  # 2000-01-01 itself
        (4_102_444_800_000, True),  # 2100-01-01 itself
        (946_684_799_999, False),
        (4_102_444_800_001, False),
    ],
)
def test_epoch_ms_values(value, ok):
    assert (rules(Attribute("t", "number", format="epoch_ms"), value) == []) is ok


def test_epoch_messages():
    s = Attribute("t", "number", format="epoch_s")
    ms = Attribute("t", "number", format="epoch_ms")
    assert messages(s, Decimal("1.5")) == ["Decimal('1.5') is not a whole number of seconds since the epoch"]
    assert messages(Attribute("t", format="epoch_ms"), "x") == [
        "'x' is not a whole number of milliseconds since the epoch"
    ]
    assert messages(s, 4_102_444_801) == ["4102444801 is outside 2000-01-01..2100-01-01 in epoch_s"]
    assert messages(s, 410_244_480_001) == [
        "410244480001 is outside 2000-01-01..2100-01-01 in epoch_s (it looks like milliseconds)"
    ]
    assert messages(s, 410_244_480_000) == ["410244480000 is outside 2000-01-01..2100-01-01 in epoch_s"]
    assert messages(ms, 9_466_847_999) == [
        "9466847999 is outside 2000-01-01..2100-01-01 in epoch_ms (it looks like seconds)"
    ]
    assert messages(ms, 9_466_848_000) == ["9466848000 is outside 2000-01-01..2100-01-01 in epoch_ms"]
    assert messages(ms, 5_000_000_000_000) == ["5000000000000 is outside 2000-01-01..2100-01-01 in epoch_ms"]
    assert rules(Attribute("t", "number", format="epoch_ms", max=10), 5) == []  # declared range instead
    assert rules(Attribute("t", "number", format="epoch_ms", max=10), 11) == ["max"]


def test_regex_formats_need_text_and_name_what_they_want():
    assert messages(Attribute("hw", format="mac"), "aa:bb:cc:dd:ee:ff") == [
        "'aa:bb:cc:dd:ee:ff' is not a MAC address in the form AA:BB:CC:DD:EE:FF"
    ]
    assert rules(Attribute("hw", "number", format="mac"), 5) == ["format"]
    assert rules(Attribute("v", format="semver"), "1.0.16-rc.1+b2") == []
    assert rules(Attribute("v", format="semver"), "1.0") == ["format"]
    assert rules(Attribute("v", format="semver"), "\u0661.0.0") == ["format"]  # an Arabic-Indic digit
    assert rules(Attribute("h", format="sha256_hex"), "a" * 64) == []
    assert rules(Attribute("h", format="sha256_hex"), "A" * 64) == ["format"]


# --- ECMA patterns ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern, python",
    [
        (r"\d", "[0-9]"),
        (r"[\d]", "[0-9]"),
        (r"[\w-]", "[A-Za-z0-9_-]"),
        (r"\w\W\D", "[A-Za-z0-9_][^A-Za-z0-9_][^0-9]"),
        (r"[\D]", r"[\D]"),  # no ASCII spelling inside a class: kept as written
        (r"(?<y>\d)-\k<y>", "(?P<y>[0-9])-(?P=y)"),
        (r"(?<a>x)(?<b>y)\k<b>", "(?P<a>x)(?P<b>y)(?P=b)"),
        (r"[(?<x>a)]\d", r"[(?<x>a)][0-9]"),
        (r"[^]a]\d", "[^]a][0-9]"),
        (r"[]a]\d", "[]a][0-9]"),
        (r"[]]\d", "[]][0-9]"),
        (r"[^\d]\d", "[^0-9][0-9]"),
        (r"[a]\d[b]\w", "[a][0-9][b][A-Za-z0-9_]"),
        (r"\[\d\]", r"\[[0-9]\]"),
        ("a\\", "a\\"),
        (r"x]\d", "x][0-9]"),
        (r"[]\w]", "[]A-Za-z0-9_]"),  # a ']' first in a class is a member: the class goes on
        (r"[^]\d]", "[^]0-9]"),
        (r"[a\d]", "[a0-9]"),
        (r"[^a\w]\d", "[^aA-Za-z0-9_][0-9]"),
    ],
)
def test_ecma_patterns_become_python_patterns(pattern, python):
    assert ecma_classes(pattern) == python


def test_patterns_match_ascii_digits_and_named_backreferences():
    assert pattern_regex(r"(?<y>\d\d)-\k<y>").fullmatch("12-12")
    assert not pattern_regex(r"(?<y>\d\d)-\k<y>").fullmatch("12-13")
    assert not pattern_regex(r"\d+").fullmatch("\u0663")
    assert pattern_regex(r"[^]]+").fullmatch("abc")
    assert pattern_regex(r"[^]\d]+").fullmatch("ab")
    assert not pattern_regex(r"[^]\d]+").fullmatch("a5")


# --- null, nesting, precision -------------------------------------------------------------------


def test_null_is_accepted_only_where_declared():
    assert Attribute("x").validate(None) == [("x", "nullable", "is null but the attribute is not nullable")]
    assert Attribute("x", nullable=True).validate(None) == []
    assert Attribute("x", "null").validate(None) == []
    assert Attribute("x", "number").validate(None) == [
        ("x", "nullable", "is null but the attribute is not nullable")
    ]


def test_a_type_without_a_hint_is_named_as_expected():
    assert Attribute("x", "null").validate("a") == [("x", "type", "'a' (str) is not null: expected null")]


def test_every_problem_of_a_map_and_a_list_is_reported():
    caps = Attribute(
        "m",
        "map",
        max_length=1,
        attributes={"a": Attribute("a", "number"), "r": Attribute("r", required=True)},
        values=Attribute("v", "boolean"),
    )
    assert [(path, rule) for path, rule, _ in caps.validate({"a": "x", "b": 1, "c": 2})] == [
        ("m", "max_length"),
        ("m.a", "type"),
        ("m.r", "required"),
        ("m.b", "type"),
        ("m.c", "type"),
    ]
    assert ("m.r", "required", "is required but missing") in caps.validate({})
    tags = Attribute("l", "list", max_length=1, items=Attribute("i", enum=("a",)))
    assert [(path, rule) for path, rule, _ in tags.validate(["x", "a", "y"])] == [
        ("l", "max_length"),
        ("l[0]", "enum"),
        ("l[2]", "enum"),
    ]


def test_precision_refuses_extra_digits_unless_truncating():
    value = "2024-01-15T10:30:00.123Z"
    assert Attribute("t", format="rfc3339", precision="s").validate(value) == [
        (
            "t",
            "precision",
            "'2024-01-15T10:30:00.123Z' has 3 fraction digits but the attribute's precision is s (0 digits); "
            "declare a finer precision, or truncate: true to drop them",
        )
    ]
    assert Attribute("t", format="rfc3339", precision="s", truncate=True).validate(value) == []


def test_length_rules_ignore_values_without_a_length():
    assert rules(Attribute("n", "number", max_length=2, min_length=1), 123) == []
    assert rules(Attribute("b", "binary", max_length=2), b"abc") == ["max_length"]
    assert rules(Attribute("s", "string_set", min_length=2), {"a"}) == ["min_length"]


def test_items_apply_to_lists_only():
    assert Attribute("m", "map", items=Attribute("i", "number")).validate({"a": 1}) == []
