"""Key-template behaviours the mutation run of design/templates/ found unpinned (docs/mutation.md)."""

import hashlib
import time
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from tablewright.design.templates import KeyTemplate, Literal, TemplateSyntaxError, TemplateValueError, parse
from tablewright.design.templates.filters import canonical_number, zero_pad_width


def render(source: str, units=None, **values):
    return KeyTemplate(source, units).render(values)


# --- values as key text -------------------------------------------------------------------------


def test_booleans_are_lower_case_words():
    assert render("F#{flag}", flag=True) == "F#true"
    assert render("F#{flag}", flag=False) == "F#false"
    assert render("{flag}", flag=True) == "true"  # a bare field too
    assert render("{flag}", flag=False) == "false"


def test_a_zoned_time_is_its_local_wall_clock_to_the_millisecond():
    moment = datetime(2026, 2, 21, 21, 30, 0, 123456, tzinfo=UTC)
    assert render("{ts|tz:Asia/Tokyo}#x", ts=moment) == "2026-02-22T06:30:00.123+09:00#x"
    assert render("{ts|tz:Asia/Tokyo}", ts=moment) == "2026-02-22T06:30:00.123+09:00"


def test_numbers_have_one_plain_spelling():
    assert render("{n}#x", n=Decimal("1E-7")) == "0.0000001#x"
    assert render("{n}#x", n=Decimal("-1.50")) == "-1.5#x"
    with pytest.raises(TemplateValueError, match="is a boolean, not a number"):
        canonical_number(True)
    with pytest.raises(
        TemplateValueError, match="Infinity is not a finite number and cannot be part of a key"
    ):
        render("{n}#x", n=Decimal("Infinity"))


def test_times_outside_the_representable_range_are_refused_in_words():
    early = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))
    with pytest.raises(TemplateValueError, match="is outside the instants a timestamp can hold"):
        render("{ts}#x", ts=early)
    with pytest.raises(TemplateValueError, match="is outside the instants a timestamp can hold"):
        render("{ts|year}", ts=early)
    late = datetime(9999, 12, 31, 23, 0, tzinfo=UTC)
    with pytest.raises(TemplateValueError, match="is outside the instants Asia/Tokyo can show"):
        render("{ts|tz:Asia/Tokyo}#x", ts=late)


def test_binary_values_need_a_hash():
    with pytest.raises(
        TemplateValueError, match=r"^binary value cannot be embedded in a string key; hash it with \|sha256"
    ):
        render("{b|upper}#x", b=b"ab")


# --- filters ------------------------------------------------------------------------------------


def test_sha256_digests_bytes_raw_and_text_as_utf8():
    assert render("{b|sha256}", b=b"\x00\xff") == hashlib.sha256(b"\x00\xff").hexdigest()
    assert render("{s|sha256}", s="é") == hashlib.sha256("é".encode()).hexdigest()
    assert render("{s|sha256:1}", s="é") == hashlib.sha256("é".encode()).hexdigest()[:2]
    with pytest.raises(TemplateValueError, match="filter sha256 needs a positive whole number, got '0'"):
        render("{s|sha256:0}", s="a")
    with pytest.raises(TemplateValueError, match="filter sha256 needs a positive whole number, got 'x'"):
        render("{s|sha256:x}", s="a")


def test_shard_is_the_first_8_digest_bytes_modulo_the_count():
    def shard(data: bytes, count: int) -> int:
        return int.from_bytes(hashlib.sha256(data).digest()[:8], "big") % count

    count = 1_000_003
    assert render("{s|shard:1000003}", s="device-7") == shard(b"device-7", count)
    assert render("{b|shard:1000003}", b=b"\x01\x02") == shard(b"\x01\x02", count)
    assert render("S#{n|shard:1000003}", n=42) == f"S#{shard(b'42', count)}"
    with pytest.raises(TemplateValueError, match=r"filter shard needs a number argument, as in \|shard:10"):
        render("{s|shard}", s="a")
    with pytest.raises(TemplateValueError, match="filter shard needs a positive whole number"):
        render("{s|shard:0}", s="a")


def test_tz_needs_a_known_zone():
    with pytest.raises(TemplateValueError, match=r"^filter tz needs an IANA zone, as in \|tz:America/Denver"):
        render("{ts|tz}#x", ts=datetime(2026, 1, 1, tzinfo=UTC))
    with pytest.raises(TemplateValueError, match=r"unknown time zone 'Mars/Base' \(use an IANA name"):
        render("{ts|tz:Mars/Base}#x", ts=datetime(2026, 1, 1, tzinfo=UTC))


def test_format_reads_numbers_in_the_fields_unit_and_keeps_escaped_percents():
    ms = int(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp() * 1000) + 7
    assert render("{ts|format:%Y-%m-%d %H:%M:%S.%L}", {"ts": "epoch_ms"}, ts=ms) == "2026-01-02 03:04:05.007"
    moment = datetime(2026, 1, 1, 0, 0, 0, 5000, tzinfo=UTC)
    assert render("{ts|format:%%L=%L}", ts=moment) == "%L=005"
    assert render("{ts|format:100%%}", ts=moment) == "100%"
    with pytest.raises(
        TemplateValueError, match=r"^filter format needs a strftime pattern, as in \|format:%Y-%m-%d"
    ):
        render("{ts|format}", ts=moment)


def test_date_parts_are_taken_in_utc():
    moment = datetime(2026, 1, 1, 1, 30, tzinfo=timezone(timedelta(hours=3)))  # 2025-12-31 22:30 UTC
    assert render("{ts|year}", ts=moment) == "2025"
    assert render("{ts|hour}", ts=moment) == "2025-12-31T22"
    assert render("{ts|format:%H}", ts=moment) == "22"


def test_bool_filter_words():
    assert render("{b|bool}", b=True) == "true"
    assert render("{b|bool}", b=False) == "false"
    assert render("{b|bool:on,off}", b=True) == "on"
    assert render("{b|bool:on,off}", b=False) == "off"
    assert render("{b|bool:on,off,x}", b=False) == "off,x"  # the first comma splits
    with pytest.raises(TemplateValueError, match="filter bool needs a boolean, got 'yes'"):
        render("{b|bool}", b="yes")


def test_pad_filter_zero_pads_numbers_and_digit_strings():
    assert render("{n|pad:5}", n=42) == "00042"
    assert render("{s|pad:4}", s="7") == "0007"
    with pytest.raises(TemplateValueError, match=r"filter pad needs a number argument, as in \|pad:10"):
        render("{n|pad}", n=42)
    with pytest.raises(TemplateValueError, match="more than the template's zero padding"):
        render("{n|pad:3}", n=1234)


def test_case_and_date_filters():
    assert render("{s|upper}", s="aé") == "AÉ"
    assert render("{n|lower}#x", n=Decimal("1.50")) == "1.5#x"
    assert render("{ts|month}", {"ts": "epoch_s"}, ts=1_767_225_600) == "2026-01"


# --- format specs -------------------------------------------------------------------------------


def test_zero_pad_width():
    assert zero_pad_width("05") == 5
    assert zero_pad_width("013d") == 13
    assert zero_pad_width("05d") == 5
    for spec in (None, "5", "0", "d", ">5", "0>5", ".2f", "5d"):
        assert zero_pad_width(spec) is None, spec


def test_a_value_wider_than_its_zero_padding_is_refused():
    with pytest.raises(
        TemplateValueError, match="123456 has 6 digits, more than the template's zero padding :05"
    ):
        render("{n:05}#x", n=123456)
    with pytest.raises(TemplateValueError, match="more than the template's zero padding :05d"):
        render("{n:05d}#x", n=123456)
    with pytest.raises(TemplateValueError, match="more than the template's zero padding :05"):
        render("{s:05}#x", s="123456")
    assert render("{n:05}#x", n=12345) == "12345#x"
    with pytest.raises(TemplateValueError, match="more than the template's zero padding :05"):
        render("{n:05}#x", n=Decimal("123456"))  # a whole Decimal is padded, and refused, as an int


def test_specs_that_are_not_zero_padding_never_refuse_wide_values():
    assert render("{n:5}#x", n=123456) == "123456#x"
    assert render("{n:0>5}#x", n=7) == "00007#x"
    assert render("{n:>5}#x", n=123456) == "123456#x"
    assert render("{n:0}#x", n=7) == "7#x"


def test_integer_specs_take_whole_decimals_and_floats():
    assert render("{n:05d}#x", n=7.0) == "00007#x"
    assert render("{n:05}#x", n=Decimal("7.0")) == "00007#x"
    assert render("{n:d}#x", n=7.0) == "7#x"
    assert render("{n:05}#x", n=0) == "00000#x"
    with pytest.raises(
        TemplateValueError, match=r"7.5 is not a whole number but the template pads it as an integer \(:05\)"
    ):
        render("{n:05}#x", n=7.5)


def test_other_specs_format_as_python_does():
    assert render("{n:.2f}#x", n=7.25) == "7.25#x"
    assert render("{n:f}#x", n=Decimal("7.5")) == "7.5#x"
    assert render("{s:5}#x", s="ab") == "ab   #x"
    assert render("{s:s}#x", s="ab") == "ab#x"  # a spec for strings only is accepted
    assert render("{s:>4s}#x", s="ab") == "  ab#x"
    assert render("{n:5}#x", n=-3) == "   -3#x"


def test_zero_padding_text_needs_ascii_digits():
    assert render("{s:05}#x", s="42") == "00042#x"
    with pytest.raises(TemplateValueError, match="cannot zero-pad non-digit text 'ab'"):
        render("{s:05}#x", s="ab")
    with pytest.raises(TemplateValueError, match="cannot zero-pad non-digit text"):
        render("{s:05}#x", s="\u0663")  # an Arabic-Indic digit


def test_zero_padding_refuses_booleans_and_negative_numbers():
    with pytest.raises(TemplateValueError, match="format spec :05 needs a number or string, got a boolean"):
        render("{b:05}#x", b=True)
    with pytest.raises(TemplateValueError, match="cannot zero-pad negative number -3"):
        render("{n:05}#x", n=-3)
    with pytest.raises(TemplateValueError, match="cannot zero-pad negative number -3"):
        render("{n:05}#x", n=Decimal("-3"))


def test_a_spec_that_fits_no_value_type_is_refused_when_rendering():
    with pytest.raises(TemplateValueError, match=r"format spec :s does not apply to 7"):
        render("{n:s}#x", n=7)


# --- parsing keys back --------------------------------------------------------------------------


def test_the_last_field_takes_the_rest_of_the_key():
    template = KeyTemplate("A#{a}#{b}")
    assert template.parse("A#x#y#z") == {"a": "x", "b": "y#z"}


def test_parse_keeps_each_field_of_three_and_repeated_fields():
    assert KeyTemplate("{a}#{b}#{c}").parse("x#y#z") == {"a": "x", "b": "y", "c": "z"}
    assert KeyTemplate("{a}#{a}").parse("x#x") == {"a": "x"}
    assert KeyTemplate("{a}#{a}#{a}").parse("x#x#x") == {"a": "x"}


def test_parse_reads_newlines_and_zero_padded_numbers():
    assert KeyTemplate("A#{a}").parse("A#x\ny") == {"a": "x\ny"}
    assert KeyTemplate("T#{n:05}#{s}").parse("T#00042#x") == {"n": 42, "s": "x"}


def test_parse_of_a_bare_field():
    assert KeyTemplate("{id}").parse("abc") == {"id": "abc"}
    assert KeyTemplate("{id}").parse(7) == {"id": 7}
    assert KeyTemplate("{id|upper}").parse("ABC") == {}


def test_parse_refuses_a_key_that_is_not_text():
    with pytest.raises(ValueError, match=r"key 7 is not a string; template 'A#\{a\}' composes strings"):
        KeyTemplate("A#{a}").parse(7)


def test_templates_are_equal_only_to_templates_of_the_same_text_and_units():
    assert KeyTemplate("{a}") == KeyTemplate("{a}")
    assert KeyTemplate("{a}") != "{a}"
    assert KeyTemplate("{a|year}", {"a": "epoch_ms"}) != KeyTemplate("{a|year}")


# --- syntax errors ------------------------------------------------------------------------------


def test_syntax_errors_carry_reason_text_and_position():
    with pytest.raises(TemplateSyntaxError) as empty:
        KeyTemplate('A#{""}')
    assert (empty.value.reason, empty.value.text, empty.value.position) == (
        "a quoted field name is empty",
        'A#{""}',
        3,
    )
    assert str(empty.value) == "a quoted field name is empty at position 3 in template 'A#{\"\"}'"
    with pytest.raises(TemplateSyntaxError) as unclosed:
        KeyTemplate('A#{"abc}')
    assert (unclosed.value.reason, unclosed.value.text, unclosed.value.position) == (
        "quoted field name is not closed with '\"'",
        'A#{"abc}',
        3,
    )


def syntax_error(source: str) -> TemplateSyntaxError:
    with pytest.raises(TemplateSyntaxError) as caught:
        KeyTemplate(source)
    assert caught.value.text == source
    return caught.value


@pytest.mark.parametrize(
    "source, reason, position",
    [
        ("A#{}", "a field needs an attribute name, as in {userId}", 2),
        ("A#{a|}", "'|' must be followed by a filter name", 4),
        ("A#{a:zz}", "format spec :zz formats no number or string; write e.g. :013 (zero-padded)", 5),
        ("A#{a b}", "unexpected 'b' in field (an attribute name holding it is quoted: {\"State#Date\"})", 5),
        (
            'A#{"a b"c}',
            "unexpected 'c' in field (an attribute name holding it is quoted: {\"State#Date\"})",
            8,
        ),
        ("A#{a:05", "field is not closed with '}'", 2),
        ("A#{a", "field is not closed with '}'", 2),
        ("a}b", "unmatched '}' (write '}}' for a literal brace)", 1),
    ],
)
def test_syntax_errors_name_the_reason_and_where(source, reason, position):
    error = syntax_error(source)
    assert (error.reason, error.position) == (reason, position)
    assert str(error) == f"{reason} at position {position} in template {source!r}"


def test_blanks_inside_a_field_are_skipped():
    assert render("A#{ a }#x", a="v") == "A#v#x"
    assert render("A#{  a|upper }", a="v") == "A#V"


def test_an_empty_spec_and_arguments_that_run_to_the_next_bar_or_brace():
    assert render("{a:}#x", a="v") == "v#x"
    assert render("{ts|format:%X}", ts=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == "03:04:05"
    assert render("{ts|format:%H:%M|lower}", ts=datetime(2026, 1, 2, 3, 4, tzinfo=UTC)) == "03:04"


def test_parse_keeps_the_template_text():
    assert parse("A#{a}").source == "A#{a}"
    assert parse("{{x}}").parts == (Literal("{x}"),)


# --- field values -------------------------------------------------------------------------------


def test_dotted_names_reach_into_maps():
    template = KeyTemplate("M#{caps.model}")
    assert template.render({"caps": {"model": "x1"}}) == "M#x1"
    assert template.render({"caps.model": "flat"}) == "M#flat"  # an attribute named so wins
    assert template.render({"caps": {"other": "x1"}}) is None
    assert template.render({"caps": "x1"}) is None
    assert KeyTemplate("M#{a.b.c}").render({"a": {"b": {"c": 7}}}) == "M#7"


def test_rfc3339_text_gets_its_attributes_one_spelling():
    ms = KeyTemplate("T#{t}", precisions={"t": ("ms", False)})
    assert ms.render({"t": "2024-01-15T10:30:00Z"}) == "T#2024-01-15T10:30:00.000Z"
    with pytest.raises(
        TemplateValueError, match="has 4 fraction digits but the attribute's precision is ms"
    ) as caught:
        ms.render({"t": "2024-01-15T10:30:00.1234Z"})
    assert (caught.value.field, caught.value.template) == ("t", "T#{t}")
    truncating = KeyTemplate("T#{t}", precisions={"t": ("ms", True)})
    assert truncating.render({"t": "2024-01-15T10:30:00.1234Z"}) == "T#2024-01-15T10:30:00.123Z"
    filtered = KeyTemplate("T#{t|lower}", precisions={"t": ("ms", False)})
    assert (
        filtered.render({"t": "2024-01-15T10:30:00Z"}) == "T#2024-01-15t10:30:00z"
    )  # a filter's input is left alone


def test_a_parameter_field_reads_the_unit_of_its_attribute():
    assert render("{:since|year}", {"since": "epoch_s"}, **{":since": 1_767_225_600}) == "2026"
    assert render("{:Xs|year}", {"Xs": "epoch_s"}, **{":Xs": 1_767_225_600}) == "2026"


def test_a_value_error_names_the_field_and_template():
    with pytest.raises(TemplateValueError) as caught:
        render("A#{n:05}", n=-1)
    assert (caught.value.field, caught.value.template) == ("n", "A#{n:05}")
    assert str(caught.value).endswith("(field {n} of template 'A#{n:05}')")


def test_an_unknown_filter_is_named_with_the_known_ones_and_where():
    error = syntax_error("{a|nop}#nop")
    assert error.position == 3
    assert error.reason.startswith(
        "unknown filter 'nop' (known: bool, date, day, epoch_ms, epoch_s, fold, format, hour, "
    )


def test_date_parts_do_not_depend_on_the_machines_time_zone(monkeypatch):
    moment = datetime(2025, 12, 31, 20, 0, tzinfo=UTC)  # 2026 already in Tokyo
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert render("{ts|year}", ts=moment) == "2025"
        assert render("{ts|format:%Y %H}", ts=moment) == "2025 20"
        assert render("{ts|rfc3339}", ts=moment) == "2025-12-31T20:00:00Z"
    finally:
        monkeypatch.undo()
        time.tzset()
