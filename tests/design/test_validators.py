from decimal import Decimal

import pytest

from tablewright.design.entities import Attribute, Entity


def rules(attr: Attribute, value) -> list[str]:
    return [rule for _, rule, _ in attr.validate(value)]


@pytest.mark.parametrize(
    "value, ok",
    [
        ("550e8400-e29b-41d4-a716-446655440000", True),
        ("7c9e6679-7425-40de-944b-e07fc1f90ae7", True),
        ("550e8400-e29b-11d4-a716-446655440000", False),  # version 1
        ("550e8400-e29b-41d4-c716-446655440000", False),  # variant 110 (Microsoft), not RFC 4122
        ("550e8400e29b41d4a716446655440000", False),
    ],
)
def test_uuid4_version_and_variant_bits(value, ok):
    assert (rules(Attribute("id", format="uuid4"), value) == []) is ok


@pytest.mark.parametrize(
    "value, ok",
    [
        ("AA:BB:CC:DD:EE:FF", True),
        ("aa:bb:cc:dd:ee:ff", False),
        ("AA-BB-CC-DD-EE-FF", False),
        ("AA:BB:CC:DD:EE", False),
    ],
)
def test_mac(value, ok):
    assert (rules(Attribute("hw", format="mac"), value) == []) is ok


@pytest.mark.parametrize(
    "value, ok",
    [
        ("2024-01-15T10:30:00Z", True),
        ("2024-01-15T10:30:00.123Z", True),
        ("2024-01-15T10:30:00+02:00", False),  # must be UTC
        ("2024-02-30T10:30:00Z", False),  # not a real date
        ("2024-01-15 10:30:00Z", False),
    ],
)
def test_rfc3339_utc(value, ok):
    assert (rules(Attribute("t", format="rfc3339"), value) == []) is ok


def test_epoch_bounds_and_unit_mixups():
    ms, s = Attribute("t", "number", format="epoch_ms"), Attribute("t", "number", format="epoch_s")
    assert rules(ms, 1704067800000) == []
    assert rules(s, 1707235320) == []
    [(_, rule, message)] = s.validate(1736208000000)  # the van seed's TTL in milliseconds
    assert rule == "format" and "looks like milliseconds" in message
    assert "looks like seconds" in ms.validate(1704067800)[0][2]
    assert rules(ms, -1) == ["format"]
    assert (
        rules(Attribute("t", "number", format="epoch_s", min=0), 5) == []
    )  # declared range replaces the default


@pytest.mark.parametrize(
    "value, ok", [("America/New_York", True), ("UTC", True), ("EST", False), ("Mars/Olympus", False)]
)
def test_iana_tz(value, ok):
    assert (rules(Attribute("tz", format="iana_tz"), value) == []) is ok


def test_enum_pattern_range_length_charset_prefix():
    assert rules(Attribute("s", enum=("ok", "error")), "bad") == ["enum"]
    assert rules(Attribute("n", "number", min=0, max=20), 21) == ["max"]
    assert rules(Attribute("b", max_length=3, charset="safe_ascii"), "ab:cd") == ["max_length", "charset"]
    assert (
        rules(Attribute("id", prefix="evt_", format="uuid4"), "evt_550e8400-e29b-41d4-a716-446655440000")
        == []
    )
    assert rules(
        Attribute("id", prefix="evt_", format="uuid4"), "task_550e8400-e29b-41d4-a716-446655440000"
    ) == ["prefix"]
    assert rules(Attribute("x", pattern="^v\\d+$"), "w1") == ["pattern"]


def test_types_reject_float_and_empty_sets():
    assert rules(Attribute("n", "number"), 1.5) == ["type"]
    assert rules(Attribute("n", "number"), Decimal("1.5")) == []
    assert rules(Attribute("n", "number"), True) == ["type"]
    assert rules(Attribute("tags", "string_set"), set()) == ["type"]
    assert rules(Attribute("tags", "string_set"), {"a"}) == []


def test_nested_map_and_list_paths():
    caps = Attribute(
        "capabilities",
        "map",
        attributes={
            "sensors": Attribute(
                "sensors", "list", required=True, items=Attribute("s", enum=("bme280", "ds18b20"))
            ),
            "features": Attribute("features", "map", values=Attribute("f", "boolean")),
        },
    )
    found = caps.validate({"sensors": ["bme280", "nope"], "features": {"tft_display": "yes"}})
    assert [(p, r) for p, r, _ in found] == [
        ("capabilities.sensors[1]", "enum"),
        ("capabilities.features.tft_display", "type"),
    ]
    assert [r for _, r, _ in caps.validate({})] == ["required"]


def test_entity_validate_names_entity_attribute_rule():
    entity = Entity(
        "Device",
        "devices",
        attributes={
            "hardware_id": Attribute("hardware_id", required=True, format="mac"),
            "name": Attribute("name"),
        },
        additional_attributes=False,
    )
    found = entity.validate({"hardware_id": "zz", "extra": 1})
    assert {(v.entity, v.attribute, v.rule) for v in found} == {
        ("Device", "hardware_id", "format"),
        ("Device", "extra", "unknown"),
    }
    assert [v.rule for v in entity.validate({})] == ["required"]
