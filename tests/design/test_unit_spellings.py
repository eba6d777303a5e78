"""Units of time in rates and durations are matched whole from one table: ``ms`` and a capital ``M`` are
refused instead of read as minutes, a zero period is refused instead of dividing by it, and a bare
(or quoted) number is a duration in seconds, as docs/design-file.md says."""

from __future__ import annotations

import pytest

from tablewright.design import DesignError, loads
from tablewright.design.units import parse_duration, parse_rate

DESIGN = """\
version: 1
name: shop
tables:
  shop: {partition_key: PK, sort_key: SK}
entities:
  Order:
    table: shop
    attributes:
      order_id: {type: string, required: true}
      placed_ms: {type: number, format: epoch_ms}
      expires: {type: number, computed: {ttl: {from: placed_ms, unit: ms, retention: %s}}}
    keys:
      table: {pk: "ORDER#{order_id}", sk: "ORDER"}
volumes:
  entities:
    Order: {items: 100, item_size: 300, writes: %s}
"""


def _problems(retention: str, writes: str) -> str:
    with pytest.raises(DesignError) as refused:
        loads(DESIGN % (retention, writes), "shop.yaml")
    return str(refused.value)


@pytest.mark.parametrize(
    ("rate", "per_second"),
    [("7200/hrs", 2.0), ("730/mo", 1 / 3600), ("1209600/wks", 2.0), ("2/yrs", 2 / (365 * 86_400))],
)
def test_rate_units_are_read_whole_from_the_table(rate: str, per_second: float) -> None:
    assert parse_rate(rate) == pytest.approx(per_second)
    # Case does not matter, except for a capital M (below).
    assert parse_rate(rate.upper()) == pytest.approx(per_second)


@pytest.mark.parametrize(
    ("rate", "said"),
    [
        ("10/ms", "milliseconds are not a unit here"),
        ("1000/M", "'M' is not a unit of time"),
        ("100/0min", "must be longer than zero"),
        ("100/0s", "must be longer than zero"),
        ("5/parsec", "unknown unit of time 'parsec'"),
        ("10/", "is not a period"),
    ],
)
def test_rates_with_a_period_that_is_not_a_time_are_refused(rate: str, said: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_rate(rate)
    assert said in str(refused.value) and repr(rate) in str(refused.value)


@pytest.mark.parametrize(
    ("duration", "seconds"),
    [("3600", 3600), (" 3600 ", 3600), ("0", 0), ("1.5", None), ("2 hrs", 7200)],
)
def test_a_bare_duration_is_whole_seconds(duration: str, seconds: int | None) -> None:
    if seconds is None:  # a fraction of a second cannot be carried: refused, not cut to 1
        with pytest.raises(ValueError, match="not a whole number of seconds"):
            parse_duration(duration)
    else:
        assert parse_duration(duration) == seconds


@pytest.mark.parametrize(
    ("duration", "said"),
    [
        ("30ms", "milliseconds are not a unit here"),
        ("2M", "'M' is not a unit of time"),
        ("0.5s", "not a whole number of seconds"),
        (-5, "cannot be negative"),
    ],
)
def test_durations_that_are_not_whole_seconds_are_refused(duration: object, said: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_duration(duration)
    assert said in str(refused.value)


def test_a_quoted_retention_in_seconds_loads_as_those_seconds() -> None:
    design = loads(DESIGN % ('"3600"', "2/min"), "shop.yaml")
    assert design.entities["Order"].attributes["expires"].computed.retention_seconds == 3600
    assert design.volumes.entities["Order"].writes_per_second == pytest.approx(2 / 60)


def test_a_design_with_ms_or_a_zero_period_is_refused_where_it_is_written() -> None:
    text = _problems("30ms", "100/0min")
    assert "shop.yaml:11:" in text and "'30ms': milliseconds are not a unit here" in text
    assert "shop.yaml:16:" in text and "'100/0min' is not a rate" in text
    assert "shop.yaml:16:" in (minutes_or_months := _problems("30d", "1000/M"))
    assert "'1000/M': 'M' is not a unit of time" in minutes_or_months
