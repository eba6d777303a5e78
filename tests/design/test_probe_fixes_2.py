"""Design fixes a probe found: a TTL value that is not epoch seconds was stored and never expired,
and numbers with a fraction under ``samples:``/``examples:`` were rounded to a float's digits."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

import tablewright
from tablewright.design import loads
from tablewright.lint import lint_text
from tablewright.runtime import Runtime, ValidationError

SESSIONS = """\
version: 1
name: sessions
tables:
  sessions:
    partition_key: {{name: PK, type: S}}
    ttl: expires
entities:
  Session:
    table: sessions
    attributes:
      id: {{type: string, required: true}}
{expires}
    keys:
      table: {{pk: "SESSION#{{id}}"}}
"""
PLAIN_NUMBER = "      expires: {type: number}"
EPOCH_SECONDS = "      expires: {type: number, format: epoch_s, max: 99999999999999}"
COMPUTED = "      expires: {type: number, format: epoch_s, computed: {ttl: {retention: 30d}}}"
UNDECLARED = ""
SECONDS, MILLISECONDS = 1_737_028_800, 1_737_028_800_000  # 2025-01-16T12:00:00Z


def _ttl_messages(expires: str, value: object) -> list[str]:
    entity = loads(SESSIONS.format(expires=expires)).entities["Session"]
    return [v.message for v in entity.validate({"id": "s1", "expires": value}) if v.rule == "ttl"]


@pytest.mark.parametrize(
    "declared",
    [
        pytest.param(PLAIN_NUMBER, id="plain number"),
        pytest.param(EPOCH_SECONDS, id="epoch_s with its own range"),
        pytest.param(UNDECLARED, id="not declared"),
    ],
)
def test_a_ttl_value_in_milliseconds_is_refused_saying_why(declared: str) -> None:
    [message] = _ttl_messages(declared, MILLISECONDS)
    assert "it looks like milliseconds" in message and "reads epoch seconds" in message
    assert "never expire" in message
    assert _ttl_messages(declared, SECONDS) == []


@pytest.mark.parametrize("value", ["2025-01-16T12:00:00Z", True, {"at": SECONDS}])
def test_a_ttl_value_that_is_not_a_number_is_refused(value: object) -> None:
    [message] = _ttl_messages(UNDECLARED, value)
    assert "is not a Number" in message and "epoch seconds" in message


def test_the_runtime_refuses_to_store_a_ttl_in_milliseconds_naming_the_attribute() -> None:
    runtime = Runtime(loads(SESSIONS.format(expires=PLAIN_NUMBER)), tablewright.connect())
    runtime.create_tables()
    with pytest.raises(ValidationError) as refused:
        runtime.put("Session", {"id": "s1", "expires": MILLISECONDS})
    [violation] = refused.value.violations
    assert (violation.attribute, violation.rule) == ("expires", "ttl")
    runtime.put("Session", {"id": "s1", "expires": SECONDS})
    assert runtime.get("Session", id="s1")["expires"] == SECONDS


def test_a_computed_ttl_is_left_to_its_own_check() -> None:
    # Computed from the write time, it is never the caller's value; an update re-validates the
    # stored item, which must not be refused for a TTL the design computed.
    assert _ttl_messages(COMPUTED, MILLISECONDS) == []
    entity = loads(SESSIONS.format(expires=COMPUTED)).entities["Session"]
    item = entity.to_item({"id": "s1"}, now=datetime(2025, 1, 16, 12, tzinfo=UTC))
    assert item["expires"] == SECONDS + 30 * 86400


def test_an_epoch_ms_ttl_attribute_is_a_lint_error() -> None:
    text = SESSIONS.format(expires="      expires: {type: number, format: epoch_ms}")
    [finding] = [f for f in lint_text(text, "s.yaml") if f.rule == "TW501"]
    assert finding.severity == "error" and "milliseconds" in finding.message


EXACT = """\
version: 1
name: exact
tables:
  readings:
    partition_key: {name: device, type: S}
    sort_key: {name: at, type: N}
entities:
  Reading:
    table: readings
    attributes: {device: string, at: number, value: number}
patterns:
  reading_at:
    params: {device: string, at: number}
    returns: Reading
    means: {where: "device = :device AND at = :at"}
    served: {op: get}
    examples: [{device: d1, at: 1.0000000000000001}]
samples:
  Reading:
    - {device: d1, at: 1.0000000000000001, value: 1234567890.123456789, nested: {deep: [0.1000000000000000055]}}
volumes:
  peak_factor: 2.5
"""


def test_numbers_in_samples_and_examples_keep_every_digit_written() -> None:
    design = loads(EXACT)
    [sample] = design.samples["Reading"]
    assert sample["at"] == Decimal("1.0000000000000001")
    assert sample["value"] == Decimal("1234567890.123456789")
    assert sample["nested"]["deep"] == [Decimal("0.1000000000000000055")]
    assert design.patterns["reading_at"].examples == ({"device": "d1", "at": Decimal("1.0000000000000001")},)
    assert design.volumes.peak_factor == 2.5  # settings are quantities: a float is exact enough


def test_the_example_finds_the_sample_it_was_written_for() -> None:
    runtime = Runtime(loads(EXACT), tablewright.connect())
    runtime.create_tables()
    runtime.put_many("Reading", loads(EXACT).samples["Reading"])
    [example] = loads(EXACT).patterns["reading_at"].examples
    [found] = runtime.run("reading_at", example)
    assert found["value"] == Decimal("1234567890.123456789")


@pytest.mark.parametrize(
    "number",
    ["1.0000000000000001", "-0.5", "1.50", "1E-130", "-1.5E-7", "1.2345678901234567890123456789E+28"],
)
def test_decimal_text_reads_back_as_the_same_number(number: str) -> None:
    from tablewright.design.yamlsource import decimal_text, exact_decimal  # added with this fix

    text = decimal_text(Decimal(number))
    assert exact_decimal(text) == Decimal(number)
    [sample] = loads(EXACT.replace("1234567890.123456789", text)).samples["Reading"]
    assert sample["value"] == Decimal(number)  # and so does the loader, under samples:
