"""Attribute names DynamoDB allows but bare template fields cannot hold, written as quoted fields."""

from __future__ import annotations

import pytest

from tablewright.design import loads
from tablewright.design.templates import KeyTemplate, TemplateSyntaxError, field_source, quote_name

ODD_NAMES = ["State#Date", "Reading Notes", "ns:id", "a.b", "1stPlace", "Größe", 'say "hi"']


@pytest.mark.parametrize("name", ODD_NAMES)
def test_quoted_field_renders_and_parses_back(name: str) -> None:
    template = KeyTemplate(f"X#{field_source(name)}")
    assert template.fields == (name,)
    assert template.render({name: "v#1"}) == "X#v#1"
    assert template.parse("X#v#1") == {name: "v#1"}


def test_plain_names_stay_bare() -> None:
    assert quote_name("userId") == "userId"
    assert field_source("State#Date") == '{"State#Date"}'
    assert KeyTemplate('{"userId"}') == KeyTemplate('{"userId"}')
    assert KeyTemplate('{"userId"}').render({"userId": 7}) == 7  # a bare field keeps its type


def test_quoted_field_takes_filters() -> None:
    assert KeyTemplate('{"sensor id"|upper}').render({"sensor id": "ab"}) == "AB"


@pytest.mark.parametrize(
    ("source", "reason"),
    [('{""}', "empty"), ('{"abc}', "not closed"), ("{State#Date}", "quoted")],
)
def test_malformed_fields_say_what_is_wrong(source: str, reason: str) -> None:
    with pytest.raises(TemplateSyntaxError, match=reason):
        KeyTemplate(source)


DESIGN = """
version: 1
name: odd
tables:
  readings:
    partition_key: StationId
    sort_key: {name: "State#Date", type: S}
entities:
  Reading:
    table: readings
    attributes:
      StationId: string
      "State#Date": string
      "Reading Notes": string
"""


def test_a_key_attribute_with_hash_gets_a_working_default_template() -> None:
    design = loads(DESIGN, "odd.yaml")
    entity = design.entities["Reading"]
    item = entity.to_item({"StationId": "ST-1", "State#Date": "WA#2024-03-01", "Reading Notes": "x"})
    assert item["State#Date"] == "WA#2024-03-01"


def test_a_quoted_field_in_a_written_key_template() -> None:
    design = loads(
        DESIGN + """    keys: {table: {pk: '{StationId}', sk: 'D#{"State#Date"}'}}\n""", "odd.yaml"
    )
    item = design.entities["Reading"].to_item({"StationId": "1", "State#Date": "WA#1"})
    assert item["State#Date"] == "D#WA#1"
