from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tablewright.design.templates import KeyTemplate, TemplateSyntaxError, TemplateValueError


def test_zero_padding_sensor_sort_key():
    t = KeyTemplate("{timestamp_ms:013}#{batch_id}")
    assert t.render({"timestamp_ms": 1704067800000, "batch_id": "b1"}) == "1704067800000#b1"
    assert t.render({"timestamp_ms": 5, "batch_id": "b"}) == "0000000000005#b"
    assert t.fields == ("timestamp_ms", "batch_id")


def test_bare_field_keeps_number_type():
    assert KeyTemplate("{timestamp}").render({"timestamp": 1733529600000}) == 1733529600000
    assert KeyTemplate("{v}").render({"v": Decimal("13.2")}) == Decimal("13.2")


def test_case_only_where_written():
    values = {"status": "In_Progress"}
    assert KeyTemplate("TASK#{status}").render(values) == "TASK#In_Progress"
    assert KeyTemplate("TASK#{status|upper}").render(values) == "TASK#IN_PROGRESS"
    assert KeyTemplate("task#{status|lower}").render(values) == "task#in_progress"


def test_fold_gives_every_spelling_of_a_name_one_key():
    fold = KeyTemplate("EMAIL#{email|fold}")
    spellings = ["Jos\u00e9@Example.com", "JOSE\u0301@EXAMPLE.COM", "jos\u00e9@example.com"]
    assert {fold.render({"email": text}) for text in spellings} == {"EMAIL#jos\u00e9@example.com"}
    assert fold.render({"email": "STRA\u00dfE@x.de"}) == fold.render({"email": "strasse@X.DE"})
    assert fold.render({"email": "\uff41\uff4e\uff4e@x.de"}) == "EMAIL#ann@x.de"  # full-width letters
    lower = KeyTemplate("EMAIL#{email|lower}")
    assert lower.render({"email": spellings[0]}) != lower.render({"email": spellings[1]})


def test_year_bucket_from_rfc3339_and_datetime():
    t = KeyTemplate("USER#{userId}#{startUtc|year}")
    assert t.render({"userId": "user_123", "startUtc": "2025-12-31T23:30:00Z"}) == "USER#user_123#2025"
    assert t.render({"userId": "u", "startUtc": datetime(2026, 1, 1, tzinfo=UTC)}) == "USER#u#2026"
    assert t.bucket_step("startUtc") == "year"


def test_epoch_number_needs_declared_unit():
    with pytest.raises(TemplateValueError, match="epoch_ms or epoch_s"):
        KeyTemplate("{ts|year}").render({"ts": 1704067800000})
    assert KeyTemplate("{ts|year}", {"ts": "epoch_ms"}).render({"ts": 1704067800000}) == "2024"


MT = "{ts|tz:America/Denver|format:%Y-%m-%d %H:%M:%S.%L}"


def test_mountain_time_sort_key():
    t = KeyTemplate(MT, {"ts": "epoch_ms"})
    # 2026-02-21 21:30:00.123 UTC is 14:30 MST (UTC-7)
    ms = int(datetime(2026, 2, 21, 21, 30, tzinfo=UTC).timestamp() * 1000) + 123
    assert t.render({"ts": ms}) == "2026-02-21 14:30:00.123"


def test_mountain_time_dst_fall_back_hour_repeats():
    # 2025-11-02: 01:30 MDT (07:30 UTC) and 01:30 MST (08:30 UTC) render the same wall clock:
    # the ADR-006 trade-off, where events of the repeated hour sort by wall clock.
    t = KeyTemplate(MT)
    first = t.render({"ts": datetime(2025, 11, 2, 7, 30, tzinfo=UTC)})
    second = t.render({"ts": datetime(2025, 11, 2, 8, 30, tzinfo=UTC)})
    assert first == second == "2025-11-02 01:30:00.000"
    later_first_hour = t.render({"ts": datetime(2025, 11, 2, 7, 59, tzinfo=UTC)})
    assert later_first_hour > second  # a true-earlier event sorts after a true-later one


def test_sc_id_hash():
    t = KeyTemplate("SC-{wireless_device_id|sha256:4|upper}")
    # first 4 bytes of SHA-256("b319d001-...") computed independently with hashlib
    import hashlib

    uuid = "b319d001-5f8e-4f1a-9c2d-1234567890ab"
    expected = "SC-" + hashlib.sha256(uuid.encode()).digest()[:4].hex().upper()
    assert t.render({"wireless_device_id": uuid}) == expected
    assert len(expected) == 11


def test_missing_field_is_sparse_and_prefix_stops_there():
    t = KeyTemplate("TASK#{status}#{priority}")
    assert t.render({"status": "TODO"}) is None
    assert t.render({"status": "TODO", "priority": None}) is None
    assert t.render_prefix({"status": "TODO"}) == "TASK#TODO#"
    assert t.render_prefix({}) == "TASK#"


def test_bool_and_shard_filters():
    assert (
        KeyTemplate("NOTE#{isPinned|bool:1,0}#{updatedAt}").render({"isPinned": False, "updatedAt": "x"})
        == "NOTE#0#x"
    )
    shard = KeyTemplate("{deviceId|shard:10}").render({"deviceId": "van-01"})
    assert isinstance(shard, int) and 0 <= shard < 10
    assert shard == KeyTemplate("{deviceId|shard:10}").render({"deviceId": "van-01"})


def test_parse_reverses_plain_and_padded_fields():
    t = KeyTemplate("{timestamp_ms:013}#{batch_id}")
    assert t.parse("1704067800000#AA:BB:CC:DD:EE:FF_x_1_2") == {
        "timestamp_ms": 1704067800000,
        "batch_id": "AA:BB:CC:DD:EE:FF_x_1_2",
    }
    nexus = KeyTemplate("USER#{userId}#{startUtc|year}")
    assert nexus.parse("USER#user_1#2025") == {"userId": "user_1"}
    assert not nexus.reversible and t.reversible
    with pytest.raises(ValueError, match="does not match"):
        t.parse("PLANT#1")


def test_syntax_errors_name_position():
    with pytest.raises(TemplateSyntaxError, match="not closed"):
        KeyTemplate("USER#{userId")
    with pytest.raises(TemplateSyntaxError, match="unknown filter 'uper'"):
        KeyTemplate("{status|uper}")
    assert KeyTemplate("{{literal}}#{a}").render({"a": "x"}) == "{literal}#x"


def test_negative_numbers_cannot_be_zero_padded():
    with pytest.raises(TemplateValueError, match="negative"):
        KeyTemplate("{n:05}#x").render({"n": -3})


@pytest.mark.parametrize("spec", ["zz", "q", "013z", ".2s3"])
def test_a_format_spec_that_formats_nothing_is_refused_when_the_design_loads(spec):
    with pytest.raises(TemplateSyntaxError, match=f"format spec :{spec} formats no number or string"):
        KeyTemplate(f"DEV#{{device:{spec}}}")


@pytest.mark.parametrize("spec", ["013", "05d", ">8", ".3f"])
def test_format_specs_for_numbers_or_strings_still_load(spec):
    KeyTemplate(f"DEV#{{device:{spec}}}")


def test_a_grouped_integer_spec_renders_a_stored_decimal_as_the_int_it_was_written_as():
    # Items read back from a table hold Decimal; the key they recompose must be the one written.
    for spec, text in ((",d", "N#1,234"), ("_d", "N#1_234"), ("08,d", "N#0,001,234")):
        template = KeyTemplate(f"N#{{n:{spec}}}")
        assert template.render({"n": 1234}) == text
        assert template.render({"n": Decimal("1234")}) == text
        assert template.render({"n": Decimal("1234.0")}) == text
        assert template.render({"n": 1234.0}) == text
    with pytest.raises(TemplateValueError, match=r"1.5 is not a whole number .* \(:,d\)"):
        KeyTemplate("N#{n:,d}").render({"n": Decimal("1.5")})


def test_a_bare_zero_padded_field_parses_back_to_its_number_as_a_prefixed_one_does():
    assert KeyTemplate("{n:05}").parse("00042") == {"n": 42}
    assert KeyTemplate("N#{n:05}").parse("N#00042") == {"n": 42}
    assert KeyTemplate("{n}").parse("00042") == {"n": "00042"}  # no spec: the text as it is
    with pytest.raises(ValueError, match="does not match template"):
        KeyTemplate("{n:05}").parse("4x")
