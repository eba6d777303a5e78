from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tablewright.design.predicates import Predicate, PredicateError

ITEM = {
    "userId": "u1",
    "status": "TODO",
    "priority": 2,
    "startUtc": "2025-12-31T10:00:00Z",
    "tags": {"work", "urgent"},
    "capabilities": {"features": {"tft_display": True}, "sensors": ["bme280", "ds18b20"]},
    "ratio": Decimal("0.5"),
}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("status = 'TODO'", True),
        ("status <> 'TODO'", False),
        ("status != 'DONE'", True),
        ("priority BETWEEN 1 AND 3", True),
        ("priority > 2", False),
        ("ratio < 1", True),
        ("status IN ('DONE', 'TODO')", True),
        ("begins_with(userId, 'u')", True),
        ("contains(tags, 'work')", True),
        ("contains(capabilities.sensors, 'bme280')", True),
        ("capabilities.features.tft_display = true", True),
        ("capabilities.sensors[1] = 'ds18b20'", True),
        ("dueUtc exists", False),
        ("dueUtc not exists", True),
        ("attribute_not_exists(dueUtc) AND exists(status)", True),
        ("NOT (status = 'TODO' OR priority = 9)", False),
        ("size(tags) = 2", True),
        ("missing = 'x' OR missing <> 'x'", False),  # comparisons with a missing attribute are false
        ("priority = '2'", False),  # different types never compare equal
    ],
)
def test_evaluate(text, expected):
    assert Predicate(text).evaluate(ITEM) is expected


def test_params_and_datetime_vs_rfc3339_string():
    p = Predicate("userId = :userId AND startUtc BETWEEN :from AND :to")
    params = {
        "userId": "u1",
        "from": datetime(2025, 12, 29, tzinfo=UTC),
        "to": datetime(2026, 1, 4, tzinfo=UTC),
    }
    assert p.evaluate(ITEM, params)
    assert not p.evaluate(ITEM, {**params, "to": datetime(2025, 12, 30, tzinfo=UTC)})
    assert p.params == {"userId", "from", "to"}
    assert p.attributes == {"userId", "startUtc"}
    with pytest.raises(KeyError, match=":userId"):
        p.evaluate(ITEM, {})


def test_and_binds_tighter_than_or():
    assert Predicate("status = 'X' AND priority = 9 OR priority = 2").evaluate(ITEM)
    assert not Predicate("status = 'X' AND (priority = 9 OR priority = 2)").evaluate(ITEM)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("status = ", "expected an attribute"),
        ("status 'x'", "expected a comparison"),
        ("a = 1 b = 2", "missing AND/OR"),
        ("a = @", "unexpected"),
    ],
)
def test_syntax_errors(text, fragment):
    with pytest.raises(PredicateError, match=fragment):
        Predicate(text)
