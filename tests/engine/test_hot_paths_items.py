"""The single-item shortcuts (issue 17 req 3) answer exactly as the general code they bypass.

Each shortcut is compared with the general path on generated values, errors included: validating an
item attribute by attribute (``validate_value_sized``), checking wire JSON types (``check_wire_json``)
and recognising canonical numbers (the regular expression).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tablewright.engine.errors import DynamoDBError
from tablewright.engine.types import (
    _CANONICAL,
    MAX_DIGITS,
    check_wire_json,
    is_canonical_number,
    validate_item_sized,
    validate_value_sized,
)
from tablewright.engine.validation import validate_request

odd_strings = st.one_of(
    st.text(max_size=6),
    st.sampled_from(["", "a", "é", "\ud800", "0", "007", "12", "1" * 39, "١٢", "²"]),
    st.sampled_from(["2.50", "3.0", "10.", "0.50", "-1.50", "1.500", "00.10", "-0.0", "5.0e1", ".50"]),
)
odd_payloads = st.one_of(
    odd_strings,
    st.integers(-5, 5),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False),
    st.lists(odd_strings, max_size=4),
    st.lists(st.one_of(odd_strings, st.integers(0, 3), st.none()), max_size=4),
    st.dictionaries(st.text(max_size=2), odd_strings, max_size=2),
)
odd_values = st.one_of(
    st.dictionaries(
        st.sampled_from(["S", "N", "SS", "NS", "BS", "B", "BOOL", "NULL", "X"]), odd_payloads, max_size=2
    ),
    odd_payloads,
)


def outcome(function: Any, *args: Any) -> Any:
    try:
        return ("ok", function(*args))
    except DynamoDBError as error:
        return (type(error).__name__, str(error))


def general_item(raw: dict) -> tuple[dict, int]:
    """validate_item_sized without its inline shortcuts: every attribute through validate_value_sized."""
    out, size = {}, 0
    for name, value in raw.items():
        out[name], value_size = validate_value_sized(value)
        size += len(name.encode("utf-8")) + value_size
    return out, size


@given(st.dictionaries(st.sampled_from(["a", "bb", "é", "x" * 20_000, "é" * 20_000]), odd_values, max_size=4))
def test_item_shortcuts_match_the_general_validation(raw: dict) -> None:
    assert outcome(validate_item_sized, raw) == outcome(general_item, raw)


@given(st.dictionaries(st.sampled_from(["a", "bb"]), odd_values, min_size=1, max_size=4))
def test_request_wire_check_matches_the_general_check(item: dict) -> None:
    def general() -> None:
        for value in item.values():
            check_wire_json(value)

    shortcut = outcome(validate_request, "PutItem", {"TableName": "tbl", "Item": item})
    expected = outcome(general)
    if expected[0] != "ok":  # a wrong JSON type is reported before anything else
        assert shortcut == expected
    else:
        assert shortcut[0] != "SerializationException"


@given(odd_payloads)
def test_integer_shortcut_agrees_with_the_canonical_form(text: Any) -> None:
    by_definition = (
        isinstance(text, str)
        and len(text) <= 40
        and _CANONICAL.fullmatch(text) is not None
        and text != "-0"
        and len(text.lstrip("-").replace(".", "").lstrip("0")) <= MAX_DIGITS
    )
    assert is_canonical_number(text) == by_definition
