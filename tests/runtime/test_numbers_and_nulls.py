"""Numbers as DynamoDB stores them, and None for attributes that may not be NULL, through the runtime
on the embedded engine: what the design's validation refuses, what is stored, what is read back."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablewright.migrate.io import decode, encode
from tablewright.runtime import Runtime, ValidationError

ROOT = Path(__file__).resolve().parents[2]
MESSAGE = {"thing_name": "van-01", "timestamp": 1733529600000, "message_type": "status"}


@pytest.fixture
def rt() -> Runtime:
    runtime = Runtime.open(ROOT / "examples" / "van-telemetry" / "design.yaml")
    runtime.create_tables()
    return runtime


KEY = {"thing_name": {"S": "van-01"}, "timestamp": {"N": "1733529600000"}}


def _stored(rt: Runtime) -> dict:
    """The stored item as DynamoDB holds it ({} when there is none)."""
    table = rt.design.table_of("Message").table_name
    return rt.client.get_item(TableName=table, Key=KEY).get("Item", {})


# Numbers DynamoDB stores though boto3's deserializer (38-digit context) refuses them read back.
STORABLE = [
    Decimal("1E+38"),
    10**38,
    Decimal("9.99E+125"),
    Decimal("9.9999999999999999999999999999999999999E+125"),
    Decimal("-1E+125"),
    Decimal("1E-130"),
    Decimal("1234567895171680000000000000000000000000"),
]


@pytest.mark.parametrize("number", STORABLE, ids=str)
def test_a_number_dynamodb_stores_is_read_back_exactly(rt: Runtime, number) -> None:
    rt.put("Message", {**MESSAGE, "glycol_temp": number, "extra": {"nested": [number], "set": {number, 1}}})
    got = rt.get("Message", thing_name="van-01", timestamp=1733529600000)
    assert got["glycol_temp"] == number and got["extra"] == {"nested": [number], "set": {number, 1}}
    assert (
        rt.run("latest_messages", thing_name="van-01", since=1733520000000).items[0]["glycol_temp"] == number
    )


@pytest.mark.parametrize(
    ("number", "said"),
    [
        (Decimal("NaN"), "is not a finite number"),
        (Decimal("-Infinity"), "is not a finite number"),
        (Decimal("1E+126"), "magnitude 1E+126"),
        (Decimal("1E-131"), "magnitude 1E-131"),
        (10**38 + 1, "39 significant digits"),
        (Decimal("1." + "1" * 40), "41 significant digits"),
    ],
    ids=str,
)
@pytest.mark.parametrize("where", ["declared", "nested", "undeclared"])
def test_a_number_dynamodb_cannot_store_is_a_validation_error_naming_it(
    rt: Runtime, number, said: str, where: str
) -> None:
    values = {
        "declared": {"glycol_temp": number},
        "nested": {"extra": {"readings": [1, number]}},
        "undeclared": {"odd": number},
    }[where]
    with pytest.raises(ValidationError) as refused:
        rt.put("Message", {**MESSAGE, **values})
    path = {"declared": "glycol_temp", "nested": "extra.readings[1]", "undeclared": "odd"}[where]
    message = str(refused.value)
    if where == "declared" and not Decimal(number).is_finite():
        said = "is not number: expected a finite int or Decimal"  # the attribute's type check says it
    assert path in message and said in message, message
    assert _stored(rt) == {}


def test_a_float_nested_in_a_map_is_refused_by_name(rt: Runtime) -> None:
    with pytest.raises(ValidationError, match=r"extra\.t.*is a float"):
        rt.put("Message", {**MESSAGE, "extra": {"t": 21.5}})


def test_nan_on_an_attribute_with_bounds_is_a_validation_error(rt: Runtime) -> None:
    with pytest.raises(ValidationError, match="battery_voltage"):
        rt.put("Message", {**MESSAGE, "battery_voltage": Decimal("NaN")})


@settings(max_examples=60, deadline=None)
@given(
    digits=st.integers(min_value=1, max_value=10**38 - 1),
    exponent=st.integers(min_value=-130 + 38, max_value=125 - 38),
)
def test_migrate_reads_and_writes_numbers_exactly(digits: int, exponent: int) -> None:
    number = Decimal(digits).scaleb(exponent)
    item = {"n": number, "s": {number}, "m": {"l": [number]}, "b": b"\x00\xff"}
    back = decode(encode(item))
    assert back == item


def test_none_for_an_attribute_that_may_not_be_null_is_not_stored(rt: Runtime) -> None:
    rt.put("Message", {**MESSAGE, "hvac_mode": None, "battery_voltage": None})
    stored = _stored(rt)
    assert "hvac_mode" not in stored and "battery_voltage" not in stored
    with pytest.raises(ValidationError, match="message_type is required"):
        rt.replace("Message", {**MESSAGE, "message_type": None})
    rt.update("Message", {"thing_name": "van-01", "timestamp": 1733529600000}, {"hvac_mode": "heat"})
    assert _stored(rt)["hvac_mode"] == {"S": "heat"}
    rt.update("Message", {"thing_name": "van-01", "timestamp": 1733529600000}, {"hvac_mode": None})
    assert "hvac_mode" not in _stored(rt)  # None on an update removes it; it is never NULL


@pytest.mark.parametrize(
    ("values", "path", "said"),
    [
        ({"message_type": "status", "note": "\ud800"}, "note", "lone surrogate at character 0"),
        ({"extra": {"k": ["ok", "a\udfffb"]}}, "extra.k[1]", "lone surrogate at character 1"),
        ({"extra": {"\ud800": 1}}, "extra", "lone surrogate"),
        ({"pdm1": {1: True}}, "pdm1", "map key 1 is not a string"),
    ],
    ids=["top-level", "nested", "map-key", "int-map-key"],
)
def test_text_dynamodb_refuses_is_a_validation_error_naming_it(rt: Runtime, values, path, said) -> None:
    with pytest.raises(ValidationError) as refused:
        rt.put("Message", {**MESSAGE, **values})
    assert f"Message.{path}: " in str(refused.value) and said in str(refused.value), str(refused.value)
    assert _stored(rt) == {}
